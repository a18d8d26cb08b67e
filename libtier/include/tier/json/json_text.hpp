// The one JSON writer of tier: every --json document tierctl and tier-sim
// print, every control-protocol line and tierd's state file go through it,
// so a number reads the same wherever a user or a script meets it.
//
// Contract: the text is what boost::json::serialize writes (no whitespace,
// members in the object's order, the same string escapes: \" \\ \b \f \n \r
// \t, \u00xx in lowercase hex for the other bytes below 0x20, every other
// byte as it is, no UTF-8 check), except for doubles, which Boost 1.81 writes
// in exponent form ("1E0", "0E0", "2.5E-1") and, when not finite, as the
// non-JSON words "Infinity" and "NaN". Here a double is written
//   - in plain decimal notation with the shortest digits that read back as
//     the same double (std::to_chars, chars_format::fixed): 0.25, 262.9,
//     0.0000001, never an exponent;
//   - with a decimal point also when it is integral ("1.0", "0.0", "4096.0"),
//     so a reader that keeps integers and decimals apart (Python's json,
//     Boost.JSON itself) sees a decimal field as a decimal every time. A
//     count, a byte total or an id is written as an integer by storing it as
//     one in the document, not by guessing from the value;
//   - -0.0 as "0.0": no quantity tier reports has a sign on zero, and
//     "-0.0" out of a rounding reads as a bug;
//   - NaN and the infinities as null (JSON has no word for them).
// Integers (int64, uint64), booleans and null are written as Boost writes
// them.
//
// Not in namespace tier::json: code all over tier says
// `namespace json = boost::json;` inside namespace tier, which such a
// namespace would make ambiguous.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <string_view>

namespace tier {

/// The JSON text of `value`, without a trailing newline.
std::string json_text(const boost::json::value& value);
/// The same for an object or an array, without copying it into a value.
std::string json_text(const boost::json::object& object);
std::string json_text(const boost::json::array& array);

/// Appends the JSON text to `out` (a reply built in one buffer).
void append_json_text(std::string& out, const boost::json::value& value);
void append_json_text(std::string& out, const boost::json::object& object);
void append_json_text(std::string& out, const boost::json::array& array);
/// Appends `text` as a JSON string, quotes and escapes included.
void append_json_string(std::string& out, std::string_view text);

}  // namespace tier
