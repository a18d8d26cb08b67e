// tier-fragment: leaves a node with free memory but no free 2 MiB block.
//
//   tier-fragment --node N --leave-free BYTES
//
// Takes node N's free memory in 4 KiB pages (an anonymous buffer bound to N,
// THP off) until its MemFree is at or under BYTES, then keeps one page of
// every physical 2 MiB block it got (pinned by vmsplice, so neither
// compaction nor move_pages(2) can move it) and gives every other page back
// (MADV_DONTNEED). The node's free memory is then nearly what it was, in
// pieces no huge page fits in: a long-running server's fragmented node. A
// hugetlb page moved there (or a THP allocated there) then needs a free
// 2 MiB block the node does not have, and move_pages(2) fails with ENOMEM
// (tests/vm/scenarios/faults_move.sh, phase nomem). Physical frames come from
// /proc/self/pagemap: run it as root (CAP_SYS_ADMIN).
//
// Prints one line, then holds its pages until SIGTERM or SIGINT (exit 0):
//   {"pid":..,"node":N,"taken_pages":..,"blocks":..,"kept_pages":..,
//    "released_pages":..,"pipes":..}
// Exit 2 on bad usage, 1 when the node cannot be taken or frames are hidden.
#include <numaif.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

#include "touch_memory.hpp"

namespace {

using tier_workloads::kPage;
constexpr std::uint64_t kFramesPerBlock = (2u << 20) / kPage;

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "tier-fragment: %s\nusage: tier-fragment --node N --leave-free BYTES[K|M|G]\n", why);
  std::exit(2);
}

// Gives back every page not `kept` (MADV_DONTNEED, one call per run).
std::size_t release_others(char* base, std::size_t pages, const std::vector<bool>& kept) {
  std::size_t released = 0;
  std::size_t i = 0;
  while (i < pages) {
    if (kept[i]) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < pages && !kept[end]) ++end;
    if (madvise(base + i * kPage, (end - i) * kPage, MADV_DONTNEED) != 0) {
      std::fprintf(stderr, "tier-fragment: madvise(MADV_DONTNEED): %s\n", std::strerror(errno));
      std::exit(1);
    }
    released += end - i;
    i = end;
  }
  return released;
}

}  // namespace

int main(int argc, char** argv) {
  int node = -1;
  std::uint64_t leave_free = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") usage("help");
    if (i + 1 >= argc) usage(("missing value for " + a).c_str());
    const char* value = argv[++i];
    std::uint64_t v = 0;
    if (a == "--node") {
      if (!tier_workloads::parse_u64(value, v, false) || v >= tier_workloads::kMaskBits) {
        usage("bad --node");
      }
      node = static_cast<int>(v);
    } else if (a == "--leave-free") {
      if (!tier_workloads::parse_u64(value, leave_free, true) || leave_free == 0) {
        usage("bad --leave-free");
      }
    } else {
      usage(("unknown argument " + a).c_str());
    }
  }
  if (node < 0 || leave_free == 0) usage("--node and --leave-free are required");

  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);

  // At most the node's free memory: the fill stops at --leave-free anyway.
  const std::uint64_t free_now = tier_workloads::node_free_bytes(node);
  if (free_now == 0) {
    std::fprintf(stderr,
                 "tier-fragment: node %d: no MemFree in /sys/devices/system/node/node%d/"
                 "meminfo (no such node?)\n",
                 node, node);
    return 1;
  }
  if (free_now <= leave_free) {
    std::fprintf(stderr, "tier-fragment: node %d has %llu bytes free, not more than --leave-free\n",
                 node, static_cast<unsigned long long>(free_now));
    return 1;
  }
  std::size_t pages = free_now / kPage;
  void* m = mmap(nullptr, pages * kPage, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) {
    std::fprintf(stderr, "tier-fragment: mmap: %s\n", std::strerror(errno));
    return 1;
  }
  char* base = static_cast<char*>(m);
  const tier_workloads::NodeMask mask = tier_workloads::mask_of(node);
  if (madvise(base, pages * kPage, MADV_NOHUGEPAGE) != 0 ||
      mbind(base, pages * kPage, MPOL_BIND, mask.data(), tier_workloads::kMaskBits, 0) != 0) {
    std::fprintf(stderr, "tier-fragment: madvise/mbind node %d: %s\n", node, std::strerror(errno));
    return 1;
  }
  pages = tier_workloads::fill(base, pages, node, leave_free, 0,
                               [](char* page, std::size_t i) { std::memcpy(page, &i, sizeof i); });

  // The first page seen of each physical 2 MiB block stays.
  std::vector<bool> kept(pages, false);
  std::vector<char*> keep;
  std::unordered_set<std::uint64_t> blocks;
  const std::vector<std::uint64_t> frames = tier_workloads::frames_of(base, pages);
  for (std::size_t i = 0; i < pages; ++i) {
    const std::uint64_t frame = i < frames.size() ? frames[i] : 0;
    if (frame == 0) {
      std::fprintf(stderr,
                   "tier-fragment: no physical frame for page %zu (/proc/self/pagemap shows "
                   "frames to root only)\n",
                   i);
      return 1;
    }
    if (blocks.insert(frame / kFramesPerBlock).second) {
      kept[i] = true;
      keep.push_back(base + i * kPage);
    }
  }
  const std::vector<int> pipes = tier_workloads::pin_page_list(keep);
  const std::size_t released = release_others(base, pages, kept);
  std::printf(
      "{\"pid\":%d,\"node\":%d,\"taken_pages\":%zu,\"blocks\":%zu,\"kept_pages\":%zu,"
      "\"released_pages\":%zu,\"pipes\":%zu}\n",
      getpid(), node, pages, blocks.size(), keep.size(), released, pipes.size() / 2);
  std::fflush(stdout);

  int sig = 0;
  sigwait(&sigs, &sig);
  return 0;
}
