// NodeBuffer and CPU pinning for the bench probes.
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "internal.hpp"

namespace tier::bench::detail {

namespace {
constexpr std::size_t kHugePage = 2u << 20;
}

NodeBuffer::NodeBuffer(std::size_t bytes, unsigned node) : size_(bytes) {
  // Over-allocate by one huge page so the data can start on a 2 MiB boundary:
  // THP only backs aligned 2 MiB ranges.
  map_size_ = bytes + kHugePage;
  map_ = mmap(nullptr, map_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    throw std::system_error(errno, std::generic_category(),
                            "mmap " + std::to_string(map_size_) + " bytes");
  }
  auto addr = reinterpret_cast<std::uintptr_t>(map_);
  addr = (addr + kHugePage - 1) & ~(kHugePage - 1);
  data_ = reinterpret_cast<std::byte*>(addr);
  // Not fatal: without THP the figures include more TLB misses (reported).
  (void)madvise(map_, map_size_, MADV_HUGEPAGE);
  constexpr std::size_t kBitsPerWord = 8 * sizeof(unsigned long);
  std::vector<unsigned long> mask(node / kBitsPerWord + 1, 0);
  mask[node / kBitsPerWord] |= 1ul << (node % kBitsPerWord);
  if (mbind(map_, map_size_, MPOL_BIND, mask.data(), mask.size() * kBitsPerWord + 1, 0) != 0) {
    int err = errno;
    munmap(map_, map_size_);
    map_ = nullptr;
    throw std::system_error(err, std::generic_category(),
                            "mbind(MPOL_BIND) to node " + std::to_string(node));
  }
}

NodeBuffer::~NodeBuffer() {
  if (map_ != nullptr) munmap(map_, map_size_);
}

void NodeBuffer::touch() {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  for (std::size_t off = 0; off < size_; off += page) data_[off] = std::byte{1};
}

bool NodeBuffer::huge_pages() const {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool in_mapping = false;
  const auto start = reinterpret_cast<std::uintptr_t>(map_);
  while (std::getline(smaps, line)) {
    std::uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 &&
        line.find(' ') != std::string::npos && line.find('-') < line.find(' ')) {
      // A mapping header; VMAs may be split, so accept any overlapping one.
      in_mapping = lo < start + map_size_ && hi > start;
      continue;
    }
    if (in_mapping && line.rfind("AnonHugePages:", 0) == 0) {
      std::istringstream fields(line.substr(14));
      std::uint64_t kb = 0;
      fields >> kb;
      if (kb > 0) return true;
    }
  }
  return false;
}

double NodeBuffer::fraction_on(unsigned node) const {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::vector<void*> pages;
  for (std::size_t off = 0; off < size_; off += page) pages.push_back(data_ + off);
  std::vector<int> status(pages.size(), -1);
  if (pages.empty() || move_pages(0, pages.size(), pages.data(), nullptr, status.data(), 0) != 0) {
    return 0;
  }
  std::size_t on = 0;
  for (int s : status) on += s == static_cast<int>(node) ? 1 : 0;
  return static_cast<double>(on) / static_cast<double>(pages.size());
}

void pin_to(const CpuList& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (unsigned cpu : cpus.ids()) CPU_SET(cpu, &set);
  int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  if (rc != 0) {
    throw std::system_error(rc, std::generic_category(), "pin to CPUs " + cpus.to_string());
  }
}

void pin_to_cpu(unsigned cpu) {
  pin_to(CpuList({cpu}));
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace tier::bench::detail
