// run_launch_bench: the launch cost of `tierctl run --membind 0 -- true`
// (no tierd) against `numactl --membind 0 true`, fork+exec+wait each, in the
// same run. The goal (issue, tierctl run): tierctl ≤ 1.5× numactl.
//
// BM_Launch/numactl and BM_Launch/tierctl time each launcher alone;
// BM_Alternating launches both in turn every iteration and reports the mean of
// each and their ratio as counters, so background load on the machine falls on
// both alike. tierctl is the one next to this binary (build/bin/tierctl).
#include <benchmark/benchmark.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace {

std::string tierctl_path() {
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "tierctl").string();
}

const std::vector<std::string>& command(int which) {
  // A socket nothing listens on: the no-daemon path whatever runs here.
  static const std::vector<std::string> tierctl{
      tierctl_path(), "--socket", "/nonexistent/run_launch_bench.sock", "run", "--membind", "0",
      "--",           "true"};
  static const std::vector<std::string> numactl{"/usr/bin/numactl", "--membind", "0", "true"};
  return which == 0 ? numactl : tierctl;
}

/// fork+exec+wait of argv; throws unless it exits 0.
void launch(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ) != 0) {
    throw std::runtime_error("cannot start " + argv[0]);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error(argv[0] + " failed (status " + std::to_string(status) + ")");
  }
}

void BM_Launch(benchmark::State& state) {
  const std::vector<std::string>& argv = command(static_cast<int>(state.range(0)));
  state.SetLabel(state.range(0) == 0 ? "numactl --membind 0 true"
                                     : "tierctl run --membind 0 -- true");
  for (auto _ : state) launch(argv);
}

void BM_Alternating(benchmark::State& state) {
  using Clock = std::chrono::steady_clock;
  double seconds[2] = {0, 0};
  for (auto _ : state) {
    for (int which : {0, 1}) {
      const auto start = Clock::now();
      launch(command(which));
      seconds[which] += std::chrono::duration<double>(Clock::now() - start).count();
    }
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["numactl_us"] = seconds[0] / n * 1e6;
  state.counters["tierctl_us"] = seconds[1] / n * 1e6;
  state.counters["ratio"] = seconds[1] / seconds[0];
}

BENCHMARK(BM_Launch)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Alternating)->Unit(benchmark::kMicrosecond)->UseRealTime()->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
