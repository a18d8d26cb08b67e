// Internal to kernel_tiering*.cpp: reading one kernel file into a Probed<T>
// whose why_not names the file and says what its absence means, and the
// per-area readers read_kernel_tiering() combines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tier/kernel_tiering/kernel_tiering.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier::kernel_tiering {

/// A file's text (trailing whitespace removed, like SysRoot::read), or the
/// errno of the failed open/read.
struct FileText {
  std::optional<std::string> text;
  int error = 0;
};
FileText read_file(const SysRoot& root, std::string_view kernel_path);

/// why_not for a file that could not be read: `if_missing` when it does not
/// exist (ENOENT), else "<path>: <errno text>".
std::string unreadable(std::string_view kernel_path, const FileText& file,
                       std::string_view if_missing);

/// The file as a number / kernel boolean; why_not as unreadable() says, or
/// "<path>: cannot parse '<text>'" for anything else.
Probed<std::uint64_t> read_u64(const SysRoot& root, std::string_view kernel_path,
                               std::string_view if_missing);
/// read_u64 of text already read.
Probed<std::uint64_t> to_u64(std::string_view kernel_path, const FileText& file,
                             std::string_view if_missing);
Probed<bool> read_bool(const SysRoot& root, std::string_view kernel_path,
                       std::string_view if_missing);
Probed<std::string> read_word(const SysRoot& root, std::string_view kernel_path,
                              std::string_view if_missing);
/// Convenience: the value or nothing, for minor fields that carry no reason.
std::optional<std::int64_t> read_optional_int(const SysRoot& root, std::string_view kernel_path);

NumaBalancing read_numa_balancing(const SysRoot& root);
DamonUse read_damon(const SysRoot& root);
WeightedInterleave read_weighted_interleave(const SysRoot& root);

}  // namespace tier::kernel_tiering
