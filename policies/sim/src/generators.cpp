#include "tier/sim/generators.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace tier::sim {

Rng::Rng(std::uint64_t seed) {
  for (std::uint64_t& word : s_) {  // splitmix64
    seed += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    word = z ^ (z >> 31);
  }
}

std::uint64_t Rng::next() {
  const auto rotl = [](std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

std::uint64_t Rng::below(std::uint64_t n) {
  // Reject the lowest (2^64 mod n) values so every residue is equally likely.
  const std::uint64_t threshold = (0 - n) % n;
  for (;;) {
    const std::uint64_t x = next();
    if (x >= threshold) return x % n;
  }
}

double Rng::unit() {
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

std::vector<TraceSample> draw_samples(const Trace& trace, const Distribution& d, std::size_t n,
                                      Rng& rng) {
  std::vector<TraceSample> samples;
  if (d.runs.empty() || n == 0) return samples;
  std::vector<double> cumulative(d.runs.size());
  double sum = 0;
  for (std::size_t i = 0; i < d.runs.size(); ++i) {
    sum += d.runs[i].p * static_cast<double>(d.runs[i].count);
    cumulative[i] = sum;
  }
  if (!(sum > 0)) return samples;
  const std::uint64_t lines = std::max<std::uint64_t>(1, trace.page_bytes / 64);
  samples.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = rng.unit() * sum;
    // The first run whose cumulative mass exceeds u has p > 0; when u rounds
    // up to the total, take the last run with mass.
    auto it = std::upper_bound(cumulative.begin(), cumulative.end(), u);
    if (it == cumulative.end()) {
      do {
        --it;
      } while (it != cumulative.begin() &&
               d.runs[static_cast<std::size_t>(it - cumulative.begin())].p <= 0);
    }
    const PageRun& run = d.runs[static_cast<std::size_t>(it - cumulative.begin())];
    const std::uint64_t page = run.first + rng.below(run.count);
    const std::uint64_t line = rng.below(lines);
    samples.push_back({trace.address_of(run.workload, page) +
                           line * std::min<std::uint64_t>(64, trace.page_bytes),
                       0, trace.workloads[run.workload].pid, 1});
  }
  return samples;
}

namespace {

// Separate streams for the layout (hot set positions, rank permutation) and
// the samples, so changing the sample count keeps the layout.
constexpr std::uint64_t kSampleStream = 0x5a3e9c1d7b2f4e61ull;

void check_shape(const TraceShape& shape) {
  if (shape.page_bytes < 2 || (shape.page_bytes & (shape.page_bytes - 1)) != 0) {
    throw std::invalid_argument("page size must be a power of two");
  }
  if (shape.pages == 0) throw std::invalid_argument("a trace needs at least one page");
  if (!(shape.epoch_s > 0)) throw std::invalid_argument("epoch_s must be > 0");
}

void check_hot(const TraceShape& shape, const HotSet& hot) {
  if (hot.pages > shape.pages) throw std::invalid_argument("hot set larger than the workload");
  if (!(hot.fraction >= 0 && hot.fraction <= 1)) {
    throw std::invalid_argument("hot fraction must be in [0, 1]");
  }
}

Trace empty_trace(const TraceShape& shape, std::string description) {
  Trace trace;
  trace.page_bytes = shape.page_bytes;
  trace.epoch_s = shape.epoch_s;
  trace.description = std::move(description);
  trace.workloads.push_back(
      {"w0", shape.pid, WorkloadClass::normal, 0, {{shape.base, shape.pages}}});
  return trace;
}

// Runs of a hot set [first, first + hot_pages) of `fraction` within `pages`
// pages carrying total mass `mass`. Zero-probability runs are left out.
void append_hot_set(std::vector<PageRun>& runs, std::uint32_t workload, std::uint64_t pages,
                    std::uint64_t first, std::uint64_t hot_pages, double fraction, double mass) {
  if (pages == 0 || mass <= 0) return;
  if (hot_pages == 0 || hot_pages == pages) {
    runs.push_back({workload, 0, pages, mass / static_cast<double>(pages)});
    return;
  }
  const double cold = mass * (1 - fraction) / static_cast<double>(pages - hot_pages);
  const double hotp = mass * fraction / static_cast<double>(hot_pages);
  if (first > 0 && cold > 0) runs.push_back({workload, 0, first, cold});
  if (hotp > 0) runs.push_back({workload, first, hot_pages, hotp});
  if (first + hot_pages < pages && cold > 0) {
    runs.push_back({workload, first + hot_pages, pages - first - hot_pages, cold});
  }
}

// The hot set's first page: HotSet::first, or a seeded random position (the
// layout stream's first draw, made either way). Throws when it runs past the end.
std::uint64_t hot_set_first(const TraceShape& shape, const HotSet& hot) {
  Rng layout(shape.seed);
  const std::uint64_t first = hot.first.value_or(layout.below(shape.pages - hot.pages + 1));
  if (first + hot.pages > shape.pages) throw std::invalid_argument("hot set runs past the end");
  return first;
}

void draw_all(Trace& trace, std::uint64_t seed, std::size_t samples_per_epoch) {
  Rng rng(seed ^ kSampleStream);
  for (TraceEpoch& epoch : trace.epochs) {
    epoch.samples = draw_samples(trace, *epoch.truth, samples_per_epoch, rng);
  }
}

std::string describe(const char* what, const TraceShape& shape) {
  std::ostringstream out;
  out << what << " pages=" << shape.pages << " page_bytes=" << shape.page_bytes
      << " epochs=" << shape.epochs << " samples=" << shape.samples_per_epoch
      << " seed=" << shape.seed;
  return out.str();
}

}  // namespace

Trace uniform_trace(const TraceShape& shape, const HotSet& hot) {
  check_shape(shape);
  check_hot(shape, hot);
  const std::uint64_t first = hot_set_first(shape, hot);
  std::ostringstream description;
  description << describe("uniform", shape) << " hot_pages=" << hot.pages
              << " hot_fraction=" << hot.fraction << " hot_first=" << first;
  Trace trace = empty_trace(shape, description.str());
  auto truth = std::make_shared<Distribution>();
  append_hot_set(truth->runs, 0, shape.pages, first, hot.pages, hot.fraction, 1.0);
  trace.epochs.resize(shape.epochs);
  for (TraceEpoch& epoch : trace.epochs) epoch.truth = truth;
  draw_all(trace, shape.seed, shape.samples_per_epoch);
  return trace;
}

Trace zipf_trace(const TraceShape& shape, double theta) {
  check_shape(shape);
  if (!(theta >= 0) || !std::isfinite(theta)) throw std::invalid_argument("theta must be >= 0");
  Rng layout(shape.seed);
  // rank_of_page: a Fisher-Yates permutation of 0..pages-1.
  std::vector<std::uint64_t> rank_of_page(shape.pages);
  for (std::uint64_t i = 0; i < shape.pages; ++i) rank_of_page[i] = i;
  for (std::uint64_t i = shape.pages - 1; i > 0; --i) {
    std::swap(rank_of_page[i], rank_of_page[layout.below(i + 1)]);
  }
  double norm = 0;
  for (std::uint64_t r = shape.pages; r >= 1; --r) {  // smallest terms first
    norm += std::pow(static_cast<double>(r), -theta);
  }
  std::ostringstream description;
  description << describe("zipf", shape) << " theta=" << theta;
  Trace trace = empty_trace(shape, description.str());
  auto truth = std::make_shared<Distribution>();
  for (std::uint64_t page = 0; page < shape.pages; ++page) {
    const double p = std::pow(static_cast<double>(rank_of_page[page] + 1), -theta) / norm;
    if (!truth->runs.empty() && truth->runs.back().p == p) {
      ++truth->runs.back().count;
    } else {
      truth->runs.push_back({0, page, 1, p});
    }
  }
  trace.epochs.resize(shape.epochs);
  for (TraceEpoch& epoch : trace.epochs) epoch.truth = truth;
  draw_all(trace, shape.seed, shape.samples_per_epoch);
  return trace;
}

Trace phase_trace(const TraceShape& shape, const HotSet& hot, const Phases& phases) {
  check_shape(shape);
  check_hot(shape, hot);
  if (phases.epochs_per_phase == 0 || phases.phases == 0) {
    throw std::invalid_argument("phases need epochs_per_phase > 0 and phases > 0");
  }
  const std::uint64_t slots = hot.pages == 0 ? 1 : shape.pages / hot.pages;
  if (phases.phases > slots) {
    throw std::invalid_argument("only " + std::to_string(slots) + " non-overlapping hot sets of " +
                                std::to_string(hot.pages) + " pages fit in " +
                                std::to_string(shape.pages) + " pages");
  }
  // Distinct slots: a partial Fisher-Yates over the slot numbers, kept sparse.
  Rng layout(shape.seed);
  std::vector<std::uint64_t> chosen;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> swapped;  // slot index -> value
  const auto value_at = [&](std::uint64_t i) {
    for (const auto& [index, value] : swapped) {
      if (index == i) return value;
    }
    return i;
  };
  const auto set_at = [&](std::uint64_t i, std::uint64_t v) {
    for (auto& [index, value] : swapped) {
      if (index == i) {
        value = v;
        return;
      }
    }
    swapped.emplace_back(i, v);
  };
  for (std::uint64_t i = 0; i < phases.phases; ++i) {
    const std::uint64_t j = i + layout.below(slots - i);
    const std::uint64_t vi = value_at(i), vj = value_at(j);
    set_at(i, vj);
    set_at(j, vi);
    chosen.push_back(vj * hot.pages);
  }
  std::ostringstream description;
  description << describe("phases", shape) << " hot_pages=" << hot.pages
              << " hot_fraction=" << hot.fraction << " epochs_per_phase=" << phases.epochs_per_phase
              << " phases=" << phases.phases << " hot_first=";
  for (std::size_t k = 0; k < chosen.size(); ++k) description << (k ? "," : "") << chosen[k];
  Trace trace = empty_trace(shape, description.str());
  std::vector<std::shared_ptr<const Distribution>> truths;
  for (std::uint64_t first : chosen) {
    auto truth = std::make_shared<Distribution>();
    append_hot_set(truth->runs, 0, shape.pages, first, hot.pages, hot.fraction, 1.0);
    truths.push_back(std::move(truth));
  }
  trace.epochs.resize(shape.epochs);
  for (std::size_t e = 0; e < shape.epochs; ++e) {
    trace.epochs[e].truth = truths[(e / phases.epochs_per_phase) % phases.phases];
  }
  draw_all(trace, shape.seed, shape.samples_per_epoch);
  return trace;
}

Trace scan_trace(const TraceShape& shape, const HotSet& hot, const Scans& scans) {
  check_shape(shape);
  check_hot(shape, hot);
  if (scans.every_epochs == 0) throw std::invalid_argument("scans need every_epochs > 0");
  if (!(scans.share >= 0 && scans.share <= 1)) {
    throw std::invalid_argument("scan share must be in [0, 1]");
  }
  const std::uint64_t first = hot_set_first(shape, hot);
  std::ostringstream description;
  description << describe("scan", shape) << " hot_pages=" << hot.pages
              << " hot_fraction=" << hot.fraction << " hot_first=" << first
              << " scan_every=" << scans.every_epochs << " scan_share=" << scans.share;
  Trace trace = empty_trace(shape, description.str());
  auto between = std::make_shared<Distribution>();
  append_hot_set(between->runs, 0, shape.pages, first, hot.pages, hot.fraction, 1.0);
  // A scan epoch: (1 - share) as between scans, plus share / pages on every
  // page, which is a hot set of the same pages with this fraction.
  const double pages = static_cast<double>(shape.pages);
  const double scan_fraction =
      (1 - scans.share) * hot.fraction + scans.share * static_cast<double>(hot.pages) / pages;
  auto scanning = std::make_shared<Distribution>();
  append_hot_set(scanning->runs, 0, shape.pages, first, hot.pages, scan_fraction, 1.0);
  trace.epochs.resize(shape.epochs);
  for (std::size_t e = 0; e < shape.epochs; ++e) {
    trace.epochs[e].truth = (e + 1) % scans.every_epochs == 0 ? scanning : between;
  }
  draw_all(trace, shape.seed, shape.samples_per_epoch);
  return trace;
}

Trace mix_trace(const TraceShape& shape, const HotSet& online_hot, const Mix& mix) {
  check_shape(shape);
  check_hot(shape, online_hot);
  if (!(mix.online_share >= 0 && mix.online_share <= 1)) {
    throw std::invalid_argument("online share must be in [0, 1]");
  }
  if (mix.offline_initial_pages > mix.offline_pages) {
    throw std::invalid_argument("the offline job starts larger than it grows");
  }
  const std::uint64_t first = hot_set_first(shape, online_hot);
  std::ostringstream description;
  description << describe("mix", shape) << " hot_pages=" << online_hot.pages
              << " hot_fraction=" << online_hot.fraction << " hot_first=" << first
              << " offline_pages=" << mix.offline_pages
              << " offline_initial_pages=" << mix.offline_initial_pages
              << " grow_epochs=" << mix.grow_epochs << " online_share=" << mix.online_share;
  Trace trace = empty_trace(shape, description.str());
  trace.workloads[0].id = "online";
  trace.workloads[0].workload_class = WorkloadClass::online;
  trace.workloads[0].priority = 10;
  trace.workloads.push_back({"offline",
                             shape.pid + 1,
                             WorkloadClass::offline,
                             0,
                             {{shape.base + (1ull << 40), mix.offline_pages}}});
  trace.epochs.resize(shape.epochs);
  std::shared_ptr<const Distribution> previous;
  std::uint64_t previous_offline = ~std::uint64_t{0};
  for (std::size_t e = 0; e < shape.epochs; ++e) {
    const std::size_t step = std::min(e, mix.grow_epochs);
    const std::uint64_t offline =
        mix.grow_epochs == 0
            ? mix.offline_pages
            : mix.offline_initial_pages +
                  (mix.offline_pages - mix.offline_initial_pages) * step / mix.grow_epochs;
    if (offline != previous_offline) {
      auto truth = std::make_shared<Distribution>();
      const double online_mass = offline == 0 ? 1.0 : mix.online_share;
      append_hot_set(truth->runs, 0, shape.pages, first, online_hot.pages, online_hot.fraction,
                     online_mass);
      if (offline > 0 && online_mass < 1) {
        truth->runs.push_back({1, 0, offline, (1 - online_mass) / static_cast<double>(offline)});
      }
      previous = std::move(truth);
      previous_offline = offline;
    }
    trace.epochs[e].truth = previous;
    trace.epochs[e].allocated = {shape.pages, offline};
  }
  draw_all(trace, shape.seed, shape.samples_per_epoch);
  return trace;
}

}  // namespace tier::sim
