// KernelTiering as text: the "kernel tiering" section of `tierctl doctor`.
#include <sstream>
#include <type_traits>

#include "tier/kernel_tiering/kernel_tiering.hpp"

namespace tier {

namespace {

std::string mode_meaning(unsigned mode) {
  switch (mode) {
    case 0:
      return "off";
    case 1:
      return "normal: hint faults move pages and tasks toward each other";
    case 2:
      return "memory tiering: hint faults promote hot pages from slower tiers";
    case 3:
      return "normal + memory tiering";
    default:
      return "unknown bits set";
  }
}

template <class T>
std::string shown(const Probed<T>& p, std::string_view unit = "") {
  if (!p.value) return "unknown: " + p.why_not;
  std::ostringstream out;
  if constexpr (std::is_same_v<T, bool>) {
    out << (*p.value ? "true" : "false");
  } else {
    out << *p.value;
  }
  out << unit;
  return out.str();
}

// Label padded by hand: std::setw/std::left would stay set on the caller's stream.
void line(std::ostream& out, std::string_view label, const std::string& text) {
  constexpr std::size_t kWidth = 22;
  out << "  " << label << std::string(label.size() < kWidth ? kWidth - label.size() : 1, ' ')
      << text << "\n";
}

std::string scheme_text(const DamonScheme& s) {
  std::string text = "scheme " + std::to_string(s.index) + " " + shown(s.action);
  if (!s.dests.empty()) {
    text += " ->";
    for (const auto& d : s.dests) {
      text += " node " + std::to_string(d.node) + "/" + std::to_string(d.weight);
    }
  } else if (s.target_nid && *s.target_nid >= 0) {
    text += " -> node " + std::to_string(*s.target_nid);
  }
  if (s.effect() != DamonEffect::none) text += std::string(" (") + to_string(s.effect()) + ")";
  if (s.sz_applied) text += ", " + std::to_string(*s.sz_applied) + " bytes applied";
  return text;
}

void print_damon(std::ostream& out, const DamonUse& damon) {
  if (!damon.sysfs) {
    line(out, "DAMON", "unknown: " + damon.why_not);
  } else if (damon.kdamonds.empty()) {
    line(out, "DAMON", "no kdamond");
  }
  bool first = true;
  for (const auto& k : damon.kdamonds) {
    std::string text = "kdamond " + std::to_string(k.index) + ": " + shown(k.state);
    if (k.pid) text += ", pid " + std::to_string(*k.pid);
    for (const auto& c : k.contexts) {
      text += "; context " + std::to_string(c.index) + " " + shown(c.operations);
      for (long pid : c.target_pids) text += " pid " + std::to_string(pid);
      if (c.schemes.empty()) text += ", no scheme";
      for (const auto& s : c.schemes) text += ", " + scheme_text(s);
    }
    line(out, first ? "DAMON" : "", text);
    first = false;
  }
  for (const auto& m : damon.modules) {
    std::string text = m.name + ": enabled " + shown(m.enabled);
    if (m.kdamond_pid) text += ", kdamond pid " + std::to_string(*m.kdamond_pid);
    line(out, "DAMON module", text);
  }
}

void print_interleave(std::ostream& out, const WeightedInterleave& wi) {
  if (!wi.available) {
    line(out, "weighted interleave", "unknown: " + wi.why_not);
    return;
  }
  std::string text;
  for (const auto& [node, weight] : wi.weights) {
    if (!text.empty()) text += " ";
    text += "node" + std::to_string(node) + "=" +
            (weight.value ? std::to_string(*weight.value) : "? (" + weight.why_not + ")");
  }
  if (text.empty()) text = "no node weight files";
  if (wi.auto_file) text += "; " + *wi.auto_file + "=" + shown(wi.auto_mode);
  line(out, "weighted interleave", text);
}

std::string yes_no(bool value) {
  return value ? "yes" : "no";
}

}  // namespace

void print_kernel_tiering(std::ostream& out, const KernelTiering& kt) {
  const NumaBalancing& nb = kt.numa_balancing;
  out << "kernel tiering:\n";
  line(out, "numa_balancing",
       nb.mode.value ? std::to_string(*nb.mode.value) + " (" + mode_meaning(*nb.mode.value) + ")"
                     : shown(nb.mode));
  line(out, "promote rate limit", shown(nb.promote_rate_limit_mbps, " MB/s"));
  line(out, "hot threshold", shown(nb.hot_threshold_ms, " ms"));
  const std::pair<const char*, const Probed<std::uint64_t>*> scan[] = {
      {"scan_delay_ms", &nb.scan_delay_ms},
      {"scan_period_min_ms", &nb.scan_period_min_ms},
      {"scan_period_max_ms", &nb.scan_period_max_ms},
      {"scan_size_mb", &nb.scan_size_mb}};
  bool none_read = true;
  for (const auto& [name, p] : scan) none_read &= !p->value;
  if (none_read) {
    // One reason for all four: they sit side by side in the same directory.
    line(out, "scanner", "unknown: " + nb.scan_delay_ms.why_not);
  } else {
    std::string text;
    for (const auto& [name, p] : scan) {
      if (!text.empty()) text += ", ";
      text += std::string(name) + " " +
              (p->value ? std::to_string(*p->value) : "? (" + p->why_not + ")");
    }
    line(out, "scanner", text);
  }
  std::string demotion = shown(kt.demotion_enabled);
  if (kt.demotion_enabled.value) {
    demotion += *kt.demotion_enabled.value ? " (reclaim demotes cold pages to a slower tier)"
                                           : " (reclaim drops or swaps cold pages)";
  }
  line(out, "demotion_enabled", demotion);
  print_damon(out, kt.damon);
  print_interleave(out, kt.weighted_interleave);
  auto migrating = kt.damon_acting_schemes();
  std::string summary = "kernel promotes: " + yes_no(kt.kernel_promotes()) +
                        "; kernel demotes: " + yes_no(kt.kernel_demotes()) +
                        "; DAMON acts on pages: " + yes_no(!migrating.empty());
  line(out, "summary", summary);
  for (const auto& m : migrating) line(out, "", "  " + m);
}

}  // namespace tier
