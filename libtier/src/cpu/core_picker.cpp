// Choosing CPUs for an immovable/exclusive claim: whole physical cores first,
// a holder grows next to the cores it has, a new claim stays in one node when
// one can hold it (pack: tightest fit; spread: most room).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>

#include "cpu_book.hpp"

namespace tier::cpu::detail {

namespace {

constexpr unsigned kNoNode = UINT_MAX;  // CPUs no node claims sort last

// A core with eligible CPUs. The CPUs live in one flat buffer (Candidates)
// rather than a vector per core: this runs per claim, 200 times a recompute.
struct CoreChoice {
  unsigned core = 0;
  unsigned node = kNoNode;
  std::uint32_t begin = 0, size = 0;  // eligible CPUs: Candidates::cpus[begin, begin+size)
  bool whole = false;                 // every CPU of the core is eligible
};

struct Candidates {
  std::vector<unsigned> cpus;
  std::vector<CoreChoice> cores;
};

Candidates eligible_cores(const CpuBook& book, std::size_t claim) {
  const auto& cores = book.inventory().cores();
  Candidates out;
  out.cpus.reserve(book.inventory().all().size());
  out.cores.reserve(cores.size());
  for (unsigned core = 0; core < cores.size(); ++core) {
    CoreChoice choice;
    choice.core = core;
    choice.begin = static_cast<std::uint32_t>(out.cpus.size());
    for (unsigned cpu : cores[core].ids()) {
      if (book.eligible(cpu, claim)) out.cpus.push_back(cpu);
    }
    choice.size = static_cast<std::uint32_t>(out.cpus.size()) - choice.begin;
    if (choice.size == 0) continue;
    choice.whole = choice.size == cores[core].size();
    choice.node = book.inventory().node_of(cores[core].ids().front()).value_or(kNoNode);
    out.cores.push_back(choice);
  }
  return out;
}

// Takes CPUs from `ordered` cores until `count` are taken.
std::vector<unsigned> take(const Candidates& candidates,
                           const std::vector<const CoreChoice*>& ordered, std::size_t count) {
  std::vector<unsigned> out;
  for (const CoreChoice* core : ordered) {
    for (std::uint32_t i = 0; i < core->size && out.size() < count; ++i) {
      out.push_back(candidates.cpus[core->begin + i]);
    }
    if (out.size() >= count) break;
  }
  return out;
}

std::vector<unsigned> grow(const Candidates& candidates, std::size_t count,
                           const std::vector<unsigned>& kept, const CpuInventory& inventory) {
  std::vector<unsigned> kept_cores, kept_nodes;
  for (unsigned cpu : kept) {
    kept_cores.push_back(inventory.cpu(cpu)->core);
    kept_nodes.push_back(inventory.node_of(cpu).value_or(kNoNode));
  }
  auto owns = [](const std::vector<unsigned>& v, unsigned x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  auto gap = [&](unsigned core) {
    unsigned best = UINT_MAX;
    for (unsigned k : kept_cores) best = std::min(best, core > k ? core - k : k - core);
    return best;
  };
  // Own cores' free siblings (gap 0), then whole cores, then partial ones;
  // within each, the holder's nodes first and the nearest cores first.
  std::vector<const CoreChoice*> order;
  for (const auto& c : candidates.cores) order.push_back(&c);
  std::stable_sort(order.begin(), order.end(), [&](const CoreChoice* a, const CoreChoice* b) {
    auto key = [&](const CoreChoice* c) {
      const bool own = owns(kept_cores, c->core);
      return std::make_tuple(own        ? 0
                             : c->whole ? 1
                                        : 2,
                             owns(kept_nodes, c->node) ? 0 : 1, gap(c->core), c->core);
    };
    return key(a) < key(b);
  });
  return take(candidates, order, count);
}

std::vector<unsigned> place_new(const Candidates& candidates, std::size_t count,
                                PoolConfig::Placement placement) {
  std::map<unsigned, std::vector<const CoreChoice*>> whole_by_node, partial_by_node;
  std::map<unsigned, std::size_t> whole_cpus;
  for (const auto& c : candidates.cores) {
    (c.whole ? whole_by_node : partial_by_node)[c.node].push_back(&c);
    if (c.whole) whole_cpus[c.node] += c.size;
  }
  // Node order: the chosen node first, then the others by most room.
  std::vector<unsigned> nodes;
  for (const auto& [node, n] : whole_cpus) nodes.push_back(node);
  std::stable_sort(nodes.begin(), nodes.end(),
                   [&](unsigned a, unsigned b) { return whole_cpus[a] > whole_cpus[b]; });
  if (placement == PoolConfig::Placement::pack) {
    // Tightest node that fits the claim in whole cores.
    auto best = nodes.end();
    for (auto it = nodes.begin(); it != nodes.end(); ++it) {
      if (whole_cpus[*it] >= count && (best == nodes.end() || whole_cpus[*it] < whole_cpus[*best]))
        best = it;
    }
    if (best != nodes.end()) std::rotate(nodes.begin(), best, best + 1);
  }
  std::vector<const CoreChoice*> order;
  const bool fits_one = !nodes.empty() && whole_cpus[nodes.front()] >= count;
  if (fits_one || placement == PoolConfig::Placement::pack) {
    for (unsigned node : nodes) {
      for (const CoreChoice* c : whole_by_node[node]) order.push_back(c);
    }
  } else {
    // Spread and no node holds it: one core per node per round.
    for (std::size_t round = 0, added = 1; added != 0; ++round) {
      added = 0;
      for (unsigned node : nodes) {
        if (round < whole_by_node[node].size()) {
          order.push_back(whole_by_node[node][round]);
          ++added;
        }
      }
    }
  }
  // Partial cores last: siblings whose other threads are taken or reserved.
  for (unsigned node : nodes) {
    for (const CoreChoice* c : partial_by_node[node]) order.push_back(c);
  }
  for (auto& [node, list] : partial_by_node) {
    if (std::find(nodes.begin(), nodes.end(), node) == nodes.end()) {
      for (const CoreChoice* c : list) order.push_back(c);
    }
  }
  return take(candidates, order, count);
}

}  // namespace

std::vector<unsigned> pick_cpus(const CpuBook& book, std::size_t claim, std::size_t count,
                                const std::vector<unsigned>& kept,
                                PoolConfig::Placement placement) {
  if (count == 0) return {};
  const Candidates candidates = eligible_cores(book, claim);
  return kept.empty() ? place_new(candidates, count, placement)
                      : grow(candidates, count, kept, book.inventory());
}

}  // namespace tier::cpu::detail
