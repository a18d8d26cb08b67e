#include "service_notifier.hpp"

#include <systemd/sd-daemon.h>
#include <time.h>

#include <string>

#include "log.hpp"

namespace tierd {

namespace {

class SystemdNotifier final : public ServiceNotifier {
 public:
  void ready(std::string_view status) override { send("READY=1\nSTATUS=" + std::string(status)); }
  void status(std::string_view text) override { send("STATUS=" + std::string(text)); }
  void reloading() override {
    // systemd >= 253 (Type=notify-reload) wants the CLOCK_MONOTONIC time of
    // the reload start with RELOADING=1 to order it against READY=1; older
    // managers ignore the extra field.
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    long long usec = static_cast<long long>(now.tv_sec) * 1000000LL + now.tv_nsec / 1000;
    send("RELOADING=1\nMONOTONIC_USEC=" + std::to_string(usec));
  }
  void stopping() override { send("STOPPING=1"); }
  void watchdog() override { send("WATCHDOG=1"); }

  std::optional<std::chrono::microseconds> watchdog_interval() const override {
    uint64_t usec = 0;
    // > 0 only when WATCHDOG_USEC is set and WATCHDOG_PID is unset or ours,
    // so a child that inherited the variables never kicks for its parent.
    int rc = sd_watchdog_enabled(0, &usec);
    if (rc < 0) {
      log::warn() << "watchdog: ignoring invalid WATCHDOG_USEC/WATCHDOG_PID (" << -rc << ")";
      return std::nullopt;
    }
    if (rc == 0 || usec == 0) return std::nullopt;
    return std::chrono::microseconds(usec);
  }

 private:
  static void send(const std::string& message) {
    // unset_environment=0: tierd notifies for its whole life, not just once.
    int rc = sd_notify(0, message.c_str());
    if (rc < 0) log::debug() << "sd_notify failed (errno " << -rc << ")";
  }
};

}  // namespace

std::unique_ptr<ServiceNotifier> make_systemd_notifier() {
  return std::make_unique<SystemdNotifier>();
}

WatchdogKicker::WatchdogKicker(boost::asio::io_context& io, ServiceNotifier& notifier)
    : timer_(io), notifier_(notifier) {}

std::optional<std::chrono::microseconds> WatchdogKicker::start() {
  std::optional<std::chrono::microseconds> interval = notifier_.watchdog_interval();
  if (!interval) return std::nullopt;
  // Half the interval (sd_watchdog_enabled(3)'s advice) leaves a full period
  // of slack for a slow handler before systemd gives up on tierd.
  period_ = std::max(*interval / 2, std::chrono::microseconds(1));
  notifier_.watchdog();
  arm();
  return period_;
}

void WatchdogKicker::stop() {
  timer_.cancel();
}

void WatchdogKicker::arm() {
  timer_.expires_after(period_);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;  // cancelled at shutdown
    notifier_.watchdog();
    arm();
  });
}

}  // namespace tierd
