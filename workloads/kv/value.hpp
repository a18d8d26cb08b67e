// Keys and self-describing values, so that any GET reply can be checked on
// its own: which key it belongs to, which version it is, and whether every
// byte is what that version was written with.
//
//   key    "k:" + the id in 10 digits: "k:0000000042" (fixed length, sorts
//          like the ids)
//   value  a 26-byte text header "k:0000000042 v:0000000007\n" (the key and
//          the version, readable with redis-cli), then bytes that are a
//          function of (id, version) alone: the little-endian words of a
//          splitmix64 stream seeded from both. A flipped byte anywhere, a
//          value of another key or another version, a truncated value: each
//          reads as wrong.
// Version 0 is what the load phase writes; every SET writes the key's next
// version.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tier_kv {

inline constexpr std::size_t kKeyLength = 12;
inline constexpr std::size_t kHeaderLength = 26;
inline constexpr std::size_t kMinValueSize = 32;

/// Writes the key of `id` into `out` (kKeyLength bytes, no terminator).
void write_key(std::uint32_t id, char* out);
std::string key_name(std::uint32_t id);

/// `out` becomes the value of (id, version), `size` bytes (>= kMinValueSize).
void make_value(std::uint32_t id, std::uint32_t version, std::size_t size, std::string& out);

/// What a value read back is.
struct ValueCheck {
  enum class Status { ok, wrong_size, bad_header, wrong_key, corrupt };
  Status status = Status::ok;
  std::uint32_t version = 0;  // from the header (ok, wrong_key, corrupt)
  std::uint32_t key = 0;      // the id the header names (ok, wrong_key, corrupt)
  std::size_t size = 0;       // the value's length
  std::size_t offset = 0;     // corrupt: the first byte that differs
};

/// Checks `value` as a value of key `id` with `size` bytes: its header, then
/// every byte against the stream of the version the header names. Which
/// versions are acceptable is the caller's question (worker.hpp).
ValueCheck check_value(std::string_view value, std::uint32_t id, std::size_t size);

/// Empty when `value` is a valid value of key `id` (`size` bytes) in a
/// version from `lo` to `hi`; else why not, for a message: "version 9,
/// expected 3 to 4", "a corrupt value (...)".
std::string wrong_value(std::string_view value, std::uint32_t id, std::size_t size,
                        std::uint32_t lo, std::uint32_t hi);

/// What `c` found, for a message: "version 7", "a corrupt value (version
/// 3, first wrong byte at 517)", "the value of k:0000000012 (version 0)".
std::string describe(const ValueCheck& c);

}  // namespace tier_kv
