#include "tier/protocol/control_protocol.hpp"

#include <boost/json.hpp>
#include <cmath>
#include <stdexcept>
#include <string>

#include "tier/json/json_text.hpp"

namespace tier::control {

namespace json = boost::json;

namespace {

// Boost.JSON 1.81 reads a number beyond double's range (1e400) as infinity.
// Such a request is refused: no param means infinity, and a reply echoing it
// would say null where the client sent a number (Boost's own serializer
// wrote `Infinity`, not JSON: found by fuzz/fuzz_request). Nesting is
// bounded by the parser's depth limit.
bool has_non_finite_number(const json::value& value) {
  switch (value.kind()) {
    case json::kind::double_:
      return !std::isfinite(value.get_double());
    case json::kind::array:
      for (const json::value& item : value.get_array()) {
        if (has_non_finite_number(item)) return true;
      }
      return false;
    case json::kind::object:
      for (const auto& member : value.get_object()) {
        if (has_non_finite_number(member.value())) return true;
      }
      return false;
    default:
      return false;
  }
}

// `{"version":1,`, how every line starts. The lines are written around their
// payload rather than built as objects, so a result (a whole status or heat
// document) is not copied once more for every reply; the members come in the
// order docs/api.md shows.
std::string line_start() {
  return "{\"version\":" + std::to_string(kProtocolVersion) + ",";
}

}  // namespace

std::string encode_request(std::string_view method, const json::value& params) {
  std::string line = line_start();
  line += "\"method\":";
  append_json_string(line, method);
  if (!params.is_null()) {
    line += ",\"params\":";
    append_json_text(line, params);
  }
  line += "}\n";
  return line;
}

std::string encode_ok(const json::value& result) {
  std::string line = line_start();
  line += "\"ok\":true,\"result\":";
  append_json_text(line, result);
  line += "}\n";
  return line;
}

const char* to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::bad_request:
      return "bad_request";
    case ErrorCode::too_large:
      return "too_large";
    case ErrorCode::unknown_method:
      return "unknown_method";
    case ErrorCode::permission:
      return "permission";
    case ErrorCode::not_found:
      return "not_found";
    case ErrorCode::conflict:
      return "conflict";
    case ErrorCode::failed:
      return "failed";
  }
  return "failed";
}

std::string encode_error(std::string_view message, ErrorCode code) {
  std::string line = line_start();
  line += "\"ok\":false,\"error\":";
  append_json_string(line, message);
  line += ",\"code\":";
  append_json_string(line, to_string(code));
  line += "}\n";
  return line;
}

Request parse_request(std::string_view line) {
  if (line.size() > kMaxRequestBytes) throw std::invalid_argument("request larger than 1 MiB");
  json::error_code ec;
  json::value value = json::parse(line, ec);
  if (ec) throw std::invalid_argument("malformed JSON: " + ec.message());
  if (has_non_finite_number(value)) throw std::invalid_argument("number out of range");
  const json::object* object = value.if_object();
  if (object == nullptr) throw std::invalid_argument("request must be a JSON object");
  const json::value* version = object->if_contains("version");
  if (version == nullptr || !version->is_int64() || version->as_int64() != kProtocolVersion) {
    throw std::invalid_argument("unsupported or missing \"version\" (this daemon speaks 1)");
  }
  const json::value* method = object->if_contains("method");
  if (method == nullptr || !method->is_string()) {
    throw std::invalid_argument("missing \"method\" string");
  }
  Request request{std::string(method->as_string()), nullptr};
  if (const json::value* params = object->if_contains("params")) request.params = *params;
  return request;
}

json::value parse_reply(std::string_view line) {
  json::error_code ec;
  json::value value = json::parse(line, ec);
  if (ec || !value.is_object()) throw std::runtime_error("tierd sent a malformed reply");
  const json::object& object = value.as_object();
  const json::value* ok = object.if_contains("ok");
  if (ok == nullptr || !ok->is_bool()) throw std::runtime_error("tierd reply lacks \"ok\"");
  if (!ok->as_bool()) {
    const json::value* error = object.if_contains("error");
    const json::value* code = object.if_contains("code");
    throw ReplyError(error != nullptr && error->is_string()
                         ? std::string(error->as_string())
                         : std::string("tierd reported an unspecified error"),
                     code != nullptr && code->is_string() ? std::string(code->as_string()) : "");
  }
  const json::value* result = object.if_contains("result");
  return result != nullptr ? *result : json::value(nullptr);
}

}  // namespace tier::control
