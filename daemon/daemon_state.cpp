// The daemon's state file: recovered at start (a damaged file kept aside
// and reported), saved after every change, its outcome in status.
#include <boost/json.hpp>
#include <filesystem>

#include "daemon.hpp"
#include "log.hpp"
#include "unix_clock.hpp"
#include "workloads/state_file.hpp"

namespace tierd {

// state.json: {"version":1,"workloads":[...],"kernel":{...},"paused":b,
// "policy":{"name","params"}}. A damaged file is kept aside as PATH.bad and
// tierd starts without it rather than refusing to start.
void Daemon::recover_state() {
  remove_stale_temporaries();
  std::optional<boost::json::value> state;
  try {
    state = read_state_file(config_.state_path);
    if (state && !state->is_object()) {
      throw StateFileError("state file " + config_.state_path + " is not a JSON object");
    }
  } catch (const StateFileError& e) {
    keep_damaged_state(e.what());
    return;
  }
  if (!state) {
    log::info() << "state: no " << config_.state_path << " yet (first start)";
    return;
  }
  state_note_.found = "loaded";
  const boost::json::object* object = state->if_object();
  if (const boost::json::value* kernel = object->if_contains("kernel")) {
    log::warn_lines(kernel_.adopt(*kernel), "");
    for (const auto& [knob, change] : kernel_.changes()) {
      log::info() << "state: " << knob << " was set to " << change.applied
                  << " by a previous tierd; its original " << change.original
                  << " will be restored at stop";
    }
  }
  if (const boost::json::value* paused = object->if_contains("paused");
      paused && paused->is_bool()) {
    paused_ = paused->as_bool();
  }
  if (const boost::json::value* policy = object->if_contains("policy");
      policy && policy->is_object()) {
    try {
      const boost::json::object& p = policy->as_object();
      tier::policy::Params params;
      if (const boost::json::value* given = p.if_contains("params"); given && given->is_object()) {
        for (const auto& [name, value] : given->as_object()) {
          params[std::string(name)] = value.to_number<double>();
        }
      }
      std::string name(p.at("name").as_string());
      // A policy set over the socket survives restarts until the operator
      // edits [policy] in the file: then the file wins.
      const boost::json::value* from_config = p.if_contains("config_name");
      const bool config_unchanged = from_config != nullptr && from_config->is_string() &&
                                    from_config->as_string() == config_.policy;
      if (config_unchanged && (name != policy_name_ || params != policy_params_)) {
        log::info() << "state: policy " << name << " was set over the socket; keeping it";
        use_policy(name, params);
      }
    } catch (const std::exception& e) {
      log::warn() << "state: saved policy not usable (" << e.what() << "); using " << policy_name_;
    }
  }
  try {
    const std::int64_t now = unix_now();
    std::vector<DroppedWorkload> dropped = registry_.restore(*state);
    for (const DroppedWorkload& d : dropped) {
      log::warn() << "state: workload " << d.workload.id << " dropped: " << d.reason;
      record_dropped(d, now);
    }
    state_note_.recovered_workloads = registry_.workloads().size();
    log::info() << "state: recovered " << registry_.workloads().size() << " workload(s), dropped "
                << dropped.size();
  } catch (const std::exception& e) {
    state_note_.problem = std::string("workloads unreadable: ") + e.what();
    log::error() << "state: workloads in " << config_.state_path << " unreadable (" << e.what()
                 << "); starting with none";
  }
}

// write_state_file's temporaries (PATH.tmp.PID) that an earlier tierd,
// killed mid-write, left behind: never the state, only clutter that would
// pile up with every crash.
void Daemon::remove_stale_temporaries() {
  const std::filesystem::path path(config_.state_path);
  const std::string prefix = path.filename().string() + ".tmp.";
  std::error_code ec;
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || !entry.is_regular_file(ec)) continue;
    if (std::filesystem::remove(entry.path(), ec)) {
      log::info() << "state: removed " << entry.path().string()
                  << ", a temporary left by a tierd stopped mid-write";
    }
  }
}

// A state file tierd cannot use is moved aside (PATH.bad, replacing an older
// one) before anything is written, so the operator still has it to look at.
void Daemon::keep_damaged_state(const std::string& problem) {
  state_note_.found = "damaged";
  state_note_.problem = problem;
  const std::string aside = config_.state_path + ".bad";
  std::error_code ec;
  std::filesystem::rename(config_.state_path, aside, ec);
  if (ec) {
    log::error() << "state: " << problem << "; cannot keep it as " << aside << " (" << ec.message()
                 << "), starting without it";
    return;
  }
  state_note_.kept_as = aside;
  log::error() << "state: " << problem << "; kept as " << aside << ", starting without it";
}

void Daemon::save_state() {
  boost::json::object state = registry_.to_json().as_object();
  state["version"] = 1;
  state["kernel"] = kernel_.to_json();
  state["paused"] = paused_;
  boost::json::object params;
  for (const auto& [name, value] : policy_params_) params[name] = value;
  state["policy"] = {
      {"name", policy_name_}, {"params", std::move(params)}, {"config_name", config_.policy}};
  try {
    write_state_file(config_.state_path, state);
    ++state_note_.writes;
    if (!state_error_.empty()) log::info() << "state: " << config_.state_path << " written again";
    state_error_.clear();
  } catch (const StateFileError& e) {
    // The previous file is untouched (write_state_file replaces it only
    // once the new one is complete on disk).
    ++state_note_.write_failures;
    state_note_.last_write_error = e.what();
    state_note_.last_write_error_unix_s = unix_now();
    // Say it once per failure streak, not every epoch.
    if (state_error_ != e.what()) {
      log::error() << "state: " << e.what() << "; the previous " << config_.state_path
                   << " is kept as it was";
    }
    state_error_ = e.what();
  }
}

boost::json::object Daemon::state_file_json() const {
  return {{"path", config_.state_path},
          {"found", state_note_.found},
          {"problem", state_note_.problem},
          {"kept_as", state_note_.kept_as},
          {"recovered_workloads", state_note_.recovered_workloads},
          {"writes", state_note_.writes},
          {"write_failures", state_note_.write_failures},
          {"last_write_error", state_note_.last_write_error},
          {"last_write_error_unix_s", state_note_.last_write_error_unix_s}};
}

}  // namespace tierd
