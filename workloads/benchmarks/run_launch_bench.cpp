// run_launch_bench: the launch cost of `tierctl run --membind 0 -- true`
// (no tierd) against `numactl --membind 0 true`, fork+exec+wait each, in the
// same run. The goal (issue, tierctl run): tierctl ≤ 1.5× numactl.
//
// BM_Launch/numactl and BM_Launch/tierctl time each launcher alone;
// BM_Alternating launches both in turn, 500 rounds, and reports each one's
// median and p90 and their ratios as counters, so background load on the
// machine falls on both alike and a few descheduled launches do not decide
// the figure. tierctl is the one next to this binary (build/bin/tierctl).
#include <benchmark/benchmark.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
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

/// The q-quantile (0..1) of `samples` (nearest rank).
double quantile(std::vector<double> samples, double q) {
  const auto rank = static_cast<std::size_t>(q * static_cast<double>(samples.size() - 1) + 0.5);
  std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(rank),
                   samples.end());
  return samples[rank];
}

void BM_Alternating(benchmark::State& state) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> micros[2];
  for (auto _ : state) {
    for (int which : {0, 1}) {
      const auto start = Clock::now();
      launch(command(which));
      micros[which].push_back(
          std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
  }
  const double median[2] = {quantile(micros[0], 0.5), quantile(micros[1], 0.5)};
  const double p90[2] = {quantile(micros[0], 0.9), quantile(micros[1], 0.9)};
  state.counters["numactl_med_us"] = median[0];
  state.counters["numactl_p90_us"] = p90[0];
  state.counters["tierctl_med_us"] = median[1];
  state.counters["tierctl_p90_us"] = p90[1];
  state.counters["ratio_med"] = median[1] / median[0];
  state.counters["ratio_p90"] = p90[1] / p90[0];
}

BENCHMARK(BM_Launch)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Alternating)->Unit(benchmark::kMicrosecond)->UseRealTime()->Iterations(500);

}  // namespace

BENCHMARK_MAIN();
