#include "hook_chain.hpp"

#include <cstring>

#include "classic_tracepoint.hpp"
#include "tier/heat/source.hpp"

namespace tier::heat::bpf {

bool autoload_only(bpf_object* object, const std::string& program) {
  bool found = false;
  bpf_program* prog = nullptr;
  bpf_object__for_each_program(prog, object) {
    bool wanted = program == bpf_program__name(prog);
    found = found || wanted;
    bpf_program__set_autoload(prog, wanted);
  }
  return found;
}

posix::Result<bpf_link*> attach_hook(bpf_object* object, const Hook& hook) {
  bpf_program* prog = bpf_object__find_program_by_name(object, hook.program.c_str());
  if (prog == nullptr) return posix::Failure{ENOENT, "no program " + hook.program};
  if (!hook.tp_category.empty()) {
    return attach_classic_tracepoint(prog, hook.tp_category, hook.tp_name);
  }
  LibbpfLog log;
  bpf_link* link = bpf_program__attach(prog);
  if (link != nullptr) return link;
  const int error = errno;
  std::string what = std::strerror(error);
  if (std::string warning = log.last_warning(); !warning.empty()) {
    what += " (libbpf: " + warning + ")";
  }
  return posix::Failure{error, std::move(what)};
}

std::string describe_failure(const Hook& hook, const char* step, int error,
                             const std::string& libbpf_warning) {
  std::string text = hook.label + ": " + step + ": " + std::strerror(error);
  if (!libbpf_warning.empty()) text += " (libbpf: " + libbpf_warning + ")";
  return text;
}

void throw_no_hook(const std::string& what, const std::vector<std::string>& failures,
                   bool permission_denied) {
  std::string text = permission_denied ? "BPF not permitted: run as root; " : "";
  text += "no hook for " + what + " loaded and attached";
  for (const std::string& failure : failures) text += "; " + failure;
  throw SourceError(text);
}

}  // namespace tier::heat::bpf
