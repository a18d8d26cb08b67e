// Runs one `heat` request at a time on its own thread (a collection lasts up
// to 10 s and must not stall the loop) and posts the reply back to the loop.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "tier/heat/collector.hpp"
#include "tier/posix/sysroot.hpp"
#include "tier/topology/topology.hpp"

namespace tierd {

struct HeatRequest {
  int pid = 0;
  std::chrono::milliseconds duration{1000};
  std::string source = "auto";
};

class HeatWorker {
 public:
  using Done = std::function<void(boost::json::value result, std::exception_ptr error)>;
  /// Called on the loop with each finished report (metrics count its samples).
  using OnReport = std::function<void(const tier::heat::HeatReport&)>;

  /// Collections read /proc and /sys under `root` (tierd: Options::root).
  HeatWorker(boost::asio::io_context& io, tier::SysRoot root, OnReport on_report);
  /// Cancels a running collection and waits for its thread.
  ~HeatWorker();
  HeatWorker(const HeatWorker&) = delete;
  HeatWorker& operator=(const HeatWorker&) = delete;

  /// Starts a collection; `done` runs on the loop. Throws
  /// tier::control::Error (conflict) while another one runs, (bad_request)
  /// for an unknown source name.
  void start(const HeatRequest& request, std::shared_ptr<const tier::Topology> topology, Done done);

 private:
  boost::asio::io_context& io_;
  const tier::SysRoot root_;
  OnReport on_report_;
  std::atomic<bool> busy_{false};
  std::atomic<bool> cancel_{false};
  std::thread thread_;
};

}  // namespace tierd
