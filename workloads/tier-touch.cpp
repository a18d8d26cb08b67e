// tier-touch: a ground-truth process for migration tests.
//
//   tier-touch --size BYTES --node N [--write-while] [--huge | --hugetlb]
//              [--exit-after-ms MS] [--rebind keep|default|all] [--reserve BYTES]
//              [--leave-free BYTES] [--fill-mbps R] [--pin-fraction F]
//
// mmaps an anonymous buffer, binds it to node N (mbind MPOL_BIND, before the
// first touch), fills every 4 KiB page with a verifiable pattern, prints
//   {"pid":..,"addr":"0x..","size":..,"pages":..,"page_size":4096,"node":N,...}
// on one line of stdout and waits. SIGUSR1 pauses the writer (if any),
// verifies every page and prints
//   {"verified":true|false,"bad_pages":N,"checksum":"..","generation_min":..,
//    "generation_max":..,"writes":..,"nodes":{"0":pages,..}}
// ("nodes": where the buffer's pages are, asked from inside the process with
// move_pages(2) without a target: the kernel's ground truth). SIGTERM/SIGINT
// exit 0; --exit-after-ms exits 0 on its own after MS milliseconds.
//
// Page pattern (8-byte words of page i at generation g):
//   word 0 = kMagic << 32 | g,  word 1 = i,  word j>=2 = mix(i, g, j).
// A page is good when it is internally consistent and 1 <= g <= the highest
// generation written so far (exactly 1 without --write-while). With
// --write-while a writer thread rewrites the pages in passes, pass p at
// generation p+1; verification pauses it at a page boundary so it never
// reads a half-written page.
//
// --reserve BYTES maps that much address space (MAP_NORESERVE) and puts the
// buffer in its middle, 2 MiB aligned; madvise and mbind cover the whole
// reservation, so it stays one VMA of mostly untouched address space: a
// sparse mapping, as a JVM's reserved heap is (docs/memory.md, "Cost").
//
// --leave-free BYTES stops the fill once node N's MemFree (its sysfs
// meminfo) is at or under BYTES: a filler that takes a node
// down to just above a watermark without crossing it, however much memory
// others allocate there meanwhile. The buffer is then the pages filled (the
// start line's size and pages say how many, maybe 0); the rest stays
// untouched. --fill-mbps R paces the fill at R MiB/s: a node filling up
// while others allocate there too.
//
// --pin-fraction F (0 < F <= 1) pins that fraction of the pages, spread
// evenly, after the fill: vmsplice(2) (no SPLICE_F_GIFT) puts a reference to
// each page in a pipe kept open until exit. A page with a reference the
// kernel did not expect cannot be migrated, so move_pages(2) leaves it where
// it is: what an application's O_DIRECT or RDMA buffers look like to a
// mover. Pipes are enlarged to /proc/sys/fs/pipe-max-size (F_SETPIPE_SZ);
// the start line's "pinned" counts the pages referenced.
//
// --hugetlb backs the buffer with 2 MiB hugetlb pages (MAP_HUGETLB; the size
// rounded up to 2 MiB) from node N's pool (/sys/devices/system/node/nodeN/
// hugepages/hugepages-2048kB/nr_hugepages must hold them): a database's
// buffer pool. The pattern and the checks stay per 4 KiB page. A hugetlb
// page moves only where a free huge page can be had: move_pages(2) fails
// with ENOMEM when the target node has none and cannot assemble one
// (tests/vm/scenarios/faults_move.sh, phase nomem).
//
// Memory policy after the fill (--rebind): MPOL_BIND is a VMA policy; it
// governs where *new* pages are allocated. move_pages(2) and migrate_pages(2)
// check the target against the task's cpuset (mems_allowed), not against the
// VMA policy, so moving pages out of a bound VMA works (measured in the
// guest, see docs/testing.md). What the policy does change is automatic NUMA
// balancing: a VMA with a plain MPOL_BIND policy (no MPOL_F_NUMA_BALANCING)
// is never scanned, so the kernel cannot move the pages behind the test's
// back. And tierd honours a process's own policy (docs/memory.md): it never
// moves a page of a VMA bound to node N anywhere but N. Hence the default
// `all` (MPOL_BIND to every node with memory): never scanned by the kernel,
// movable by tierd to any node. `keep` (stay bound to N: a process that asked
// for its node, which tierd must leave there) and `default` (mbind
// MPOL_DEFAULT: the kernel's balancing may move it) test the other cases;
// none of them passes MPOL_MF_MOVE, so the rebind itself moves nothing.
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "own_residency.hpp"
#include "touch_memory.hpp"

