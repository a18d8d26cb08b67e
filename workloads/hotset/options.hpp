// hotset's command line: what to allocate, where to place it, which part is
// hot and how it is accessed. parse_options() exits 2 with the usage on any
// bad argument, so the rest of the program only sees a consistent Options.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hotset {

inline constexpr std::size_t kPage = 4096;

enum class Policy {
  kBind,           // MPOL_BIND: pages stay, NUMA balancing skips the VMA
  kBindBalancing,  // MPOL_BIND | MPOL_F_NUMA_BALANCING: scanned, hint faults, no move off
  kFirstTouch,     // bound for the first touch, then MPOL_DEFAULT: the kernel may move them
};

struct Options {
  std::size_t size = 0;        // buffer bytes, a multiple of kPage
  std::size_t hot = 0;         // hot set bytes (default: the whole buffer)
  std::size_t hot_offset = 0;  // where the first phase's hot set starts
  int node = -1;               // node of the whole buffer (of the cold part with hot_nodes)
  std::vector<int> hot_nodes;  // the first hot set split evenly across these
  bool zipf = false;
  double theta = 0.0;           // Zipf exponent, 0 < theta < 1
  double write_fraction = 0.0;  // share of accesses that write
  unsigned threads = 1;
  std::vector<int> cpus;     // thread i runs on cpus[i % size]; empty: not pinned
  double duration_s = 0.0;   // 0: until SIGTERM/SIGINT
  double phase_shift_s = 0;  // 0: the hot set never moves
  std::string truth;         // truth file path, empty: none
  std::string ready_file;    // touched once the ready line is out
  std::string start_file;    // accesses start once this file exists, empty: at once
  Policy policy = Policy::kBind;
  std::string census;              // census JSON lines file, empty: no census
  double census_ms = 1000;         // census period
  std::vector<int> fast_nodes{0};  // the fast tier, for the census
  double grow_mibps = 0;           // > 0: first-touch the buffer progressively at this rate
  double scan_every_s = 0;         // > 0: the workers scan the whole buffer this often
};

// Parses argv; on error prints why and the usage to stderr and exits 2.
Options parse_options(int argc, char** argv);

const char* policy_name(Policy p);

}  // namespace hotset
