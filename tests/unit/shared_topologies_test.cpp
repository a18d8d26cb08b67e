// load_topology() against hwloc's own regression suite (shared/topologies).
//
// Every hwloc-linux/*.test names a gathered sysfs tarball and the output hwloc
// printed for it (lstopo -v console text, or an XML export). We unpack the
// tarball, load it through our loader and compare what both must agree on:
// the NUMA nodes shown, their memory, their CPU sets and, where hwloc names
// one, their memory technology. The XML files are also loaded directly through
// TopologyOptions::hwloc_xml and compared with themselves.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "tier/topology/topology.hpp"

namespace tier {
namespace {

using ::testing::HasSubstr;

namespace fs = std::filesystem;
using test::TempDir;

const fs::path kShared = TIER_SHARED_TOPOLOGIES;
const fs::path kHwlocLinux = kShared / "hwloc-linux";
const fs::path kHwlocXml = kShared / "hwloc-xml";

// ---------------------------------------------------------------------------
// Reference: what hwloc printed, reduced to the facts we compare.

struct RefNode {
  unsigned id = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t memory_tolerance = 0;  // one unit of the printed precision
  CpuList cpus;                        // hwloc's node cpuset
  std::string subtype;                 // "DRAM", "HBM", "NVM", "GPUMemory", ...
  std::optional<int> memorytier;       // hwloc >= 2.10's own tiering, 0 = fastest
};

struct Reference {
  std::map<unsigned, RefNode> nodes;
  CpuList pus;  // every PU the reference shows (allowed ones unless --disallowed)
};

std::optional<MemoryKind> kind_of_subtype(const std::string& subtype) {
  if (subtype == "HBM") return MemoryKind::hbm;
  if (subtype == "NVM") return MemoryKind::pmem;
  if (subtype == "DRAM") return MemoryKind::dram;
  return std::nullopt;  // GPUMemory, SPM, ...: no MemoryKind equivalent to assert
}

std::uint64_t unit_bytes(const std::string& unit) {
  // hwloc prints binary units; old versions spell KiB as "KB".
  if (unit == "KB" || unit == "KiB" || unit == "kB") return 1ull << 10;
  if (unit == "MB" || unit == "MiB") return 1ull << 20;
  if (unit == "GB" || unit == "GiB") return 1ull << 30;
  if (unit == "TB" || unit == "TiB") return 1ull << 40;
  if (unit == "B") return 1;
  throw std::runtime_error("unknown memory unit " + unit);
}

// One object line of `lstopo -v` output: "    NUMANode(HBM) L#3 (P#4 local=512MiB ...)".
struct ConsoleObject {
  std::size_t depth = 0;
  std::string type;
  std::string text;
};

std::vector<ConsoleObject> console_objects(const std::string& console) {
  std::vector<ConsoleObject> objects;
  std::istringstream lines(console);
  std::string line;
  static const std::regex type_re(R"(^([A-Za-z0-9]+))");
  while (std::getline(lines, line)) {
    // The tree ends where the per-depth summary ("depth 0: ...") starts.
    if (line.rfind("depth ", 0) == 0) break;
    std::size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos) continue;
    std::smatch m;
    std::string rest = line.substr(indent);
    if (!std::regex_search(rest, m, type_re)) continue;
    objects.push_back({indent / 2, m[1].str(), rest});
  }
  return objects;
}

std::optional<unsigned> os_index(const std::string& text) {
  static const std::regex re(R"(\(P#(\d+))");
  std::smatch m;
  if (!std::regex_search(text, m, re)) return std::nullopt;
  return static_cast<unsigned>(std::stoul(m[1].str()));
}

// PUs in the subtree of objects[index].
CpuList pus_below(const std::vector<ConsoleObject>& objects, std::size_t index) {
  std::vector<unsigned> pus;
  for (std::size_t i = index + 1; i < objects.size() && objects[i].depth > objects[index].depth;
       ++i) {
    if (objects[i].type == "PU") pus.push_back(*os_index(objects[i].text));
  }
  return CpuList(pus);
}

// Index of the nearest line above `index` that is indented less.
std::size_t parent_of(const std::vector<ConsoleObject>& objects, std::size_t index) {
  std::size_t i = index;
  while (i > 0 && objects[--i].depth >= objects[index].depth) {
  }
  return i;
}

Reference parse_console(const std::string& console) {
  static const std::regex subtype_re(R"(^NUMANode\(([^)]*)\))");
  static const std::regex local_re(R"(local=(\d+)([A-Za-z]+))");
  static const std::regex memorytier_re(R"(memorytier=(\d+))");
  std::vector<ConsoleObject> objects = console_objects(console);
  Reference ref;
  std::vector<unsigned> all_pus;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const ConsoleObject& obj = objects[i];
    if (obj.type == "PU") all_pus.push_back(*os_index(obj.text));
    if (obj.type != "NUMANode") continue;
    RefNode node;
    node.id = os_index(obj.text).value();
    std::smatch m;
    if (std::regex_search(obj.text, m, subtype_re)) node.subtype = m[1].str();
    if (std::regex_search(obj.text, m, local_re)) {
      const std::uint64_t unit = unit_bytes(m[2].str());
      node.memory_bytes = std::stoull(m[1].str()) * unit;
      node.memory_tolerance = unit;  // printed value is rounded or truncated to `unit`
    }
    if (std::regex_search(obj.text, m, memorytier_re)) node.memorytier = std::stoi(m[1].str());
    // hwloc gives a node the cpuset of the object it hangs off: the nearest
    // ancestor that is not itself memory (memory-side caches sit in between).
    std::size_t parent = parent_of(objects, i);
    while (objects[parent].type == "MemCache" || objects[parent].type == "NUMANode") {
      parent = parent_of(objects, parent);
    }
    node.cpus = pus_below(objects, parent);
    ref.nodes[node.id] = node;
  }
  ref.pus = CpuList(all_pus);
  return ref;
}

