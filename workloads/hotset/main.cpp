// hotset: the ground truth for heat sources (docs/workloads.md).
//
// Allocates --size bytes, places them (--node, --hot-nodes, --policy) and
// first-touches every page with an address-derived pattern, prints
//   {"pid":P,"base":B,"size":S,"ready":true,...}
// then accesses only the hot set with --threads pinned threads for
// --duration seconds (or until SIGTERM/SIGINT), moving the hot set every
// --phase-shift seconds and recording each phase's hot ranges in --truth.
// At exit it records where the pages are (whole buffer, each phase's hot
// set), verifies every page and prints
//   {"accesses":N,"seconds":S,"accesses_per_s":R,"bad_pages":0,"nodes":{..},
//    "hot_resident":[{..} per phase]}
// exiting 1 if any page lost its pattern. Cold pages are never touched
// between the ready line and that final verification, except by the scans
// of --scan-every: every S seconds the workers read the whole buffer once,
// counted apart from the accesses ("scans", "scanned_bytes", "scan_seconds"
// on the final line, "scans" in the census; access.hpp).
// --start-file delays the accesses (and their clock) until a file exists;
// --census appends a residency census line every --census-ms (census.hpp);
// --grow-mbps first-touches the buffer progressively from the start of the
// accesses instead of before the ready line, accessing only what exists.
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "access.hpp"
#include "census.hpp"
#include "options.hpp"
#include "pattern.hpp"
#include "placement.hpp"
#include "truth.hpp"

