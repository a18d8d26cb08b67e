#include "placement.hpp"

#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "../own_residency.hpp"
#include "node_mask.hpp"

namespace tier_workloads {
namespace {

constexpr std::size_t kPage = 4096;
constexpr std::size_t kChunk = 64u << 20;
constexpr std::size_t kMaskBits = kNodeMaskBits;

[[noreturn]] void fail(const std::string& what, int node) {
  throw std::runtime_error(what + " (node " + std::to_string(node) + "): " + std::strerror(errno));
}

void set_policy(char* p, std::size_t length, int mode, int node) {
  auto mask = node_mask(node);
  if (mbind(p, length, mode, mask.data(), kMaskBits, 0) != 0) {
    fail(mode == MPOL_BIND ? "mbind(MPOL_BIND)" : "mbind(MPOL_BIND|MPOL_F_NUMA_BALANCING)", node);
  }
}

}  // namespace

const char* placement_name(Placement p) {
  switch (p) {
    case Placement::bind:
      return "bind";
    case Placement::bind_balancing:
      return "bind-balancing";
    case Placement::first_touch:
      return "first-touch";
  }
  return "?";
}

PlacedBuffer::PlacedBuffer(std::size_t length, int node, Placement policy,
                           const std::function<void(char*, std::size_t)>& fill)
    : length_((length + kPage - 1) / kPage * kPage) {
  if (length_ == 0) throw std::runtime_error("an empty buffer");
  void* p = mmap(nullptr, length_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) fail("mmap of " + std::to_string(length_) + " bytes", node);
  base_ = static_cast<char*>(p);
  if (madvise(base_, length_, MADV_NOHUGEPAGE) != 0) fail("madvise(MADV_NOHUGEPAGE)", node);
  if (node >= 0) {
    const int mode =
        policy == Placement::bind_balancing ? MPOL_BIND | MPOL_F_NUMA_BALANCING : MPOL_BIND;
    set_policy(base_, length_, mode, node);
  }
  for (std::size_t off = 0; off < length_; off += kChunk)
    fill(base_ + off, std::min(kChunk, length_ - off));
  // No MPOL_MF_MOVE on the way back: dropping the policy moves nothing.
  if (node >= 0 && policy == Placement::first_touch &&
      mbind(base_, length_, MPOL_DEFAULT, nullptr, 0, 0) != 0) {
    fail("mbind(MPOL_DEFAULT)", node);
  }
}

PlacedBuffer::~PlacedBuffer() {
  if (base_ != nullptr) munmap(base_, length_);
}

std::map<int, std::size_t> PlacedBuffer::nodes() const {
  return own_page_nodes(base_, length_);
}

bool pin_thread(const tier::CpuList& cpus, unsigned index) {
  if (cpus.empty()) return true;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpus.ids()[index % cpus.size()], &set);
  const int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  if (rc != 0) errno = rc;
  return rc == 0;
}

}  // namespace tier_workloads
