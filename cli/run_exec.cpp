// `tierctl run`: binding the process and exec (see run_exec.hpp).
#include "run_exec.hpp"

#include <numa.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

// libnuma declares numa_warn()/numa_error() weak so programs can take its
// diagnostics over (numa(3)). tierctl does, to turn "node argument 5 is out
// of range" into its own one-line error instead of a stray "libnuma:
// Warning:" line; outside a capture they print as libnuma would.
namespace {
std::string* g_numa_capture = nullptr;

class NumaCapture {
 public:
  NumaCapture() { g_numa_capture = &text_; }
  ~NumaCapture() { g_numa_capture = nullptr; }
  NumaCapture(const NumaCapture&) = delete;
  NumaCapture& operator=(const NumaCapture&) = delete;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

void capture(const std::string& message) {
  if (g_numa_capture == nullptr || !g_numa_capture->empty()) return;  // keep the first
  std::string text = message;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  *g_numa_capture = text;
}
}  // namespace

extern "C" void numa_warn(int /*num*/, char* fmt, ...) {
  char buffer[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  if (g_numa_capture != nullptr) {
    capture(buffer);
  } else {
    std::fprintf(stderr, "libnuma: Warning: %s", buffer);
  }
}

extern "C" void numa_error(char* where) {
  const int error = errno;
  if (g_numa_capture != nullptr) {
    capture(std::string(where) + ": " + std::strerror(error));
  } else {
    std::fprintf(stderr, "%s: %s\n", where, std::strerror(error));
  }
}

namespace tierctl::run {

namespace {

// Not in Debian 12's UAPI headers (docs/environment: the kernel has them).
constexpr int kMpolPreferredMany = 5;
constexpr int kMpolWeightedInterleave = 6;

using BitmaskPtr = std::unique_ptr<bitmask, decltype(&numa_bitmask_free)>;

tier::CpuList to_list(const bitmask* mask) {
  std::vector<unsigned> ids;
  for (unsigned i = 0; i < mask->size; ++i) {
    if (numa_bitmask_isbitset(mask, i)) ids.push_back(i);
  }
  return tier::CpuList(std::move(ids));
}

BitmaskPtr node_mask(const tier::CpuList& nodes) {
  BitmaskPtr mask(numa_allocate_nodemask(), &numa_bitmask_free);
  for (unsigned node : nodes.ids()) numa_bitmask_setbit(mask.get(), node);
  return mask;
}

Machine::Parsed parse_with(bitmask* (*parser)(const char*), const std::string& text) {
  NumaCapture capture;
  BitmaskPtr mask(parser(text.c_str()), &numa_bitmask_free);
  if (!mask) return {std::nullopt, capture.text()};
  return {to_list(mask.get()), ""};
}

void set_affinity(const tier::CpuList& cpus) {
  const unsigned count = cpus.ids().back() + 1;
  cpu_set_t* set = CPU_ALLOC(count);
  const std::size_t size = CPU_ALLOC_SIZE(count);
  CPU_ZERO_S(size, set);
  for (unsigned cpu : cpus.ids()) CPU_SET_S(cpu, size, set);
  const int rc = sched_setaffinity(0, size, set);
  const int error = errno;
  CPU_FREE(set);
  if (rc != 0) {
    throw RunFailure("cannot bind to CPUs " + cpus.to_string() +
                     ": sched_setaffinity: " + std::strerror(error));
  }
}

void set_raw_policy(int mode, const char* name, const char* since, const tier::CpuList& nodes) {
  const BitmaskPtr mask = node_mask(nodes);
  if (syscall(SYS_set_mempolicy, mode, mask->maskp, mask->size + 1) == 0) return;
  const int error = errno;
  std::string message = std::string("cannot set memory policy ") + name + " on nodes " +
                        nodes.to_string() + ": set_mempolicy: " + std::strerror(error);
  if (error == EINVAL)
    message += std::string(" (this kernel may lack it: needs Linux ") + since + ")";
  throw RunFailure(message);
}

}  // namespace

Machine live_machine() {
  if (numa_available() < 0) {
    throw RunFailure("NUMA policy is not available here (set_mempolicy unsupported)");
  }
  Machine machine;
  machine.parse_nodes = [](const std::string& text) {
    return parse_with(numa_parse_nodestring, text);
  };
  machine.parse_cpus = [](const std::string& text) {
    return parse_with(numa_parse_cpustring, text);
  };
  machine.node_cpus = [](unsigned node) {
    BitmaskPtr cpus(numa_allocate_cpumask(), &numa_bitmask_free);
    NumaCapture capture;  // a node that does not exist is simply empty here
    if (numa_node_to_cpus(static_cast<int>(node), cpus.get()) != 0) return tier::CpuList();
    return to_list(cpus.get());
  };
  return machine;
}

void apply_binding(const Binding& binding) {
  if (binding.cpus) set_affinity(*binding.cpus);
  if (binding.policy == MemPolicy::preferred_many) {
    set_raw_policy(kMpolPreferredMany, "preferred-many", "5.15", binding.nodes);
    return;
  }
  if (binding.policy == MemPolicy::weighted_interleave) {
    set_raw_policy(kMpolWeightedInterleave, "weighted-interleave", "6.9", binding.nodes);
    return;
  }
  // The calls numactl makes for the same flags, so `numactl --show` under
  // either launcher prints the same policy.
  NumaCapture capture;
  const BitmaskPtr mask = node_mask(binding.nodes);
  switch (binding.policy) {
    case MemPolicy::bind:
      numa_set_membind(mask.get());
      break;
    case MemPolicy::preferred:
      numa_set_bind_policy(0);
      numa_set_preferred(static_cast<int>(binding.nodes.ids().front()));
      break;
    case MemPolicy::interleave:
      numa_set_interleave_mask(mask.get());
      break;
    case MemPolicy::local:
      numa_set_localalloc();
      break;
    default:
      break;
  }
  if (!capture.text().empty()) {
    throw RunFailure(std::string("cannot set memory policy ") + to_string(binding.policy) +
                     (binding.nodes.empty() ? "" : " on nodes " + binding.nodes.to_string()) +
                     ": " + capture.text());
  }
}

namespace {

enum class Found { executable, not_executable, missing };

Found probe(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return Found::missing;
  if (S_ISDIR(st.st_mode) || access(path.c_str(), X_OK) != 0) return Found::not_executable;
  return Found::executable;
}

}  // namespace

void check_executable(const std::string& program) {
  if (program.empty()) throw ExecFailure("empty command name", 127);
  if (program.find('/') != std::string::npos) {
    switch (probe(program)) {
      case Found::executable:
        return;
      case Found::not_executable:
        throw ExecFailure(program + ": not executable", 126);
      case Found::missing:
        throw ExecFailure(program + ": no such file", 127);
    }
  }
  // execvp's search: $PATH, or its default when unset.
  const char* env_path = std::getenv("PATH");
  const std::string path = env_path != nullptr ? env_path : "/bin:/usr/bin";
  bool seen_not_executable = false;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    const std::string dir = end == start ? "." : path.substr(start, end - start);
    const Found found = probe(dir + "/" + program);
    if (found == Found::executable) return;
    seen_not_executable = seen_not_executable || found == Found::not_executable;
    start = end + 1;
  }
  if (seen_not_executable) throw ExecFailure(program + ": not executable", 126);
  throw ExecFailure(program + ": command not found", 127);
}

void exec_command(const std::vector<std::string>& command,
                  const std::vector<std::pair<std::string, std::string>>& env) {
  for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
  std::vector<char*> argv;
  argv.reserve(command.size() + 1);
  for (const std::string& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  const int error = errno;
  throw ExecFailure(command.front() + ": " + std::strerror(error),
                    error == ENOENT || error == ENOTDIR ? 127 : 126);
}

}  // namespace tierctl::run
