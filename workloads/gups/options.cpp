#include "options.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "tier/values/values.hpp"

namespace tier_workloads::gups {
namespace {

namespace values = tier::values;

constexpr std::uint64_t kPage = 4096;
constexpr std::uint64_t kMaxSize = std::uint64_t{1} << 40;  // 1T

/// A size that is a whole number of 4 KiB pages (the hot subset's pages are
/// counted per node), from `min` to 1T.
std::uint64_t parse_pages(std::string_view flag, std::string_view text, std::uint64_t min) {
  const std::uint64_t v = values::parse_size(flag, text, min, kMaxSize);
  if (v % kPage != 0) {
    throw values::ValueError(std::string(flag), std::string(text), "expected a multiple of 4K");
  }
  return v;
}

}  // namespace

Layout Options::layout() const {
  Layout l;
  l.words = size / 8;
  l.hot_words = hot / 8;
  l.hot_offset = hot_offset / 8;
  l.threads = suite.threads;
  l.hot_fraction = hot_fraction;
  return l;
}

const std::string& usage() {
  static const std::string text =
      std::string(
          "usage: tier-gups --size BYTES [--hot BYTES] [--hot-offset BYTES] [--hot-fraction F]\n"
          "                 [--phase-shift D] [--node N] [--policy P] [--threads N] [...]\n"
          "Random read-modify-write updates (table[i] ^= r) over a table with a hot subset\n"
          "(HeMem's GUPS); reports updates/s and verifies every word at exit.\n"
          "  --size BYTES         the table of 64-bit words, a multiple of 4K (e.g. 512M)\n"
          "  --hot BYTES          the hot subset, a multiple of 4K (default: 1/8 of --size)\n"
          "  --hot-offset BYTES   where the hot subset starts, a multiple of 4K (default 0)\n"
          "  --hot-fraction F     share of the updates that go to the hot subset, 0..1\n"
          "                       (default 0.9); the rest go over the whole table\n"
          "  --phase-shift D      every D (e.g. 5s) the hot subset moves one hot length\n"
          "                       further, wrapping (default: it never moves)\n") +
      kSuiteUsage + "  --help               this text\n";
  return text;
}

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  std::string size_text, hot_text, offset_text;  // as typed, for the errors below
  bool hot_given = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view flag = args[i];
    if (flag == "--help" || flag == "-h") {
      o.help = true;
      return o;
    }
    // A flag last on the line has an empty value: its parser says "got nothing".
    const std::string_view value = i + 1 < args.size() ? std::string_view(args[++i]) : "";
    if (parse_suite_flag(flag, value, o.suite)) continue;
    if (flag == "--size") {
      o.size = parse_pages(flag, value, kPage);
      size_text = value;
    } else if (flag == "--hot") {
      o.hot = parse_pages(flag, value, kPage);
      hot_text = value;
      hot_given = true;
    } else if (flag == "--hot-offset") {
      o.hot_offset = parse_pages(flag, value, 0);
      offset_text = value;
    } else if (flag == "--hot-fraction") {
      o.hot_fraction = values::parse_ratio(flag, value);
    } else if (flag == "--phase-shift") {
      o.phase_shift_s = parse_seconds(flag, value, 10, 86'400'000);
    } else {
      throw std::invalid_argument("unknown flag '" + std::string(flag) + "'");
    }
  }
  if (o.size == 0) throw std::invalid_argument("--size is required (the table's bytes, e.g. 512M)");
  if (!hot_given) o.hot = std::max(kPage, o.size / 8 / kPage * kPage);
  if (o.hot > o.size) {
    throw values::ValueError("--hot", hot_text, "larger than the table (--size " + size_text + ")");
  }
  if (o.hot_offset >= o.size) {
    throw values::ValueError("--hot-offset", offset_text,
                             "expected an offset below the table's end (--size " + size_text + ")");
  }
  return o;
}

}  // namespace tier_workloads::gups
