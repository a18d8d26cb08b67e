// The truth file: which virtual address ranges were hot in each phase, for
// the checks that score a heat source against it:
//   {"page_size": 4096, "base": B, "size": S,
//    "phases": [{"start_s": 0.0, "hot": [[start, end], ...]}, ...]}
// (integer addresses, end exclusive, start_s from the start of the accesses).
// Rewritten whole at each phase shift through a rename, so a reader never
// sees a half-written file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "access.hpp"

namespace hotset {

class Truth {
 public:
  Truth(std::string path, std::uintptr_t base, std::size_t size)
      : path_(std::move(path)), base_(base), size_(size) {}
  // Records phase `phase` starting at start_s and rewrites the file; false
  // (with a message) if it cannot be written. Without a path, only records.
  bool add_phase(const Layout& layout, unsigned phase, double start_s);

 private:
  std::string path_;
  std::uintptr_t base_;
  std::size_t size_;
  std::string phases_;  // the JSON array's elements so far
};

}  // namespace hotset
