#include "tier/protocol/control_protocol.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace tier::control {
namespace {

TEST(ControlProtocol, RoundTripsARequest) {
  std::string line = encode_request("topology", boost::json::object{{"x", 1}});
  ASSERT_EQ(line.back(), '\n');
  Request request = parse_request(line.substr(0, line.size() - 1));
  EXPECT_EQ(request.method, "topology");
  EXPECT_EQ(request.params.as_object().at("x").as_int64(), 1);
}

TEST(ControlProtocol, RejectsMalformedRequests) {
  EXPECT_THROW(parse_request("{not json"), std::invalid_argument);
  EXPECT_THROW(parse_request("[1,2]"), std::invalid_argument);
  EXPECT_THROW(parse_request(R"({"method":"status"})"), std::invalid_argument);
  EXPECT_THROW(parse_request(R"({"version":2,"method":"status"})"), std::invalid_argument);
  EXPECT_THROW(parse_request(R"({"version":1})"), std::invalid_argument);
  EXPECT_THROW(parse_request(std::string(kMaxRequestBytes + 1, ' ')), std::invalid_argument);
}

// Found by fuzz_request: a number past double's range parsed as infinity,
// which Boost.JSON then writes as `Infinity` - not JSON - in any reply that
// echoes it.
TEST(ControlProtocol, RejectsNumbersOutOfDoubleRange) {
  try {
    parse_request(R"({"version":1,"method":"status","params":{"x":1e400}})");
    FAIL() << "1e400 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("number out of range"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(parse_request(R"({"version":1,"method":"status","params":{"x":1e300}})"));
}

TEST(ControlProtocol, RepliesCarryResultOrError) {
  std::string ok = encode_ok(boost::json::value{{"a", 2}});
  EXPECT_EQ(parse_reply(ok).as_object().at("a").as_int64(), 2);
  std::string error = encode_error("no such thing");
  try {
    parse_reply(error);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "no such thing");
  }
}

}  // namespace
}  // namespace tier::control
