#include "metrics/http_server.hpp"

#include <prometheus/exposer.h>

namespace tierd {

MetricsHttpServer::MetricsHttpServer(const ListenAddress& address,
                                     const std::shared_ptr<prometheus::Collectable>& registry)
    : address_(address) {
  try {
    // Two threads: a slow scraper cannot hold up a second one (two
    // Prometheus servers scraping one host is common).
    exposer_ = std::make_unique<prometheus::Exposer>(address.to_string(), 2);
  } catch (const std::exception& e) {
    // civetweb's text ("null context when constructing CivetServer...")
    // carries the errno text; lead with what a user can act on.
    throw MetricsError("metrics: cannot listen on " + address.to_string() +
                       " (port in use or address not on this host?): " + e.what());
  }
  exposer_->RegisterCollectable(registry);
  const std::vector<int> ports = exposer_->GetListeningPorts();
  if (!ports.empty()) address_.port = static_cast<std::uint16_t>(ports.front());
}

MetricsHttpServer::~MetricsHttpServer() = default;

}  // namespace tierd
