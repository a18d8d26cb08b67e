// The JSON schema round-trips (tierd serves it, tierctl renders it) and a
// malformed document is refused with the field it failed on.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "tier/topology/topology_json.hpp"

namespace tier {
namespace {

namespace json = boost::json;

Topology fixture(const char* name) {
  TopologyOptions options;
  options.root = SysRoot(std::filesystem::path(TIER_FIXTURES) / "sysfs" / name);
  return load_topology(options);
}

TEST(TopologyJson, RoundTripsEveryFixture) {
  for (const char* name : {"2s-cxl-hmat", "1s-nps4-cxl", "qemu-4node"}) {
    json::value first = to_json(fixture(name));
    Topology parsed = topology_from_json(first);
    EXPECT_EQ(json::serialize(to_json(parsed)), json::serialize(first)) << name;
  }
}

TEST(TopologyJson, RoundTripKeepsWhatRenderingNeeds) {
  Topology parsed = topology_from_json(to_json(fixture("2s-cxl-hmat")));
  ASSERT_EQ(parsed.nodes().size(), 4u);
  EXPECT_EQ(parsed.nodes()[2].kind, MemoryKind::cxl);
  EXPECT_EQ(parsed.nodes()[2].tier, 1u);
  EXPECT_EQ(parsed.tier_source(), TierSource::kernel);
  EXPECT_EQ(parsed.distance(0, 3), fixture("2s-cxl-hmat").distance(0, 3));
}

TEST(TopologyJson, NamesTheFieldThatIsWrong) {
  json::value doc = to_json(fixture("qemu-4node"));
  auto error_for = [](json::value d) {
    try {
      topology_from_json(d);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  json::value bad_kind = doc;
  bad_kind.as_object()["nodes"].as_array()[2].as_object()["kind"] = "dimm";
  EXPECT_EQ(error_for(bad_kind), "topology document: $.nodes[2].kind must be a known name");
  json::value missing = doc;
  missing.as_object()["perf"].as_array()[0].as_object().erase("target");
  EXPECT_EQ(error_for(missing), "topology document: $.perf[0].target must be present");
  json::value negative = doc;
  negative.as_object()["nodes"].as_array()[0].as_object()["tier"] = -1;
  EXPECT_EQ(error_for(negative),
            "topology document: $.nodes[0].tier must be a non-negative integer");
  json::value schema = doc;
  schema.as_object()["schema"] = "tier.topology/v0";
  EXPECT_EQ(error_for(schema), "topology document: $.schema must be tier.topology/v1");
  EXPECT_EQ(error_for(json::array{}), "topology document: $ must be an object");
}

}  // namespace
}  // namespace tier
