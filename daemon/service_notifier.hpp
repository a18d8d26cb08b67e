// Telling the service manager what tierd is doing (sd_notify protocol).
//
// ServiceNotifier is the seam: main.cpp reports readiness, status text,
// reloads and shutdown through it and never calls libsystemd itself.
// make_systemd_notifier() sends datagrams to $NOTIFY_SOCKET with sd_notify;
// without NOTIFY_SOCKET (a terminal, a test) every call is a no-op, so tierd
// behaves the same under systemd and outside it.
//
// Watchdog contract: when the manager set WATCHDOG_USEC (and WATCHDOG_PID is
// unset or this process), watchdog_interval() returns it and WatchdogKicker
// sends WATCHDOG=1 every half interval from a timer on tierd's event loop.
// The kick therefore proves the loop still runs: a handler stuck forever
// stops the kicks and systemd restarts tierd (Restart=on-failure).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string_view>

namespace tierd {

class ServiceNotifier {
 public:
  virtual ~ServiceNotifier() = default;

  /// READY=1 with a status line: the control socket is accepting requests.
  virtual void ready(std::string_view status) = 0;
  /// STATUS=text, shown by `systemctl status tierd`.
  virtual void status(std::string_view text) = 0;
  /// RELOADING=1: a SIGHUP reload has begun; ready() ends it.
  virtual void reloading() = 0;
  /// STOPPING=1: graceful shutdown has begun.
  virtual void stopping() = 0;
  /// WATCHDOG=1: the event loop is alive.
  virtual void watchdog() = 0;
  /// The interval the manager expects kicks within, if it watches tierd.
  virtual std::optional<std::chrono::microseconds> watchdog_interval() const = 0;
};

/// sd_notify-backed notifier; a no-op when NOTIFY_SOCKET is unset.
std::unique_ptr<ServiceNotifier> make_systemd_notifier();

/// Kicks `notifier`'s watchdog from a timer on `io` at half the interval.
/// Does nothing when the notifier reports no watchdog.
class WatchdogKicker {
 public:
  WatchdogKicker(boost::asio::io_context& io, ServiceNotifier& notifier);
  WatchdogKicker(const WatchdogKicker&) = delete;
  WatchdogKicker& operator=(const WatchdogKicker&) = delete;

  /// Starts kicking; returns the kick period, or nullopt if no watchdog.
  std::optional<std::chrono::microseconds> start();
  void stop();

 private:
  void arm();

  boost::asio::steady_timer timer_;
  ServiceNotifier& notifier_;
  std::chrono::microseconds period_{0};
};

}  // namespace tierd