namespace {

using hotset::kPage;

double now_s() {
  struct timespec ts {};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct timespec to_timespec(double s) {
  s = std::max(s, 0.0);
  struct timespec ts {};
  ts.tv_sec = static_cast<time_t>(s);
  ts.tv_nsec = static_cast<long>((s - static_cast<double>(ts.tv_sec)) * 1e9);
  return ts;
}

std::size_t count_bad_pages(char* base, std::size_t size) {
  std::size_t bad = 0;
  for (std::size_t off = 0; off < size; off += kPage) {
    const auto* p = reinterpret_cast<const std::uint64_t*>(base + off);
    if (hotset::check_words(p, hotset::kPageWords)) continue;
    if (bad < 5) {
      std::fprintf(stderr, "hotset: bad page at %#" PRIxPTR ": word0 %#" PRIx64 "\n",
                   reinterpret_cast<std::uintptr_t>(p), p[0]);
    }
    ++bad;
  }
  return bad;
}

std::string int_list_json(const std::vector<int>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
  return out + "]";
}

}  // namespace

int main(int argc, char** argv) {
  hotset::Options o = hotset::parse_options(argc, argv);
  // A scenario killed by its time limit must not leave threads spinning.
  prctl(PR_SET_PDEATHSIG, SIGTERM);

  // Signals are taken synchronously by the main thread (sigtimedwait);
  // blocked before any thread starts, so the workers inherit the mask.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);

  void* m = mmap(nullptr, o.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) {
    std::fprintf(stderr, "hotset: mmap %zu bytes: %s\n", o.size, std::strerror(errno));
    return 1;
  }
  char* base = static_cast<char*>(m);
  // 4 KiB pages only: the truth is per 4 KiB page, and a THP would make a
  // cold page share its hint fault (and its node) with hot neighbours.
  if (madvise(base, o.size, MADV_NOHUGEPAGE) != 0) {
    std::fprintf(stderr, "hotset: madvise(MADV_NOHUGEPAGE): %s\n", std::strerror(errno));
    return 1;
  }
  const bool growing = o.grow_mibps > 0;
  std::string method = growing ? "grow" : hotset::place_and_fill(base, o, hotset::plan_regions(o));
  if (method.empty()) return 1;

  auto addr = reinterpret_cast<std::uintptr_t>(base);
  hotset::Layout layout(addr, o);
  hotset::Truth truth(o.truth, addr, o.size);
  if (!truth.add_phase(layout, 0, 0.0)) return 1;
  auto hot0 = layout.ranges(0).front();
  std::printf("{\"pid\":%d,\"base\":%" PRIuPTR
              ",\"size\":%zu,\"ready\":true,\"page_size\":%zu,"
              "\"policy\":\"%s\",\"policy_method\":\"%s\",\"node\":%d,\"hot_nodes\":%s,"
              "\"hot\":[%" PRIuPTR ",%" PRIuPTR
              "],\"threads\":%u,\"cpus\":%s,\"nodes\":%s,"
              "\"hot_resident\":%s}\n",
              getpid(), addr, o.size, kPage, hotset::policy_name(o.policy), method.c_str(), o.node,
              int_list_json(o.hot_nodes).c_str(), hot0.first, hot0.second, o.threads,
              int_list_json(o.cpus).c_str(),
              hotset::residency_json(hotset::residency(base, o.size)).c_str(),
              hotset::residency_json(
                  hotset::residency(base + (hot0.first - addr), hot0.second - hot0.first))
                  .c_str());
  std::fflush(stdout);
  if (!o.ready_file.empty()) {
    std::FILE* f = std::fopen(o.ready_file.c_str(), "w");
    if (f == nullptr || std::fclose(f) != 0) {
      std::fprintf(stderr, "hotset: --ready-file %s: %s\n", o.ready_file.c_str(),
                   std::strerror(errno));
      return 1;
    }
  }

  if (!o.start_file.empty()) {
    // Polled, with the signals still answered: a scenario may give up.
    struct timespec poll = to_timespec(0.01);
    while (access(o.start_file.c_str(), F_OK) != 0) {
      int sig = sigtimedwait(&sigs, nullptr, &poll);
      if (sig == SIGTERM || sig == SIGINT) return 0;
    }
  }

  std::atomic<unsigned> phase{0};
  // Hot-set pages the workers may draw from: all of them, or (growing) the
  // ones first-touched so far (the hot set starts at the buffer's start).
  std::atomic<std::size_t> limit{growing ? 0 : layout.hot_pages()};
  std::atomic<std::size_t> grown{growing ? 0 : o.size};  // bytes placed and filled
  std::atomic<bool> grow_stop{false}, grow_failed{false};
  std::unique_ptr<hotset::Census> census;
  if (!o.census.empty()) {
    census = std::make_unique<hotset::Census>(base, o, layout);
    if (!census->ok()) return 1;
  }
  double start = now_s();
  std::thread grower;
  if (growing) {
    grower = std::thread([&] {
      constexpr std::size_t kStep = 2u << 20;
      while (!grow_stop.load() && grown.load() < o.size) {
        double due = o.grow_mibps * 1048576.0 * (now_s() - start);
        std::size_t done = grown.load();
        if (static_cast<double>(done) >= due) {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
          continue;
        }
        std::size_t len = std::min(kStep, o.size - done);
        if (!hotset::place_chunk(base + done, len, o)) {
          grow_failed.store(true);
          return;
        }
        grown.store(done + len);
        limit.store(std::min((done + len) / kPage, layout.hot_pages()));
      }
    });
  }
  hotset::Workers workers(base, o, layout, phase, &limit);
  double end = o.duration_s > 0 ? start + o.duration_s : INFINITY;
  double next_shift = o.phase_shift_s > 0 ? start + o.phase_shift_s : INFINITY;
  double next_census = census ? start : INFINITY;
  int rc = 0;
  for (;;) {
    double t = now_s();
    if (t >= end) break;
    if (t >= next_census) {
      if (!census->take(t - start, phase.load(), limit.load(), workers.counters().scans.load())) {
        rc = 1;
      }
      next_census = std::max(next_census + o.census_ms / 1000.0, now_s());
      continue;
    }
    if (t >= next_shift) {
      unsigned p = phase.load() + 1;
      if (!truth.add_phase(layout, p, next_shift - start)) rc = 1;
      phase.store(p);
      next_shift += o.phase_shift_s;
      continue;
    }
    // Wake at the next event, or hourly when there is none (run until a signal).
    double wait = std::min({end, next_shift, next_census, t + 3600.0}) - t;
    struct timespec ts = to_timespec(wait);
    int sig = sigtimedwait(&sigs, nullptr, &ts);
    if (sig == SIGTERM || sig == SIGINT) break;
    if (sig < 0 && errno != EAGAIN && errno != EINTR) {
      std::fprintf(stderr, "hotset: sigtimedwait: %s\n", std::strerror(errno));
      rc = 1;
      break;
    }
  }
  workers.stop();
  grow_stop.store(true);
  if (grower.joinable()) grower.join();
  if (grow_failed.load()) rc = 1;
  double seconds = now_s() - start;
  const hotset::Counters& counters = workers.counters();
  if (census && !census->take(seconds, phase.load(), limit.load(), counters.scans.load(), true)) {
    rc = 1;
  }
  std::uint64_t reads = counters.reads.load();
  std::uint64_t writes = counters.writes.load();
  // Only with --scan-every: without it the line keeps its historical members.
  // scan_seconds is per thread (summed / threads), comparable with seconds.
  char scans[160] = "";
  if (o.scan_every_s > 0) {
    std::snprintf(scans, sizeof scans,
                  ",\"scans\":%" PRIu64 ",\"scanned_bytes\":%" PRIu64 ",\"scan_seconds\":%.3f",
                  counters.scans.load(), counters.scanned_bytes.load(),
                  static_cast<double>(counters.scan_ns.load()) * 1e-9 / o.threads);
  }
  unsigned phases = phase.load() + 1;
  // Where the pages are, asked before the verification reads every cold
  // page: those reads could fault them in (NUMA hint faults) and move them.
  std::string nodes = hotset::residency_json(hotset::residency(base, o.size));
  std::string per_phase = "[";
  for (unsigned p = 0; p < phases; ++p) {
    std::map<int, std::size_t> count;
    for (const auto& [lo, hi] : layout.ranges(p)) {
      for (const auto& [node, n] : hotset::residency(base + (lo - addr), hi - lo)) count[node] += n;
    }
    per_phase += (p ? "," : "") + hotset::residency_json(count);
  }
  per_phase += "]";
  std::size_t bad = count_bad_pages(base, grown.load());  // untouched pages hold zeros
  std::printf("{\"accesses\":%" PRIu64 ",\"reads\":%" PRIu64 ",\"writes\":%" PRIu64
              ",\"seconds\":%.3f,\"accesses_per_s\":%.0f%s,\"phases\":%u,\"pages\":%zu,"
              "\"placed_bytes\":%zu,\"bad_pages\":%zu,\"verified\":%s,\"nodes\":%s,"
              "\"hot_resident\":%s}\n",
              reads + writes, reads, writes, seconds, static_cast<double>(reads + writes) / seconds,
              scans, phases, o.size / kPage, grown.load(), bad, bad == 0 ? "true" : "false",
              nodes.c_str(), per_phase.c_str());
  std::fflush(stdout);
  return bad != 0 ? 1 : rc;
}
