// kernel: which kernel tier runs on; btf: whether CO-RE BPF can load at all.
#include <charconv>
#include <filesystem>

#include "checks.hpp"

namespace tier::doctor {

CheckResult check_kernel(const Context& ctx) {
  CheckResult r;
  auto release = ctx.root.read("/proc/sys/kernel/osrelease");
  if (!release) {
    r.status = Status::error;
    r.detail = "cannot read /proc/sys/kernel/osrelease";
    r.impact = "feature checks below cannot be related to a kernel version";
    return r;
  }
  r.status = Status::ok;
  r.detail = "Linux " + *release;
  unsigned major = 0;
  unsigned minor = 0;
  const char* end = release->data() + release->size();
  auto [dot, major_ec] = std::from_chars(release->data(), end, major);
  bool parsed = major_ec == std::errc() && dot != end && *dot == '.' &&
                std::from_chars(dot + 1, end, minor).ec == std::errc();
  if (parsed) {
    r.detail += " (" + std::to_string(major) + "." + std::to_string(minor) + ")";
    // Memory tiers and demotion appeared in 6.1; older kernels still run tier,
    // but the kernel cannot help rank nodes or demote.
    if (major < 6 || (major == 6 && minor < 1)) {
      r.impact = "kernel older than 6.1: no memory tiers, no demotion, no tiering numa_balancing";
    }
  }
  return r;
}

CheckResult check_btf(const Context& ctx) {
  CheckResult r;
  constexpr const char* kPath = "/sys/kernel/btf/vmlinux";
  if (!ctx.root.exists(kPath)) {
    r.status = Status::missing;
    r.detail = "no /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF off)";
    r.impact = "CO-RE BPF programs cannot be relocated: eBPF heat sources are unavailable";
    return r;
  }
  std::error_code ec;
  auto size = std::filesystem::file_size(ctx.root.path(kPath), ec);
  r.status = Status::ok;
  r.detail = "/sys/kernel/btf/vmlinux present";
  // sysfs reports the real size of the BTF blob; a gathered tree may hold an
  // empty placeholder, which is still evidence that the file existed.
  if (!ec && size > 0) {
    r.detail += ", " + std::to_string(size / 1024) + " KiB";
  }
  return r;
}

}  // namespace tier::doctor
