// KernelTiering as JSON (the "kernel_tiering" object of `tierctl doctor
// --json`). Every section has a "why_not" object: field name -> reason, for
// each field that is null.
#include "tier/kernel_tiering/kernel_tiering.hpp"

namespace tier {

namespace {

namespace json = boost::json;

template <class T>
void put(json::object& section, json::object& why_not, std::string_view name,
         const Probed<T>& probed) {
  if (probed.value) {
    section[name] = *probed.value;
  } else {
    section[name] = nullptr;
    why_not[name] = probed.why_not;
  }
}

template <class T>
json::value optional(const std::optional<T>& value) {
  return value ? json::value(*value) : json::value(nullptr);
}

json::object numa_balancing_json(const NumaBalancing& nb) {
  json::object o;
  json::object why;
  put(o, why, "mode", nb.mode);
  o["normal"] = nb.normal();
  o["memory_tiering"] = nb.memory_tiering();
  put(o, why, "promote_rate_limit_mbps", nb.promote_rate_limit_mbps);
  put(o, why, "hot_threshold_ms", nb.hot_threshold_ms);
  put(o, why, "scan_delay_ms", nb.scan_delay_ms);
  put(o, why, "scan_period_min_ms", nb.scan_period_min_ms);
  put(o, why, "scan_period_max_ms", nb.scan_period_max_ms);
  put(o, why, "scan_size_mb", nb.scan_size_mb);
  o["why_not"] = std::move(why);
  return o;
}

json::object scheme_json(const DamonScheme& s) {
  json::object o;
  json::object why;
  o["index"] = s.index;
  put(o, why, "action", s.action);
  o["effect"] = to_string(s.effect());
  o["target_nid"] = optional(s.target_nid);
  json::array dests;
  for (const auto& d : s.dests)
    dests.push_back(json::object{{"node", d.node}, {"weight", d.weight}});
  o["dests"] = std::move(dests);
  o["apply_interval_us"] = optional(s.apply_interval_us);
  o["quota_bytes"] = optional(s.quota_bytes);
  o["quota_ms"] = optional(s.quota_ms);
  o["nr_applied"] = optional(s.nr_applied);
  o["sz_applied"] = optional(s.sz_applied);
  o["why_not"] = std::move(why);
  return o;
}

json::object damon_json(const DamonUse& damon) {
  json::object o;
  json::object why;
  o["sysfs"] = damon.sysfs;
  if (!damon.sysfs) why["sysfs"] = damon.why_not;
  json::array kdamonds;
  for (const auto& k : damon.kdamonds) {
    json::object ko;
    json::object kwhy;
    ko["index"] = k.index;
    put(ko, kwhy, "state", k.state);
    ko["running"] = k.running();
    ko["pid"] = optional(k.pid);
    json::array contexts;
    for (const auto& c : k.contexts) {
      json::object co;
      json::object cwhy;
      co["index"] = c.index;
      put(co, cwhy, "operations", c.operations);
      json::array pids;
      for (long pid : c.target_pids) pids.push_back(pid);
      co["target_pids"] = std::move(pids);
      json::array schemes;
      for (const auto& s : c.schemes) schemes.push_back(scheme_json(s));
      co["schemes"] = std::move(schemes);
      co["why_not"] = std::move(cwhy);
      contexts.push_back(std::move(co));
    }
    ko["contexts"] = std::move(contexts);
    ko["why_not"] = std::move(kwhy);
    kdamonds.push_back(std::move(ko));
  }
  o["kdamonds"] = std::move(kdamonds);
  json::array modules;
  for (const auto& m : damon.modules) {
    json::object mo;
    json::object mwhy;
    mo["name"] = m.name;
    put(mo, mwhy, "enabled", m.enabled);
    mo["kdamond_pid"] = optional(m.kdamond_pid);
    mo["effect"] = to_string(m.effect);
    mo["why_not"] = std::move(mwhy);
    modules.push_back(std::move(mo));
  }
  o["modules"] = std::move(modules);
  o["why_not"] = std::move(why);
  return o;
}

json::object interleave_json(const WeightedInterleave& wi) {
  json::object o;
  json::object why;
  o["available"] = wi.available;
  json::object weights;
  for (const auto& [node, weight] : wi.weights) {
    std::string key = std::to_string(node);
    if (weight.value) {
      weights[key] = *weight.value;
    } else {
      weights[key] = nullptr;
      why["node" + key] = weight.why_not;
    }
  }
  o["weights"] = std::move(weights);
  if (!wi.available) why["weights"] = wi.why_not;
  o["auto_file"] = optional(wi.auto_file);
  put(o, why, "auto", wi.auto_mode);
  o["why_not"] = std::move(why);
  return o;
}

}  // namespace

boost::json::object kernel_tiering_json(const KernelTiering& kt) {
  json::object doc;
  doc["numa_balancing"] = numa_balancing_json(kt.numa_balancing);
  json::object demotion;
  json::object why;
  put(demotion, why, "enabled", kt.demotion_enabled);
  demotion["why_not"] = std::move(why);
  doc["demotion"] = std::move(demotion);
  doc["damon"] = damon_json(kt.damon);
  doc["weighted_interleave"] = interleave_json(kt.weighted_interleave);
  json::array migrating;
  for (auto& line : kt.damon_acting_schemes()) migrating.push_back(json::string(line));
  doc["summary"] = json::object{{"kernel_promotes", kt.kernel_promotes()},
                                {"kernel_demotes", kt.kernel_demotes()},
                                {"damon_acts", !migrating.empty()},
                                {"damon_acting_schemes", std::move(migrating)}};
  return doc;
}

}  // namespace tier
