// PoolSpec: which CPU pool a workload asks for, in the config/CLI spelling.
//
// Contract: four kinds (the pools Tencent's Crane defines). "shared" — the
// default pool; "numa:N" — the shared CPUs of node N; "immovable:K" — K CPUs
// fixed to the workload that stay in the shared pool; "exclusive:K" — K CPUs
// dedicated to the workload and removed from every other pool. K is at least
// 1. parse() accepts exactly these spellings (no spaces, decimal numbers) and
// otherwise fills `error` with a message naming the bad text; to_string() is
// its inverse.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tier::cpu {

enum class PoolKind { shared, numa, immovable, exclusive };

/// "shared", "numa", "immovable", "exclusive".
const char* to_string(PoolKind kind);

struct PoolSpec {
  PoolKind kind = PoolKind::shared;
  unsigned value = 0;  // node for numa, K for immovable/exclusive, 0 for shared

  /// "shared", "numa:1", "immovable:2", "exclusive:4"; nullopt with `error`
  /// (when given) set on anything else.
  static std::optional<PoolSpec> parse(std::string_view text, std::string* error = nullptr);
  std::string to_string() const;
  /// True for immovable and exclusive: the pools that claim CPUs of their own.
  bool claims_cpus() const { return kind == PoolKind::immovable || kind == PoolKind::exclusive; }

  friend bool operator==(const PoolSpec&, const PoolSpec&) = default;
};

}  // namespace tier::cpu
