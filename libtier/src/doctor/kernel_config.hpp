// The running kernel's build configuration, when the system exposes it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "tier/posix/sysroot.hpp"

namespace tier::doctor {

struct KernelConfig {
  std::string source;  // the kernel path it came from, e.g. "/proc/config.gz"
  std::map<std::string, std::string, std::less<>> values;  // "CONFIG_X" -> "y" | "m" | "n" | ...

  /// True for y/m, false for "is not set", nullopt when the option is unknown
  /// to this kernel (not listed at all).
  std::optional<bool> enabled(std::string_view option) const;
  /// "CONFIG_X=y (from /proc/config.gz)" style evidence for details.
  std::string describe(std::string_view option) const;
};

/// Parses `.config` text ("CONFIG_X=y", "# CONFIG_Y is not set").
KernelConfig parse_kernel_config(std::string_view text, std::string source);

/// /proc/config.gz (CONFIG_IKCONFIG_PROC) else /boot/config-<osrelease>, read
/// under `root`; nullopt when neither exists.
std::optional<KernelConfig> read_kernel_config(const SysRoot& root);

}  // namespace tier::doctor
