// A process's own memory policy: every mode numa_maps prints, the cpuset's
// mems, which moves each allows; and this test's own mbind() as the live
// kernel shows it.
#include "tier/memory/memory_policy.hpp"

#include <gtest/gtest.h>
#include <numaif.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "test_support.hpp"

namespace tier {
namespace {

using Mode = MemoryPolicy::Mode;

TEST(MemoryPolicy, ParsesEveryModeTheKernelPrints) {
  struct Case {
    const char* text;
    Mode mode;
    const char* nodes;
  };
  const Case cases[] = {
      {"default", Mode::none, ""},
      {"local", Mode::none, ""},
      {"prefer:2", Mode::preferred, "2"},
      {"prefer=static:1", Mode::preferred, "1"},
      {"prefer (many):0-1", Mode::preferred_many, "0-1"},
      {"bind:0-1", Mode::bind, "0-1"},
      {"bind=static:0,2", Mode::bind, "0,2"},
      {"bind=relative|balancing:0-1", Mode::bind, "0-1"},
      {"bind=balancing:0-3", Mode::bind, "0-3"},
      {"interleave:0-3", Mode::interleave, "0-3"},
      {"weighted interleave:0-1", Mode::weighted_interleave, "0-1"},
  };
  for (const Case& c : cases) {
    auto policy = parse_memory_policy(c.text);
    ASSERT_TRUE(policy.has_value()) << c.text;
    EXPECT_EQ(policy->mode, c.mode) << c.text;
    EXPECT_EQ(policy->nodes.to_string(), c.nodes) << c.text;
    EXPECT_EQ(policy->text, c.text);
  }
  // Not understood: nothing is moved under them (the caller's safe side).
  for (const char* odd : {"", "split:0", "bind", "bind:", "bind:x", "prefer:"}) {
    EXPECT_FALSE(parse_memory_policy(odd).has_value()) << "'" << odd << "'";
  }
}

TEST(MemoryPolicy, BindAndPreferAllowTheirNodesInterleaveNone) {
  EXPECT_TRUE(parse_memory_policy("default")->allows(3));
  EXPECT_TRUE(parse_memory_policy("local")->allows(0));
  EXPECT_TRUE(parse_memory_policy("bind:0-1")->allows(1));
  EXPECT_FALSE(parse_memory_policy("bind:0-1")->allows(2));
  EXPECT_TRUE(parse_memory_policy("prefer:2")->allows(2));
  EXPECT_FALSE(parse_memory_policy("prefer:2")->allows(0));
  EXPECT_TRUE(parse_memory_policy("prefer (many):0,2")->allows(2));
  EXPECT_FALSE(parse_memory_policy("prefer (many):0,2")->allows(1));
  // Interleaving spreads pages on purpose: a move to any one node undoes it.
  EXPECT_FALSE(parse_memory_policy("interleave:0-3")->allows(0));
  EXPECT_FALSE(parse_memory_policy("weighted interleave:0-1")->allows(0));
}

constexpr const char* kNumaMaps =
    "00400000 default file=/usr/bin/app mapped=3 N0=3 kernelpagesize_kB=4\n"
    "7f0000000000 bind:0-1 anon=256 dirty=256 N0=256 kernelpagesize_kB=4\n"
    "7f1000000000 weighted interleave:0-3 anon=4 dirty=4 N0=1 N1=1 N2=1 N3=1 "
    "kernelpagesize_kB=4\n"
    "7f2000000000 prefer (many)=static:2-3 anon=8 N2=8 kernelpagesize_kB=4\n"
    "7f3000000000 sideways:0 anon=1 N0=1 kernelpagesize_kB=4\n"
    "7f4000000000 default anon=1 N3=1 kernelpagesize_kB=4\n"
    "not a line\n";

TEST(ProcessMemoryPolicy, EachAddressFollowsTheMappingThatHoldsIt) {
  const ProcessMemoryPolicy p = parse_process_memory_policy(kNumaMaps, "");
  EXPECT_FALSE(p.mems_allowed.has_value());
  EXPECT_EQ(p.by_mapping.size(), 5u);
  EXPECT_EQ(p.unknown.size(), 1u);
  EXPECT_EQ(p.refusal(0x400000 + 4096, 2), "");  // default
  EXPECT_EQ(p.refusal(0x1000, 2), "");           // below every mapping
  EXPECT_EQ(p.refusal(0x7f0000000000 + 8192, 1), "");
  EXPECT_EQ(p.refusal(0x7f0000000000 + 8192, 2), "memory policy bind:0-1 excludes node 2");
  EXPECT_EQ(p.refusal(0x7f1000000000, 0), "memory policy weighted interleave:0-3 excludes node 0");
  EXPECT_EQ(p.refusal(0x7f2000000000 + 4096, 3), "");
  EXPECT_EQ(p.refusal(0x7f2000000000 + 4096, 0),
            "memory policy prefer (many)=static:2-3 excludes node 0");
  EXPECT_EQ(p.refusal(0x7f3000000000, 0), "memory policy not known (sideways:0)");
  EXPECT_EQ(p.refusal(0x7f4000000000, 0), "");  // the next mapping ends the odd one
  // allows() gives refusal()'s verdict without its text.
  EXPECT_TRUE(p.allows(0x7f0000000000 + 8192, 1));
  EXPECT_FALSE(p.allows(0x7f0000000000 + 8192, 2));
  EXPECT_FALSE(p.allows(0x7f3000000000, 0));
  EXPECT_TRUE(p.allows(0x7f4000000000, 0));
  // Which pages the process places itself (a placement policy leaves them).
  EXPECT_FALSE(p.places_itself(0x1000));
  EXPECT_FALSE(p.places_itself(0x400000));
  EXPECT_TRUE(p.places_itself(0x7f0000000000));
  EXPECT_TRUE(p.places_itself(0x7f1000000000));
  EXPECT_TRUE(p.places_itself(0x7f2000000000));
  EXPECT_TRUE(p.places_itself(0x7f3000000000));
  EXPECT_FALSE(p.places_itself(0x7f4000000000));
}

// maps lists the mappings numa_maps was read for, or it is stale: a new
// mapping, or one split by an mbind of part of it, or one gone.
TEST(ProcessMemoryPolicy, TellsWhenTheMappingsChanged) {
  const ProcessMemoryPolicy p = parse_process_memory_policy(
      "00400000 default file=/usr/bin/app N0=3\n7f0000000000 bind:0-1 anon=4 N0=4\n", "");
  const std::string same =
      "00400000-00401000 r-xp 00000000 08:01 12 /usr/bin/app\n"
      "7f0000000000-7f0000200000 rw-p 00000000 00:00 0\n"
      "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]\n";
  EXPECT_TRUE(p.same_mappings(same));
  EXPECT_FALSE(p.same_mappings(same + "7f1000000000-7f1000001000 rw-p 00000000 00:00 0\n"));
  EXPECT_FALSE(p.same_mappings("00400000-00401000 r-xp 00000000 08:01 12 /usr/bin/app\n"));
  EXPECT_FALSE(
      p.same_mappings("00400000-00401000 r-xp 00000000 08:01 12 /usr/bin/app\n"
                      "7f0000000000-7f0000100000 rw-p 00000000 00:00 0\n"
                      "7f0000100000-7f0000200000 rw-p 00000000 00:00 0\n"));
}

TEST(ProcessMemoryPolicy, TheCpusetsMemsComeFirst) {
  const ProcessMemoryPolicy p = parse_process_memory_policy(
      kNumaMaps, "Name:\tapp\nCpus_allowed_list:\t0-3\nMems_allowed_list:\t0,2\n");
  ASSERT_TRUE(p.mems_allowed.has_value());
  EXPECT_EQ(p.mems_allowed->to_string(), "0,2");
  EXPECT_EQ(p.refusal(0x400000, 1), "cpuset mems 0,2 exclude node 1");
  EXPECT_FALSE(p.allows(0x400000, 1));
  EXPECT_EQ(p.refusal(0x400000, 2), "");
}

TEST(ProcessMemoryPolicy, ReadsUnderTheRootAndTellsAGoneProcess) {
  test::TempDir root;
  std::filesystem::create_directories(root.path() / "proc/77");
  std::ofstream(root.path() / "proc/77/numa_maps") << kNumaMaps;
  std::ofstream(root.path() / "proc/77/status") << "Mems_allowed_list:\t0-3\n";
  auto found = read_process_memory_policy(SysRoot(root.path()), 77);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->by_mapping.size(), 5u);
  EXPECT_EQ(found->refusal(0x7f0000000000, 3), "memory policy bind:0-1 excludes node 3");
  EXPECT_FALSE(read_process_memory_policy(SysRoot(root.path()), 78).has_value());
}

// The live kernel: a mapping this test binds with mbind(2) and one it
// interleaves show in its own numa_maps as those policies.
TEST(ProcessMemoryPolicy, ShowsThisProcesssOwnMbind) {
  constexpr std::size_t kSize = 1 << 20;
  auto map = [] {
    return mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  };
  void* bound = map();
  void* spread = map();
  ASSERT_NE(bound, MAP_FAILED);
  ASSERT_NE(spread, MAP_FAILED);
  // The system call itself: libnuma's wrapper is not what is under test.
  auto bind_to_node0 = [&](void* at, int mode) {
    const unsigned long node0 = 1;
    return syscall(SYS_mbind, at, kSize, mode, &node0, 8 * sizeof node0, 0);
  };
  ASSERT_EQ(bind_to_node0(bound, MPOL_BIND), 0) << strerror(errno);
  ASSERT_EQ(bind_to_node0(spread, MPOL_INTERLEAVE), 0) << strerror(errno);
  std::memset(bound, 1, kSize);
  std::memset(spread, 1, kSize);
  auto policy = read_process_memory_policy(SysRoot("/"), getpid());
  const auto b = reinterpret_cast<std::uint64_t>(bound);
  const auto s = reinterpret_cast<std::uint64_t>(spread);
  munmap(bound, kSize);
  munmap(spread, kSize);
  ASSERT_TRUE(policy.has_value());
  ASSERT_TRUE(policy->by_mapping.contains(b));
  EXPECT_EQ(policy->by_mapping.at(b).text, "bind:0");
  // This host has node 0 alone: its cpuset already keeps node 1 out.
  EXPECT_FALSE(policy->by_mapping.at(b).allows(1));
  EXPECT_NE(policy->refusal(b + 4096, 1), "");
  EXPECT_EQ(policy->refusal(b + 4096, 0), "");
  EXPECT_TRUE(policy->places_itself(b + 4096));
  ASSERT_TRUE(policy->by_mapping.contains(s));
  EXPECT_EQ(policy->by_mapping.at(s).mode, Mode::interleave);
  EXPECT_EQ(policy->refusal(s, 0), "memory policy interleave:0 excludes node 0");
  ASSERT_TRUE(policy->mems_allowed.has_value());
  EXPECT_TRUE(policy->mems_allowed->contains(0));
}

}  // namespace
}  // namespace tier
