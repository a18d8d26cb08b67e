// Hook chains: load a skeleton with exactly one of its alternative programs,
// trying the alternatives in order until one loads and attaches.
//
// Each attempt opens a fresh skeleton with only that hook's program
// autoloaded (a hook this kernel lacks cannot fail the others' load), lets
// the caller configure it (rodata, map sizes), loads and attaches. Failed
// attempts are destroyed at once and described ("raw_tp/x: load: Operation
// not permitted (libbpf: ...)") so callers can say why each was skipped.
#pragma once

#include <bpf/libbpf.h>

#include <cerrno>
#include <string>
#include <utility>
#include <vector>

#include "libbpf_log.hpp"
#include "tier/posix/error.hpp"

namespace tier::heat::bpf {

struct Hook {
  std::string label;        // what attach_point() reports: "tp_btf/page_fault_user"
  std::string program;      // the BPF program's name in the object
  std::string tp_category;  // classic tracepoints only: attached by event id
  std::string tp_name;
};

/// Turns autoload on for `program` only; false when the object has no such program.
bool autoload_only(bpf_object* object, const std::string& program);

/// Attaches the (loaded) program of `hook`; the failure's text is what
/// attach_first() reports after "label: attach: ".
posix::Result<bpf_link*> attach_hook(bpf_object* object, const Hook& hook);

/// "label: step: strerror(error) (libbpf: warning)".
std::string describe_failure(const Hook& hook, const char* step, int error,
                             const std::string& libbpf_warning);

/// Throws SourceError naming every failed attempt; "BPF not permitted: run as
/// root" first when the kernel refused for lack of privilege.
[[noreturn]] void throw_no_hook(const std::string& what, const std::vector<std::string>& failures,
                                bool permission_denied);

/// A loaded and attached skeleton: owns both, frees both.
template <class Skel>
class Attached {
 public:
  using Destroy = void (*)(Skel*);
  Attached() = default;
  Attached(Skel* skel, bpf_link* link, std::string hook, Destroy destroy)
      : skel_(skel), link_(link), hook_(std::move(hook)), destroy_(destroy) {}
  ~Attached() { reset(); }
  Attached(Attached&& other) noexcept { *this = std::move(other); }
  Attached& operator=(Attached&& other) noexcept {
    if (this != &other) {
      reset();
      skel_ = std::exchange(other.skel_, nullptr);
      link_ = std::exchange(other.link_, nullptr);
      hook_ = std::move(other.hook_);
      destroy_ = other.destroy_;
    }
    return *this;
  }

  explicit operator bool() const { return skel_ != nullptr; }
  Skel* skel() const { return skel_; }
  const std::string& hook() const { return hook_; }

  void reset() noexcept {
    if (link_ != nullptr) bpf_link__destroy(link_);
    if (skel_ != nullptr) destroy_(skel_);
    link_ = nullptr;
    skel_ = nullptr;
    hook_.clear();
  }

 private:
  Skel* skel_ = nullptr;
  bpf_link* link_ = nullptr;
  std::string hook_;
  Destroy destroy_ = nullptr;
};

template <class Skel>
struct SkeletonApi {
  Skel* (*open)();
  int (*load)(Skel*);
  void (*destroy)(Skel*);
};

/// The first hook of `hooks` that loads and attaches; throws SourceError
/// (see throw_no_hook) when none does. `failures` gets one line per hook
/// tried before the one that worked.
template <class Skel, class Configure>
Attached<Skel> attach_first(const std::string& what, const std::vector<Hook>& hooks,
                            SkeletonApi<Skel> api, Configure&& configure,
                            std::vector<std::string>& failures) {
  LibbpfLog log;
  bool permission_denied = false;
  for (const Hook& hook : hooks) {
    log.clear();
    Skel* skel = api.open();
    if (skel == nullptr) {
      failures.push_back(describe_failure(hook, "open", errno, log.last_warning()));
      continue;
    }
    if (!autoload_only(skel->obj, hook.program)) {
      failures.push_back(describe_failure(hook, "find program", ENOENT, ""));
      api.destroy(skel);
      continue;
    }
    configure(skel);
    if (int err = api.load(skel); err != 0) {
      permission_denied = permission_denied || err == -EPERM || err == -EACCES;
      failures.push_back(describe_failure(hook, "load", -err, log.last_warning()));
      api.destroy(skel);
      continue;
    }
    posix::Result<bpf_link*> link = attach_hook(skel->obj, hook);
    if (!link) {
      failures.push_back(hook.label + ": attach: " + link.failure().what);
      api.destroy(skel);
      continue;
    }
    return Attached<Skel>(skel, link.value(), hook.label, api.destroy);
  }
  throw_no_hook(what, failures, permission_denied);
}

}  // namespace tier::heat::bpf
