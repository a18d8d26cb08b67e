#include "options.hpp"

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "tier/values/values.hpp"
#include "value.hpp"

namespace tier_kv {

namespace values = tier::values;

namespace {

constexpr const char* kOwnUsage =
    "usage: tier-kv (--socket PATH | --host H [--port P]) [options]\n"
    "A client of a Redis server (redis-server): loads --keys values, then GETs and SETs\n"
    "them from --threads connections, one request outstanding each, checking every reply.\n"
    "  --socket PATH        the server's unix socket\n"
    "  --host H             the server's host (TCP) ...\n"
    "  --port P             ... and port, 1-65535 (default 6379)\n"
    "  --keys N             keys k:0000000000.., 1-100000000 (default 10000)\n"
    "  --value-size BYTES   bytes per value, 32-16M (default 1K)\n"
    "  --write-fraction F   share of requests that are SETs, 0-1 (default 0.05)\n"
    "  --theta T            Zipf skew of the keys drawn, above 0 and below 1 (default 0.99)\n"
    "  --dist D             uniform | zipf:T (zipf:T is --theta T)\n"
    "  --pipeline N         commands per round trip when loading and verifying, 1-1024\n"
    "                       (default 64)\n"
    "  --timeout D          longest wait for the server, e.g. 10s (default 10s)\n"
    "suite flags (--threads: connections, one thread each):\n";

}  // namespace

std::string usage_text() {
  // The suite's lines, but --node and --policy: they place the data, and
  // the data here is the server's.
  std::string text = kOwnUsage;
  std::string_view suite = tier_workloads::kSuiteUsage;
  while (!suite.empty()) {
    const std::size_t end = suite.find('\n');
    const std::string_view line = suite.substr(0, end == std::string_view::npos ? end : end + 1);
    if (line.rfind("  --node ", 0) != 0 && line.rfind("  --policy ", 0) != 0) text += line;
    suite.remove_prefix(line.size());
  }
  return text + "  --node, --policy     refused: place the server (redis-server), not the client\n";
}

namespace {

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "tier-kv: %s\n%s", why.c_str(), usage_text().c_str());
  std::exit(2);
}

double parse_theta(std::string_view flag, std::string_view text) {
  return values::parse_decimal(flag, text, 0, 0.999999, true);
}

// Returns false for a flag that is not tier-kv's own.
bool parse_own_flag(std::string_view flag, std::string_view value, Options& o) {
  if (flag == "--socket") {
    if (value.empty())
      throw values::ValueError(std::string(flag), "", "expected a path, got nothing");
    o.server.socket_path = std::string(value);
  } else if (flag == "--host") {
    if (value.empty())
      throw values::ValueError(std::string(flag), "", "expected a host, got nothing");
    o.server.host = std::string(value);
  } else if (flag == "--port") {
    o.server.port = static_cast<std::uint16_t>(values::parse_count(flag, value, 1, 65535));
  } else if (flag == "--keys") {
    o.keys = static_cast<std::uint32_t>(values::parse_count(flag, value, 1, 100'000'000));
  } else if (flag == "--value-size") {
    o.value_size = values::parse_size(flag, value, kMinValueSize, 16u << 20);
  } else if (flag == "--write-fraction") {
    o.write_fraction = values::parse_ratio(flag, value);
  } else if (flag == "--theta") {
    o.theta = parse_theta(flag, value);
  } else if (flag == "--dist") {
    if (value == "uniform") {
      o.theta = 0;
    } else if (value.substr(0, 5) == "zipf:") {
      try {
        o.theta = parse_theta(flag, value.substr(5));
      } catch (const values::ValueError& e) {  // name the whole text, not its number
        throw values::ValueError(std::string(flag), std::string(value), e.why());
      }
    } else {
      throw values::ValueError(std::string(flag), std::string(value),
                               "expected uniform or zipf:THETA");
    }
  } else if (flag == "--pipeline") {
    o.pipeline = static_cast<unsigned>(values::parse_count(flag, value, 1, 1024));
  } else if (flag == "--timeout") {
    o.timeout_s = tier_workloads::parse_seconds(flag, value, 100, 3'600'000);
  } else {
    return false;
  }
  return true;
}

}  // namespace

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "-h" || flag == "--help") {
      std::fputs(usage_text().c_str(), stdout);
      std::exit(0);
    }
    if (flag == "--node" || flag == "--policy") {
      usage(std::string(flag) +
            ": does not apply to tier-kv (the data is the server's: place redis-server)");
    }
    if (i + 1 >= argc) usage("unknown argument or missing value: " + std::string(flag));
    const std::string_view value = argv[++i];
    try {
      if (!tier_workloads::parse_suite_flag(flag, value, o.suite) &&
          !parse_own_flag(flag, value, o)) {
        usage("unknown argument: " + std::string(flag));
      }
    } catch (const values::ValueError& e) {
      usage(e.what());
    }
  }
  if (o.server.socket_path.empty() == o.server.host.empty()) {
    usage("give the server as --socket PATH or as --host H [--port P], one of them");
  }
  if (o.suite.threads > o.keys) {
    usage("--threads " + std::to_string(o.suite.threads) + ": more connections than --keys " +
          std::to_string(o.keys) + " (each writes keys of its own)");
  }
  return o;
}

}  // namespace tier_kv
