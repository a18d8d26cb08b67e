// CpuList: a sorted set of CPU (or node) ids with the kernel's list syntax.
//
// The kernel writes sets as lists ("0-3,8,10-11") in cpulist/nodelist files and
// as comma-separated 32-bit hex masks in cpumap files; both parse here. Ids are
// unbounded (no 64-bit mask limit), which matters on machines with many nodes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tier {

class CpuList {
 public:
  CpuList() = default;
  explicit CpuList(std::vector<unsigned> ids);

  /// "0-3,8" → {0,1,2,3,8}; empty or whitespace-only → empty set; nullopt on syntax errors.
  static std::optional<CpuList> parse(std::string_view text);
  /// Kernel mask syntax "00000000,0000000f" → {0,1,2,3}; nullopt on syntax errors.
  static std::optional<CpuList> parse_mask(std::string_view text);

  const std::vector<unsigned>& ids() const { return ids_; }
  bool empty() const { return ids_.empty(); }
  std::size_t size() const { return ids_.size(); }
  bool contains(unsigned id) const;
  /// Canonical list syntax with ranges: "0-3,8".
  std::string to_string() const;

  friend bool operator==(const CpuList&, const CpuList&) = default;

 private:
  std::vector<unsigned> ids_;  // sorted, unique
};

}  // namespace tier
