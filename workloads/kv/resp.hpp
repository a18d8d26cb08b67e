// RESP2, the Redis protocol (https://redis.io/docs/reference/protocol-spec/),
// as much of it as a client needs: a command out, replies in.
//
// A command is an array of bulk strings ("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"),
// binary safe. A reply is one of
//   +simple string\r\n   -error\r\n   :integer\r\n
//   $len\r\nbytes\r\n    $-1\r\n (nil)   *count\r\n<count replies>   *-1\r\n (nil)
// and arrives in however many pieces the socket delivers: the parser is fed
// bytes as they come and hands out a reply only once all of it is there, so
// a reply split at any byte boundary reads the same as one in one piece.
// Malformed input (an unknown type byte, a length that is not a number, a
// bulk string not ended by CRLF) throws RespError: the stream cannot be
// resynchronised after that, the connection is done.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tier_kv {

/// Appends the command `args` (e.g. {"SET", key, value}) to `out`.
void append_command(std::string& out, std::initializer_list<std::string_view> args);

struct Reply {
  enum class Type { simple, error, integer, bulk, nil, array };
  Type type = Type::nil;
  std::string text;  // simple, error (without the '-'), bulk
  std::int64_t integer = 0;
  std::vector<Reply> elements;  // array
};

/// "simple", "error", ...: for messages about an unexpected reply.
const char* type_name(Reply::Type t);
/// A short description of `r` for a message: "error 'ERR unknown command'",
/// "nil", "bulk string of 1024 bytes", "integer 3".
std::string describe(const Reply& r);

class RespError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RespParser {
 public:
  /// Limits that keep a broken or hostile peer from making us allocate
  /// without bound: Redis's own proto-max-bulk-len and a nesting depth no
  /// reply of the commands used here comes near.
  static constexpr std::int64_t kMaxBulk = 512ll << 20;
  static constexpr std::int64_t kMaxElements = 1 << 20;
  static constexpr int kMaxDepth = 8;
  static constexpr std::size_t kMaxLine = 1 << 20;  // a header or simple string

  void feed(const char* data, std::size_t n);
  void feed(std::string_view data) { feed(data.data(), data.size()); }
  /// The next complete reply into `out` (its storage reused), consumed from
  /// the buffer; false when it has not fully arrived yet (`out` then holds
  /// nothing meaningful and nothing is consumed). Throws RespError.
  bool next(Reply& out);
  /// Bytes fed and not yet handed out as replies.
  std::size_t buffered() const { return buf_.size() - pos_; }

 private:
  // Parses one reply at `at`; on success advances `at` past it. An
  // incomplete reply is re-scanned from its start when more bytes come:
  // only its headers are scanned (a bulk string's length is checked against
  // what is buffered, never searched), so that costs little.
  bool parse(std::size_t& at, Reply& out, int depth) const;
  bool line(std::size_t& at, std::string_view& text) const;
  std::int64_t number(std::string_view text, const char* what) const;

  std::string buf_;
  std::size_t pos_ = 0;
};

}  // namespace tier_kv
