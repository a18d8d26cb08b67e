// The kernel settings tierd changes ([kernel] in the config) and their
// restoration. Every value tierd writes is recorded with the value it found;
// stop, reload (a knob back to "keep") and crash recovery (the originals are
// kept in state.json and adopted by the next start) put the original back.
//
// Contract: all file access goes through the SysRoot (tests point it at a
// temporary tree). Nothing throws: a knob this kernel lacks or a write the
// kernel refuses is returned as a problem text and the knob is left alone.
#pragma once

#include <boost/json/value.hpp>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tier/posix/sysroot.hpp"

namespace tierd {

struct Config;

struct KernelChange {
  std::string path;      // kernel path, e.g. /proc/sys/kernel/numa_balancing
  std::string original;  // the value found before tierd first wrote it
  std::string applied;   // the value tierd wrote
};

class KernelSettings {
 public:
  explicit KernelSettings(tier::SysRoot root);

  /// Takes the originals a previous tierd recorded (state.json's "kernel"
  /// object) so a restart after a crash restores what the machine had before
  /// tierd first ran. Malformed entries are skipped and returned as problems.
  std::vector<std::string> adopt(const boost::json::value& saved);

  /// Writes what the config asks for; knobs no longer asked for are restored.
  /// Returns problems (missing knob, refused write); `log` gets one line per
  /// value written.
  std::vector<std::string> apply(const Config& config, std::vector<std::string>* log = nullptr);

  /// Called after a knob's original is recorded and before tierd first
  /// writes that knob (the daemon saves state.json there): a tierd killed
  /// right after the write leaves the original for the next start.
  void on_first_write(std::function<void()> record) { record_ = std::move(record); }

  /// Restores every original; returns problems. Knobs restored are forgotten.
  std::vector<std::string> restore_all(std::vector<std::string>* log = nullptr);

  /// {"numa_balancing":{"path","original","applied"}, ...}: status and state.
  boost::json::object to_json() const;
  const std::map<std::string, KernelChange>& changes() const { return changes_; }

 private:
  std::optional<std::string> set(const std::string& knob, const std::string& path,
                                 const std::string& value, std::vector<std::string>* log);
  std::optional<std::string> restore(const std::string& knob, std::vector<std::string>* log);

  tier::SysRoot root_;
  std::map<std::string, KernelChange> changes_;  // by knob name
  std::function<void()> record_;
};

}  // namespace tierd
