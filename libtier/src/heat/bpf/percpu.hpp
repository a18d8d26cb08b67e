// Reading the one-entry per-CPU counter arrays the heat programs keep.
#pragma once

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <vector>

namespace tier::heat::bpf {

/// Entry 0 of a BPF_MAP_TYPE_PERCPU_ARRAY, one Value per possible CPU; empty
/// when the read fails. Value must be a multiple of 8 bytes (the kernel's
/// per-CPU stride), which the tier_events.h counter structs are.
template <class Value>
std::vector<Value> read_percpu_entry0(const bpf_map* map) {
  static_assert(sizeof(Value) % 8 == 0, "per-CPU values are laid out in 8-byte strides");
  int cpus = libbpf_num_possible_cpus();
  if (map == nullptr || cpus <= 0) return {};
  std::vector<Value> values(static_cast<std::size_t>(cpus));
  __u32 key = 0;
  if (bpf_map_lookup_elem(bpf_map__fd(map), &key, values.data()) != 0) return {};
  return values;
}

}  // namespace tier::heat::bpf
