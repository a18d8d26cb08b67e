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

struct bpf_link;
struct bpf_program;

namespace tier::heat::bpf {

/// The tracepoint's event id, or -errno with `error` set ("mount tracefs: ...").
long tracepoint_id(const std::string& category, const std::string& name, std::string& error);

/// Attaches `program` to category:name; nullptr with `error` set on failure.
bpf_link* attach_classic_tracepoint(bpf_program* program, const std::string& category,
                                    const std::string& name, std::string& error);

}  // namespace tier::heat::bpf
