// tier-gups (workloads/gups/): every pick is one of the worker's own words
// and a hot pick lies in the phase's hot subset, wrapping or not; the hot
// fraction holds over 100k draws; the replay returns the table to its
// initial content and a byte flipped before the check is counted (as one bad
// word, at its index); option errors name the flag; and the program itself:
// --help, bad usage, a short run with its ready, interval and final lines,
// and a byte flipped in the running process's table caught at exit.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <chrono>
#include <cstdint>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "options.hpp"
#include "placement.hpp"
#include "table.hpp"
#include "test_support.hpp"
#include "tier/values/values.hpp"
#include "update.hpp"
#include "worker.hpp"

namespace tier_workloads::gups {
namespace {

namespace json = boost::json;

const std::string kGups = std::string(TIER_BIN_DIR) + "/tier-gups";

Layout layout_of(std::uint64_t words, std::uint64_t hot_words, std::uint64_t hot_offset,
                 unsigned threads, double fraction) {
  Layout l;
  l.words = words;
  l.hot_words = hot_words;
  l.hot_offset = hot_offset;
  l.threads = threads;
  l.hot_fraction = fraction;
  return l;
}

bool in_hot_subset(const Layout& l, std::uint64_t phase, std::uint64_t i) {
  const std::uint64_t start = l.hot_start(phase);
  return (i + l.words - start) % l.words < l.hot_words;  // cyclic [start, start + hot)
}

TEST(GupsPicker, PicksOnlyTheWorkersOwnWordsAndItsWholeShareOfTheHotSubset) {
  // Hot subsets at the start, flush with the end, and wrapping past it;
  // thread counts that divide the table and ones that do not.
  for (const std::uint64_t offset : {0u, 3584u, 3800u}) {
    for (const unsigned threads : {1u, 2u, 3u, 7u}) {
      const Layout l = layout_of(4096, 512, offset, threads, 0.5);
      for (std::uint64_t phase = 0; phase < 10; ++phase) {
        for (unsigned t = 0; t < threads; ++t) {
          const Picker p(l, t, phase);
          std::set<std::uint64_t> expected_hot;
          for (std::uint64_t i = t; i < l.words; i += threads) {
            if (in_hot_subset(l, phase, i)) expected_hot.insert(i);
          }
          ASSERT_EQ(p.hot_count(), expected_hot.size());
          std::set<std::uint64_t> hot_seen;
          Rng rng(stream_seed(1, t));
          for (int k = 0; k < 20000; ++k) {
            const std::uint64_t r = rng.next();
            const std::uint64_t i = p.index(r);
            ASSERT_LT(i, l.words);
            ASSERT_EQ(i % threads, t) << "offset " << offset << " phase " << phase;
            if (p.hot(r)) {
              ASSERT_TRUE(in_hot_subset(l, phase, i)) << i << " phase " << phase;
              hot_seen.insert(i);
            }
          }
          // ~10000 hot draws over at most 512 words: every one is reached.
          EXPECT_EQ(hot_seen, expected_hot) << "offset " << offset << " phase " << phase;
        }
      }
    }
  }
}

TEST(GupsPicker, ColdPicksReachEveryOwnedWord) {
  const Layout l = layout_of(4096, 512, 0, 3, 0.0);
  for (unsigned t = 0; t < 3; ++t) {
    const Picker p(l, t, 0);
    EXPECT_EQ(p.owned(), t == 0 ? 1366u : 1365u);
    std::set<std::uint64_t> seen;
    Rng rng(stream_seed(3, t));
    for (int k = 0; k < 30000; ++k) seen.insert(p.index(rng.next()));
    EXPECT_EQ(seen.size(), p.owned());
    EXPECT_EQ(*seen.rbegin(), t == 0 ? 4095u : 4095u - 3 + t);
  }
}

TEST(GupsPicker, TheHotFractionHoldsOver100kDraws) {
  const Layout l = layout_of(1u << 20, 1u << 17, 1u << 16, 2, 0.9);
  const Picker p(l, 1, 0);
  Rng rng(stream_seed(42, 1));
  int hot = 0, in_subset = 0;
  constexpr int kDraws = 100000;
  for (int k = 0; k < kDraws; ++k) {
    const std::uint64_t r = rng.next();
    hot += p.hot(r) ? 1 : 0;
    in_subset += in_hot_subset(l, 0, p.index(r)) ? 1 : 0;
  }
  EXPECT_NEAR(hot / double(kDraws), 0.9, 0.02);
  // Cold picks land in the hot subset too, in proportion to its size (1/8).
  EXPECT_NEAR(in_subset / double(kDraws), 0.9 + 0.1 / 8, 0.02);
}

TEST(GupsPicker, FractionsZeroAndOneAreExact) {
  Rng rng(7);
  const Picker none(layout_of(8192, 512, 0, 1, 0.0), 0, 0);
  const Picker all(layout_of(8192, 512, 0, 1, 1.0), 0, 0);
  for (int k = 0; k < 10000; ++k) {
    const std::uint64_t r = rng.next();
    EXPECT_FALSE(none.hot(r));
    EXPECT_TRUE(all.hot(r));
  }
  EXPECT_FALSE(none.hot(0));
  EXPECT_TRUE(all.hot(0xffffffffull));
}

TEST(GupsLayout, TheHotSubsetDriftsOneLengthPerPhaseAndWraps) {
  const Layout l = layout_of(4096, 1024, 512, 1, 0.9);
  EXPECT_EQ(l.hot_start(0), 512u);
  EXPECT_EQ(l.hot_start(1), 1536u);
  EXPECT_EQ(l.hot_start(3), 3584u);  // wraps: 3584..4095 and 0..511
  EXPECT_EQ(l.hot_start(4), 512u);
  EXPECT_EQ(l.hot_start(1'000'000'000'001ull), 1536u);
}

// A table of `words` with its initial content, as PlacedBuffer's fill writes it.
std::vector<std::uint64_t> initial_table(std::uint64_t words, std::uint64_t key) {
  std::vector<std::uint64_t> table(words);
  fill_words(table.data(), 0, words, key);
  return table;
}

// Two workers, a hot subset that wraps in phase 1, a skipped phase 2.
struct ReplayFixture : ::testing::Test {
  const std::uint64_t key = table_key(5);
  const Layout layout = layout_of(8192, 1024, 7168, 2, 0.9);
  std::vector<std::uint64_t> table = initial_table(8192, key);
  Worker a{layout, 0, 5}, b{layout, 1, 5};

