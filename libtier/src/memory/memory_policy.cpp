// A process's own NUMA memory policy from /proc (memory_policy.hpp).
#include "tier/memory/memory_policy.hpp"

#include "posix/text_scan.hpp"
#include "tier/memory/residency.hpp"

namespace tier {

namespace {

struct ModeName {
  std::string_view name;
  MemoryPolicy::Mode mode;
};

// mpol_to_str()'s names (mm/mempolicy.c, policy_modes[]).
constexpr ModeName kModes[] = {
    {"default", MemoryPolicy::Mode::none},
    {"local", MemoryPolicy::Mode::none},
    {"prefer", MemoryPolicy::Mode::preferred},
    {"prefer (many)", MemoryPolicy::Mode::preferred_many},
    {"bind", MemoryPolicy::Mode::bind},
    {"interleave", MemoryPolicy::Mode::interleave},
    {"weighted interleave", MemoryPolicy::Mode::weighted_interleave},
};

// The policy text at the start of a numa_maps line's remainder: one word,
// or two for the modes whose names have a space in them.
std::string_view policy_prefix(std::string_view rest) {
  auto word_end = [&](std::size_t from) {
    std::size_t end = rest.find(' ', from);
    return end == std::string_view::npos ? rest.size() : end;
  };
  const std::size_t first = word_end(0);
  const std::string_view word = rest.substr(0, first);
  const bool two_words = (word == "weighted" && rest.substr(first).starts_with(" interleave")) ||
                         (word == "prefer" && rest.substr(first).starts_with(" (many)"));
  return two_words ? rest.substr(0, word_end(first + 1)) : word;
}

}  // namespace

bool MemoryPolicy::allows(unsigned node) const {
  switch (mode) {
    case Mode::none:
      return true;
    case Mode::preferred:
    case Mode::preferred_many:
    case Mode::bind:
      return nodes.contains(node);
    case Mode::interleave:
    case Mode::weighted_interleave:
      return false;
  }
  return false;
}

std::optional<MemoryPolicy> parse_memory_policy(std::string_view text) {
  // "<mode>[=<flags>][:<nodes>]"
  const std::size_t colon = text.find(':');
  const std::string_view head = text.substr(0, colon);
  const std::string_view mode_name = head.substr(0, head.find('='));
  MemoryPolicy policy;
  policy.text = std::string(text);
  bool known = false;
  for (const ModeName& m : kModes) {
    if (m.name == mode_name) {
      policy.mode = m.mode;
      known = true;
    }
  }
  if (!known) return std::nullopt;
  if (colon != std::string_view::npos) {
    auto nodes = CpuList::parse(text.substr(colon + 1));
    if (!nodes) return std::nullopt;
    policy.nodes = std::move(*nodes);
  }
  // A mode that names nodes but printed none is not one we understand.
  if (policy.mode != MemoryPolicy::Mode::none && policy.nodes.empty()) return std::nullopt;
  return policy;
}

ProcessMemoryPolicy::Holder ProcessMemoryPolicy::holder(std::uint64_t address) const {
  // The last mapping starting at or below `address`, in either map (a
  // mapping is in exactly one).
  auto last_at_or_below = [address](const auto& map) {
    auto it = map.upper_bound(address);
    return it == map.begin() ? map.end() : std::prev(it);
  };
  auto known = last_at_or_below(by_mapping);
  auto odd = last_at_or_below(unknown);
  if (odd != unknown.end() && (known == by_mapping.end() || odd->first > known->first)) {
    return {nullptr, &odd->second};
  }
  return {known == by_mapping.end() ? nullptr : &known->second, nullptr};
}

bool ProcessMemoryPolicy::allows(std::uint64_t address, unsigned node) const {
  if (mems_allowed && !mems_allowed->contains(node)) return false;
  const Holder h = holder(address);
  return h.unknown == nullptr && (h.policy == nullptr || h.policy->allows(node));
}

std::string ProcessMemoryPolicy::refusal(std::uint64_t address, unsigned node) const {
  if (mems_allowed && !mems_allowed->contains(node)) {
    return "cpuset mems " + mems_allowed->to_string() + " exclude node " + std::to_string(node);
  }
  const Holder h = holder(address);
  if (h.unknown != nullptr) return "memory policy not known (" + *h.unknown + ")";
  if (h.policy == nullptr || h.policy->allows(node)) return "";
  return "memory policy " + h.policy->text + " excludes node " + std::to_string(node);
}

bool ProcessMemoryPolicy::places_itself(std::uint64_t address) const {
  const Holder h = holder(address);
  return h.unknown != nullptr ||
         (h.policy != nullptr && h.policy->mode != MemoryPolicy::Mode::none);
}

bool ProcessMemoryPolicy::same_mappings(std::string_view maps) const {
  std::size_t listed = 0;
  for (const Mapping& m : parse_maps(maps)) {
    if (m.path == "[vsyscall]") continue;
    if (!by_mapping.contains(m.start) && !unknown.contains(m.start)) return false;
    ++listed;
  }
  return listed == by_mapping.size() + unknown.size();
}

ProcessMemoryPolicy parse_process_memory_policy(std::string_view numa_maps,
                                                std::string_view status) {
  ProcessMemoryPolicy out;
  text::for_each_line(numa_maps, [&](std::string_view line) {
    std::string_view rest = line;
    auto start = text::parse_u64(text::next_token(rest), 16);
    if (!start || rest.empty()) return;
    const std::string_view text = policy_prefix(rest.substr(1));
    if (auto policy = parse_memory_policy(text)) {
      out.by_mapping.emplace(*start, std::move(*policy));
    } else {
      out.unknown.emplace(*start, std::string(text));
    }
  });
  text::for_each_line(status, [&](std::string_view line) {
    constexpr std::string_view kKey = "Mems_allowed_list:";
    if (!line.starts_with(kKey)) return;
    auto mems = CpuList::parse(line.substr(kKey.size()));
    if (mems && !mems->empty()) out.mems_allowed = std::move(*mems);
  });
  return out;
}

std::optional<ProcessMemoryPolicy> read_process_memory_policy(const SysRoot& root, int pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  auto numa_maps = root.read(proc + "/numa_maps");
  auto status = root.read(proc + "/status");
  if (!numa_maps || !status) return std::nullopt;
  return parse_process_memory_policy(*numa_maps, *status);
}

}  // namespace tier
