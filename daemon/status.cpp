// What `status` answers and what `make run` prints each tick.
#include <unistd.h>
#include <boost/json.hpp>
#include <cstdio>
#include <ctime>
#include <set>

#include "daemon.hpp"
#include "tier/version.hpp"

namespace tierd {

namespace {

std::string gib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1fG", static_cast<double>(bytes) / (1ULL << 30));
  return text;
}

}  // namespace

std::string Daemon::summary() const {
  return std::to_string(topology_->nodes().size()) + " node(s), " +
         std::to_string(registry_.workloads().size()) + " workload(s), policy " + policy_name_ +
         (paused_ ? " (paused)" : "");
}

std::string Daemon::serving_status(const std::string& note) const {
  std::string text = "serving on " + server_->path() + "; " + summary();
  if (!note.empty()) text += "; " + note;
  return text;
}

boost::json::object Daemon::discovery_json() const {
  const Registry::DiscoveryCounts& counts = registry_.discovery_counts();
  return {{"mode", to_string(config_.discover)},
          {"active", config_.discover != DiscoverMode::off && !discovery_idle()},
          {"idle_reason", discovery_idle() ? one_tier_note_ : std::string()},
          {"min_bytes", config_.discover_min_bytes},
          {"by_cgroup", counts.by_cgroup},
          {"processes", counts.processes},
          {"cgroups", counts.cgroups},
          {"found", counts.found}};
}

boost::json::value Daemon::status_json(bool all_workloads) const {
  namespace json = boost::json;
  std::map<std::string, std::uint64_t> by_class{{"online", 0}, {"offline", 0}, {"default", 0}};
  for (const Workload& workload : registry_.workloads())
    ++by_class[to_string(workload.workload_class)];
  json::array nodes;
  if (memory_) {
    std::set<unsigned> placeable;
    for (const tier::policy::NodeState& state : node_states()) placeable.insert(state.node);
    for (const tier::NodeMemory& node : memory_->nodes) {
      const tier::Node* known = topology_->node(node.node);
      nodes.push_back({{"id", node.node},
                       {"tier", known ? known->tier : 0},
                       {"total_bytes", node.total_bytes},
                       {"free_bytes", node.free_bytes},
                       {"placeable", placeable.contains(node.node)}});
    }
  }
  json::object last_reload;
  if (last_reload_) {
    last_reload = {{"ok", last_reload_->ok},
                   {"message", last_reload_->message},
                   {"unix_s", last_reload_->unix_s}};
  }
  json::object kernel;
  for (const auto& [knob, change] : kernel_.changes()) {
    kernel[knob] = {{"original", change.original}, {"applied", change.applied}};
  }
  const double uptime =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  json::object result{
      {"daemon", "tierd"},
      {"version", tier::kVersion},
      {"pid", ::getpid()},
      {"state", paused_ ? "paused" : "running"},
      {"uptime_s", uptime},
      {"paused", paused_},
      {"config",
       {{"origin", options_.origin()},
        {"socket", server_->path()},
        {"state", config_.state_path},
        {"metrics", metrics_->address() ? metrics_->address()->to_string() : "off"},
        {"log_level", config_.log_level},
        {"epoch_ms", config_.epoch_ms},
        {"tick_ms", config_.tick_ms}}},
      {"policy",
       {{"name", policy_name_},
        {"ticks", ticks_},
        {"last_tick_ms", last_tick_ms_},
        {"planned_moves", planned_moves_},
        {"idle_reason", one_tier_note_}}},
      {"epochs", epochs_},
      {"workloads",
       {{"count", registry_.workloads().size()},
        {"online", by_class["online"]},
        {"offline", by_class["offline"]},
        {"default", by_class["default"]},
        {"dropped_total", dropped_total_}}},
      {"discovery", discovery_json()},
      {"nodes", std::move(nodes)},
      {"topology_changes", topology_changes_},
      {"last_topology_change", topology_change_json()},
      {"kernel", std::move(kernel)},
      {"placement", placement_json(all_workloads)},
      {"residency_scans",
       {{"scans", residency_scans_},
        {"seconds", residency_scan_seconds_},
        {"duty", kResidencyDuty},
        {"stale", residency_stale_.size()}}},
      {"connections", server_->connections()},
      {"clients",
       {{"connections", server_->connections()},
        {"max_connections", server_->max_connections()},
        {"fd_limit", fd_limit_},
        {"displaced", server_->client_counts().displaced},
        {"refused", server_->client_counts().refused},
        {"accept_errors", server_->client_counts().accept_errors}}},
      {"last_reload", last_reload_ ? json::value(std::move(last_reload)) : json::value(nullptr)},
      {"state_file", state_file_json()}};
  if (!state_error_.empty()) result["state_error"] = state_error_;
  return result;
}

// One line per tick: enough to watch a run without tierctl.
std::string Daemon::status_line() const {
  char clock[16];
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  std::strftime(clock, sizeof clock, "%H:%M:%S", &local);
  char tick[64];
  std::snprintf(tick, sizeof tick, "%.3f", last_tick_ms_);
  std::string line = std::string("tierd ") + clock + " tick " + std::to_string(ticks_) +
                     " | policy " + policy_name_ + (paused_ ? " (paused)" : "") + " " + tick +
                     " ms, " + std::to_string(planned_moves_) + " moves | workloads " +
                     std::to_string(registry_.workloads().size()) + " (" +
                     std::to_string(dropped_total_) + " dropped) |";
  if (memory_) {
    for (const tier::NodeMemory& node : memory_->nodes) {
      line += " node" + std::to_string(node.node) + " free " + gib(node.free_bytes) + "/" +
              gib(node.total_bytes);
    }
  }
  return line;
}

}  // namespace tierd
