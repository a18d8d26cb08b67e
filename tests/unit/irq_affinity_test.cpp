// IRQ isolation (libtier/src/cpu/irq_affinity.cpp) on a fixture /proc/irq
// tree: which IRQs move, which are skipped and why, the originals coming
// back, and the real writer's errors. Never touches the live /proc/irq.
#include <gtest/gtest.h>

#include <cerrno>
#include <map>

#include "test_support.hpp"
#include "tier/cpu/irq_affinity.hpp"

namespace tier::cpu {
namespace {

namespace fs = std::filesystem;

CpuList list(const char* text) {
  return *CpuList::parse(text);
}

// /proc/irq with a handful of IRQs on a 4-CPU machine.
class IrqTree {
 public:
  IrqTree() {
    for (const auto& [irq, affinity] : kAffinities) {
      test::write_text_file(file(irq), std::string(affinity) + "\n");
    }
    test::write_text_file(dir_.path() / "proc/irq/default_smp_affinity", "f\n");
    // Entries that are not IRQs are left alone.
    test::write_text_file(dir_.path() / "proc/irq/not_an_irq/smp_affinity_list", "0-3\n");
  }
  SysRoot root() const { return SysRoot(dir_.path()); }
  fs::path file(unsigned irq) const {
    return dir_.path() / "proc/irq" / std::to_string(irq) / "smp_affinity_list";
  }
  std::string affinity(unsigned irq) const { return test::read_text_file(file(irq)); }
  std::string default_mask() const {
    return test::read_text_file(dir_.path() / "proc/irq/default_smp_affinity");
  }
  std::map<unsigned, std::string> all() const {
    std::map<unsigned, std::string> out;
    for (const auto& [irq, affinity] : kAffinities) out[irq] = test::read_text_file(file(irq));
    return out;
  }

  // IRQ 26 plays a managed interrupt: the kernel answers EIO.
  IrqWriter writer_refusing_26(int error = EIO) const {
    return [this, error](const fs::path& path, const std::string& value) {
      if (path == file(26)) return error;
      return write_proc_file(path, value);
    };
  }

  static inline const std::map<unsigned, const char*> kAffinities = {
      {0, "0-3"}, {1, "2"}, {9, "2-3"}, {24, "0-1"}, {25, "1,3"}, {26, "0-3"}};

