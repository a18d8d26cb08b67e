// plan_cpuset_writes: every plan is replayed on a model of the kernel's
// cpuset rules (kernel/cgroup/cpuset*.c), and the model must accept every
// single write and end in the wanted state. Exhaustive over two groups on
// three CPUs, seeded-random over four groups on four CPUs, plus tables with
// the exact order the docs show.
#include <gtest/gtest.h>

#include <random>

#include "cpu/cpuset_plan.hpp"

namespace tier::cpu {
namespace {

using Groups = std::map<std::string, CpusetTarget>;

CpuList L(const char* text) {
  return *CpuList::parse(text);
}
CpusetTarget T(const char* cpus, const char* mems, bool exclusive = false) {
  return {L(cpus), L(mems), exclusive};
}

// The state the kernel would hold, and its rules.
struct ModelGroup {
  CpuList cpus, mems;
  bool flag = false;  // v1 cpu_exclusive
  CpuList excl;       // v2 cpuset.cpus.exclusive
  bool root = false;  // v2 partition root
};

class KernelModel {
 public:
  KernelModel(const Groups& current, const CpusetTarget& parent, ExclusiveStyle style)
      : style_(style) {
    parent_.cpus = parent.cpus;
    parent_.mems = parent.mems;
    parent_.flag = parent.exclusive;
    for (const auto& [name, t] : current) {
      ModelGroup g{t.cpus, t.mems, false, {}, false};
      if (style == ExclusiveStyle::cpu_exclusive_flag) g.flag = t.exclusive;
      if (style == ExclusiveStyle::partition && t.exclusive) {
        g.excl = t.cpus;
        g.root = true;
        parent_.excl = set_union(parent_.excl, t.cpus);
      }
      children_[name] = g;
    }
  }

  // "" when the kernel would accept the write and the state stays valid.
  std::string apply(const CpusetWrite& w) {
    const bool parent = w.group.empty();
    if (w.kind == WriteKind::create) {
      if (parent || children_.count(w.group)) return "create of an existing group";
      children_[w.group] = {};
      return check();
    }
    if (!parent && !children_.count(w.group)) return "write to a missing group";
    ModelGroup& g = parent ? parent_ : children_[w.group];
    switch (w.kind) {
      case WriteKind::cpus:
        if (w.value.empty()) return "empty cpus";
        if ((g.flag || g.root) && L(w.value.c_str()) != g.cpus && !parent) {
          return "cpus of an exclusive group changed";
        }
        g.cpus = L(w.value.c_str());
        break;
      case WriteKind::mems:
        if (w.value.empty()) return "empty mems";
        g.mems = L(w.value.c_str());
        break;
      case WriteKind::exclusive:
        if (style_ == ExclusiveStyle::cpu_exclusive_flag) {
          g.flag = w.value == "1";
        } else if (style_ == ExclusiveStyle::partition) {
          if (g.root) return "cpus.exclusive changed under a partition root";
          g.excl = L(w.value.c_str());
        } else {
          return "exclusivity write with style none";
        }
        break;
      case WriteKind::partition:
        if (style_ != ExclusiveStyle::partition) return "partition write outside v2";
        if (w.value == "root" && g.excl != g.cpus)
          return "partition root without its cpus exclusive";
        g.root = w.value == "root";
        break;
      case WriteKind::remove:
        if (parent) return "parent removed";
        children_.erase(w.group);
        break;
      case WriteKind::create:
        break;
    }
    return check();
  }

  std::string check() const {
    for (const auto& [name, g] : children_) {
      if (!is_subset(g.cpus, parent_.cpus)) return name + " cpus outside the parent";
      if (!is_subset(g.mems, parent_.mems)) return name + " mems outside the parent";
      if (g.flag && !parent_.flag) return name + " exclusive under a non-exclusive parent";
      if (!is_subset(g.excl, parent_.excl)) return name + " cpus.exclusive outside the parent's";
      for (const auto& [other, o] : children_) {
        if (other == name) continue;
        if (g.flag && overlaps(g.cpus, o.cpus)) return name + " exclusive overlaps " + other;
        if (overlaps(g.excl, o.excl)) return name + " cpus.exclusive overlaps " + other;
        if (g.root && overlaps(g.cpus, o.cpus)) return name + " partition overlaps " + other;
      }
    }
    return "";
  }

