// Internals of the bench probes shared between libtier/src/bench/*.cpp: the
// node-bound buffer, CPU pinning and the measurement kernels.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tier/cpu/cpulist.hpp"

namespace tier::bench::detail {

/// Anonymous mapping aligned to 2 MiB, madvise(MADV_HUGEPAGE)d and bound to
/// one node with mbind(MPOL_BIND) before the first touch; touch() faults it in.
class NodeBuffer {
 public:
  NodeBuffer(std::size_t bytes, unsigned node);
  ~NodeBuffer();
  NodeBuffer(const NodeBuffer&) = delete;
  NodeBuffer& operator=(const NodeBuffer&) = delete;

  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  /// Writes every page (first touch happens under the binding).
  void touch();
  /// True when /proc/self/smaps shows AnonHugePages in this mapping.
  bool huge_pages() const;
  /// Fraction of the buffer's pages the kernel says are on `node`: proof
  /// that the binding held, asked with move_pages(0, n, pages, NULL, status).
  double fraction_on(unsigned node) const;

 private:
  void* map_ = nullptr;
  std::size_t map_size_ = 0;
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Pins the calling thread to `cpus`; throws std::system_error on failure.
void pin_to(const CpuList& cpus);
void pin_to_cpu(unsigned cpu);

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start);
/// CPU time of the calling thread (excludes time other tasks held the CPU).
double thread_cpu_seconds();

/// Builds the pointer-chase cycle in `buffer` (one pointer per cache line).
void build_chase(NodeBuffer& buffer, std::uint64_t seed);
/// A chase pass lasts at least this much thread CPU time (chase.cpp: that
/// clock can step by a whole scheduler tick), and stops at most after
/// kMaxChaseLoads loads even if the clock shows less.
inline constexpr double kMinChaseSeconds = 0.05;
inline constexpr std::size_t kMaxChaseLoads = std::size_t{1} << 28;
/// Follows at least `loads` pointers from the start of the chain, whole
/// passes of `loads` until kMinChaseSeconds of thread CPU time have passed;
/// returns ns per load.
double chase_ns(const NodeBuffer& buffer, std::size_t loads);

/// Bandwidth kernels over [begin, begin+bytes): return a value to keep reads alive.
std::uint64_t read_kernel(const std::byte* begin, std::size_t bytes);
void write_kernel(std::byte* begin, std::size_t bytes, int value);
void copy_kernel(std::byte* dst, const std::byte* src, std::size_t bytes);

enum class Kernel { read, write, copy };
/// One timed pass of `kernel` by `threads` threads pinned round-robin to
/// `cpus`; MB/s (10^6 bytes/s) of the bytes read, written or copied.
double bandwidth_pass(NodeBuffer& buffer, Kernel kernel, int threads, const CpuList& cpus);

double median(std::vector<double> values);

}  // namespace tier::bench::detail
