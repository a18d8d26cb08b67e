// tier-touch's memory tricks: see touch_memory.hpp.
#include "touch_memory.hpp"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

namespace tier_workloads {

// Node NODE's MemFree in bytes (sysfs meminfo), 0 when unreadable: a
// filler that cannot see the node's free memory stops at once.
std::uint64_t node_free_bytes(int node) {
  std::ifstream in("/sys/devices/system/node/node" + std::to_string(node) + "/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    auto at = line.find("MemFree:");
    if (at != std::string::npos) return std::strtoull(line.c_str() + at + 8, nullptr, 10) << 10;
  }
  return 0;
}

// Fills pages [0, pages) at generation 1 (at most MBPS MiB/s); with leave_free, stops early once
// the node's free memory is at or under it (read every 1 MiB, every 64 KiB in
// the last 8 MiB: the filler overshoots by at most that). Returns the pages
// filled.
std::size_t fill(char* base, std::size_t pages, int node, std::uint64_t leave_free,
                 std::uint64_t mbps, const std::function<void(char*, std::size_t)>& write_page) {
  constexpr std::size_t kFar = (1u << 20) / kPage, kNear = (64u << 10) / kPage;
  std::size_t next_check = 0;
  const auto started = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < pages; ++i) {
    if (mbps != 0 && i % kFar == 0) {
      std::this_thread::sleep_until(started + std::chrono::microseconds(i / kFar * 1000000 / mbps));
    }
    if (leave_free != 0 && i == next_check) {
      const std::uint64_t free = node_free_bytes(node);
      if (free <= leave_free) return i;
      next_check = i + (free - leave_free > (8u << 20) ? kFar : kNear);
    }
    write_page(base + i * kPage, i);
  }
  return pages;
}

// Pins FRACTION of the pages (page i when floor((i+1)F) > floor(iF)) with
// vmsplice into pipes; returns the pipes' ends, open until exit.
std::vector<int> pin_pages(char* base, std::size_t pages, double fraction, std::size_t& pinned) {
  std::vector<char*> chosen;
  for (std::size_t i = 0; i < pages; ++i) {
    if (static_cast<std::size_t>(static_cast<double>(i + 1) * fraction) >
        static_cast<std::size_t>(static_cast<double>(i) * fraction)) {
      chosen.push_back(base + i * kPage);
    }
  }
  pinned = chosen.size();
  return pin_page_list(chosen);
}

// Pins each page of PAGES with vmsplice into pipes; returns the pipes' ends.
std::vector<int> pin_page_list(const std::vector<char*>& pages) {
  std::vector<int> pipes;
  std::vector<struct iovec> pending;
  pending.reserve(pages.size());
  for (char* page : pages) pending.push_back({page, kPage});
  int max_size = 0;
  if (std::ifstream in("/proc/sys/fs/pipe-max-size"); in) in >> max_size;
  std::size_t next = 0;
  int fd = -1;
  while (next < pending.size()) {
    if (fd < 0) {
      int ends[2];
      if (pipe2(ends, O_NONBLOCK) != 0) {
        std::fprintf(stderr, "tier-touch: pipe2: %s\n", std::strerror(errno));
        std::exit(1);
      }
      if (max_size > 0) fcntl(ends[1], F_SETPIPE_SZ, max_size);
      // Both ends stay open (no reader would make vmsplice fail with EPIPE);
      // nothing reads, so the pages stay referenced.
      fd = ends[1];
      pipes.push_back(ends[0]);
      pipes.push_back(fd);
    }
    const std::size_t n = std::min<std::size_t>(pending.size() - next, 1024);  // IOV_MAX
    ssize_t done = vmsplice(fd, pending.data() + next, n, SPLICE_F_NONBLOCK);
    if (done < 0 && errno == EAGAIN) {
      fd = -1;  // full: the next pages go into a new pipe
      continue;
    }
    if (done <= 0) {
      std::fprintf(stderr, "tier-touch: vmsplice: %s\n", std::strerror(errno));
      std::exit(1);
    }
    next += static_cast<std::size_t>(done) / kPage;
  }
  return pipes;
}

std::vector<std::uint64_t> frames_of(const char* base, std::size_t pages) {
  std::vector<std::uint64_t> entries(pages);
  const int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  const std::size_t bytes = pages * sizeof(std::uint64_t);
  const auto offset = static_cast<off_t>(reinterpret_cast<std::uintptr_t>(base) / kPage * 8);
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = pread(fd, reinterpret_cast<char*>(entries.data()) + done, bytes - done,
                            offset + static_cast<off_t>(done));
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  close(fd);
  if (done < bytes) return {};
  constexpr std::uint64_t kPresent = 1ull << 63, kFrameMask = (1ull << 55) - 1;
  for (auto& e : entries) e = (e & kPresent) != 0 ? e & kFrameMask : 0;
  return entries;
}

bool parse_u64(const char* text, std::uint64_t& out, bool suffixes) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 0);
  // strtoull skips blanks and wraps a negative number around (" -1" would
  // be 2^64-1): a size starts with a digit.
  if (errno != 0 || end == text || *text < '0' || *text > '9') return false;
  std::uint64_t shift = 0;
  if (suffixes && *end != '\0') {
    switch (*end) {
      case 'k':
      case 'K':
        shift = 10;
        break;
      case 'm':
      case 'M':
        shift = 20;
        break;
      case 'g':
      case 'G':
        shift = 30;
        break;
      default:
        return false;
    }
    ++end;
    if (*end == 'i' || *end == 'B') ++end;
    if (*end == 'B') ++end;
  }
  if (*end != '\0' || (shift != 0 && v > (~0ull >> shift))) return false;
  out = v << shift;
  return true;
}

void add_node(NodeMask& mask, int node) {
  constexpr std::size_t kBits = 8 * sizeof(unsigned long);
  mask[static_cast<std::size_t>(node) / kBits] |= 1ul << (static_cast<std::size_t>(node) % kBits);
}

NodeMask mask_of(int node) {
  NodeMask mask(kMaskBits / (8 * sizeof(unsigned long)), 0);
  add_node(mask, node);
  return mask;
}

}  // namespace tier_workloads
