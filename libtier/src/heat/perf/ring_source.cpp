// The shared perf HeatSource (contract in perf_ring_source.hpp).
#include <optional>
#include <string>

#include "tier/heat/perf_ring_source.hpp"
#include "tier/heat/perf_thread_events.hpp"

namespace tier::heat::perf {

namespace {

std::string pid_list(const std::vector<pid_t>& pids) {
  std::string text;
  for (pid_t pid : pids) text += (text.empty() ? "" : ", ") + std::to_string(pid);
  return text;
}

class PerfRingSource final : public HeatSource {
 public:
  PerfRingSource(PerfSourceSpec spec, const SourceOptions& options)
      : spec_(std::move(spec)),
        options_(options),
        root_(options.root != nullptr ? *options.root : SysRoot("/")) {}
  ~PerfRingSource() override { stop(); }

  std::string_view name() const override { return spec_.name; }

  void start(const std::vector<pid_t>& pids) override {
    stop();
    if (pids.empty()) throw SourceError(spec_.name + ": no process to track");
    perf_event_attr attr = spec_.resolve(root_);
    decoder_.emplace(attr.sample_type);
    auto events = std::make_unique<ThreadEventSet>(attr, options_.ring_bytes, root_);
    events->open(pids);  // throws, leaving nothing open
    events_ = std::move(events);
    counters_ = {};
  }

  PollResult poll(std::vector<AccessSample>& out) override {
    PollResult result;
    ++counters_.polls;
    if (!events_) {
      result.active = false;
      result.stopped_reason = spec_.name + " not started";
      return result;
    }
    // Exit first, drain second: samples written before the exit are still
    // delivered by this poll.
    std::vector<pid_t> exited = events_->exited_processes();
    events_->drain(*decoder_, [&](const PerfSample& sample) {
      if (auto access = to_access_sample(sample, spec_.origin)) {
        out.push_back(*access);
        ++counters_.samples;
      }
    });
    counters_.drops =
        decoder_->counts().drops() + decoder_->counts().malformed + events_->corrupt_records();
    if (exited.size() == events_->tracked_processes()) {
      result.active = false;
      result.stopped_reason = exited.size() == 1
                                  ? "process " + pid_list(exited) + " exited"
                                  : "all tracked processes exited (" + pid_list(exited) + ")";
    }
    return result;
  }

  SourceCounters counters() const override { return counters_; }

  void stop() noexcept override { events_.reset(); }

 private:
  PerfSourceSpec spec_;
  SourceOptions options_;
  SysRoot root_;
  std::optional<PerfRecordDecoder> decoder_;
  std::unique_ptr<ThreadEventSet> events_;
  SourceCounters counters_;
};

}  // namespace

std::unique_ptr<HeatSource> make_perf_ring_source(PerfSourceSpec spec,
                                                  const SourceOptions& options) {
  return std::make_unique<PerfRingSource>(std::move(spec), options);
}

}  // namespace tier::heat::perf
