// The HTTP side of the exporter: serves a registry at /metrics on one
// address. prometheus-cpp's Exposer (civetweb) runs its own threads; scrapes
// read the registry's atomics, so the daemon loop never waits for a scrape.
#pragma once

#include <memory>
#include <stdexcept>

#include "metrics/listen_address.hpp"

namespace prometheus {
class Collectable;
class Exposer;
}  // namespace prometheus

namespace tierd {

struct MetricsError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class MetricsHttpServer {
 public:
  /// Binds `address` and serves `registry`. Throws MetricsError naming the
  /// address when it cannot bind (port in use, address not on this host).
  MetricsHttpServer(const ListenAddress& address,
                    const std::shared_ptr<prometheus::Collectable>& registry);
  ~MetricsHttpServer();
  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  /// The address with the port really bound (differs when port 0 was asked).
  const ListenAddress& address() const { return address_; }

 private:
  ListenAddress address_;
  std::unique_ptr<prometheus::Exposer> exposer_;
};

}  // namespace tierd
