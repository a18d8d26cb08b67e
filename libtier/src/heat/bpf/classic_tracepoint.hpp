// Classic (perf) tracepoint attach that never mounts tracefs on the host.
//
// libbpf's bpf_program__attach_tracepoint() reads the event id from tracefs,
// which this project's hosts do not mount. When tracefs is missing, a forked
// child unshares its mount namespace, mounts tracefs there (invisible to the
// rest of the machine, gone when the child exits) and sends back the id; the
// caller then opens the perf tracepoint event itself. Ids are global, so the
// id read in the private namespace is valid everywhere.
#pragma once

#include <string>

#include "tier/posix/error.hpp"

struct bpf_link;
struct bpf_program;

namespace tier::heat::bpf {

/// The tracepoint's event id; the failure says which step failed ("fork: ...",
/// "event id of migrate:mm_migrate_pages from a private tracefs mount: ...").
posix::Result<long> tracepoint_id(const std::string& category, const std::string& name);

/// Attaches `program` to category:name; the link owns the perf event fd.
posix::Result<bpf_link*> attach_classic_tracepoint(bpf_program* program,
                                                   const std::string& category,
                                                   const std::string& name);

}  // namespace tier::heat::bpf
