#include "metrics/cumulative_counter.hpp"

#include <prometheus/counter.h>

namespace tierd {

void CumulativeCounter::observe(std::uint64_t total) {
  std::uint64_t increment = 0;
  if (!last_) {
    increment = first_ == First::count ? total : 0;
  } else {
    increment = total >= *last_ ? total - *last_ : total;
  }
  last_ = total;
  if (increment > 0) counter_->Increment(static_cast<double>(increment));
}

}  // namespace tierd
