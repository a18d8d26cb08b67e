// Seeded, deterministic trace generators (docs/simulator.md, "Generators").
//
// Each builds the TRUE distribution of every epoch first and then draws
// `samples_per_epoch` sampled accesses from it (one access per sample, at a
// random 64-byte line of the chosen page), so the samples follow the truth by
// construction. The same options and seed give the same trace, bit for bit, on
// any platform (own RNG, no std:: distributions).
#pragma once

#include <cstdint>
#include <optional>

#include "tier/sim/trace.hpp"

namespace tier::sim {

/// What every generated trace shares.
struct TraceShape {
  std::uint64_t page_bytes = 4096;  // power of two
  std::uint64_t pages = 1024;       // the (first) workload's size in pages
  std::size_t epochs = 60;
  std::size_t samples_per_epoch = 10000;
  std::uint64_t seed = 1;
  double epoch_s = 1;
  std::uint32_t pid = 1000;
  std::uint64_t base = 0x7f0000000000;  // the workload's first address
};

/// A contiguous hot set receiving `fraction` of the accesses, spread evenly
/// over its pages; the other pages share the rest evenly.
struct HotSet {
  std::uint64_t pages = 0;             // <= TraceShape::pages
  double fraction = 0.9;               // in [0, 1]
  std::optional<std::uint64_t> first;  // first hot page; default: seeded random position
};

/// Uniform hot set, the same every epoch.
Trace uniform_trace(const TraceShape& shape, const HotSet& hot);

/// Zipf(theta) over pages: the page of rank r (1-based) is hit with probability
/// r^-theta / sum_k k^-theta; ranks are a seeded random permutation of pages.
Trace zipf_trace(const TraceShape& shape, double theta);

/// The hot set moves every `epochs_per_phase` epochs through `phases` distinct,
/// non-overlapping positions (seeded), cycling: epoch e uses position
/// (e / epochs_per_phase) % phases. shape.epochs = epochs_per_phase x phases
/// visits each once. HotSet::first is ignored.
struct Phases {
  std::size_t epochs_per_phase = 10;
  std::size_t phases = 6;
};
Trace phase_trace(const TraceShape& shape, const HotSet& hot, const Phases& phases);

/// A uniform hot set every epoch and, every `every_epochs` epochs (epochs
/// every-1, 2*every-1, ...), a full pass over all of the workload's pages that
/// takes `share` of that epoch's accesses, evenly: `hotset --scan-every`'s
/// pattern (docs/workload-suite.md). A policy that promotes what one pass
/// touched spends its migrations on data that is cold again the next epoch.
struct Scans {
  std::size_t every_epochs = 10;
  double share = 0.5;  // of a scan epoch's accesses, in [0, 1]
};
Trace scan_trace(const TraceShape& shape, const HotSet& hot, const Scans& scans);

/// Two workloads: an online service (pid shape.pid, shape.pages, a uniform hot
/// set) and an offline job (pid shape.pid + 1, mapped 1 TiB above) whose
/// footprint grows linearly from `offline_initial_pages` at epoch 0 to
/// `offline_pages` at epoch `grow_epochs` and is touched uniformly (a scan).
/// `online_share` of all accesses are the online workload's.
struct Mix {
  std::uint64_t offline_pages = 4096;
  std::uint64_t offline_initial_pages = 0;
  std::size_t grow_epochs = 30;
  double online_share = 0.5;
};
Trace mix_trace(const TraceShape& shape, const HotSet& online_hot, const Mix& mix);

/// The generators' random numbers: xoshiro256** seeded through splitmix64.
class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next();
  /// Uniform in [0, n), n > 0, without modulo bias.
  std::uint64_t below(std::uint64_t n);
  /// Uniform in [0, 1) with 53 random bits.
  double unit();

 private:
  std::uint64_t s_[4];
};

/// Draws n accesses from d (sorted runs): one TraceSample per access at a
/// random 64-byte line of the chosen page. Deterministic in rng.
std::vector<TraceSample> draw_samples(const Trace& trace, const Distribution& d, std::size_t n,
                                      Rng& rng);

}  // namespace tier::sim