namespace {

using tier_workloads::add_node;
using tier_workloads::kMaskBits;
using tier_workloads::mask_of;
using tier_workloads::NodeMask;
using tier_workloads::parse_u64;

constexpr std::size_t kPage = 4096;
constexpr std::size_t kWords = kPage / sizeof(std::uint64_t);
constexpr std::uint64_t kMagic = 0x54494552u;  // "TIER"
constexpr std::size_t kHuge = 2u << 20;

std::uint64_t mix(std::uint64_t page, std::uint64_t gen, std::uint64_t word) {
  // splitmix64 finaliser over the three inputs.
  std::uint64_t z =
      page * 0x9E3779B97F4A7C15ull ^ gen * 0xC2B2AE3D27D4EB4Full ^ word * 0x165667B19E3779F9ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void write_page(std::uint64_t* p, std::uint64_t index, std::uint64_t gen) {
  p[1] = index;
  for (std::size_t j = 2; j < kWords; ++j) p[j] = mix(index, gen, j);
  p[0] = kMagic << 32 | gen;
}

// Generation of a consistent page, or 0 if the page is damaged.
std::uint64_t check_page(const std::uint64_t* p, std::uint64_t index) {
  if (p[0] >> 32 != kMagic || p[1] != index) return 0;
  std::uint64_t gen = p[0] & 0xffffffffu;
  for (std::size_t j = 2; j < kWords; ++j) {
    if (p[j] != mix(index, gen, j)) return 0;
  }
  return gen;
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "tier-touch: %s\nusage: tier-touch --size BYTES[K|M|G] --node N [--write-while] "
               "[--huge | --hugetlb] [--exit-after-ms MS] [--rebind keep|default|all]\n"
               "       [--reserve BYTES] [--leave-free BYTES] [--fill-mbps R] [--pin-fraction F]\n",
               why);
  std::exit(2);
}

struct Options {
  std::uint64_t size = 0;
  int node = -1;
  bool write_while = false;
  bool huge = false;
  bool hugetlb = false;
  std::uint64_t exit_after_ms = 0;
  std::string rebind = "all";
  std::uint64_t reserve = 0;
  std::uint64_t leave_free = 0;
  double pin_fraction = 0;
  std::uint64_t fill_mbps = 0;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage(("missing value for " + a).c_str());
      return argv[++i];
    };
    std::uint64_t v = 0;
    if (a == "--size") {
      if (!parse_u64(value(), o.size, true) || o.size == 0) usage("bad --size");
    } else if (a == "--node") {
      if (!parse_u64(value(), v, false) || v >= kMaskBits) usage("bad --node");
      o.node = static_cast<int>(v);
    } else if (a == "--write-while") {
      o.write_while = true;
    } else if (a == "--huge") {
      o.huge = true;
    } else if (a == "--hugetlb") {
      o.hugetlb = true;
    } else if (a == "--exit-after-ms") {
      if (!parse_u64(value(), o.exit_after_ms, false) || o.exit_after_ms == 0) {
        usage("bad --exit-after-ms");
      }
    } else if (a == "--reserve") {
      if (!parse_u64(value(), o.reserve, true)) usage("bad --reserve");
    } else if (a == "--leave-free") {
      if (!parse_u64(value(), o.leave_free, true) || o.leave_free == 0) usage("bad --leave-free");
    } else if (a == "--fill-mbps") {
      if (!parse_u64(value(), o.fill_mbps, false) || o.fill_mbps == 0) usage("bad --fill-mbps");
    } else if (a == "--pin-fraction") {
      char* end = nullptr;
      const char* text = value();
      o.pin_fraction = std::strtod(text, &end);
      if (end == text || *end != '\0' || !(o.pin_fraction > 0 && o.pin_fraction <= 1)) {
        usage("bad --pin-fraction (0 < F <= 1)");
      }
    } else if (a == "--rebind") {
      o.rebind = value();
      if (o.rebind != "keep" && o.rebind != "default" && o.rebind != "all") usage("bad --rebind");
    } else if (a == "-h" || a == "--help") {
      usage("help");
    } else {
      usage(("unknown argument " + a).c_str());
    }
  }
  if (o.size == 0 || o.node < 0) usage("--size and --node are required");
  if (o.hugetlb && (o.huge || o.reserve != 0 || o.leave_free != 0 || o.pin_fraction > 0)) {
    usage("--hugetlb goes with none of --huge, --reserve, --leave-free, --pin-fraction");
  }
  if (o.reserve != 0 && o.reserve < o.size + 2 * kHuge) {
    usage("--reserve must exceed --size by 4 MiB or more");
  }
  return o;
}

