// CrossNumaMatrix (contract: tier/heat/heatmap.hpp): a dense square matrix
// that grows to the largest node seen. Node ids beyond the kernel's
// MAX_NUMNODES (1024) cannot be real; they count as unresolved rather than
// growing the matrix to megabytes.
#include <algorithm>
#include <cmath>

#include "tier/heat/heatmap.hpp"

namespace tier::heat {
namespace {

constexpr int kMaxNumNodes = 1024;

bool valid_node(int node) {
  return node >= 0 && node < kMaxNumNodes;
}

}  // namespace

void CrossNumaMatrix::add(int cpu_node, int memory_node, double weight) {
  if (!(weight > 0.0) || !std::isfinite(weight)) return;
  if (!valid_node(cpu_node) || !valid_node(memory_node)) {
    ++unresolved_;
    return;
  }
  const auto size = static_cast<std::size_t>(std::max(cpu_node, memory_node)) + 1;
  if (size > cells_.size()) {
    cells_.resize(size);
    for (auto& row : cells_) row.resize(size, 0.0);
  }
  cells_[static_cast<std::size_t>(cpu_node)][static_cast<std::size_t>(memory_node)] += weight;
}

double CrossNumaMatrix::local() const {
  double sum = 0.0;
  for (std::size_t i = 0; i < cells_.size(); ++i) sum += cells_[i][i];
  return sum;
}

double CrossNumaMatrix::remote() const {
  double sum = 0.0;
  for (std::size_t i = 0; i < cells_.size(); ++i)
    for (std::size_t j = 0; j < cells_.size(); ++j)
      if (i != j) sum += cells_[i][j];
  return sum;
}

double CrossNumaMatrix::local_share() const {
  const double l = local(), total = l + remote();
  return total > 0.0 ? l / total : 0.0;
}

double CrossNumaMatrix::remote_share() const {
  const double r = remote(), total = local() + r;
  return total > 0.0 ? r / total : 0.0;
}

double CrossNumaMatrix::at(int cpu_node, int memory_node) const {
  const auto n = static_cast<int>(cells_.size());
  if (cpu_node < 0 || memory_node < 0 || cpu_node >= n || memory_node >= n) return 0.0;
  return cells_[static_cast<std::size_t>(cpu_node)][static_cast<std::size_t>(memory_node)];
}

int CrossNumaMatrix::max_node() const {
  return static_cast<int>(cells_.size()) - 1;
}

std::uint64_t CrossNumaMatrix::unresolved() const {
  return unresolved_;
}

}  // namespace tier::heat
