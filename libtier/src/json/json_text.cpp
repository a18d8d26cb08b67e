#include "tier/json/json_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>

namespace tier {

namespace {

namespace json = boost::json;

// The longest plain double: "-0.", 323 zeros and the digit of the smallest
// subnormal (4.9e-324) is 327 characters, the largest finite double 310.
constexpr std::size_t kDoubleChars = 328;

template <typename Integer>
void append_integer(std::string& out, Integer number) {
  char buffer[24];  // 20 digits and a sign
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, number);
  out.append(buffer, end);
}

void append_double(std::string& out, double number) {
  if (!std::isfinite(number)) {
    out += "null";
    return;
  }
  if (number == 0) number = 0;  // -0.0 too
  char buffer[kDoubleChars];
  // Cannot fail: the buffer holds the longest plain form of any double.
  const auto [end, ec] =
      std::to_chars(buffer, buffer + sizeof buffer, number, std::chars_format::fixed);
  out.append(buffer, end);
  if (std::find(buffer, end, '.') == end) out += ".0";
}

// Boost.JSON's escapes (serializer.ipp, 1.81), byte for byte.
void append_string(std::string& out, json::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  // Runs of bytes that need no escape go in with one append each.
  std::size_t run = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte != '"' && byte != '\\') continue;
    out.append(text.data() + run, i - run);
    run = i + 1;
    out += '\\';
    switch (byte) {
      case '"':
      case '\\':
        out += static_cast<char>(byte);
        break;
      case '\b':
        out += 'b';
        break;
      case '\f':
        out += 'f';
        break;
      case '\n':
        out += 'n';
        break;
      case '\r':
        out += 'r';
        break;
      case '\t':
        out += 't';
        break;
      default:
        out += "u00";
        out += kHex[byte >> 4];
        out += kHex[byte & 0xf];
    }
  }
  out.append(text.data() + run, text.size() - run);
  out += '"';
}

void append_value(std::string& out, const json::value& value);

void append_array(std::string& out, const json::array& array) {
  out += '[';
  for (std::size_t i = 0; i < array.size(); ++i) {
    if (i != 0) out += ',';
    append_value(out, array[i]);
  }
  out += ']';
}

void append_object(std::string& out, const json::object& object) {
  out += '{';
  bool first = true;
  for (const json::key_value_pair& member : object) {
    if (!first) out += ',';
    first = false;
    append_string(out, member.key());
    out += ':';
    append_value(out, member.value());
  }
  out += '}';
}

void append_value(std::string& out, const json::value& value) {
  switch (value.kind()) {
    case json::kind::null:
      out += "null";
      return;
    case json::kind::bool_:
      out += value.get_bool() ? "true" : "false";
      return;
    case json::kind::int64:
      append_integer(out, value.get_int64());
      return;
    case json::kind::uint64:
      append_integer(out, value.get_uint64());
      return;
    case json::kind::double_:
      append_double(out, value.get_double());
      return;
    case json::kind::string:
      append_string(out, value.get_string());
      return;
    case json::kind::array:
      append_array(out, value.get_array());
      return;
    case json::kind::object:
      append_object(out, value.get_object());
      return;
  }
}

template <typename Json>
std::string text_of(const Json& json) {
  std::string out;
  append_json_text(out, json);
  return out;
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  append_string(out, json::string_view(text.data(), text.size()));
}

void append_json_text(std::string& out, const json::value& value) {
  append_value(out, value);
}

void append_json_text(std::string& out, const json::object& object) {
  append_object(out, object);
}

void append_json_text(std::string& out, const json::array& array) {
  append_array(out, array);
}

std::string json_text(const json::value& value) {
  return text_of(value);
}

std::string json_text(const json::object& object) {
  return text_of(object);
}

std::string json_text(const json::array& array) {
  return text_of(array);
}

}  // namespace tier