 private:
  test::TempDir dir_{"tier-irq"};
};

std::map<unsigned, std::string> moves_of(const std::vector<IrqMove>& moves) {
  std::map<unsigned, std::string> out;
  for (const IrqMove& m : moves) out[m.irq] = m.before.to_string() + " -> " + m.after.to_string();
  return out;
}

std::map<unsigned, std::string> skips_of(const IrqReport& report) {
  std::map<unsigned, std::string> out;
  for (const IrqSkip& s : report.skipped) out[s.irq] = s.reason;
  return out;
}

TEST(IrqIsolation, MovesIrqsOffTheCpusAndReportsTheOnesItCannot) {
  IrqTree tree;
  IrqIsolation isolation(tree.root(), tree.writer_refusing_26());
  const IrqReport report = isolation.isolate(list("2-3"));

  EXPECT_EQ(moves_of(report.moved),
            (std::map<unsigned, std::string>{{0, "0-3 -> 0-1"}, {25, "1,3 -> 1"}}));
  EXPECT_TRUE(report.restored.empty());
  EXPECT_EQ(skips_of(report),
            (std::map<unsigned, std::string>{
                {1, "would leave no CPU (affinity 2 lies within 2-3)"},
                {9, "would leave no CPU (affinity 2-3 lies within 2-3)"},
                {26, "kernel refused (EIO (Input/output error)): managed or per-CPU IRQ"}}));
  EXPECT_EQ(tree.all(),
            (std::map<unsigned, std::string>{
                {0, "0-1"}, {1, "2\n"}, {9, "2-3\n"}, {24, "0-1\n"}, {25, "1"}, {26, "0-3\n"}}));
  ASSERT_TRUE(report.default_affinity);
  EXPECT_EQ(report.default_affinity->after.to_string(), "0-1");
  EXPECT_EQ(tree.default_mask(), "00000003");
  EXPECT_EQ(isolation.originals().size(), 2u);

  isolation.restore();
  EXPECT_EQ(tree.affinity(0), "0-3");
  EXPECT_EQ(tree.affinity(25), "1,3");
  EXPECT_EQ(tree.affinity(24), "0-1\n") << "never touched, never rewritten";
  EXPECT_EQ(tree.default_mask(), "f");
  EXPECT_TRUE(isolation.originals().empty());
  EXPECT_TRUE(isolation.restore_failures().empty());
}

TEST(IrqIsolation, EinvalIsAlsoAKernelRefusal) {
  IrqTree tree;
  IrqIsolation isolation(tree.root(), tree.writer_refusing_26(EINVAL));
  EXPECT_EQ(skips_of(isolation.isolate(list("0"))).at(26),
            "kernel refused (EINVAL (Invalid argument)): managed or per-CPU IRQ");
}

TEST(IrqIsolation, DestructionRestoresTheOriginals) {
  IrqTree tree;
  {
    IrqIsolation isolation(tree.root());
    isolation.isolate(list("0"));
    EXPECT_EQ(tree.affinity(24), "1");
    EXPECT_EQ(tree.affinity(26), "1-3");
  }
  EXPECT_EQ(tree.affinity(24), "0-1");
  EXPECT_EQ(tree.affinity(26), "0-3");
  EXPECT_EQ(tree.affinity(1), "2\n");
  EXPECT_EQ(tree.default_mask(), "f");
}

// A second isolate() starts from the originals: IRQs re-target and those no
// longer concerned get their original list back, and restore() still
// writes the first originals, not the intermediate lists.
TEST(IrqIsolation, IsolatingAnotherSetRetargetsFromTheOriginals) {
  IrqTree tree;
  IrqIsolation isolation(tree.root());
  isolation.isolate(list("3"));
  EXPECT_EQ(tree.affinity(0), "0-2");
  EXPECT_EQ(tree.affinity(9), "2");
  EXPECT_EQ(tree.default_mask(), "00000007");

  const IrqReport second = isolation.isolate(list("1"));
  EXPECT_EQ(moves_of(second.moved),
            (std::map<unsigned, std::string>{
                {0, "0-2 -> 0,2-3"}, {24, "0-1 -> 0"}, {25, "1 -> 3"}, {26, "0-2 -> 0,2-3"}}));
  EXPECT_EQ(moves_of(second.restored), (std::map<unsigned, std::string>{{9, "2 -> 2-3"}}));
  EXPECT_EQ(tree.default_mask(), "0000000d");

  isolation.restore();
  EXPECT_EQ(tree.affinity(0), "0-3");
  EXPECT_EQ(tree.affinity(9), "2-3");
  EXPECT_EQ(tree.affinity(24), "0-1");
  EXPECT_EQ(tree.affinity(25), "1,3");
  EXPECT_EQ(tree.default_mask(), "f");
}

TEST(IrqIsolation, MalformedAffinityIsSkippedAndNamed) {
  IrqTree tree;
  test::write_text_file(tree.file(30), "zz\n");
  IrqIsolation isolation(tree.root());
  EXPECT_EQ(skips_of(isolation.isolate(list("0"))).at(30), "malformed smp_affinity_list 'zz'");
}

TEST(IrqIsolation, RestoreFailuresAreKept) {
  IrqTree tree;
  bool refuse = false;
  IrqIsolation isolation(tree.root(), [&](const fs::path& path, const std::string& value) {
    return refuse && path == tree.file(0) ? EIO : write_proc_file(path, value);
  });
  isolation.isolate(list("3"));
  refuse = true;
  isolation.restore();
  ASSERT_EQ(isolation.restore_failures().size(), 1u);
  EXPECT_EQ(isolation.restore_failures()[0].irq, 0u);
  EXPECT_EQ(isolation.restore_failures()[0].affinity.to_string(), "0-3");
  EXPECT_EQ(tree.affinity(9), "2-3") << "the others still came back";
  refuse = false;
}

TEST(IrqWriter, WritesWholeValueAndReportsErrno) {
  test::TempDir dir("tier-irq-writer");
  const fs::path file = dir.path() / "smp_affinity_list";
  test::write_text_file(file, "0-15\n");
  EXPECT_EQ(write_proc_file(file, "3"), 0);
  EXPECT_EQ(test::read_text_file(file), "3");
  EXPECT_EQ(write_proc_file(dir.path() / "missing", "3"), ENOENT) << "never creates a file";
  EXPECT_FALSE(fs::exists(dir.path() / "missing"));
  EXPECT_EQ(write_proc_file("/dev/full", "3"), ENOSPC);
}

TEST(IrqMask, KernelMaskSyntaxRoundTrips) {
  EXPECT_EQ(to_mask(CpuList()), "0");
  EXPECT_EQ(to_mask(list("0-3")), "0000000f");
  EXPECT_EQ(to_mask(list("0,32,40")), "00000101,00000001");
  for (const char* text : {"0", "5-9,31-33,64,100-127"}) {
    EXPECT_EQ(CpuList::parse_mask(to_mask(list(text)))->to_string(), text);
  }
}

}  // namespace
}  // namespace tier::cpu
