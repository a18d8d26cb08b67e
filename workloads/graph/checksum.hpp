// The 64-bit checksum that proves the graph survived its page moves: taken
// right after the CSR is built and again at exit (csr.hpp).
//
// Four lanes (so the multiplies of consecutive words overlap) each fold
// their 64-bit words as h = rotl((h ^ w) * P, 29); each step is a bijection
// of h for a given w and of w for a given h, and the lanes are combined the
// same way, so changing any single word (any flipped byte or bit) always
// changes the checksum. Bytes past the last whole word are folded one word
// zero-padded.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tier_workloads::graph {

std::uint64_t checksum_bytes(const void* data, std::size_t bytes);

/// Two checksums into one, a bijection in each.
std::uint64_t checksum_combine(std::uint64_t first, std::uint64_t second);

}  // namespace tier_workloads::graph
