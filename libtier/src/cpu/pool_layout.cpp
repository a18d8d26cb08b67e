// compute_layout(): claims first (holders, then new ones), then the shared
// and numa pools from what is left, then memory nodes (see pool_layout.hpp).
#include "tier/cpu/pool_layout.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "cpu_book.hpp"
#include "pool_memory.hpp"

namespace tier::cpu {

namespace {

using detail::CpuBook;

std::string count(std::size_t n, const char* what = "CPU") {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// What one immovable/exclusive claim ends up with.
struct ClaimOutcome {
  std::vector<unsigned> cpus;
  std::optional<std::string> refusal;
};

class LayoutBuilder {
 public:
  LayoutBuilder(const CpuInventory& inventory, const Topology& topology, const PoolConfig& config,
                const std::vector<Claim>& claims)
      : inventory_(inventory),
        topology_(topology),
        config_(config),
        claims_(claims),
        book_(inventory, config.reserved, claims),
        memory_(inventory, topology),
        outcomes_(claims.size()) {
    for (unsigned cpu : inventory.all().ids()) {
      if (!book_.reserved(cpu)) ++outside_reserved_;
    }
    shared_size_ = outside_reserved_;
  }

  Layout build() {
    // Holders keep what they hold before anyone grows, so a recompute or a
    // resize never moves one holder to make room for another; then holders
    // grow, then new claims come, each in input order.
    for (std::size_t i = 0; i < claims_.size(); ++i) {
      if (claims_[i].pool.claims_cpus() && !claims_[i].held.empty()) keep_held(i);
    }
    for (int pass = 0; pass < 2; ++pass) {
      for (std::size_t i = 0; i < claims_.size(); ++i) {
        const Claim& c = claims_[i];
        if (c.pool.claims_cpus() && c.held.empty() == (pass == 1)) place_claim(i);
      }
    }
    mark_orphans();
    return assemble();
  }

 private:
  // Why claim i cannot have K CPUs on this machine at all, or nullopt.
  std::optional<std::string> size_problem(std::size_t i) const {
    const Claim& c = claims_[i];
    const std::string spec = c.pool.to_string();
    const std::size_t k = c.pool.value;
    if (k == 0) return "pool \"" + spec + "\": K must be at least 1";
    if (k > inventory_.all().size()) {
      return spec + ": asks for " + count(k) + " but the machine has " +
             count(inventory_.all().size());
    }
    if (k > outside_reserved_) {
      return spec + ": asks for " + count(k) + " but only " + std::to_string(outside_reserved_) +
             " are outside the reserved CPUs " + config_.reserved.to_string();
    }
    return std::nullopt;
  }

  // What a holder may keep: in the machine, not reserved, not taken by a
  // holder before it. A shrink drops CPUs from its end, in core order.
  void keep_held(std::size_t i) {
    const Claim& c = claims_[i];
    if ((outcomes_[i].refusal = size_problem(i))) return;
    std::vector<unsigned> kept;
    for (unsigned cpu : c.held.ids()) {
      if (book_.free(cpu)) kept.push_back(cpu);
    }
    std::sort(kept.begin(), kept.end(), [&](unsigned a, unsigned b) {
      const unsigned ca = inventory_.cpu(a)->core, cb = inventory_.cpu(b)->core;
      return ca != cb ? ca < cb : a < b;
    });
    if (kept.size() > c.pool.value) kept.resize(c.pool.value);
    // The shared pool keeps at least one CPU, even against a holder.
    if (c.pool.kind == PoolKind::exclusive && kept.size() >= shared_size_) {
      kept.resize(shared_size_ - 1);
    }
    give(i, kept);
  }

  void place_claim(std::size_t i) {
    const Claim& c = claims_[i];
    ClaimOutcome& out = outcomes_[i];
    if (c.held.empty() && (out.refusal = size_problem(i))) return;
    if (out.refusal) return;  // a holder refused in keep_held()
    const std::string spec = c.pool.to_string();
    const std::size_t k = c.pool.value;
    const bool exclusive = c.pool.kind == PoolKind::exclusive;
    const std::vector<unsigned> kept = out.cpus;
    const std::size_t need = k - kept.size();
    if (need == 0) return;
    const std::string resize = kept.empty() ? std::string()
                                            : " (cannot grow from " + std::to_string(kept.size()) +
                                                  " to " + std::to_string(k) + "; keeps " +
                                                  CpuList(kept).to_string() + ")";
    if (exclusive && need >= shared_size_) {
      out.refusal = spec + ": would leave the shared pool empty (" + count(shared_size_) +
                    " left outside reserved and exclusive CPUs; at least one must stay shared)" +
                    resize;
      return;
    }
    std::vector<unsigned> picked = detail::pick_cpus(book_, i, need, kept, config_.placement);
    if (picked.size() < need) {
      std::size_t free = 0;
      for (unsigned cpu : inventory_.all().ids()) free += book_.free(cpu) ? 1 : 0;
      const std::size_t got = kept.size() + picked.size();
      std::string reason = spec + ": asks for " + count(k) + " but only " + count(got) +
                           (got == 1 ? " is" : " are") + " free for it" +
                           " (others are reserved or held by immovable/exclusive workloads";
      if (picked.size() < free) {
        reason += c.cls == WorkloadClass::offline
                      ? "; an offline workload may not use a sibling of an online exclusive core"
                      : "; an online exclusive workload may not share a core with an offline one";
      }
      out.refusal = reason + ")" + resize;
      return;
    }
    give(i, picked);
  }

  void give(std::size_t i, const std::vector<unsigned>& cpus) {
    for (unsigned cpu : cpus) book_.give(cpu, i);
    auto& held = outcomes_[i].cpus;
    held.insert(held.end(), cpus.begin(), cpus.end());
    if (claims_[i].pool.kind == PoolKind::exclusive) shared_size_ -= cpus.size();
  }

  // A shared CPU on a core with an online exclusive CPU: offline workloads
  // must not get it (no core is split between online exclusive and offline).
  void mark_orphans() {
    orphan_.assign(inventory_.id_limit(), false);
    for (const CpuList& core : inventory_.cores()) {
      const bool online = std::any_of(core.ids().begin(), core.ids().end(),
                                      [&](unsigned cpu) { return book_.online_exclusive(cpu); });
      if (!online) continue;
      for (unsigned cpu : core.ids()) orphan_[cpu] = book_.shared(cpu);
    }
  }

  CpuList shared_cpus(std::optional<unsigned> node, bool offline) const {
    std::vector<unsigned> ids;
    for (unsigned cpu : inventory_.all().ids()) {
      if (!book_.shared(cpu) || (offline && orphan_[cpu])) continue;
      if (node && inventory_.node_of(cpu) != node) continue;
      ids.push_back(cpu);
    }
    return CpuList(std::move(ids));
  }

  // The CPUs and memory nodes a member of the shared pool (no node) or of
  // numa:N gets, per class; computed once per layout, as most workloads of a
  // busy host share a handful of these.
  struct Share {
    CpuList cpus;
    std::vector<unsigned> mems;
  };
  const Share& share(std::optional<unsigned> node, WorkloadClass cls) {
    const auto key = std::make_pair(node ? static_cast<long>(*node) : -1L, cls);
    auto it = shares_.find(key);
    if (it == shares_.end()) {
      Share s;
      s.cpus = shared_cpus(node, cls == WorkloadClass::offline);
      s.mems = memory_.nodes_for(s.cpus, cls);
      it = shares_.emplace(key, std::move(s)).first;
    }
    return it->second;
  }

  // Why numa:N cannot be used, or nullopt.
  std::optional<std::string> numa_problem(unsigned node) {
    const std::string spec = "numa:" + std::to_string(node);
    if (inventory_.cpus_of_node(node).empty()) {
      const std::string with_cpus = CpuList(inventory_.nodes()).to_string();
      if (topology_.node(node) == nullptr) {
        return spec + ": node " + std::to_string(node) +
               " does not exist (nodes with CPUs: " + with_cpus + ")";
      }
      return spec + ": node " + std::to_string(node) + " has no CPUs (memory-only; nodes with " +
             "CPUs: " + with_cpus + ")";
    }
    if (share(node, WorkloadClass::normal).cpus.empty()) {
      return spec + ": every CPU of node " + std::to_string(node) +
             " is reserved or held by exclusive workloads";
    }
    return std::nullopt;
  }

  Layout assemble() {
    Layout layout;
    const Share& normal = share(std::nullopt, WorkloadClass::normal);
    PoolView shared{"shared", normal.cpus, normal.mems, {}};
    std::map<unsigned, PoolView> numa;
    std::vector<PoolView> own;
    for (std::size_t i = 0; i < claims_.size(); ++i) {
      const Claim& c = claims_[i];
      const ClaimOutcome& outcome = outcomes_[i];
      Assignment a{c.workload, c.pool.to_string(), {}, {}};
      std::optional<std::string> refusal = outcome.refusal;
      switch (c.pool.kind) {
        case PoolKind::shared:
        case PoolKind::numa: {
          const bool numa_member = c.pool.kind == PoolKind::numa;
          if (numa_member && (refusal = numa_problem(c.pool.value))) break;
          const Share& mine =
              share(numa_member ? std::optional<unsigned>(c.pool.value) : std::nullopt, c.cls);
          if (mine.cpus.empty()) {
            refusal = offline_orphans_only(a.pool);
            break;
          }
          a.cpus = mine.cpus;
          a.mems = mine.mems;
          (numa_member ? numa_pool(numa, c.pool.value) : shared).members.push_back(c.workload);
          break;
        }
        case PoolKind::immovable:
        case PoolKind::exclusive:
          a.cpus = CpuList(outcome.cpus);
          a.pool = std::string(to_string(c.pool.kind)) + ":" + std::to_string(a.cpus.size());
          a.mems = memory_.nodes_for(a.cpus, c.cls);
          if (!a.cpus.empty()) {
            own.push_back({a.pool + ":" + c.workload,
                           a.cpus,
                           memory_.nodes_for(a.cpus, WorkloadClass::normal),
                           {c.workload}});
          }
          break;
      }
      if (refusal) layout.refused.push_back({c.workload, *refusal});
      if (a.cpus.empty() || (refusal && !c.pool.claims_cpus())) continue;
      layout.assignments.push_back(std::move(a));
    }
    layout.pools.push_back(std::move(shared));
    for (auto& [node, view] : numa) layout.pools.push_back(std::move(view));
    for (auto& view : own) layout.pools.push_back(std::move(view));
    return layout;
  }

  PoolView& numa_pool(std::map<unsigned, PoolView>& numa, unsigned node) {
    auto [it, added] = numa.try_emplace(node);
    if (added) {
      it->second.name = "numa:" + std::to_string(node);
      const Share& normal = share(node, WorkloadClass::normal);
      it->second.cpus = normal.cpus;
      it->second.mems = normal.mems;
    }
    return it->second;
  }

  static std::string offline_orphans_only(const std::string& pool) {
    return pool + ": every CPU left in it is a sibling of an online exclusive core, which an " +
           "offline workload may not use";
  }

  const CpuInventory& inventory_;
  const Topology& topology_;
  const PoolConfig& config_;
  const std::vector<Claim>& claims_;
  CpuBook book_;
  detail::MemoryAlignment memory_;
  std::vector<ClaimOutcome> outcomes_;
  std::vector<bool> orphan_;
  std::map<std::pair<long, WorkloadClass>, Share> shares_;
  std::size_t outside_reserved_ = 0;
  std::size_t shared_size_ = 0;  // CPUs neither reserved nor exclusive
};

}  // namespace

Layout compute_layout(const CpuInventory& inventory, const Topology& topology,
                      const PoolConfig& config, const std::vector<Claim>& claims) {
  return LayoutBuilder(inventory, topology, config, claims).build();
}

}  // namespace tier::cpu
