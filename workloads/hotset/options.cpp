#include "options.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace hotset {
namespace {

constexpr const char* kUsage =
    "usage: hotset --size BYTES[K|M|G] --node N [--hot BYTES] [--hot-offset BYTES]\n"
    "              [--hot-nodes N,M,...] [--dist uniform|zipf:THETA]\n"
    "              [--mix read|write|rw:FRACTION_WRITES] [--threads N] [--cpus LIST]\n"
    "              [--duration S] [--phase-shift S] [--truth FILE] [--ready-file FILE]\n"
    "              [--policy bind|bind-balancing|first-touch] [--start-file FILE]\n"
    "              [--census FILE] [--census-ms MS] [--fast-nodes LIST] [--grow-mbps R]\n"
    "              [--scan-every S]\n"
    "sizes and offsets are multiples of 4 KiB; 0 < THETA < 1; LIST is like 0-1,3;\n"
    "R in MiB/s (--grow-mbps: no --hot-offset, --hot-nodes, --phase-shift or --scan-every);\n"
    "S in seconds, > 0 for --scan-every\n";

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "hotset: %s\n%s", why.c_str(), kUsage);
  std::exit(2);
}

bool parse_size(const char* text, std::size_t& out) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text, &end, 10);
  // strtoull skips blanks and wraps a negative number around (" -1" would
  // be 2^64-1): a size starts with a digit.
  if (errno != 0 || end == text || *text < '0' || *text > '9') return false;
  unsigned shift = 0;
  switch (*end) {
    case '\0':
      break;
    case 'k':
    case 'K':
      shift = 10;
      break;
    case 'm':
    case 'M':
      shift = 20;
      break;
    case 'g':
    case 'G':
      shift = 30;
      break;
    default:
      return false;
  }
  if (shift != 0) ++end;
  if (*end != '\0' || v > (~0ull >> shift)) return false;
  out = static_cast<std::size_t>(v << shift);
  return true;
}

bool parse_int(std::string_view text, long lo, long hi, long& out) {
  std::string s(text);
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(s.c_str(), &end, 10);
  if (errno != 0 || s.empty() || *end != '\0' || v < lo || v > hi) return false;
  out = v;
  return true;
}

bool parse_double(std::string_view text, double& out) {
  std::string s(text);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || s.empty() || *end != '\0' || !std::isfinite(v)) return false;
  out = v;
  return true;
}

// "0-1,3" -> {0, 1, 3}; ids up to 4095.
bool parse_list(std::string_view text, std::vector<int>& out) {
  out.clear();
  while (!text.empty()) {
    std::size_t comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    std::size_t dash = part.find('-');
    long lo = 0, hi = 0;
    if (!parse_int(part.substr(0, dash), 0, 4095, lo)) return false;
    hi = lo;
    if (dash != std::string_view::npos && !parse_int(part.substr(dash + 1), lo, 4095, hi)) {
      return false;
    }
    for (long i = lo; i <= hi; ++i) out.push_back(static_cast<int>(i));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
    if (text.empty()) return false;  // trailing comma
  }
  return !out.empty();
}

}  // namespace

const char* policy_name(Policy p) {
  switch (p) {
    case Policy::kBind:
      return "bind";
    case Policy::kBindBalancing:
      return "bind-balancing";
    case Policy::kFirstTouch:
      return "first-touch";
  }
  return "?";
}

