#include "value.hpp"

#include <algorithm>
#include <cstring>

#include "splitmix.hpp"

namespace tier_kv {
namespace {

std::uint64_t stream_seed(std::uint32_t id, std::uint32_t version) {
  return (std::uint64_t{id} << 32 | version) ^ 0x6b762d76616c7565ull;  // "kv-value"
}

void write_digits(std::uint32_t n, char* out) {
  for (int i = 9; i >= 0; --i) {
    out[i] = static_cast<char>('0' + n % 10);
    n /= 10;
  }
}

// The 10 digits at `text` as a number; false when they are not digits or do
// not fit 32 bits.
bool read_digits(const char* text, std::uint32_t& out) {
  std::uint64_t n = 0;
  for (int i = 0; i < 10; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    n = n * 10 + static_cast<std::uint64_t>(text[i] - '0');
  }
  if (n > UINT32_MAX) return false;
  out = static_cast<std::uint32_t>(n);
  return true;
}

void write_header(std::uint32_t id, std::uint32_t version, char* out) {
  write_key(id, out);               // "k:0000000042"
  std::memcpy(out + 12, " v:", 3);  // " v:"
  write_digits(version, out + 15);  // "0000000007"
  out[25] = '\n';
}

}  // namespace

void write_key(std::uint32_t id, char* out) {
  out[0] = 'k';
  out[1] = ':';
  write_digits(id, out + 2);
}

std::string key_name(std::uint32_t id) {
  std::string key(kKeyLength, '\0');
  write_key(id, key.data());
  return key;
}

void make_value(std::uint32_t id, std::uint32_t version, std::size_t size, std::string& out) {
  out.resize(size);
  char* p = out.data();
  write_header(id, version, p);
  tier_workloads::SplitMix64 stream(stream_seed(id, version));
  for (std::size_t off = kHeaderLength; off < size; off += 8) {
    const std::uint64_t word = stream.next();
    std::memcpy(p + off, &word, std::min<std::size_t>(8, size - off));
  }
}

ValueCheck check_value(std::string_view value, std::uint32_t id, std::size_t size) {
  ValueCheck c;
  c.size = value.size();
  if (value.size() != size) {
    c.status = ValueCheck::Status::wrong_size;
    return c;
  }
  const char* p = value.data();
  if (value.size() < kHeaderLength || std::memcmp(p, "k:", 2) != 0 || !read_digits(p + 2, c.key) ||
      std::memcmp(p + 12, " v:", 3) != 0 || !read_digits(p + 15, c.version) || p[25] != '\n') {
    c.status = ValueCheck::Status::bad_header;
    return c;
  }
  if (c.key != id) {
    c.status = ValueCheck::Status::wrong_key;
    return c;
  }
  tier_workloads::SplitMix64 stream(stream_seed(id, c.version));
  for (std::size_t off = kHeaderLength; off < size; off += 8) {
    const std::uint64_t word = stream.next();
    const std::size_t n = std::min<std::size_t>(8, size - off);
    if (std::memcmp(p + off, &word, n) == 0) continue;
    const auto* expected = reinterpret_cast<const char*>(&word);
    for (std::size_t i = 0; i < n; ++i) {
      if (p[off + i] != expected[i]) {
        c.offset = off + i;
        break;
      }
    }
    c.status = ValueCheck::Status::corrupt;
    return c;
  }
  return c;
}

std::string wrong_value(std::string_view value, std::uint32_t id, std::size_t size,
                        std::uint32_t lo, std::uint32_t hi) {
  const ValueCheck c = check_value(value, id, size);
  if (c.status != ValueCheck::Status::ok) return describe(c);
  if (c.version >= lo && c.version <= hi) return {};
  const std::string expected =
      lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
  return "version " + std::to_string(c.version) + ", expected " + expected;
}

std::string describe(const ValueCheck& c) {
  switch (c.status) {
    case ValueCheck::Status::ok:
      return "version " + std::to_string(c.version);
    case ValueCheck::Status::wrong_size:
      return "a value of " + std::to_string(c.size) + " bytes";
    case ValueCheck::Status::bad_header:
      return "a value without a valid header";
    case ValueCheck::Status::wrong_key:
      return "the value of " + key_name(c.key) + " (version " + std::to_string(c.version) + ")";
    case ValueCheck::Status::corrupt:
      return "a corrupt value (version " + std::to_string(c.version) + ", first wrong byte at " +
             std::to_string(c.offset) + ")";
  }
  return "?";
}

}  // namespace tier_kv
