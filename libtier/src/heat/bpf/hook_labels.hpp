// Choosing hooks by label: the trackers take the labels a caller wants tried
// ("raw_tp/sched_switch"), empty meaning the whole chain in its order.
#pragma once

#include <string>
#include <vector>

#include "hook_chain.hpp"

namespace tier::heat::bpf {

/// The hooks of `chain` named in `labels`, in the labels' order; all of
/// `chain` when `labels` is empty. Throws SourceError on an unknown label.
std::vector<Hook> select_hooks(const std::vector<Hook>& chain,
                               const std::vector<std::string>& labels);

}  // namespace tier::heat::bpf