// The writer: passes over the buffer, pass p rewrites every page at
// generation p + 2 (the fill is generation 1). `paused` is honoured at page
// boundaries.
struct Writer {
  char* base = nullptr;
  std::size_t pages = 0;
  std::atomic<bool> stop{false};
  std::atomic<bool> pause{false};
  std::atomic<bool> idle{false};
  std::atomic<std::uint64_t> max_gen{1};
  std::atomic<std::uint64_t> writes{0};

  void run() {
    std::uint64_t gen = 1;
    while (!stop.load()) {
      ++gen;
      max_gen.store(gen);
      for (std::size_t i = 0; i < pages && !stop.load(); ++i) {
        while (pause.load() && !stop.load()) {
          idle.store(true);
          struct timespec ts {
            0, 1000000
          };
          nanosleep(&ts, nullptr);
        }
        idle.store(false);
        write_page(reinterpret_cast<std::uint64_t*>(base + i * kPage), i, gen);
        writes.fetch_add(1, std::memory_order_relaxed);
      }
    }
  }
};

std::string residency_json(char* base, std::size_t pages) {
  return tier_workloads::node_counts_json(tier_workloads::own_page_nodes(base, pages * kPage));
}

void verify(char* base, std::size_t pages, Writer* writer) {
  if (writer != nullptr) {
    writer->pause.store(true);
    while (!writer->idle.load()) {
      struct timespec ts {
        0, 1000000
      };
      nanosleep(&ts, nullptr);
    }
  }
  std::uint64_t max_ok = writer != nullptr ? writer->max_gen.load() : 1;
  std::size_t bad = 0;
  std::uint64_t gmin = UINT64_MAX, gmax = 0;
  std::uint64_t sum = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < pages; ++i) {
    const auto* p = reinterpret_cast<const std::uint64_t*>(base + i * kPage);
    std::uint64_t gen = check_page(p, i);
    if (gen == 0 || gen > max_ok) {
      if (bad < 5) {
        std::fprintf(stderr, "tier-touch: bad page %zu: word0 %#" PRIx64 " word1 %#" PRIx64 "\n", i,
                     p[0], p[1]);
      }
      ++bad;
      continue;
    }
    gmin = std::min(gmin, gen);
    gmax = std::max(gmax, gen);
    sum = (sum ^ mix(i, gen, 0)) * 0x100000001b3ull;
  }
  std::string nodes = residency_json(base, pages);
  std::printf("{\"verified\":%s,\"bad_pages\":%zu,\"checksum\":\"%016" PRIx64
              "\",\"generation_min\":%" PRIu64 ",\"generation_max\":%" PRIu64 ",\"writes\":%" PRIu64
              ",\"nodes\":%s}\n",
              bad == 0 ? "true" : "false", bad, sum, gmin == UINT64_MAX ? 0 : gmin, gmax,
              writer != nullptr ? writer->writes.load() : 0, nodes.c_str());
  std::fflush(stdout);
  if (writer != nullptr) writer->pause.store(false);
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  // A scenario killed by its time limit must not leave a writer spinning
  // (or its memory held) for the scenarios after it: die with the parent.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  const std::size_t unit = o.hugetlb ? kHuge : kPage;
  std::size_t size = (o.size + unit - 1) / unit * unit;
  std::size_t pages = size / kPage;

  // Signals are handled synchronously by the main thread (sigtimedwait);
  // block them before the writer thread starts so it inherits the mask.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGUSR1);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);

  // With --huge, map 2 MiB more and align, so THP can back the buffer.
  std::size_t map_size = o.huge ? size + kHuge : size;
  if (o.reserve != 0) map_size = o.reserve;
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | (o.reserve != 0 ? MAP_NORESERVE : 0) |
                    (o.hugetlb ? MAP_HUGETLB | 21 << MAP_HUGE_SHIFT : 0);  // 2^21: 2 MiB
  void* m = mmap(nullptr, map_size, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (m == MAP_FAILED) {
    std::fprintf(
        stderr, "tier-touch: mmap %zu bytes: %s%s\n", map_size, std::strerror(errno),
        o.hugetlb ? " (--hugetlb: are there that many free 2 MiB pages in the pools?)" : "");
    return 1;
  }
  char* base = static_cast<char*>(m);
  if (o.reserve != 0) base += (map_size - size) / 2 - kHuge;
  if (o.huge || o.reserve != 0) {
    auto a = reinterpret_cast<std::uintptr_t>(base);
    base = reinterpret_cast<char*>((a + kHuge - 1) / kHuge * kHuge);
  }
  // What the memory policy and THP advice cover: the buffer, or the whole
  // reservation so that it stays one VMA.
  char* const policy_base = o.reserve != 0 ? static_cast<char*>(m) : base;
  const std::size_t policy_size = o.reserve != 0 ? map_size : size;
  // Without --huge keep THP off: every page is then a 4 KiB page, so page
  // counts in numa_maps, stats and move results are exact (THP advice does
  // not apply to hugetlb mappings).
  if (!o.hugetlb &&
      madvise(policy_base, policy_size, o.huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) != 0) {
    std::fprintf(stderr, "tier-touch: madvise: %s\n", std::strerror(errno));
    return 1;
  }
  NodeMask mask = mask_of(o.node);
  if (mbind(policy_base, policy_size, MPOL_BIND, mask.data(), kMaskBits, 0) != 0) {
    std::fprintf(stderr, "tier-touch: mbind(MPOL_BIND, node %d): %s\n", o.node,
                 std::strerror(errno));
    return 1;
  }
  pages = tier_workloads::fill(
      base, pages, o.node, o.leave_free, o.fill_mbps,
      [](char* page, std::size_t i) { write_page(reinterpret_cast<std::uint64_t*>(page), i, 1); });
  size = pages * kPage;
  if (o.rebind == "default") {
    if (mbind(policy_base, policy_size, MPOL_DEFAULT, nullptr, 0, 0) != 0) {
      std::fprintf(stderr, "tier-touch: mbind(MPOL_DEFAULT): %s\n", std::strerror(errno));
      return 1;
    }
  } else if (o.rebind == "all") {
    NodeMask all(kMaskBits / (8 * sizeof(unsigned long)), 0);
    for (int n = 0; n <= numa_max_node(); ++n) {
      if (numa_bitmask_isbitset(numa_all_nodes_ptr, static_cast<unsigned>(n))) add_node(all, n);
    }
    if (mbind(policy_base, policy_size, MPOL_BIND, all.data(), kMaskBits, 0) != 0) {
      std::fprintf(stderr, "tier-touch: mbind(MPOL_BIND, all nodes): %s\n", std::strerror(errno));
      return 1;
    }
  }

  std::size_t pinned = 0;
  std::vector<int> pins;
  if (o.pin_fraction > 0) pins = tier_workloads::pin_pages(base, pages, o.pin_fraction, pinned);

  Writer writer;
  writer.base = base;
  writer.pages = pages;
  std::thread writer_thread;
  if (o.write_while) writer_thread = std::thread([&writer] { writer.run(); });

  std::printf("{\"pid\":%d,\"addr\":\"%#" PRIxPTR "\",\"end\":\"%#" PRIxPTR
              "\",\"size\":%zu,\"pages\":%zu,\"page_size\":%zu,\"node\":%d,\"huge\":%s,"
              "\"hugetlb\":%s,\"write_while\":%s,\"rebind\":\"%s\",\"pinned\":%zu,\"pipes\":%zu,"
              "\"resident\":%s}\n",
              getpid(), reinterpret_cast<std::uintptr_t>(base),
              reinterpret_cast<std::uintptr_t>(base) + size, size, pages, kPage, o.node,
              o.huge ? "true" : "false", o.hugetlb ? "true" : "false",
              o.write_while ? "true" : "false", o.rebind.c_str(), pinned, pins.size() / 2,
              residency_json(base, pages).c_str());
  std::fflush(stdout);

  struct timespec deadline {};
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += static_cast<time_t>(o.exit_after_ms / 1000);
  deadline.tv_nsec += static_cast<long>(o.exit_after_ms % 1000) * 1000000L;
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec += 1;
    deadline.tv_nsec -= 1000000000L;
  }
  int rc = 0;
  for (;;) {
    struct timespec wait {
      3600, 0
    };
    if (o.exit_after_ms != 0) {
      struct timespec now {};
      clock_gettime(CLOCK_MONOTONIC, &now);
      long long left_ns =
          (deadline.tv_sec - now.tv_sec) * 1000000000LL + (deadline.tv_nsec - now.tv_nsec);
      if (left_ns <= 0) break;
      wait.tv_sec = static_cast<time_t>(left_ns / 1000000000LL);
      wait.tv_nsec = static_cast<long>(left_ns % 1000000000LL);
    }
    int sig = sigtimedwait(&sigs, nullptr, &wait);
    if (sig == SIGUSR1) {
      verify(base, pages, o.write_while ? &writer : nullptr);
    } else if (sig == SIGTERM || sig == SIGINT) {
      break;
    } else if (sig < 0 && errno != EAGAIN && errno != EINTR) {
      std::fprintf(stderr, "tier-touch: sigtimedwait: %s\n", std::strerror(errno));
      rc = 1;
      break;
    }
  }
  if (o.write_while) {
    writer.stop.store(true);
    writer_thread.join();
  }
  return rc;
}
