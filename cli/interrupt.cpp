#include "interrupt.hpp"

#include <csignal>

namespace tierctl {

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int) {
  g_interrupted.store(true);
}

}  // namespace

std::atomic<bool>& cancel_on_interrupt() {
  g_interrupted.store(false);
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  return g_interrupted;
}

}  // namespace tierctl