// hwloc XML bitmap "0x00000011,0x11111111" (32-bit words, most significant first).
CpuList parse_hwloc_bitmap(const std::string& text) {
  std::vector<std::string> words;
  std::stringstream in(text);
  for (std::string word; std::getline(in, word, ',');) words.push_back(word);
  std::vector<unsigned> ids;
  for (std::size_t w = 0; w < words.size(); ++w) {
    std::string hex = words[w];
    if (hex.rfind("0x", 0) == 0) hex = hex.substr(2);
    const unsigned long value = std::stoul(hex, nullptr, 16);
    const unsigned base = static_cast<unsigned>(32 * (words.size() - 1 - w));
    for (unsigned bit = 0; bit < 32; ++bit) {
      if (value & (1ul << bit)) ids.push_back(base + bit);
    }
  }
  std::sort(ids.begin(), ids.end());
  return CpuList(ids);
}

Reference parse_xml(const std::string& xml) {
  static const std::regex object_re(R"(<object\s([^>]*)>)");
  static const std::regex attr_re(R"re((\w+)="([^"]*)")re");
  Reference ref;
  std::vector<unsigned> pus;
  for (std::sregex_iterator it(xml.begin(), xml.end(), object_re), end; it != end; ++it) {
    std::map<std::string, std::string> attrs;
    const std::string body = (*it)[1].str();
    for (std::sregex_iterator a(body.begin(), body.end(), attr_re); a != end; ++a) {
      attrs[(*a)[1].str()] = (*a)[2].str();
    }
    if (attrs["type"] == "PU") pus.push_back(static_cast<unsigned>(std::stoul(attrs["os_index"])));
    if (attrs["type"] != "NUMANode") continue;
    RefNode node;
    node.id = static_cast<unsigned>(std::stoul(attrs["os_index"]));
    node.memory_bytes = attrs.contains("local_memory") ? std::stoull(attrs["local_memory"]) : 0;
    node.cpus = parse_hwloc_bitmap(attrs["cpuset"]);
    node.subtype = attrs["subtype"];
    ref.nodes[node.id] = node;
  }
  ref.pus = CpuList(pus);
  return ref;
}

int xml_major_version(const std::string& xml) {
  static const std::regex re(R"(<topology version="(\d+))");
  std::smatch m;
  return std::regex_search(xml, m, re) ? std::stoi(m[1].str()) : 1;
}

// ---------------------------------------------------------------------------
// The .test files.

struct TopologyCase {
  std::string name;                                      // NAME of NAME.test
  fs::path tarball;                                      // source:
  fs::path target;                                       // target: (.console or .xml)
  std::string options;                                   // options:
  std::vector<std::pair<std::string, std::string>> env;  // env: NAME=VALUE lines
  std::optional<fs::path> exclude;                       // exclude:

  bool shows_disallowed() const { return options.find("--disallowed") != std::string::npos; }
};

// Readable parameter in GoogleTest's failure lines instead of a byte dump.
void PrintTo(const TopologyCase& c, std::ostream* os) {
  *os << c.name << ".test";
}

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r");
  auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

TopologyCase parse_test_file(const fs::path& path) {
  TopologyCase c;
  c.name = path.stem().string();
  std::istringstream lines(test::read_text_file(path));
  for (std::string line; std::getline(lines, line);) {
    auto colon = line.find(':');
    if (line.empty() || line[0] == '#' || colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    const std::string value = trim(line.substr(colon + 1));
    if (key == "source") c.tarball = path.parent_path() / value;
    if (key == "target") c.target = path.parent_path() / value;
    if (key == "options") c.options = value;
    if (key == "exclude") c.exclude = path.parent_path() / value;
    // env lines are shell: `NAME="value"` (used) and `export NAME` (implied).
    if (key == "env" && value.rfind("export ", 0) != 0) {
      auto eq = value.find('=');
      std::string v = value.substr(eq + 1);
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
      c.env.emplace_back(value.substr(0, eq), v);
    }
  }
  return c;
}

std::vector<TopologyCase> tarball_cases() {
  std::vector<TopologyCase> cases;
  for (const auto& entry : fs::directory_iterator(kHwlocLinux)) {
    if (entry.path().extension() != ".test") continue;
    TopologyCase c = parse_test_file(entry.path());
    if (c.tarball.string().ends_with(".tar.bz2")) cases.push_back(c);
  }
  std::sort(cases.begin(), cases.end(),
            [](const TopologyCase& a, const TopologyCase& b) { return a.name < b.name; });
  return cases;
}

std::vector<fs::path> xml_files() {
  std::vector<fs::path> files;
  for (const auto& dir : {kHwlocLinux, kHwlocXml}) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() == ".xml") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// ---------------------------------------------------------------------------
// Comparison.

CpuList intersect(const CpuList& a, const CpuList& b) {
  std::vector<unsigned> out;
  for (unsigned id : a.ids()) {
    if (b.contains(id)) out.push_back(id);
  }
  return CpuList(out);
}

std::vector<unsigned> ids_of(const std::map<unsigned, RefNode>& nodes) {
  std::vector<unsigned> ids;
  for (const auto& [id, node] : nodes) ids.push_back(id);
  return ids;
}

// Each CPU belongs to at most one node (the kernel's rule; hwloc's node
// cpusets overlap, Node::cpus must not).
void expect_disjoint_cpus(const Topology& topology) {
  std::map<unsigned, unsigned> owner;
  for (const auto& node : topology.nodes()) {
    for (unsigned cpu : node.cpus.ids()) {
      auto [it, inserted] = owner.emplace(cpu, node.id);
      EXPECT_TRUE(inserted) << "CPU " << cpu << " is in both node " << it->second << " and node "
                            << node.id;
    }
  }
}

// Kind order the project documents: HBM above DRAM above persistent memory.
void expect_kind_order(const Topology& topology) {
  auto tiers_of = [&](MemoryKind kind) {
    std::vector<unsigned> tiers;
    for (const auto& node : topology.nodes()) {
      if (node.kind == kind) tiers.push_back(node.tier);
    }
    return tiers;
  };
  auto expect_above = [](const std::vector<unsigned>& faster, const std::vector<unsigned>& slower,
                         const char* what) {
    if (faster.empty() || slower.empty()) return;
    EXPECT_LT(*std::max_element(faster.begin(), faster.end()),
              *std::min_element(slower.begin(), slower.end()))
        << what;
  };
  expect_above(tiers_of(MemoryKind::hbm), tiers_of(MemoryKind::dram), "HBM must rank above DRAM");
  expect_above(tiers_of(MemoryKind::dram), tiers_of(MemoryKind::pmem), "DRAM must rank above NVM");
}

// The kernel's own answer to "which CPUs does node N own", from the gathered
// tree: nodeN/cpulist, else nodeN/cpumap (old kernels); a kernel without NUMA
// support has no node directory and one implicit node holding every CPU.
CpuList kernel_node_cpus(const SysRoot& sysfs, unsigned id, const CpuList& all_cpus) {
  const std::string dir = "/sys/devices/system/node/node" + std::to_string(id);
  if (auto text = sysfs.read(dir + "/cpulist")) return CpuList::parse(*text).value_or(CpuList());
  if (auto text = sysfs.read(dir + "/cpumap"))
    return CpuList::parse_mask(*text).value_or(CpuList());
  if (!sysfs.exists("/sys/devices/system/node") && id == 0) return all_cpus;
  return CpuList();
}

// Where the reference prints hwloc's own memory tiers (memorytier=, newer
// hwloc only), a node hwloc ranks slower must not rank faster with us.
void expect_memorytier_order(const Topology& topology, const Reference& ref) {
  for (const auto& [a, ra] : ref.nodes) {
    for (const auto& [b, rb] : ref.nodes) {
      if (!ra.memorytier || !rb.memorytier || *ra.memorytier >= *rb.memorytier) continue;
      const Node* na = topology.node(a);
      const Node* nb = topology.node(b);
      if (na == nullptr || nb == nullptr) continue;
      EXPECT_LT(na->tier, nb->tier) << "hwloc memorytier " << *ra.memorytier << " (node " << a
                                    << ") < " << *rb.memorytier << " (node " << b << ")";
    }
  }
}

struct CompareOptions {
  bool all_nodes = false;  // reference shows disallowed nodes too
  // Kernel's own nodeN/cpulist of the gathered tree, to know which nodes own
  // CPUs; null for XML input (no sysfs).
  const SysRoot* sysfs = nullptr;
};

void expect_matches(const Topology& topology, const Reference& ref, const CompareOptions& opts) {
  std::vector<unsigned> ours;
  for (const auto& node : topology.nodes()) {
    if (opts.all_nodes || node.allowed) ours.push_back(node.id);
  }
  EXPECT_EQ(ours, ids_of(ref.nodes))
      << "NUMA nodes shown (" << (opts.all_nodes ? "all" : "allowed only") << ")";

  bool kernel_overlaps = false;
  if (opts.sysfs != nullptr) {
    std::set<unsigned> seen;
    for (const auto& node : topology.nodes()) {
      const CpuList kernel = kernel_node_cpus(*opts.sysfs, node.id, ref.pus);
      for (unsigned cpu : kernel.ids()) {
        kernel_overlaps |= !seen.insert(cpu).second;
      }
    }
  }
  for (const auto& [id, expected] : ref.nodes) {
    SCOPED_TRACE("node " + std::to_string(id));
    const Node* node = topology.node(id);
    if (node == nullptr) continue;  // already reported by the id comparison
    EXPECT_NEAR(static_cast<double>(node->memory_total_bytes),
                static_cast<double>(expected.memory_bytes),
                static_cast<double>(expected.memory_tolerance))
        << "memory_total_bytes vs reference local=";
    // Without --disallowed the reference hides disallowed PUs that our loader
    // keeps on purpose (HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED): compare on
    // the PUs the reference shows.
    EXPECT_EQ(intersect(node->local_cpus, ref.pus).to_string(), expected.cpus.to_string())
        << "local_cpus vs hwloc node cpuset";
    EXPECT_TRUE(intersect(node->cpus, node->local_cpus) == node->cpus)
        << "cpus " << node->cpus.to_string() << " outside local_cpus "
        << node->local_cpus.to_string();
    if (opts.sysfs != nullptr) {
      const CpuList kernel = intersect(kernel_node_cpus(*opts.sysfs, id, ref.pus), ref.pus);
      const CpuList mine = intersect(node->cpus, ref.pus);
      if (kernel_overlaps) {
        // Fake trees (fakeheterocpunuma) give a CPU to several nodes; Node::cpus
        // gives it to one, so only "a part of the kernel's list" can hold.
        EXPECT_TRUE(intersect(mine, kernel) == mine)
            << "cpus " << mine.to_string() << " vs kernel's " << kernel.to_string();
      } else {
        EXPECT_EQ(mine.to_string(), kernel.empty() ? std::string() : expected.cpus.to_string())
            << "cpus (kernel's node CPUs: " << kernel.to_string() << ")";
      }
    }
    if (auto kind = kind_of_subtype(expected.subtype)) {
      EXPECT_STREQ(to_string(node->kind), to_string(*kind))
          << "reference NUMANode(" << expected.subtype << "), evidence: " << node->kind_evidence;
    }
  }
  expect_disjoint_cpus(topology);
  expect_kind_order(topology);
  expect_memorytier_order(topology, ref);
}

// ---------------------------------------------------------------------------
// Tarball cases.

class HwlocLinuxTree : public ::testing::TestWithParam<TopologyCase> {};

TEST_P(HwlocLinuxTree, MatchesReference) {
  const TopologyCase& c = GetParam();
  SCOPED_TRACE(c.name + " (" + c.tarball.filename().string() + " vs " +
               c.target.filename().string() + ", options '" + c.options + "')");
  TempDir dir("tier-hwloc-" + c.name);
  test::unpack_tarball(c.tarball, dir.path(), c.exclude);
  // The tarball holds one top directory, not always named like the tarball.
  std::vector<fs::path> top(fs::directory_iterator(dir.path()), fs::directory_iterator());
  ASSERT_EQ(top.size(), 1u) << c.tarball << " should hold one top directory";
  const fs::path root = top.front();

  std::vector<std::unique_ptr<test::ScopedEnv>> env;
  for (const auto& [name, value] : c.env) {
    env.push_back(std::make_unique<test::ScopedEnv>(name, value));
  }
  const Topology topology = load_topology({SysRoot(root), std::nullopt, {}});

  const std::string target = test::read_text_file(c.target);
  const Reference ref = c.target.extension() == ".xml" ? parse_xml(target) : parse_console(target);
  ASSERT_FALSE(ref.nodes.empty()) << "reference " << c.target << " shows no NUMA node";
  const SysRoot sysfs(root);
  // Options such as --merge, --filter, --no-caches and --whole-io only change
  // which cache/group/I/O objects are printed, never NUMA nodes, their memory
  // or their cpusets, so every case is compared in full.
  expect_matches(topology, ref, {c.shows_disallowed(), &sysfs});
}

INSTANTIATE_TEST_SUITE_P(SharedTopologies, HwlocLinuxTree, ::testing::ValuesIn(tarball_cases()),
                         [](const auto& param) { return test::test_name_from(param.param.name); });

TEST(SharedTopologies, FoundTheTestFiles) {
  // Guards against a wrong TIER_SHARED_TOPOLOGIES silently producing zero cases.
  EXPECT_GE(tarball_cases().size(), 40u) << kHwlocLinux;
  EXPECT_GE(xml_files().size(), 2u);
}

// fakeheteromemtiers: each package mixes DRAM, HBM and NVM nodes; tiers must
// order them HBM < DRAM < NVM (by rank, 0 = fastest).
TEST(SharedTopologies, FakeHeteroMemTiersRanksHbmDramNvm) {
  TempDir dir("tier-hetero");
  test::unpack_tarball(kHwlocLinux / "fakeheteromemtiers.tar.bz2", dir.path());
  const Topology topology =
      load_topology({SysRoot(dir.path() / "fakeheteromemtiers"), std::nullopt, {}});
  const Reference ref =
      parse_console(test::read_text_file(kHwlocLinux / "fakeheteromemtiers.console"));

  std::map<std::string, std::vector<unsigned>> tiers;  // reference subtype → our ranks
  for (const auto& [id, expected] : ref.nodes) {
    const Node* node = topology.node(id);
    ASSERT_NE(node, nullptr) << id;
    tiers[expected.subtype].push_back(node->tier);
  }
  ASSERT_FALSE(tiers["HBM"].empty());
  ASSERT_FALSE(tiers["DRAM"].empty());
  ASSERT_FALSE(tiers["NVM"].empty());
  auto max_of = [](const std::vector<unsigned>& v) {
    return *std::max_element(v.begin(), v.end());
  };
  auto min_of = [](const std::vector<unsigned>& v) {
    return *std::min_element(v.begin(), v.end());
  };
  EXPECT_LT(max_of(tiers["HBM"]), min_of(tiers["DRAM"]));
  EXPECT_LT(max_of(tiers["DRAM"]), min_of(tiers["NVM"]));
  EXPECT_NE(topology.tier_source(), TierSource::single);
}

// ---------------------------------------------------------------------------
// XML exports loaded directly.

class HwlocXmlExport : public ::testing::TestWithParam<fs::path> {};

// hwloc 3's XML v3 as hwloc 2's v2, which is all this hwloc (2.9, Debian 12)
// imports. Measured on the shared exports, the formats differ in five ways:
// the root's version, an id="objN" on every object (v2 has none), OS
// devices' osdev_type (below), the
// topology-wide <info> lines (Backend, OSName, ...) after the root object
// instead of inside it, and <pci_locality> (v3 only: which CPUs each PCI bus
// range is near; the tree still places the bridges). Every object, cpuset
// and memory size is kept as written, so what is compared is the export.
std::string xml_v3_as_v2(const std::string& xml) {
  std::string out = std::regex_replace(xml, std::regex(R"(<topology version="3\.0">)"),
                                       R"(<topology version="2.0">)");
  out = std::regex_replace(out, std::regex(R"( id="obj[0-9]+")"), "");
  // v3's osdev_type is a set of flags (storage 1, memory 2, GPU 4, coproc 8,
  // network 16, openfabrics 32, DMA 64); v2's an enum (block 0, GPU 1,
  // network 2, openfabrics 3, DMA 4, coproc 5). Left as is, 16 is no v2
  // type at all (UBSan: an invalid hwloc_obj_osdev_type_e).
  static const std::regex osdev(R"re(osdev_type="([0-9]+)")re");
  std::string typed;
  auto last = out.cbegin();
  for (std::sregex_iterator it(out.begin(), out.end(), osdev), end; it != end; ++it) {
    const unsigned long flags = std::stoul((*it)[1].str());
    const int v2 = flags & 32   ? 3
                   : flags & 16 ? 2
                   : flags & 4  ? 1
                   : flags & 8  ? 5
                   : flags & 64 ? 4
                                : 0;
    typed.append(last, (*it)[0].first);
    typed += "osdev_type=\"" + std::to_string(v2) + "\"";
    last = (*it)[0].second;
  }
  typed.append(last, out.cend());
  out = std::move(typed);
  std::vector<std::string> lines, top_infos;
  std::stringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("  <info ")) {
      top_infos.push_back("  " + line);
    } else if (!line.starts_with("  <pci_locality ")) {
      lines.push_back(line);
    }
  }
  std::string v2;
  bool root_seen = false;
  for (const std::string& line : lines) {
    v2 += line + '\n';
    if (!root_seen && line.starts_with("  <object ")) {
      root_seen = true;
      for (const std::string& info : top_infos) v2 += info + '\n';
    }
  }
  return v2;
}

TEST_P(HwlocXmlExport, MatchesItself) {
  const fs::path& file = GetParam();
  const std::string xml = test::read_text_file(file);
  test::TempDir scratch("tier-xml");
  TopologyOptions options;
  options.hwloc_xml = file.string();
  if (xml_major_version(xml) >= 3) {
    const fs::path v2 = scratch.path() / file.filename();
    test::write_text_file(v2, xml_v3_as_v2(xml));
    options.hwloc_xml = v2.string();
  }
  std::optional<Topology> topology;
  try {
    topology = load_topology(options);
  } catch (const TopologyError& e) {
    FAIL() << e.what();
  }
  EXPECT_EQ(topology->source().kind, TopologySource::Kind::xml);
  const Reference ref = parse_xml(xml);
  // An export holds exactly the objects that were exported: all of them count.
  expect_matches(*topology, ref, {true, nullptr});
  for (const auto& node : topology->nodes()) {
    EXPECT_FALSE(node.memory_free_bytes.has_value()) << "XML exports carry no free memory";
  }
}

// A v3 file as it is: this hwloc cannot import it, and the loader says so
// cleanly, naming the file (a user with an export from hwloc 3 sees why).
TEST(HwlocXmlExportV3, RefusedByThisHwlocNamingTheFile) {
  const fs::path file = kHwlocXml / "cxlmem+dax.v3.xml";
  ASSERT_EQ(xml_major_version(test::read_text_file(file)), 3);
  TopologyOptions options;
  options.hwloc_xml = file.string();
  try {
    load_topology(options);
    GTEST_SKIP() << "this hwloc imports XML v3 (hwloc 3 or later): nothing to refuse";
  } catch (const TopologyError& e) {
    EXPECT_THAT(e.what(), HasSubstr(file.string()));
  }
}

INSTANTIATE_TEST_SUITE_P(SharedTopologies, HwlocXmlExport, ::testing::ValuesIn(xml_files()),
                         [](const auto& param) {
                           return test::test_name_from(
                               param.param.parent_path().filename().string() + "_" +
                               param.param.stem().string());
                         });

}  // namespace
}  // namespace tier
