// The `balanced` tick's moves (balanced_tick.hpp): relieve pressure,
// enforce quotas, promote and exchange, and the move machinery they share.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "balanced_tick.hpp"

namespace tier::policy::balanced {

namespace {

// (pid, 2 MiB block of a region's start): where an exchange that waits for a
// second tick of evidence is remembered. pid_max is at most 2^22 and a block
// index at most 2^36 (57-bit addresses), so the key is exact.
std::uint64_t block_key(const Region& r) {
  return static_cast<std::uint64_t>(r.pid) << 40 | r.start >> 21;
}

// Reasons are built for every planned move (thousands a tick): to_chars,
// not printf. Three significant digits, as %.3g.
void append_number(std::string& out, double value) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value, std::chars_format::general, 3);
  out.append(text, result.ptr);
}

// "<before><a><between><b><after>", the densities as append_number() writes them.
std::string densities_reason(const char* before, double a, const char* between, double b,
                             const char* after) {
  std::string text = before;
  append_number(text, a);
  text += between;
  append_number(text, b);
  text += after;
  return text;
}

std::string promote_reason(double density, double threshold) {
  return densities_reason("promote: heat ", density, "/MiB over threshold ", threshold, "/MiB");
}

std::string room_reason(double hotter, double colder) {
  return densities_reason("demote: room for hotter data (", hotter, "/MiB over ", colder, "/MiB)");
}

std::string pressure_reason(unsigned node) {
  return "demote: node " + std::to_string(node) + " under its low free watermark";
}

// Moves are cut to whole 2 MiB chunks (4 KiB below that) when a region is
// larger than what a budget or the room on a node allows.
constexpr std::uint64_t kChunk = std::uint64_t{2} << 20;
std::uint64_t chunk(std::uint64_t allowed, std::uint64_t region_bytes) {
  if (allowed >= region_bytes) return region_bytes;
  const std::uint64_t align = allowed >= kChunk ? kChunk : 4096;
  return allowed / align * align;
}
// A need (bytes to free) rounded up to whole chunks: freeing must cover it.
std::uint64_t chunks_covering(std::uint64_t need) {
  return (need + kChunk - 1) / kChunk * kChunk;
}

// The fewest samples a region's share of the background (data outside the
// target set, sampled at `mean` samples per epoch for its size: a Poisson
// count) reaches in under kNoiseOdds of epochs: more than that in one epoch
// is the region's own. Two such epochs in a row (exchange_allowed) happen to
// one of 1 000 background regions about once in 40 ticks. Exact up to a mean
// of 50, the normal approximation above (2.58 standard deviations).
constexpr double kNoiseOdds = 0.005;
double beyond_noise(double mean) {
  if (!(mean > 0)) return 1;
  if (mean > 50) return std::ceil(mean + 2.58 * std::sqrt(mean));
  double pmf = std::exp(-mean), below = 0;
  double k = 0;
  for (; below + pmf < 1 - kNoiseOdds; ++k) {
    below += pmf;
    pmf *= mean / (k + 1);
  }
  return k + 1;
}

}  // namespace

// The minimum residency holds a region only while its heat is ambiguous:
// one clearly above the threshold (residency_clear_ratio times it, with
// heat at least confirm_heat: evidence above sampling noise) may be
// promoted, and a cooling one demoted, however recently it moved. The
// bounce hold is never waived. A region merely colder than the threshold
// is what the residency is for: demoting it early and promoting it again
// on its next burst of samples is the ping-pong the residency prevents.
bool Tick::clearly_hot(std::size_t i) const {
  const Candidate& c = carried_.all[i];
  return threshold_ > 0 && c.density >= settings_.residency_clear_ratio * threshold_ &&
         c.region->heat >= settings_.confirm_heat;
}

// An exchange costs two moves and evicts data the fast tier holds. It needs
// evidence above sampling noise (exchange_min_heat), and then one of:
//  - heat clearly above the threshold (clearly_hot): a phase change's new
//    hot set moves at once;
//  - confirm_heat while the target set is not contested: all the data with
//    heat fits the fast tier, so the victims have none;
//  - fresh evidence in two ticks in a row (fresh_evidence). Heat alone is
//    not enough where the target set is contested: a single pass over cold
//    data (a scan) leaves heat that outranks the fast tier's other cold data
//    for a few epochs while it decays, and among equally cold data the
//    luckiest samples rank first; both would swap cold data for cold.
// The regions with fresh evidence are remembered for the next tick, as many
// as a tick can move.
bool Tick::exchange_allowed(std::size_t i) {
  const Region& r = *carried_.all[i].region;
  if (r.heat < settings_.exchange_min_heat) return false;
  if (clearly_hot(i) || (!contested_ && r.heat >= settings_.confirm_heat)) return true;
  if (!fresh_evidence(i)) return false;
  const std::uint64_t key = block_key(r);
  if (carried_.wanted.size() < per_tick_regions_) carried_.wanted.insert(key);
  return carried_.wanted_before.contains(key);
}

