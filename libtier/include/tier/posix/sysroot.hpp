// SysRoot: the one place every /sys and /proc read goes through.
//
// Contract: paths are given as absolute kernel paths ("/sys/devices/system/node");
// SysRoot maps them under its root directory. The default root is "/", the live
// system. Tests and `tierctl --root DIR` point it at a gathered sysfs tree, so
// the whole topology/stats layer runs against fixtures. Reads never throw: a
// missing or unreadable file is std::nullopt, which callers treat as "unknown".
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tier {

class SysRoot {
 public:
  /// Root "/" reads the live system.
  explicit SysRoot(std::filesystem::path root = "/");

  const std::filesystem::path& root() const { return root_; }
  /// True when reads go to the live system rather than a gathered tree.
  bool is_live() const { return live_; }

  /// Maps an absolute kernel path ("/sys/...") under the root.
  std::filesystem::path path(std::string_view kernel_path) const;

  bool exists(std::string_view kernel_path) const;
  /// Whether process `pid` exists (a zombie does): on the live system by
  /// kill(pid, 0), which costs no procfs lookup (tierd asks it of thousands
  /// of processes every epoch), else whether /proc/PID is in the tree.
  bool process_exists(int pid) const;
  /// Whole file with trailing whitespace removed; nullopt when unreadable.
  std::optional<std::string> read(std::string_view kernel_path) const;
  /// Whole file as bytes, untouched (binary tables); nullopt when unreadable.
  std::optional<std::vector<std::uint8_t>> read_bytes(std::string_view kernel_path) const;
  /// First integer in the file (decimal); nullopt when unreadable or not a number.
  std::optional<std::int64_t> read_int(std::string_view kernel_path) const;
  /// Names of the entries of a directory, sorted; empty when it does not exist.
  std::vector<std::string> list(std::string_view kernel_dir) const;
  /// Target of a symlink resolved relative to the root (as a kernel path),
  /// or nullopt when kernel_path is not a symlink.
  std::optional<std::string> resolve_link(std::string_view kernel_path) const;

 private:
  std::filesystem::path root_;
  bool live_;
};

/// Numeric suffixes of directory entries named PREFIX<N> ("node3" -> 3), sorted.
std::vector<unsigned> numbered_entries(const SysRoot& root, std::string_view dir,
                                       std::string_view prefix);

}  // namespace tier
