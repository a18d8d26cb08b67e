#include "zipf.hpp"

#include <cmath>

namespace tier_workloads {
namespace {

double zeta(std::size_t n, double theta) {
  double sum = 0;
  for (std::size_t i = 1; i <= n; ++i) sum += 1.0 / std::pow(static_cast<double>(i), theta);
  return sum;
}

}  // namespace

Zipf::Zipf(std::size_t n, double theta) : n_(n), theta_(theta) {
  if (theta <= 0) return;  // unused for the uniform distribution
  zetan_ = zeta(n, theta);
  alpha_ = 1.0 / (1.0 - theta);
  eta_ =
      (1.0 - std::pow(2.0 / static_cast<double>(n), 1.0 - theta)) / (1.0 - zeta(2, theta) / zetan_);
  half_pow_theta_ = std::pow(0.5, theta);
}

std::size_t Zipf::draw(double u) const {
  double uz = u * zetan_;
  if (uz < 1.0) return 0;
  if (uz < 1.0 + half_pow_theta_) return n_ > 1 ? 1 : 0;
  auto r =
      static_cast<std::size_t>(static_cast<double>(n_) * std::pow(eta_ * u - eta_ + 1.0, alpha_));
  return r < n_ ? r : n_ - 1;
}

}  // namespace tier_workloads
