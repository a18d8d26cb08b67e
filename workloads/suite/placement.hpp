// Where a suite workload's data starts and whether it may move from there.
// The head-to-head (tests/vm/guest/h2h.sh) first-touches every workload on a
// slow node and lets each contender (the kernel, DAMON, tierd) move it:
//   bind            MPOL_BIND to the node: the data stays (NUMA balancing
//                   skips the VMA; move_pages still moves it)
//   bind-balancing  MPOL_BIND | MPOL_F_NUMA_BALANCING: placed and scanned for
//                   hint faults, never moved off by the kernel
//   first-touch     bound for the first touch, then MPOL_DEFAULT: anyone may
//                   move it (the head-to-head's setting)
// The same three as hotset's --policy (workloads/hotset/placement.hpp).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>

#include "tier/cpu/cpulist.hpp"

namespace tier_workloads {

enum class Placement { bind, bind_balancing, first_touch };

const char* placement_name(Placement p);

/// Memory for `length` bytes (rounded up to 4 KiB pages), mmap'd with
/// MADV_NOHUGEPAGE (pages move one by one, as the placement scenarios count
/// them), placed on `node` by `policy` and first-touched by `fill(p, length)`
/// under that policy, in chunks of 64 MiB. node < 0: no policy, just filled.
/// Throws std::runtime_error naming the call and the node on failure.
class PlacedBuffer {
 public:
  PlacedBuffer(std::size_t length, int node, Placement policy,
               const std::function<void(char*, std::size_t)>& fill);
  ~PlacedBuffer();
  PlacedBuffer(const PlacedBuffer&) = delete;
  PlacedBuffer& operator=(const PlacedBuffer&) = delete;
  char* data() const { return base_; }
  std::size_t size() const { return length_; }
  /// {node: pages} of the buffer now (move_pages(2) queried on itself).
  std::map<int, std::size_t> nodes() const;

 private:
  char* base_ = nullptr;
  std::size_t length_ = 0;
};

/// Pins the calling thread to the (index % size)-th CPU of `cpus`; nothing
/// when `cpus` is empty. False (errno set) when the kernel refuses.
bool pin_thread(const tier::CpuList& cpus, unsigned index);

}  // namespace tier_workloads
