// Reads the kernel config; the honest fallback when sysfs cannot tell
// whether a feature was built (e.g. DAMON vaddr without a context to ask).
#include "kernel_config.hpp"

#include <zlib.h>

#include <array>

namespace tier::doctor {

std::optional<bool> KernelConfig::enabled(std::string_view option) const {
  auto it = values.find(option);
  if (it == values.end()) return std::nullopt;
  return it->second == "y" || it->second == "m";
}

std::string KernelConfig::describe(std::string_view option) const {
  auto it = values.find(option);
  std::string text = it == values.end()  ? std::string(option) + " absent"
                     : it->second == "n" ? std::string(option) + " is not set"
                                         : std::string(option) + "=" + it->second;
  return text + " (" + source + ")";
}

KernelConfig parse_kernel_config(std::string_view text, std::string source) {
  KernelConfig config;
  config.source = std::move(source);
  constexpr std::string_view kNotSet = " is not set";
  while (!text.empty()) {
    auto eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (line.starts_with("# CONFIG_") && line.ends_with(kNotSet)) {
      line.remove_prefix(2);
      line.remove_suffix(kNotSet.size());
      config.values.emplace(std::string(line), "n");
    } else if (line.starts_with("CONFIG_")) {
      auto eq = line.find('=');
      if (eq != std::string_view::npos) {
        config.values.emplace(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
      }
    }
  }
  return config;
}

namespace {

std::optional<std::string> gunzip_file(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) return std::nullopt;
  std::string out;
  std::array<char, 65536> buffer{};
  int n = 0;
  while ((n = gzread(file, buffer.data(), buffer.size())) > 0) {
    out.append(buffer.data(), static_cast<std::size_t>(n));
  }
  gzclose(file);
  if (n < 0) return std::nullopt;
  return out;
}

}  // namespace

std::optional<KernelConfig> read_kernel_config(const SysRoot& root) {
  if (root.exists("/proc/config.gz")) {
    if (auto text = gunzip_file(root.path("/proc/config.gz").string())) {
      return parse_kernel_config(*text, "/proc/config.gz");
    }
  }
  if (auto release = root.read("/proc/sys/kernel/osrelease")) {
    std::string boot = "/boot/config-" + *release;
    if (auto text = root.read(boot)) return parse_kernel_config(*text, boot);
  }
  return std::nullopt;
}

}  // namespace tier::doctor
