// Discovery's survey of the machine (discovery.hpp) and the inferred classes.
//
// Cost per survey, by process: a listing of /proc every kListEvery surveys (in between, a
// status read per new pid: SurveyMemo::last_pid); a statm read per young process and per
// settled one whose turn it is (1 in kStatmEvery; every process without a memo), a kill(pid, 0)
// for the sizeable ones in between (SysRoot::process_exists); a stat read for those at the
// floor that are new (or every kRestatEvery surveys). By cgroup: one directory listing per
// cgroup and a memory.stat read per leaf (statm reads of its processes only where the memory
// controller is not enabled), plus statm reads of the root cgroup's processes (mostly kernel
// threads: 0 bytes, no stat read).
#include "workloads/discovery.hpp"

#include <algorithm>
#include <charconv>

#include "workloads/cgroup_fs.hpp"

namespace tierd {

namespace {

using detail::kCgroupMount;
constexpr long kDefaultCpuWeight = 100;  // cgroup v2's cpu.weight default
constexpr unsigned kSchedFifo = 1, kSchedRr = 2, kSchedBatch = 3, kSchedIdle = 5,
                   kSchedDeadline = 6;

std::optional<long> to_long(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  long value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

std::string basename_of(const std::string& path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The "anon" and "shmem" lines of the cgroup's memory.stat (a database's
// shared buffers are shmem); nullopt without the memory controller there.
std::optional<std::uint64_t> cgroup_memory(const tier::SysRoot& root, const std::string& path) {
  auto text = root.read(path + "/memory.stat");
  if (!text) return std::nullopt;
  std::uint64_t sum = 0;
  bool anon_seen = false;
  std::string_view rest = *text;
  while (!rest.empty()) {
    std::size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    const bool anon = line.substr(0, 5) == "anon ";
    if (!anon && line.substr(0, 6) != "shmem ") continue;
    auto value = to_long(line.substr(line.find(' ') + 1));
    if (!value || *value < 0) return std::nullopt;
    sum += static_cast<std::uint64_t>(*value);
    anon_seen = anon_seen || anon;
  }
  if (!anon_seen) return std::nullopt;
  return sum;
}

// The kernel's last allocated pid: the fifth field of /proc/loadavg
// ("0.20 0.18 0.12 1/80 11206").
std::optional<pid_t> last_pid(const tier::SysRoot& root) {
  auto text = root.read("/proc/loadavg");
  if (!text) return std::nullopt;
  const std::size_t space = text->rfind(' ');
  if (space == std::string::npos) return std::nullopt;
  auto value = to_long(std::string_view(*text).substr(space + 1));
  if (!value || *value <= 0) return std::nullopt;
  return static_cast<pid_t>(*value);
}

// The processes a process survey reads (SurveyMemo::last_pid): all of /proc
// without a memo, at every kListEvery-th survey and when the new pids cannot
// be told; in between, those the last survey read and the new processes.
std::vector<pid_t> processes_to_read(const tier::SysRoot& root, SurveyMemo* memo) {
  std::vector<pid_t> pids;
  const std::optional<pid_t> now = last_pid(root);
  const std::optional<pid_t> before = memo != nullptr ? memo->last_pid : std::nullopt;
  if (memo != nullptr) memo->last_pid = now;
  if (memo != nullptr && now && before && *now != *before) {
    // A pid allocated since the last survey that the memo knows was reused:
    // its process is read afresh (a new start time drops the old workload).
    const auto allocated = [&](pid_t pid) {
      return *now > *before ? pid > *before && pid <= *now : pid > *before || pid <= *now;
    };
    std::erase_if(memo->anon, [&](const auto& entry) { return allocated(entry.first); });
    std::erase_if(memo->processes, [&](const auto& entry) { return allocated(entry.first); });
  }
  if (memo == nullptr || !now || !before || *now < *before || *now - *before > kMaxNewPids ||
      memo->surveys % kListEvery == 0) {
    for (const std::string& entry : root.list("/proc")) {
      if (auto pid = detail::parse_pid(entry)) pids.push_back(*pid);
    }
    return pids;
  }
  for (const auto& [pid, anon] : memo->anon) pids.push_back(pid);
  for (pid_t pid = *before + 1; pid <= *now; ++pid) {
    if (auto tgid = detail::read_tgid(root, pid); tgid && *tgid == pid) pids.push_back(pid);
  }
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  return pids;
}

class Surveyor {
 public:
  Surveyor(const tier::SysRoot& root, std::uint64_t floor, pid_t self, std::uint64_t page,
           SurveyMemo* memo)
      : root_(root), floor_(floor), self_(self), page_(page), memo_(memo) {}

  void process(pid_t pid) {
    if (pid == self_) return;
    ++survey_.processes;
    auto anon = anon_bytes(pid);
    if (!anon || *anon < floor_) return;
    const ProcessMemo* known = remembered(pid);
    if (known == nullptr) return;  // exited, a zombie or a kernel thread
    SurveyUnit unit;
    unit.pid = pid;
    unit.name = known->comm;
    unit.anon_bytes = *anon;
    unit.start_time = known->start_time;
    unit.guess = known->guess;
    survey_.units.push_back(std::move(unit));
  }

  // The memo keeps only the processes this survey found sizeable, and the
  // statm figures of those it listed.
  void finish_memo() {
    if (memo_ == nullptr) return;
    memo_->processes = std::move(next_memo_);
    memo_->anon = std::move(next_anon_);
    ++memo_->surveys;
  }

  // Depth first: a leaf is a unit; the processes of the root and of inner
  // cgroups (a threaded subtree's domain, a cgroup v1-style tree) are units
  // of their own.
  void cgroup_tree(const std::string& path, bool is_root) {
    std::vector<std::string> children = detail::child_cgroups(root_, path);
    if (!children.empty() || is_root) {
      for (pid_t pid : detail::cgroup_procs(root_, path)) process(pid);
      for (const std::string& child : children) cgroup_tree(child, false);
      return;
    }
    ++survey_.cgroups;
    std::vector<pid_t> pids = detail::cgroup_procs(root_, path);
    if (pids.empty()) return;  // nothing left to place
    std::uint64_t anon = 0;
    const char* measure = "anon + shmem memory";
    if (auto counted = cgroup_memory(root_, path)) {
      anon = *counted;
    } else {
      measure = "anonymous memory of its processes";
      for (pid_t pid : pids) anon += detail::read_anon_bytes(root_, pid, page_).value_or(0);
    }
    if (anon < floor_) return;
    SurveyUnit unit;
    unit.cgroup = path;
    unit.name = basename_of(path);
    unit.anon_bytes = anon;
    unit.measure = measure;
    unit.guess = class_of_cgroup(root_, path);
    survey_.units.push_back(std::move(unit));
  }

  Survey take() {
    finish_memo();
    return std::move(survey_);
  }
  Survey& result() { return survey_; }

 private:
  // The process's anonymous memory: read now when it is young or its turn
  // has come (SurveyMemo::anon), else as last read.
  std::optional<std::uint64_t> anon_bytes(pid_t pid) {
    if (memo_ == nullptr) return detail::read_anon_bytes(root_, pid, page_);
    const std::uint64_t now = memo_->surveys;
    AnonMemo kept{0, now};
    if (auto found = memo_->anon.find(pid); found != memo_->anon.end()) kept = found->second;
    const bool young = now - kept.first_survey < kYoungSurveys;
    const bool turn = (now + static_cast<std::uint64_t>(pid)) % kStatmEvery == 0;
    if (young || turn) {
      auto read = detail::read_anon_bytes(root_, pid, page_);
      if (!read) return std::nullopt;  // exited: forgotten
      kept.bytes = *read;
    } else if (kept.bytes >= floor_ && !root_.process_exists(pid)) {
      return std::nullopt;  // a workload's process is seen gone in the epoch it exits
    }
    next_anon_[pid] = kept;
    return kept.bytes;
  }

  // The process's stat as of at most kRestatEvery surveys ago; null when it
  // is not a placeable process (now).
  const ProcessMemo* remembered(pid_t pid) {
    if (memo_ != nullptr) {
      auto found = memo_->processes.find(pid);
      if (found != memo_->processes.end() && found->second.age + 1 < kRestatEvery) {
        ProcessMemo& kept = next_memo_[pid] = std::move(found->second);
        ++kept.age;
        return &kept;
      }
    }
    auto stat = detail::read_proc_stat(root_, pid);
    if (!stat || stat->exited() || stat->kernel_thread()) return nullptr;
    ProcessMemo& fresh = next_memo_[pid];
    fresh = {stat->comm, stat->start_time, class_of_process(*stat), 0};
    return &fresh;
  }

  const tier::SysRoot& root_;
  std::uint64_t floor_;
  pid_t self_;
  std::uint64_t page_;
  SurveyMemo* memo_;
  std::map<pid_t, ProcessMemo> next_memo_;
  std::map<pid_t, AnonMemo> next_anon_;
  Survey survey_;
};

}  // namespace

const char* to_string(DiscoverMode mode) {
  switch (mode) {
    case DiscoverMode::off:
      return "off";
    case DiscoverMode::automatic:
      return "auto";
    case DiscoverMode::processes:
      return "processes";
    case DiscoverMode::cgroups:
      return "cgroups";
  }
  return "off";
}

std::optional<DiscoverMode> parse_discover_mode(std::string_view text) {
  for (DiscoverMode mode : {DiscoverMode::off, DiscoverMode::automatic, DiscoverMode::processes,
                            DiscoverMode::cgroups}) {
    if (text == to_string(mode)) return mode;
  }
  return std::nullopt;
}

ClassGuess class_of_process(const detail::ProcStat& stat) {
  switch (stat.policy) {
    case kSchedIdle:
      return {WorkloadClass::offline, "SCHED_IDLE"};
    case kSchedBatch:
      return {WorkloadClass::offline, "SCHED_BATCH"};
    case kSchedFifo:
    case kSchedRr:
    case kSchedDeadline:
      return {WorkloadClass::online, "a real-time scheduling policy"};
    default:
      break;
  }
  if (stat.nice > 0) return {WorkloadClass::offline, "nice " + std::to_string(stat.nice)};
  if (stat.nice < 0) return {WorkloadClass::online, "nice " + std::to_string(stat.nice)};
  return {WorkloadClass::normal, "nice 0, SCHED_OTHER"};
}

ClassGuess class_of_cgroup(const tier::SysRoot& root, const std::string& path) {
  // Kubernetes' QoS classes, by kubelet's names for either cgroup driver.
  if (path.find("/kubepods") != std::string::npos) {
    if (path.find("besteffort") != std::string::npos) {
      return {WorkloadClass::offline, "a kubepods BestEffort pod"};
    }
    return {WorkloadClass::online, path.find("burstable") != std::string::npos
                                       ? "a kubepods Burstable pod"
                                       : "a kubepods Guaranteed pod"};
  }
  for (std::string at = path; at.size() > kCgroupMount.size(); at = at.substr(0, at.rfind('/'))) {
    if (auto idle = root.read(at + "/cpu.idle"); idle && to_long(*idle) == 1) {
      return {WorkloadClass::offline, "cpu.idle 1 on " + at};
    }
    auto text = root.read(at + "/cpu.weight");
    auto weight = text ? to_long(*text) : std::nullopt;
    if (weight && *weight < kDefaultCpuWeight) {
      return {WorkloadClass::offline,
              "cpu.weight " + std::to_string(*weight) + " on " + at + " (below the default 100)"};
    }
    if (weight && *weight > kDefaultCpuWeight) {
      return {WorkloadClass::online,
              "cpu.weight " + std::to_string(*weight) + " on " + at + " (above the default 100)"};
    }
  }
  return {WorkloadClass::normal, "no cpu.idle or cpu.weight other than the default"};
}

Survey survey(const tier::SysRoot& root, DiscoverMode mode, std::uint64_t floor_bytes, pid_t self,
              std::uint64_t page_bytes, SurveyMemo* memo) {
  Surveyor surveyor(root, floor_bytes, self, page_bytes, memo);
  if (mode == DiscoverMode::off) return surveyor.take();
  const std::string mount(kCgroupMount);
  const bool unified = root.exists(mount + "/cgroup.controllers");
  if (mode == DiscoverMode::cgroups || (mode == DiscoverMode::automatic && unified)) {
    surveyor.result().by_cgroup = true;
    if (unified) surveyor.cgroup_tree(mount, true);
    return surveyor.take();
  }
  for (pid_t pid : processes_to_read(root, memo)) surveyor.process(pid);
  return surveyor.take();
}

std::string discovered_id(const SurveyUnit& unit) {
  return "found:" + (unit.pid ? std::to_string(*unit.pid) : unit.cgroup);
}

}  // namespace tierd