  void run_updates() {
    for (Worker* w : {&a, &b}) {
      w->update(table.data(), 0, 3000);
      w->update(table.data(), 1, 2000);
      w->update(table.data(), 3, 1000);
      w->update(table.data(), 3, 500);
    }
  }
};

TEST_F(ReplayFixture, ReplayRestoresEveryWord) {
  run_updates();
  EXPECT_EQ(a.updates(), 6500u);
  EXPECT_EQ(b.phase_updates(), (std::vector<std::uint64_t>{3000, 2000, 0, 1500}));
  EXPECT_GT(check_words(table.data(), 0, 8192, key, 4).bad, 1000u);  // the updates changed it
  a.replay(table.data());
  b.replay(table.data());
  const Check c = check_words(table.data(), 0, 8192, key, 4);
  EXPECT_EQ(c.bad, 0u);
  EXPECT_TRUE(c.first_bad.empty());
}

TEST_F(ReplayFixture, AByteFlippedDuringTheRunIsOneBadWordAtItsIndex) {
  for (Worker* w : {&a, &b}) w->update(table.data(), 0, 3000);
  reinterpret_cast<unsigned char*>(table.data())[1234 * 8 + 3] ^= 0x10;
  run_updates();
  a.replay(table.data());
  b.replay(table.data());
  const Check c = check_words(table.data(), 0, 8192, key, 4);
  EXPECT_EQ(c.bad, 1u);
  EXPECT_EQ(c.first_bad, std::vector<std::uint64_t>{1234});
}

TEST(GupsWorker, PhasesOnlyMoveForward) {
  const Layout l = layout_of(4096, 512, 0, 1, 0.9);
  std::vector<std::uint64_t> table(4096);
  Worker w(l, 0, 1);
  w.update(table.data(), 2, 10);
  EXPECT_THROW(w.update(table.data(), 1, 10), std::logic_error);
}

TEST(GupsTable, TheFillCallbackWritesTheInitialContentAcrossChunks) {
  // 68M: two of PlacedBuffer's 64 MiB fill chunks.
  const std::uint64_t key = table_key(9);
  PlacedBuffer buffer(68u << 20, -1, Placement::first_touch, TableFill(key));
  const auto* words = reinterpret_cast<const std::uint64_t*>(buffer.data());
  EXPECT_EQ(check_words(words, 0, buffer.size() / 8, key, 4).bad, 0u);
  EXPECT_EQ(words[(64u << 20) / 8], initial_word((64u << 20) / 8, key));
  EXPECT_NE(table_key(9), table_key(10));
}

TEST(GupsTable, ChecksMergeInRangeOrderKeepingTheFirstIndices) {
  Check a{2, {5, 9}}, b{3, {100, 101, 102}};
  a.merge(b, 4);
  EXPECT_EQ(a.bad, 5u);
  EXPECT_EQ(a.first_bad, (std::vector<std::uint64_t>{5, 9, 100, 101}));
}

// ---- options ---------------------------------------------------------------

std::string refused_flag(const std::vector<std::string>& args) {
  try {
    parse_options(args);
  } catch (const tier::values::ValueError& e) {
    return e.name();
  }
  return "(accepted)";
}

TEST(GupsOptions, BadValuesNameTheirFlag) {
  EXPECT_EQ(refused_flag({"--size", ""}), "--size");
  EXPECT_EQ(refused_flag({"--size"}), "--size");          // last on the line: no value
  EXPECT_EQ(refused_flag({"--size", "5000"}), "--size");  // not whole pages
  EXPECT_EQ(refused_flag({"--size", "1M", "--hot", "2M"}), "--hot");
  EXPECT_EQ(refused_flag({"--size", "1M", "--hot-fraction", "1.5"}), "--hot-fraction");
  EXPECT_EQ(refused_flag({"--size", "1M", "--hot-offset", "1M"}), "--hot-offset");
  EXPECT_EQ(refused_flag({"--size", "1M", "--phase-shift", "soon"}), "--phase-shift");
  EXPECT_EQ(refused_flag({"--size", "1M", "--threads", "0"}), "--threads");
  try {
    parse_options({"--size", "1M", "--hot", "2M"});
    FAIL();
  } catch (const tier::values::ValueError& e) {
    EXPECT_STREQ(e.what(), "--hot '2M': larger than the table (--size 1M)");
  }
}

TEST(GupsOptions, MissingSizeAndUnknownFlagsAreRefused) {
  EXPECT_THROW(parse_options({}), std::invalid_argument);
  EXPECT_THROW(parse_options({"--size", "1M", "--bogus", "1"}), std::invalid_argument);
}

TEST(GupsOptions, DefaultsAndValues) {
  Options o = parse_options({"--size", "512M"});
  EXPECT_EQ(o.size, 512u << 20);
  EXPECT_EQ(o.hot, 64u << 20);  // 1/8
  EXPECT_EQ(o.hot_offset, 0u);
  EXPECT_DOUBLE_EQ(o.hot_fraction, 0.9);
  EXPECT_EQ(o.phase_shift_s, 0.0);
  EXPECT_EQ(parse_options({"--size", "4K"}).hot, 4096u);  // at least a page
  o = parse_options({"--size", "1M", "--hot", "64K", "--hot-offset", "960K", "--hot-fraction",
                     "0.5", "--phase-shift", "1500ms", "--threads", "3", "--seed", "7"});
  EXPECT_EQ(o.hot, 64u << 10);
  EXPECT_EQ(o.hot_offset, 960u << 10);
  EXPECT_DOUBLE_EQ(o.hot_fraction, 0.5);
  EXPECT_DOUBLE_EQ(o.phase_shift_s, 1.5);
  const Layout l = o.layout();
  EXPECT_EQ(l.words, 131072u);
  EXPECT_EQ(l.hot_words, 8192u);
  EXPECT_EQ(l.hot_offset, 122880u);
  EXPECT_EQ(l.threads, 3u);
  EXPECT_TRUE(parse_options({"--size", "1M", "--help"}).help);
}

// ---- the program -----------------------------------------------------------

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(GupsProgram, HelpAndBadUsage) {
  auto r = tier::test::run_command({kGups, "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--hot-fraction F"), std::string::npos);
  EXPECT_NE(r.out.find("--policy P"), std::string::npos);  // the suite's flags too
  r = tier::test::run_command({kGups, "--size", "1M", "--hot-fraction", "1.5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err.rfind("tier-gups: --hot-fraction '1.5': expected a number from 0 to 1\nusage:", 0), 0u)
      << r.err;
}

TEST(GupsProgram, AShortRunReportsAndVerifiesEveryWord) {
  tier::test::TempDir dir("gups");
  const std::string report = (dir.path() / "r.jsonl").string();
  const auto r = tier::test::run_command({kGups, "--size", "256K", "--threads", "2", "--duration",
                                          "400ms", "--report-ms", "100", "--phase-shift", "100ms",
                                          "--report", report, "--node", "0", "--policy", "bind"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = lines_of(r.out);
  ASSERT_EQ(out.size(), 2u) << r.out;
  const json::object ready = json::parse(out[0]).as_object();
  EXPECT_EQ(ready.at("size").as_int64(), 256 << 10);
  EXPECT_EQ(ready.at("hot").as_int64(), 32 << 10);
  EXPECT_TRUE(ready.at("ready").as_bool());
  EXPECT_GT(ready.at("pid").as_int64(), 0);
  const json::object fin = json::parse(out[1]).as_object();
  EXPECT_EQ(fin.at("workload").as_string(), "gups");
  EXPECT_EQ(fin.at("unit").as_string(), "updates");
  EXPECT_GT(fin.at("ops").to_number<std::uint64_t>(), 0u);
  EXPECT_EQ(fin.at("verified").to_number<std::uint64_t>(), 32768u);
  EXPECT_EQ(fin.at("verified_unit").as_string(), "words");
  EXPECT_EQ(fin.at("bad").to_number<std::uint64_t>(), 0u);
  EXPECT_EQ(fin.at("threads").to_number<unsigned>(), 2u);
  EXPECT_GE(fin.at("phases").to_number<unsigned>(), 1u);
  EXPECT_DOUBLE_EQ(fin.at("hot_fraction").as_double(), 0.9);
  EXPECT_EQ(fin.at("nodes").as_object().at("0").to_number<unsigned>(), 64u);  // bound to node 0
  EXPECT_EQ(fin.at("hot_nodes").as_object().at("0").to_number<unsigned>(), 8u);
  // The report file: interval lines, then the same final line.
  const auto lines = lines_of(tier::test::read_text_file(report));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), out[1]);
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    const json::object line = json::parse(lines[i]).as_object();
    EXPECT_TRUE(line.contains("t") && line.contains("ops") && line.contains("ops_per_s"));
  }
}

TEST(GupsProgram, AByteFlippedInTheRunningTableIsCaughtAtExit) {
  tier::test::TempDir dir("gups");
  const std::string start = (dir.path() / "start").string();
  tier::test::Process gups({kGups, "--size", "256K", "--threads", "2", "--start-file", start});
  std::string ready;
  for (int i = 0; i < 1000 && ready.empty(); ++i) {
    const auto out = lines_of(gups.out_so_far());
    if (!out.empty()) ready = out[0];
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(ready.empty()) << gups.err_so_far();
  const auto base = json::parse(ready).as_object().at("base").to_number<std::uint64_t>();
  // Flip one byte of word 777 in the process's memory (it is our child, so
  // /proc/PID/mem is writable), before the updates start: the run's XORs
  // and their replay leave the flip, and only it.
  const std::string mem = "/proc/" + std::to_string(gups.pid()) + "/mem";
  const int fd = open(mem.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  unsigned char byte = 0;
  const auto at = static_cast<off_t>(base + 777 * 8 + 2);
  ASSERT_EQ(pread(fd, &byte, 1, at), 1);
  byte ^= 0x40;
  ASSERT_EQ(pwrite(fd, &byte, 1, at), 1);
  close(fd);
  tier::test::write_text_file(start, "");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  gups.signal(SIGTERM);
  const auto r = gups.wait();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto out = lines_of(r.out);
  ASSERT_EQ(out.size(), 2u) << r.out;
  const json::object fin = json::parse(out[1]).as_object();
  EXPECT_EQ(fin.at("bad").to_number<std::uint64_t>(), 1u);
  EXPECT_EQ(fin.at("verified").to_number<std::uint64_t>(), 32768u);
  EXPECT_NE(r.err.find("1 of 32768 words differ after the replay (the first: 777)"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace tier_workloads::gups