Options parse_options(int argc, char** argv) {
  Options o;
  bool hot_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (i + 1 >= argc) usage("unknown argument or missing value: " + a);
    std::string v = argv[++i];
    long n = 0;
    if (a == "--size") {
      if (!parse_size(v.c_str(), o.size) || o.size == 0) usage("bad --size " + v);
    } else if (a == "--hot") {
      if (!parse_size(v.c_str(), o.hot) || o.hot == 0) usage("bad --hot " + v);
      hot_given = true;
    } else if (a == "--hot-offset") {
      if (!parse_size(v.c_str(), o.hot_offset)) usage("bad --hot-offset " + v);
    } else if (a == "--node") {
      if (!parse_int(v, 0, 1023, n)) usage("bad --node " + v);
      o.node = static_cast<int>(n);
    } else if (a == "--hot-nodes") {
      if (!parse_list(v, o.hot_nodes) || o.hot_nodes.size() > 64) usage("bad --hot-nodes " + v);
    } else if (a == "--dist") {
      if (v == "uniform") {
        o.zipf = false;
      } else if (v.rfind("zipf:", 0) == 0 && parse_double(v.substr(5), o.theta) && o.theta > 0 &&
                 o.theta < 1) {
        o.zipf = true;
      } else {
        usage("bad --dist " + v + " (uniform or zipf:THETA with 0 < THETA < 1)");
      }
    } else if (a == "--mix") {
      if (v == "read") {
        o.write_fraction = 0;
      } else if (v == "write") {
        o.write_fraction = 1;
      } else if (!(v.rfind("rw:", 0) == 0 && parse_double(v.substr(3), o.write_fraction) &&
                   o.write_fraction >= 0 && o.write_fraction <= 1)) {
        usage("bad --mix " + v + " (read, write or rw:FRACTION_WRITES in 0..1)");
      }
    } else if (a == "--threads") {
      if (!parse_int(v, 1, 1024, n)) usage("bad --threads " + v);
      o.threads = static_cast<unsigned>(n);
    } else if (a == "--cpus") {
      if (!parse_list(v, o.cpus)) usage("bad --cpus " + v);
    } else if (a == "--duration") {
      if (!parse_double(v, o.duration_s) || o.duration_s < 0) usage("bad --duration " + v);
    } else if (a == "--phase-shift") {
      if (!parse_double(v, o.phase_shift_s) || o.phase_shift_s < 0) {
        usage("bad --phase-shift " + v);
      }
    } else if (a == "--truth") {
      o.truth = v;
    } else if (a == "--ready-file") {
      o.ready_file = v;
    } else if (a == "--start-file") {
      o.start_file = v;
    } else if (a == "--census") {
      o.census = v;
    } else if (a == "--census-ms") {
      if (!parse_double(v, o.census_ms) || o.census_ms < 10) usage("bad --census-ms " + v);
    } else if (a == "--fast-nodes") {
      if (!parse_list(v, o.fast_nodes) ||
          std::any_of(o.fast_nodes.begin(), o.fast_nodes.end(), [](int id) { return id > 63; })) {
        usage("bad --fast-nodes " + v + " (node ids 0-63)");
      }
    } else if (a == "--grow-mbps") {
      if (!parse_double(v, o.grow_mibps) || o.grow_mibps <= 0) usage("bad --grow-mbps " + v);
    } else if (a == "--scan-every") {
      if (!parse_double(v, o.scan_every_s) || o.scan_every_s <= 0) usage("bad --scan-every " + v);
    } else if (a == "--policy") {
      if (v == "bind") {
        o.policy = Policy::kBind;
      } else if (v == "bind-balancing") {
        o.policy = Policy::kBindBalancing;
      } else if (v == "first-touch") {
        o.policy = Policy::kFirstTouch;
      } else {
        usage("bad --policy " + v);
      }
    } else {
      usage("unknown argument " + a);
    }
  }
  if (o.size == 0 || o.node < 0) usage("--size and --node are required");
  if (!hot_given) o.hot = o.size;
  if (o.size % kPage != 0 || o.hot % kPage != 0 || o.hot_offset % kPage != 0) {
    usage("--size, --hot and --hot-offset must be multiples of 4 KiB");
  }
  if (o.hot_offset + o.hot > o.size) usage("the hot set (--hot-offset + --hot) exceeds --size");
  if (!o.hot_nodes.empty() && o.hot / kPage < o.hot_nodes.size()) {
    usage("--hot has fewer pages than --hot-nodes has nodes");
  }
  if (o.grow_mibps > 0 && (o.hot_offset != 0 || !o.hot_nodes.empty() || o.phase_shift_s > 0)) {
    usage("--grow-mbps takes no --hot-offset, --hot-nodes or --phase-shift");
  }
  // A scan reads the whole buffer: while growing, it would first-touch the
  // pages the grower has not placed yet (on the wrong node, with zeros).
  if (o.grow_mibps > 0 && o.scan_every_s > 0) usage("--grow-mbps takes no --scan-every");
  return o;
}

}  // namespace hotset