  // The final state must be what was wanted.
  std::string matches(const Groups& wanted, const CpusetTarget& parent) const {
    if (children_.size() != wanted.size()) return "wrong number of groups";
    for (const auto& [name, t] : wanted) {
      auto it = children_.find(name);
      if (it == children_.end()) return name + " missing";
      const ModelGroup& g = it->second;
      if (g.cpus != t.cpus || g.mems != t.mems) return name + " has the wrong sets";
      bool excl = style_ == ExclusiveStyle::cpu_exclusive_flag ? g.flag
                  : style_ == ExclusiveStyle::partition        ? g.root
                                                               : t.exclusive;
      if (excl != t.exclusive) return name + " has the wrong exclusivity";
    }
    if (!wanted.empty() && (parent_.cpus != parent.cpus || parent_.mems != parent.mems)) {
      return "parent has the wrong sets";
    }
    if (style_ == ExclusiveStyle::cpu_exclusive_flag && !wanted.empty() &&
        parent_.flag != parent.exclusive) {
      return "parent has the wrong exclusivity";
    }
    return "";
  }

 private:
  ExclusiveStyle style_;
  ModelGroup parent_;
  std::map<std::string, ModelGroup> children_;
};

std::string describe(const Groups& groups) {
  std::string out = "{";
  for (const auto& [name, t] : groups) {
    out +=
        " " + name + ":" + t.cpus.to_string() + "/" + t.mems.to_string() + (t.exclusive ? "x" : "");
  }
  return out + " }";
}

// Replays the plan from current to wanted; "" when every write was fine.
std::string replay(const Groups& current, const Groups& wanted, ExclusiveStyle style,
                   const CpuList& extra_parent_cpus = {}) {
  CpusetTarget parent_now = parent_target_for(current);
  parent_now.cpus = set_union(parent_now.cpus, extra_parent_cpus);
  if (parent_now.mems.empty()) parent_now.mems = L("0");
  const CpusetTarget parent_next = parent_target_for(wanted);
  KernelModel model(current, parent_now, style);
  std::string where = describe(current) + " -> " + describe(wanted) + ": ";
  for (const auto& w : plan_cpuset_writes(current, wanted, parent_now, parent_next, style)) {
    std::string bad = model.apply(w);
    if (!bad.empty()) {
      return where + "after " + to_string(w.kind) + " '" + w.group + "' = '" + w.value +
             "': " + bad;
    }
  }
  std::string bad = model.matches(wanted, parent_next);
  return bad.empty() ? "" : where + "final state: " + bad;
}

bool valid(const Groups& groups) {
  try {
    validate_cpuset_targets(groups, parent_target_for(groups));
    return true;
  } catch (const CpusetError&) {
    return false;
  }
}

// Every valid state of groups {a, b} over CPUs {0,1,2}, nodes {0} or {1}.
std::vector<Groups> small_states() {
  std::vector<std::optional<CpusetTarget>> options{std::nullopt};
  for (unsigned cpus = 1; cpus < 8; ++cpus) {
    std::vector<unsigned> ids;
    for (unsigned c = 0; c < 3; ++c) {
      if (cpus & (1u << c)) ids.push_back(c);
    }
    for (unsigned node = 0; node < 2; ++node) {
      for (bool excl : {false, true})
        options.push_back(CpusetTarget{CpuList(ids), CpuList({node}), excl});
    }
  }
  std::vector<Groups> states;
  for (const auto& a : options) {
    for (const auto& b : options) {
      Groups g;
      if (a) g["a"] = *a;
      if (b) g["b"] = *b;
      if (valid(g)) states.push_back(g);
    }
  }
  return states;
}

class ExhaustivePlan : public ::testing::TestWithParam<ExclusiveStyle> {};

TEST_P(ExhaustivePlan, EveryWriteOfEveryTransitionKeepsTheKernelRules) {
  const auto states = small_states();
  ASSERT_GT(states.size(), 300u);
  std::size_t replayed = 0;
  for (const auto& from : states) {
    for (const auto& to : states) {
      std::string bad = replay(from, to, GetParam());
      ASSERT_EQ(bad, "");
      ++replayed;
    }
  }
  std::printf("replayed %zu transitions\n", replayed);
}

INSTANTIATE_TEST_SUITE_P(Styles, ExhaustivePlan,
                         ::testing::Values(ExclusiveStyle::cpu_exclusive_flag,
                                           ExclusiveStyle::partition, ExclusiveStyle::none),
                         [](const auto& param_info) {
                           return param_info.param == ExclusiveStyle::cpu_exclusive_flag ? "v1_flag"
                                  : param_info.param == ExclusiveStyle::partition ? "v2_partition"
                                                                                  : "none";
                         });

Groups random_state(std::mt19937& rng) {
  Groups g;
  const char* names[] = {"shared", "numa-1", "exclusive-pid-7", "immovable-3"};
  std::vector<unsigned> free_cpus{0, 1, 2, 3, 4, 5};
  for (const char* name : names) {
    if (rng() % 3 == 0) continue;
    std::vector<unsigned> cpus;
    for (unsigned c = 0; c < 6; ++c) {
      if (rng() % 2) cpus.push_back(c);
    }
    if (cpus.empty()) cpus.push_back(rng() % 6);
    std::vector<unsigned> mems{static_cast<unsigned>(rng() % 2)};
    if (rng() % 2) mems = {0, 1};
    g[name] = {CpuList(cpus), CpuList(mems), rng() % 3 == 0};
  }
  return g;
}

TEST(RandomPlan, FourGroupsOnSixCpusKeepTheKernelRules) {
  std::mt19937 rng(20240611);
  std::size_t replayed = 0;
  while (replayed < 20000) {
    Groups from = random_state(rng);
    Groups to = random_state(rng);
    if (!valid(from) || !valid(to)) continue;
    for (auto style : {ExclusiveStyle::cpu_exclusive_flag, ExclusiveStyle::partition}) {
      ASSERT_EQ(replay(from, to, style, CpuList({7})), "");
    }
    ++replayed;
  }
}

std::vector<std::string> steps(const Groups& current, const Groups& wanted,
                               ExclusiveStyle style = ExclusiveStyle::cpu_exclusive_flag) {
  std::vector<std::string> out;
  for (const auto& w : plan_cpuset_writes(current, wanted, parent_target_for(current),
                                          parent_target_for(wanted), style)) {
    out.push_back((w.group.empty() ? "<parent>" : w.group) + " " + to_string(w.kind) +
                  (w.value.empty() ? "" : " " + w.value));
  }
  return out;
}

TEST(PlanTable, FreshLayoutCreatesParentFirstAndExclusiveLast) {
  EXPECT_EQ(steps({}, {{"shared", T("0", "0")}, {"exclusive-x", T("1", "0", true)}}),
            (std::vector<std::string>{
                "<parent> cpus 0-1", "<parent> mems 0", "<parent> exclusive 1",
                "exclusive-x create", "exclusive-x cpus 1", "exclusive-x mems 0", "shared create",
                "shared cpus 0", "shared mems 0", "exclusive-x exclusive 1"}));
}

TEST(PlanTable, SwappingAnExclusiveCoreClearsWidensNarrowsThenSets) {
  Groups now{{"shared", T("0", "0")}, {"exclusive-x", T("1", "0", true)}};
  Groups next{{"shared", T("1", "0")}, {"exclusive-x", T("0", "0", true)}};
  EXPECT_EQ(steps(now, next),
            (std::vector<std::string>{"exclusive-x exclusive 0", "exclusive-x cpus 0-1",
                                      "shared cpus 0-1", "exclusive-x cpus 0", "shared cpus 1",
                                      "exclusive-x exclusive 1"}));
  // The parent's cpus.exclusive widens to old ∪ new first, narrows last.
  EXPECT_EQ(steps(now, next, ExclusiveStyle::partition),
            (std::vector<std::string>{
                "<parent> exclusive 0-1", "exclusive-x partition member", "exclusive-x exclusive",
                "exclusive-x cpus 0-1", "shared cpus 0-1", "exclusive-x cpus 0", "shared cpus 1",
                "exclusive-x exclusive 0", "exclusive-x partition root", "<parent> exclusive 0"}));
}

TEST(PlanTable, RemovedGroupGoesBeforeItsCpusBecomeExclusiveAndBeforeTheParentNarrows) {
  Groups now{{"shared", T("0-1", "0")}, {"numa-1", T("2-3", "1")}};
  Groups next{{"exclusive-y", T("0", "0", true)}, {"shared", T("1", "0")}};
  EXPECT_EQ(steps(now, next),
            (std::vector<std::string>{"<parent> exclusive 1", "exclusive-y create",
                                      "exclusive-y cpus 0", "exclusive-y mems 0", "shared cpus 1",
                                      "numa-1 remove", "exclusive-y exclusive 1",
                                      "<parent> cpus 0-1", "<parent> mems 0"}));
  EXPECT_EQ(replay(now, next, ExclusiveStyle::cpu_exclusive_flag), "");
}

TEST(PlanTable, UnchangedStateNeedsNoWrite) {
  Groups now{{"shared", T("0", "0")}, {"exclusive-x", T("1", "0", true)}};
  EXPECT_TRUE(steps(now, now).empty());
  EXPECT_TRUE(steps(now, now, ExclusiveStyle::partition).empty());
}

TEST(PlanTable, EmptyWantedRemovesChildrenAndKeepsTheParentNonEmpty) {
  Groups now{{"shared", T("0", "0")}, {"exclusive-x", T("1", "0", true)}};
  EXPECT_EQ(steps(now, {}),
            (std::vector<std::string>{"exclusive-x exclusive 0", "exclusive-x remove",
                                      "shared remove", "<parent> exclusive 0"}));
}

TEST(PlanValidation, RefusalsNameTheGroupAndTheReason) {
  auto refusal = [](const Groups& wanted) -> std::string {
    try {
      plan_cpuset_writes({}, wanted, {}, parent_target_for(wanted));
    } catch (const CpusetError& e) {
      EXPECT_EQ(e.error, 0);
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(refusal({{"a", T("0-1", "0", true)}, {"b", T("1", "0")}}),
            "cpuset group 'a' refused: exclusive cpus 0-1 overlap group 'b' (cpus 1)");
  EXPECT_EQ(refusal({{"a", T("", "0")}}),
            "cpuset group 'a' refused: no CPUs (a cpuset may not be empty)");
  EXPECT_EQ(refusal({{"a", T("0", "")}}),
            "cpuset group 'a' refused: no memory nodes (a cpuset may not be empty)");
  EXPECT_EQ(refusal({{"x/y", T("0", "0")}}),
            "cpuset group 'x/y' refused: not a valid group name (one path component)");
  EXPECT_EQ(refusal({{"cpuset.cpus", T("0", "0")}}),
            "cpuset group 'cpuset.cpus' refused: not a valid group name (one path component)");
  EXPECT_EQ(refusal({{"a", T("0", "0", true)}, {"b", T("1", "0", true)}}), "accepted");
  EXPECT_THROW(plan_cpuset_writes({}, {{"a", T("0-3", "0")}}, {}, T("0-1", "0")), CpusetError);
}

// The replay model is the oracle above: it must reject the orders the
// kernel rejects, or the exhaustive tests prove nothing.
TEST(KernelModelOracle, RejectsTheWrongOrders) {
  Groups now{{"shared", T("0", "0")}, {"exclusive-x", T("1", "0", true)}};
  KernelModel v1(now, parent_target_for(now), ExclusiveStyle::cpu_exclusive_flag);
  EXPECT_EQ(v1.apply({"shared", WriteKind::cpus, "0-1"}), "exclusive-x exclusive overlaps shared");
  KernelModel v1b(now, parent_target_for(now), ExclusiveStyle::cpu_exclusive_flag);
  EXPECT_EQ(v1b.apply({"", WriteKind::cpus, "0"}), "exclusive-x cpus outside the parent");
  KernelModel v1c(now, parent_target_for(now), ExclusiveStyle::cpu_exclusive_flag);
  EXPECT_EQ(v1c.apply({"", WriteKind::exclusive, "0"}),
            "exclusive-x exclusive under a non-exclusive parent");
  KernelModel v1d(now, parent_target_for(now), ExclusiveStyle::cpu_exclusive_flag);
  EXPECT_EQ(v1d.apply({"exclusive-x", WriteKind::cpus, "0-1"}),
            "cpus of an exclusive group changed");
  KernelModel v2(now, parent_target_for(now), ExclusiveStyle::partition);
  EXPECT_EQ(v2.apply({"shared", WriteKind::exclusive, "0"}),
            "shared cpus.exclusive outside the parent's");
}

TEST(SetHelpers, UnionSubsetOverlap) {
  EXPECT_EQ(set_union(L("0-2"), L("5,1")).to_string(), "0-2,5");
  EXPECT_TRUE(is_subset(L(""), L("0")));
  EXPECT_FALSE(is_subset(L("0,4"), L("0-3")));
  EXPECT_TRUE(overlaps(L("0,4"), L("4-7")));
  EXPECT_FALSE(overlaps(L("0-3"), L("4-7")));
}

}  // namespace
}  // namespace tier::cpu
