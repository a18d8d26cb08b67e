// `tierctl run` flags → RunPlan (see run_options.hpp).
#include "run_options.hpp"

#include "tp_internal.h"
#include "value_options.hpp"

#include <algorithm>
#include <string_view>
#include <system_error>

namespace tierctl::run {

namespace fs = std::filesystem;

const char* to_string(MemPolicy policy) {
  switch (policy) {
    case MemPolicy::none:
      return "default";
    case MemPolicy::bind:
      return "bind";
    case MemPolicy::preferred:
      return "preferred";
    case MemPolicy::preferred_many:
      return "preferred-many";
    case MemPolicy::interleave:
      return "interleave";
    case MemPolicy::weighted_interleave:
      return "weighted-interleave";
    case MemPolicy::local:
      return "local";
  }
  return "?";
}

namespace {

/// "--membind 0" / "--localalloc", as the user typed it, for messages.
std::string spelled(const BindFlag& flag) {
  return flag.value.empty() ? flag.flag : flag.flag + " " + flag.value;
}

/// A flag's word checked by the value grammar (value_options.hpp), its
/// refusal as run's usage error.
template <class Parse>
void check_word(Parse parse, const char* flag, const std::string& text) {
  try {
    parse(flag, text);
  } catch (const tier::values::ValueError& e) {
    throw RunUsageError(e.what());
  }
}

tier::CpuList checked(const Machine::Parsed& parsed, const BindFlag& flag, const char* what) {
  if (!parsed.ids) {
    throw RunUsageError(
        flag.flag + " '" + flag.value +
        "': " + (parsed.error.empty() ? std::string("invalid ") + what + " list" : parsed.error));
  }
  if (parsed.ids->empty()) {
    throw RunUsageError(flag.flag + " '" + flag.value + "' selects no " + what);
  }
  return *parsed.ids;
}

/// The CPUs of `nodes`; every node must have some (numactl's --cpunodebind
/// on a CPU-less node would leave the command nowhere to run).
tier::CpuList cpus_of_nodes(const tier::CpuList& nodes, const Machine& machine,
                            const std::string& flag) {
  std::vector<unsigned> cpus;
  for (unsigned node : nodes.ids()) {
    const tier::CpuList node_cpus = machine.node_cpus(node);
    if (node_cpus.empty()) {
      throw RunUsageError(flag + ": node " + std::to_string(node) +
                          " has no CPUs (a memory-only node); bind memory to it with --membind "
                          "and CPUs to a node with CPUs");
    }
    cpus.insert(cpus.end(), node_cpus.ids().begin(), node_cpus.ids().end());
  }
  return tier::CpuList(std::move(cpus));
}

std::optional<tier::CpuList> cpus_from_flags(const RunRequest& request, const Machine& machine) {
  // numactl applies --cpunodebind and --physcpubind as it reads them, so
  // both may be given and the last one decides; each is still validated.
  std::optional<tier::CpuList> cpus;
  for (const BindFlag& flag : request.binds) {
    if (flag.kind == BindFlag::Kind::physcpubind) {
      cpus = checked(machine.parse_cpus(flag.value), flag, "CPU");
    } else if (flag.kind == BindFlag::Kind::cpunodebind) {
      cpus = cpus_of_nodes(checked(machine.parse_nodes(flag.value), flag, "node"), machine,
                           spelled(flag));
    }
  }
  return cpus;
}

Binding memory_from_flags(const RunRequest& request, const Machine& machine) {
  const BindFlag* policy = nullptr;
  for (const BindFlag& flag : request.binds) {
    if (flag.kind != BindFlag::Kind::memory) continue;
    if (policy != nullptr) {
      // numactl 2.0.16: "Conflicting policies" for any second policy flag,
      // the same one twice included.
      throw RunUsageError("conflicting memory policies: " + spelled(*policy) + " and " +
                          spelled(flag) +
                          " (give one of --membind, --preferred, "
                          "--preferred-many, --interleave, "
                          "--weighted-interleave, --localalloc)");
    }
    policy = &flag;
  }
  Binding binding;
  if (policy == nullptr) return binding;
  binding.policy = policy->policy;
  if (policy->policy == MemPolicy::local) return binding;
  binding.nodes = checked(machine.parse_nodes(policy->value), *policy, "node");
  if (policy->policy == MemPolicy::preferred && binding.nodes.size() != 1) {
    throw RunUsageError(policy->flag + " '" + policy->value + "' names " +
                        std::to_string(binding.nodes.size()) +
                        " nodes; --preferred takes one (use --preferred-many for several)");
  }
  return binding;
}

bool is_pool_kind(std::string_view pool, std::string_view kind) {
  return pool.size() > kind.size() && pool.substr(0, kind.size()) == kind &&
         pool[kind.size()] == ':';
}

/// Checks the pool syntax; returns true for pools that need tierd.
bool validate_pool(const std::string& pool) {
  check_word(parse_pool, "--pool", pool);
  return pool != "shared" && !is_pool_kind(pool, "numa");
}

/// N or K of a pool validate_pool() accepted (at most kMaxCpuCount).
unsigned pool_number(const std::string& pool) {
  return static_cast<unsigned>(std::stoul(pool.substr(pool.find(':') + 1)));
}

/// immovable:K / exclusive:K asking for more CPUs than tierctl may run on
/// is bad input, not a conflict for tierd to refuse (exit 2, nothing sent).
void check_claim_fits(const std::string& pool, const Machine& machine) {
  const unsigned k = pool_number(pool);
  const Machine::Parsed all = machine.parse_cpus("all");
  if (!all.ids || k <= all.ids->size()) return;
  throw RunUsageError("--pool '" + pool + "': " + std::to_string(k) + " CPUs asked, " +
                      std::to_string(all.ids->size()) + " exist here (CPUs " +
                      all.ids->to_string() + ")");
}

void reject_with_binds(const RunRequest& request, const std::string& option, const char* why) {
  if (request.binds.empty()) return;
  throw RunUsageError(option + " conflicts with " + spelled(request.binds.front()) + ": " + why);
}

/// A device's name lists its aliases with commas ("ib0,mlx4_0").
bool has_name(std::string_view names, std::string_view wanted) {
  while (!names.empty()) {
    const std::size_t comma = names.find(',');
    if (names.substr(0, comma) == wanted) return true;
    if (comma == std::string_view::npos) break;
    names.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

std::optional<unsigned> parse_pool_numa(const std::string& pool) {
  validate_pool(pool);
  if (!is_pool_kind(pool, "numa")) return std::nullopt;
  return pool_number(pool);
}

Binding resolve_near(const tier::Topology& topology, const std::string& device) {
  const auto& devices = topology.devices();
  const auto found = std::find_if(devices.begin(), devices.end(), [&](const tier::Device& d) {
    return has_name(d.name, device) || (!d.pci.empty() && d.pci == device) ||
           // "3b:00.0" names the device in PCI domain 0000 (lspci's short form).
           (d.pci.size() == device.size() + 5 && d.pci.rfind("0000:", 0) == 0 &&
            d.pci.compare(5, std::string::npos, device) == 0);
  });
  if (found == devices.end()) {
    std::string known;
    for (const tier::Device& d : devices) {
      known += (known.empty() ? "" : ", ") + d.name +
               (d.pci.empty() || d.pci == d.name ? "" : " (" + d.pci + ")");
    }
    throw RunUsageError("--near '" + device + "': no such device (known: " +
                        (known.empty() ? "none; `tierctl topo` lists devices" : known) + ")");
  }
  if (!found->numa_node) {
    throw RunUsageError("--near '" + device + "': device " + found->name +
                        " has no NUMA node (the firmware does not say where it is attached); "
                        "bind with --cpunodebind/--membind instead");
  }
  const tier::Node* node = topology.node(*found->numa_node);
  if (node == nullptr) {
    throw RunUsageError("--near '" + device + "': device " + found->name + " is on node " +
                        std::to_string(*found->numa_node) + ", which the topology does not list");
  }
  Binding binding;
  binding.cpus = node->cpus.empty() ? node->local_cpus : node->cpus;
  if (binding.cpus->empty()) {
    throw RunUsageError("--near '" + device + "': node " + std::to_string(node->id) +
                        " of device " + found->name + " has no CPUs and no local CPUs");
  }
  binding.policy = MemPolicy::bind;
  binding.nodes = tier::CpuList({node->id});
  return binding;
}

RunPlan make_plan(const RunRequest& request, const Machine& machine,
                  const std::function<tier::Topology()>& topology) {
  if (request.command.empty()) {
    throw RunUsageError(
        "missing CMD: give the command to run after the options, e.g. "
        "tierctl run --membind 0 -- CMD ARGS");
  }
  RunPlan plan;
  plan.command = request.command;
  plan.klass = request.klass;
  plan.quota = request.quota;
  plan.pool = request.pool;
  if (request.klass) {
    if (*request.klass != "online" && *request.klass != "offline") {
      throw RunUsageError("--class '" + *request.klass + "': expected online or offline");
    }
    plan.needs_daemon.push_back("--class " + *request.klass);
  }
  if (request.pool) {
    const std::string option = "--pool " + *request.pool;
    if (validate_pool(*request.pool)) {
      plan.needs_daemon.push_back(option);
      check_claim_fits(*request.pool, machine);
    }
    if (const std::optional<unsigned> node = parse_pool_numa(*request.pool)) {
      reject_with_binds(request, option, "a numa pool binds CPUs and memory itself");
      if (request.near) {
        throw RunUsageError(option + " conflicts with --near " + *request.near +
                            ": both choose the node");
      }
      const BindFlag as_flag{BindFlag::Kind::cpunodebind, MemPolicy::none, "--pool", *request.pool};
      Binding binding;
      const std::string node_text = std::to_string(*node);
      binding.cpus =
          cpus_of_nodes(checked(machine.parse_nodes(node_text), as_flag, "node"), machine, option);
      binding.policy = MemPolicy::preferred;
      binding.nodes = tier::CpuList({*node});
      plan.pool_binding = binding;
    }
  }
  if (request.quota) {
    check_word(parse_quota, "--quota", *request.quota);
    plan.needs_daemon.push_back("--quota " + *request.quota);
  }

  if (request.near) {
    reject_with_binds(request, "--near " + *request.near,
                      "--near binds CPUs and memory to the device's node itself");
    Binding near = resolve_near(topology(), *request.near);
    // The topology may come from --root/--hwloc-xml: the node and CPUs must
    // also exist here, where the command runs.
    const BindFlag as_cpus{BindFlag::Kind::physcpubind, MemPolicy::none,
                           "--near " + *request.near + " (CPUs)", near.cpus->to_string()};
    near.cpus = checked(machine.parse_cpus(as_cpus.value), as_cpus, "CPU");
    const BindFlag as_nodes{BindFlag::Kind::memory, MemPolicy::bind,
                            "--near " + *request.near + " (node)", near.nodes.to_string()};
    checked(machine.parse_nodes(as_nodes.value), as_nodes, "node");
    plan.binding = near;
    return plan;
  }

  plan.binding = memory_from_flags(request, machine);
  plan.binding.cpus = cpus_from_flags(request, machine);
  return plan;
}

std::vector<fs::path> preload_search_dirs(const fs::path& bindir) {
  std::vector<fs::path> dirs;
  const fs::path prefix = bindir.parent_path();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(prefix, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("lib", 0) == 0 && entry.is_directory(ec)) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  if (dirs.empty()) dirs.push_back(prefix / "lib");  // named in the error even when absent
  return dirs;
}

std::vector<std::pair<std::string, std::string>> preload_environment(
    const std::vector<fs::path>& dirs, const std::string& policy, const char* existing_ld_preload) {
  if (policy.empty()) throw RunUsageError("--preload: empty POLICY");
  // The library would warn and run on plain glibc; the launcher can still
  // refuse, with the library's own parser and words.
  tp_config config;
  char why[256];
  if (tp_parse_config(policy.c_str(), nullptr, nullptr, nullptr, nullptr, &config, why,
                      sizeof why) != 0) {
    std::string text = why;
    const std::string prefix = "TIER_PRELOAD_POLICY='" + policy + "': ";
    if (text.rfind(prefix, 0) == 0) text.erase(0, prefix.size());
    throw RunUsageError("--preload " + policy + ": " + text);
  }
  std::string looked;
  for (const fs::path& dir : dirs) {
    const fs::path library = dir / "libtierpreload.so";
    std::error_code ec;
    if (fs::is_regular_file(library, ec)) {
      std::string ld_preload = library.string();
      if (existing_ld_preload != nullptr && *existing_ld_preload != '\0') {
        ld_preload += std::string(" ") + existing_ld_preload;
      }
      return {{"LD_PRELOAD", ld_preload}, {"TIER_PRELOAD_POLICY", policy}};
    }
    looked += (looked.empty() ? "" : ", ") + dir.string();
  }
  throw RunUsageError("--preload " + policy +
                      ": libtierpreload.so not found (looked in: " + looked + ")");
}

}  // namespace tierctl::run
