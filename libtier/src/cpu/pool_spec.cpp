// Pool spec syntax (see pool_spec.hpp).
#include "tier/cpu/pool_spec.hpp"

#include <charconv>

namespace tier::cpu {

namespace {

constexpr const char* kForms = "shared, numa:N, immovable:K, exclusive:K";

std::optional<PoolSpec> fail(std::string* error, std::string message) {
  if (error != nullptr) *error = std::move(message);
  return std::nullopt;
}

}  // namespace

const char* to_string(PoolKind kind) {
  switch (kind) {
    case PoolKind::shared:
      return "shared";
    case PoolKind::numa:
      return "numa";
    case PoolKind::immovable:
      return "immovable";
    case PoolKind::exclusive:
      return "exclusive";
  }
  return "shared";
}

std::optional<PoolSpec> PoolSpec::parse(std::string_view text, std::string* error) {
  const std::string quoted = "pool \"" + std::string(text) + "\"";
  if (text == "shared") return PoolSpec{PoolKind::shared, 0};
  const auto colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  PoolKind kind;
  if (name == "numa") {
    kind = PoolKind::numa;
  } else if (name == "immovable") {
    kind = PoolKind::immovable;
  } else if (name == "exclusive") {
    kind = PoolKind::exclusive;
  } else {
    return fail(error, "unknown " + quoted + " (" + kForms + ")");
  }
  const char* what = kind == PoolKind::numa ? "N" : "K";
  if (colon == std::string_view::npos) {
    return fail(error, quoted + ": missing " + what + " (" + std::string(name) + ":" + what + ")");
  }
  const std::string_view number = text.substr(colon + 1);
  unsigned value = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size()) {
    return fail(error, quoted + ": " + what + " must be a non-negative decimal number");
  }
  if (kind != PoolKind::numa && value == 0) {
    return fail(error, quoted + ": K must be at least 1");
  }
  return PoolSpec{kind, value};
}

std::string PoolSpec::to_string() const {
  if (kind == PoolKind::shared) return "shared";
  return std::string(cpu::to_string(kind)) + ":" + std::to_string(value);
}

}  // namespace tier::cpu