// This epoch's samples alone rank the region in the target set (its decayed
// heat is not asked), and they are more than its share of the background's
// samples gives it by chance (beyond_noise).
bool Tick::fresh_evidence(std::size_t i) const {
  const Region& r = *carried_.all[i].region;
  const double samples = static_cast<double>(r.accesses);
  const double bytes = static_cast<double>(r.bytes());
  return samples * heat_per_sample_ * kMiB / bytes >= threshold_ &&
         samples >= beyond_noise(background_per_byte_ * bytes);
}

// Bytes the budgets leave for one more move of candidate i.
std::uint64_t Tick::budget_left(std::size_t i) const {
  std::uint64_t left = ~std::uint64_t{0};
  if (auto global = budget_.remaining()) left = *global;
  if (auto mine = workload_budgets_[carried_.all[i].workload].remaining()) {
    left = std::min(left, *mine);
  }
  return left;
}

// A region moves whole, or in chunks when a budget or the room left is
// smaller (a 2 GiB hot range still moves, a chunk per tick), around the
// blocks its history holds; a victim may give several chunks in one
// tick. partly_moved_: how far into region i this tick's moves reached.
std::optional<Region> Tick::part_of(std::size_t i, bool waive_residency) {
  if (carried_.moved[i]) return std::nullopt;
  Region r = *carried_.all[i].region;
  if (auto it = partly_moved_.find(static_cast<std::uint32_t>(i)); it != partly_moved_.end()) {
    r.start += it->second;
  }
  std::optional<Region> part = carried_.history.movable_part(r, snapshot_.now_s, waive_residency);
  if (!part || budget_left(i) < std::min<std::uint64_t>(kChunk, part->bytes())) {
    return std::nullopt;
  }
  return part;
}

// Moves the first `bytes` of `part` (of region i) to `to`.
void Tick::emit(std::size_t i, Region part, unsigned to, std::uint64_t bytes, std::string reason) {
  const Candidate& c = carried_.all[i];
  part.end = part.start + bytes;
  plan_.moves.push_back(
      {part.pid, part.start, part.end, to, snapshot_.workloads[c.workload].id, std::move(reason)});
  const bool now_fast = ledger_.tier(to) == fast_tier_;
  ledger_.move(static_cast<int>(c.node), to, bytes);
  if (c.on_fast && !now_fast) fast_bytes_[c.workload] -= bytes;
  if (!c.on_fast && now_fast) fast_bytes_[c.workload] += bytes;
  budget_.spend(bytes);
  workload_budgets_[c.workload].spend(bytes);
  carried_.history.record(part, snapshot_.now_s);
  if (part.end >= c.region->end) {
    carried_.moved[i] = 1;
  } else {
    partly_moved_[static_cast<std::uint32_t>(i)] = part.end - c.region->start;
  }
}

// Demotes up to `want` bytes of region i to the nearest slower node with
// room above its high mark; returns the bytes moved. `reason` is only
// built for a move that happens.
template <typename Reason>
std::uint64_t Tick::demote(std::size_t i, std::uint64_t want, Reason reason) {
  const std::optional<Region> part = part_of(i, carried_.all[i].cooling);
  if (!part) return 0;
  const Candidate& c = carried_.all[i];
  for (unsigned t = fast_tier_ + 1; t <= fast_tier_ + 8; ++t) {
    for (unsigned node : nearest_for(c.workload, t)) {
      const std::uint64_t bytes =
          chunk(std::min({chunks_covering(want), budget_left(i), ledger_.room_above_high(node)}),
                part->bytes());
      if (bytes == 0) continue;
      emit(i, *part, node, bytes, reason());
      return bytes;
    }
  }
  return 0;
}

// Fast-tier data of each fast node in the order it leaves (VictimKey),
// ordered only when something has to leave that node and only as far as
// it is walked.
std::optional<std::uint32_t> Tick::victim(unsigned node, std::size_t k) {
  if (!victims_ordered_) {
    victims_ordered_ = true;
    if (!victims_built_) {  // one pass for every fast node
      for (std::uint32_t i = 0; i < carried_.all.size(); ++i) {
        if (carried_.all[i].on_fast) add_victim(i);
      }
    }
    for (auto& order : carried_.victims) order.reset(per_tick_regions_ / fast_node_count_);
  }
  LazyOrder<VictimKey, LeavesFirst>& order = carried_.victims[node];
  if (k >= order.size()) return std::nullopt;
  return order[k].index;
}

