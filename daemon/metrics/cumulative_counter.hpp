// Feeds a Prometheus counter from a running total kept elsewhere (a kernel
// vmstat counter, a heat source's counters()): Prometheus counters only go
// up by increments, so each observation adds the difference to the last one.
#pragma once

#include <cstdint>
#include <optional>

namespace prometheus {
class Counter;
}

namespace tierd {

class CumulativeCounter {
 public:
  /// What the first observation means. `baseline`: the total predates us
  /// (vmstat counts since boot), so only later growth is counted. `count`:
  /// the total started with us (a source we started), so all of it counts.
  enum class First { baseline, count };

  CumulativeCounter(prometheus::Counter& counter, First first)
      : counter_(&counter), first_(first) {}

  /// A total below the previous one means the owner restarted from zero:
  /// the new total is all growth since then.
  void observe(std::uint64_t total);

 private:
  prometheus::Counter* counter_;
  First first_;
  std::optional<std::uint64_t> last_;
};

}  // namespace tierd
