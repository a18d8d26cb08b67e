#include "resp.hpp"

#include <charconv>

namespace tier_kv {
namespace {

void append_length(std::string& out, char type, std::size_t n) {
  char digits[24];
  auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  out += type;
  out.append(digits, end);
  out += "\r\n";
}

// Printable for a message: control bytes as '?', at most 60 characters.
std::string shown(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 60)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (text.size() > 60) out += "...";
  return out;
}

}  // namespace

void append_command(std::string& out, std::initializer_list<std::string_view> args) {
  append_length(out, '*', args.size());
  for (std::string_view a : args) {
    append_length(out, '$', a.size());
    out.append(a);
    out += "\r\n";
  }
}

const char* type_name(Reply::Type t) {
  switch (t) {
    case Reply::Type::simple:
      return "simple string";
    case Reply::Type::error:
      return "error";
    case Reply::Type::integer:
      return "integer";
    case Reply::Type::bulk:
      return "bulk string";
    case Reply::Type::nil:
      return "nil";
    case Reply::Type::array:
      return "array";
  }
  return "?";
}

std::string describe(const Reply& r) {
  switch (r.type) {
    case Reply::Type::simple:
    case Reply::Type::error:
      return std::string(type_name(r.type)) + " '" + shown(r.text) + "'";
    case Reply::Type::integer:
      return "integer " + std::to_string(r.integer);
    case Reply::Type::bulk:
      return "bulk string of " + std::to_string(r.text.size()) + " bytes";
    case Reply::Type::nil:
      return "nil";
    case Reply::Type::array:
      return "array of " + std::to_string(r.elements.size());
  }
  return "?";
}

void RespParser::feed(const char* data, std::size_t n) {
  // Drop what was handed out before growing: the buffer stays about one
  // reply long instead of the whole stream.
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  } else if (pos_ > 4096 && pos_ > buf_.size() / 2) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  buf_.append(data, n);
}

bool RespParser::next(Reply& out) {
  std::size_t at = pos_;
  if (!parse(at, out, 0)) return false;
  pos_ = at;
  return true;
}

bool RespParser::line(std::size_t& at, std::string_view& text) const {
  const std::size_t cr = buf_.find('\r', at);
  if (cr == std::string::npos && buf_.size() - at > kMaxLine) {
    throw RespError("protocol error: a line of more than " + std::to_string(kMaxLine) +
                    " bytes without CRLF");
  }
  if (cr == std::string::npos || cr + 1 >= buf_.size()) return false;
  if (buf_[cr + 1] != '\n') throw RespError("protocol error: CR not followed by LF");
  text = std::string_view(buf_).substr(at, cr - at);
  at = cr + 2;
  return true;
}

std::int64_t RespParser::number(std::string_view text, const char* what) const {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    throw RespError(std::string("protocol error: ") + what + " '" + shown(text) +
                    "' is not a number");
  }
  return v;
}

bool RespParser::parse(std::size_t& at, Reply& out, int depth) const {
  if (at >= buf_.size()) return false;
  const char type = buf_[at];
  std::size_t p = at + 1;
  std::string_view head;
  if (!line(p, head)) return false;
  switch (type) {
    case '+':
    case '-':
      out.type = type == '+' ? Reply::Type::simple : Reply::Type::error;
      out.text.assign(head);
      break;
    case ':':
      out.type = Reply::Type::integer;
      out.integer = number(head, "integer");
      break;
    case '$': {
      const std::int64_t len = number(head, "bulk length");
      if (len == -1) {
        out.type = Reply::Type::nil;
        break;
      }
      if (len < 0 || len > kMaxBulk) {
        throw RespError("protocol error: bulk length " + std::to_string(len) + " out of range");
      }
      const auto n = static_cast<std::size_t>(len);
      if (buf_.size() - p < n + 2) return false;
      if (buf_[p + n] != '\r' || buf_[p + n + 1] != '\n') {
        throw RespError("protocol error: bulk string of " + std::to_string(n) +
                        " bytes not ended by CRLF");
      }
      out.type = Reply::Type::bulk;
      out.text.assign(buf_, p, n);
      p += n + 2;
      break;
    }
    case '*': {
      const std::int64_t count = number(head, "array length");
      if (count == -1) {
        out.type = Reply::Type::nil;
        break;
      }
      if (count < 0 || count > kMaxElements) {
        throw RespError("protocol error: array length " + std::to_string(count) + " out of range");
      }
      if (depth >= kMaxDepth) throw RespError("protocol error: arrays nested too deep");
      out.type = Reply::Type::array;
      out.elements.resize(static_cast<std::size_t>(count));
      for (Reply& element : out.elements) {
        if (!parse(p, element, depth + 1)) return false;
      }
      break;
    }
    default:
      throw RespError("protocol error: unknown reply type byte '" + shown({&type, 1}) + "'");
  }
  at = p;
  return true;
}

}  // namespace tier_kv