// 1. Pressure: a fast node under its low watermark is brought back to high.
void Tick::relieve_pressure() {
  for (unsigned node : ledger_.nodes_of_tier(fast_tier_)) {
    if (!ledger_.below_low(node)) continue;
    for (std::size_t k = 0; ledger_.free(node) < ledger_.high(node); ++k) {
      const std::optional<std::uint32_t> v = victim(node, k);
      if (!v) break;
      demote(*v, ledger_.high(node) - ledger_.free(node), [&] { return pressure_reason(node); });
    }
  }
}

// 2. Quotas: a workload over its fast-tier quota gives back its coldest.
void Tick::enforce_quotas() {
  for (unsigned node : ledger_.nodes_of_tier(fast_tier_)) {
    bool over_quota = false;
    for (std::size_t wi = 0; wi < workloads_; ++wi) {
      const auto& quota = snapshot_.workloads[wi].quota_bytes;
      over_quota |= quota && fast_bytes_[wi] > *quota;
    }
    for (std::size_t k = 0; over_quota; ++k) {
      const std::optional<std::uint32_t> v = victim(node, k);
      if (!v) break;
      const std::uint32_t wi = carried_.all[*v].workload;
      const auto& quota = snapshot_.workloads[wi].quota_bytes;
      if (quota && fast_bytes_[wi] > *quota) {
        demote(*v, fast_bytes_[wi] - *quota,
               [] { return std::string("demote: over the fast-tier quota"); });
      }
    }
  }
}

// 3. Promotion by heat × latency benefit, making room from colder data.
void Tick::promote() {
  LazyOrder<Ranked, Better>& promotions = carried_.promotions;
  promotions.reset(per_tick_regions_);
  // Each fast node walks its own victim order with its own cursor.
  std::vector<std::size_t> next_victim(max_node_ + 1, 0);
  // Exchanges that wait for a second tick (exchange_allowed).
  carried_.wanted_before.swap(carried_.wanted);
  carried_.wanted.clear();
  for (std::size_t k = 0; k < promotions.size(); ++k) {
    if (!budget_.allows(std::min<std::uint64_t>(kChunk, min_bytes_))) break;
    promote_one(promotions[k].second, next_victim);
  }
}

// The first fast node (nearest first) with room for a chunk of `want`, and
// its room; the nearest one and no room when none has.
std::pair<unsigned, std::uint64_t> Tick::best_room(const std::vector<unsigned>& fast_nodes,
                                                   std::uint64_t want) const {
  for (unsigned node : fast_nodes) {
    if (ledger_.room_above_high(node) >= std::min(want, kChunk)) {
      return {node, ledger_.room_above_high(node)};
    }
  }
  return {fast_nodes.front(), 0};
}

void Tick::promote_one(std::size_t i, std::vector<std::size_t>& next_victim) {
  const Candidate& c = carried_.all[i];
  const std::optional<Region> part = part_of(i, clearly_hot(i));
  if (!part) return;
  const WorkloadState& w = snapshot_.workloads[c.workload];
  std::uint64_t want = std::min(part->bytes(), budget_left(i));
  if (w.quota_bytes) {
    const std::uint64_t have = fast_bytes_[c.workload];
    want = std::min(want, have >= *w.quota_bytes ? 0 : *w.quota_bytes - have);
  }
  if (chunk(want, part->bytes()) == 0) return;
  const std::vector<unsigned>& fast_nodes = nearest_for(c.workload, fast_tier_);
  if (fast_nodes.empty()) return;  // no fast node it may use
  auto [to, room] = best_room(fast_nodes, want);
  // Not enough room: demote colder non-target data (the hysteresis is in
  // the ranking above) to make it, half the budget each way.
  if (room < want && exchange_allowed(i)) {
    want = std::min(want, budget_left(i) / 2);
    room = make_room(i, to, want, room, next_victim[to]);
  }
  const std::uint64_t bytes = chunk(std::min({want, room, budget_left(i)}), part->bytes());
  if (bytes == 0) return;
  emit(i, *part, to, bytes, promote_reason(c.density, threshold_));
}

// The exchange: demotes fast node `to`'s victims outside the target set,
// from `cursor` on, until `want` bytes of room are free for region i;
// returns the room there is then.
std::uint64_t Tick::make_room(std::size_t i, unsigned to, std::uint64_t want, std::uint64_t room,
                              std::size_t& cursor) {
  const std::vector<Candidate>& all = carried_.all;
  while (room < want) {
    const std::optional<std::uint32_t> v = victim(to, cursor);
    if (!v || carried_.in_target[*v]) break;
    const std::uint64_t freed =
        demote(*v, want - room, [&] { return room_reason(all[i].density, all[*v].density); });
    if (freed == 0 || carried_.moved[*v]) ++cursor;
    room = ledger_.room_above_high(to);
  }
  return room;
}

std::uint64_t Tick::spent() const {
  return budget_.remaining() ? budget_at_start_ - *budget_.remaining() : 0;
}

}  // namespace tier::policy::balanced
