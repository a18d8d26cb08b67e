#include "kernel_settings.hpp"

#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "config.hpp"

namespace tierd {

namespace {

constexpr const char* kNumaBalancing = "/proc/sys/kernel/numa_balancing";
constexpr const char* kDemotionEnabled = "/sys/kernel/mm/numa/demotion_enabled";
constexpr const char* kPromoteRateLimit = "/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps";

// What a knob should be set to, or nullopt for "keep".
struct Desired {
  const char* knob;
  const char* path;
  std::optional<std::string> value;
};

// With kernel_tiering = "own" tierd decides every move, so the kernel's own
// promotion and demotion are turned off. The one exception is the hint-fault
// heat source (bpf-fault): it needs NUMA balancing to scan, so the mode becomes
// 2 with a promotion rate limit of 0, which holds kernel promotion off only
// while the fast node is short of free memory (environment.md, measured);
// kernel promotions that still happen are counted and reported.
std::vector<Desired> desired(const Config& config) {
  std::optional<std::string> balancing, demotion, rate_limit;
  if (config.numa_balancing) balancing = std::to_string(*config.numa_balancing);
  if (config.demotion_enabled) demotion = *config.demotion_enabled ? "true" : "false";
  if (config.kernel_tiering == KernelTiering::own) {
    demotion = "false";
    if (config.heat_source == "bpf-fault") {
      balancing = "2";
      rate_limit = "0";
    } else {
      balancing = "0";
    }
  }
  return {{"numa_balancing", kNumaBalancing, balancing},
          {"demotion_enabled", kDemotionEnabled, demotion},
          {"numa_balancing_promote_rate_limit_MBps", kPromoteRateLimit, rate_limit}};
}

// Writes one value; false (errno kept) when the kernel refuses it.
bool write_knob(const std::filesystem::path& file, const std::string& value) {
  std::ofstream out(file);
  out << value << "\n";
  out.flush();
  return static_cast<bool>(out);
}

}  // namespace

KernelSettings::KernelSettings(tier::SysRoot root) : root_(std::move(root)) {}

std::vector<std::string> KernelSettings::adopt(const boost::json::value& saved) {
  std::vector<std::string> problems;
  const boost::json::object* knobs = saved.if_object();
  if (knobs == nullptr) return problems;
  for (const auto& [name, entry] : *knobs) {
    const boost::json::object* object = entry.if_object();
    const boost::json::value* path = object ? object->if_contains("path") : nullptr;
    const boost::json::value* original = object ? object->if_contains("original") : nullptr;
    const boost::json::value* applied = object ? object->if_contains("applied") : nullptr;
    if (path == nullptr || !path->is_string() || original == nullptr || !original->is_string() ||
        applied == nullptr || !applied->is_string()) {
      problems.push_back("state: kernel setting '" + std::string(name) +
                         "' is malformed and cannot be restored");
      continue;
    }
    changes_[std::string(name)] = {std::string(path->get_string()),
                                   std::string(original->get_string()),
                                   std::string(applied->get_string())};
  }
  return problems;
}

std::optional<std::string> KernelSettings::set(const std::string& knob, const std::string& path,
                                               const std::string& value,
                                               std::vector<std::string>* log) {
  std::optional<std::string> current = root_.read(path);
  if (!current) return knob + ": " + path + " is not readable on this kernel; left alone";
  auto found = changes_.find(knob);
  if (found != changes_.end() && found->second.applied == value && *current == value) {
    return std::nullopt;  // already as asked
  }
  // The first write records the original, persisted before the knob
  // changes; later ones keep it.
  const bool first = found == changes_.end();
  if (first) {
    changes_[knob] = {path, *current, value};
    if (record_) record_();
  }
  if (!write_knob(root_.path(path), value)) {
    const int error = errno;
    if (first) changes_.erase(knob);  // nothing changed: nothing to restore
    return knob + ": writing '" + value + "' to " + path + " failed: " + std::strerror(error);
  }
  if (!first) found->second.applied = value;
  if (log) log->push_back(knob + ": " + *current + " -> " + value + " (" + path + ")");
  return std::nullopt;
}

std::optional<std::string> KernelSettings::restore(const std::string& knob,
                                                   std::vector<std::string>* log) {
  auto found = changes_.find(knob);
  if (found == changes_.end()) return std::nullopt;
  const KernelChange change = found->second;
  if (!write_knob(root_.path(change.path), change.original)) {
    return knob + ": restoring '" + change.original + "' to " + change.path +
           " failed: " + std::strerror(errno);
  }
  changes_.erase(found);
  if (log) log->push_back(knob + ": restored " + change.original + " (" + change.path + ")");
  return std::nullopt;
}

std::vector<std::string> KernelSettings::apply(const Config& config,
                                               std::vector<std::string>* log) {
  std::vector<std::string> problems;
  for (const Desired& want : desired(config)) {
    std::optional<std::string> problem =
        want.value ? set(want.knob, want.path, *want.value, log) : restore(want.knob, log);
    if (problem) problems.push_back(*problem);
  }
  return problems;
}

std::vector<std::string> KernelSettings::restore_all(std::vector<std::string>* log) {
  std::vector<std::string> problems;
  std::vector<std::string> knobs;
  for (const auto& [knob, change] : changes_) knobs.push_back(knob);
  for (const std::string& knob : knobs) {
    if (auto problem = restore(knob, log)) problems.push_back(*problem);
  }
  return problems;
}

boost::json::object KernelSettings::to_json() const {
  boost::json::object out;
  for (const auto& [knob, change] : changes_) {
    out[knob] = {{"path", change.path}, {"original", change.original}, {"applied", change.applied}};
  }
  return out;
}

}  // namespace tierd
