#include "heat_worker.hpp"

#include <boost/asio/post.hpp>

#include "log.hpp"
#include "tier/heat/report_json.hpp"
#include "tier/heat/selection.hpp"
#include "tier/memory/memory_syscalls.hpp"
#include "tier/protocol/control_protocol.hpp"

namespace tierd {

namespace control = tier::control;

HeatWorker::HeatWorker(boost::asio::io_context& io, tier::SysRoot root, OnReport on_report)
    : io_(io), root_(std::move(root)), on_report_(std::move(on_report)) {}

HeatWorker::~HeatWorker() {
  cancel_.store(true);
  if (thread_.joinable()) thread_.join();
}

void HeatWorker::start(const HeatRequest& request, std::shared_ptr<const tier::Topology> topology,
                       Done done) {
  if (busy_.exchange(true)) {
    throw control::Error(control::ErrorCode::conflict,
                         "a heat collection is already running; try again when it ends");
  }
  if (thread_.joinable()) thread_.join();  // the previous one has finished
  auto probes = tier::heat::probe_sources(root_);
  std::vector<std::string> chosen;
  try {
    chosen = tier::heat::choose_sources(request.source, probes);
  } catch (const tier::heat::UnknownSourceError& e) {
    busy_.store(false);
    throw control::Error(control::ErrorCode::bad_request, e.what());
  } catch (const tier::heat::SourceError& e) {
    busy_.store(false);
    throw control::Error(control::ErrorCode::failed, e.what());
  }
  cancel_.store(false);
  // Said once the worker is claimed: from here a second request is refused.
  log::info() << "heat: collecting pid " << request.pid << " with " << chosen.front() << " for "
              << request.duration.count() << " ms";
  thread_ = std::thread([this, request, topology = std::move(topology), probes = std::move(probes),
                         chosen = std::move(chosen), done = std::move(done)]() mutable {
    tier::heat::CollectOptions collect;
    collect.duration = request.duration;
    collect.interval = std::min(request.duration, std::chrono::milliseconds(1000));
    collect.source.interval = collect.interval;
    collect.cancel = &cancel_;
    collect.top = 32;
    std::vector<tier::heat::Fallback> fallbacks;
    std::shared_ptr<tier::heat::HeatReport> report;
    boost::json::value result;
    std::exception_ptr error;
    try {
      report = std::make_shared<tier::heat::HeatReport>(tier::heat::collect_heat_with_fallback(
          root_, *topology, tier::real_memory_syscalls(), request.pid, chosen,
          request.source == "auto", probes, collect, fallbacks));
      result = tier::heat::report_json(*report, probes, fallbacks);
    } catch (const tier::heat::SourceError& e) {
      error = std::make_exception_ptr(
          control::Error(control::ErrorCode::failed, std::string("heat: ") + e.what()));
    } catch (...) {
      error = std::current_exception();
    }
    boost::asio::post(
        io_, [this, report, result = std::move(result), error, done = std::move(done)]() mutable {
          busy_.store(false);
          if (report && on_report_) on_report_(*report);
          done(std::move(result), error);
        });
  });
}

}  // namespace tierd
