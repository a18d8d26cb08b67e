#include "csr.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "checksum.hpp"

namespace tier_workloads::graph {

void zero_fill(char* p, std::size_t n) {
  std::memset(p, 0, n);
}

Csr::Csr(const std::vector<Edge>& edges, std::uint32_t vertices, int node, Placement policy)
    : vertices_(vertices) {
  // cursor[v + 1] counts v's entries; the prefix sum makes cursor[v] where
  // v's list starts, and the scatter below advances it to where it ends.
  std::vector<std::uint64_t> cursor(std::size_t{vertices} + 1, 0);
  for (const Edge& e : edges) {
    if (e.u >= vertices || e.v >= vertices) {
      throw std::invalid_argument("edge {" + std::to_string(e.u) + ", " + std::to_string(e.v) +
                                  "} names a vertex beyond " + std::to_string(vertices - 1));
    }
    if (e.u == e.v) continue;
    ++cursor[std::size_t{e.u} + 1];
    ++cursor[std::size_t{e.v} + 1];
  }
  for (std::size_t v = 0; v < vertices; ++v) cursor[v + 1] += cursor[v];
  entries_ = cursor[vertices];

  offsets_ = std::make_unique<PlacedBuffer>(cursor.size() * sizeof(std::uint64_t), node, policy,
                                            zero_fill);
  std::memcpy(offsets_->data(), cursor.data(), cursor.size() * sizeof(std::uint64_t));
  // An edgeless graph still gets a (zero) page: PlacedBuffer refuses nothing.
  adjacency_ = std::make_unique<PlacedBuffer>(
      std::max<std::uint64_t>(entries_, 1) * sizeof(std::uint32_t), node, policy, zero_fill);
  auto* adjacency = reinterpret_cast<std::uint32_t*>(adjacency_->data());
  for (const Edge& e : edges) {
    if (e.u == e.v) continue;
    adjacency[cursor[e.u]++] = e.v;
    adjacency[cursor[e.v]++] = e.u;
  }
}

GraphView Csr::view() const {
  return {vertices_, entries_, reinterpret_cast<const std::uint64_t*>(offsets_->data()),
          reinterpret_cast<const std::uint32_t*>(adjacency_->data())};
}

std::uint64_t Csr::bytes() const {
  return (std::uint64_t{vertices_} + 1) * sizeof(std::uint64_t) + entries_ * sizeof(std::uint32_t);
}

std::uint64_t Csr::checksum() const {
  const GraphView g = view();
  return checksum_combine(
      checksum_bytes(g.offsets, (std::size_t{vertices_} + 1) * sizeof(std::uint64_t)),
      checksum_bytes(g.adjacency, entries_ * sizeof(std::uint32_t)));
}

std::map<int, std::size_t> Csr::nodes() const {
  std::map<int, std::size_t> count = offsets_->nodes();
  for (const auto& [node, pages] : adjacency_->nodes()) count[node] += pages;
  return count;
}

CsrCheck check_csr(const Csr& csr, std::uint64_t expected) {
  return {csr.bytes(), csr.checksum() == expected ? 0u : 1u};
}

}  // namespace tier_workloads::graph
