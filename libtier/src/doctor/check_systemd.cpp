// systemd: whether tierd can be a systemd service on this machine.
#include "checks.hpp"

namespace tier::doctor {

CheckResult check_systemd(const Context& ctx) {
  CheckResult r;
  auto comm = ctx.root.read("/proc/1/comm");
  // /run/systemd/system is what sd_booted() tests: it exists only when
  // systemd is the running init.
  bool booted = ctx.root.exists("/run/systemd/system");
  bool pid1 = comm && *comm == "systemd";
  r.detail = "PID 1 is " + (comm ? "'" + *comm + "'" : std::string("unknown")) +
             (booted ? "; /run/systemd/system present" : "; /run/systemd/system absent");
  if (pid1 || booted) {
    r.status = Status::ok;
    return r;
  }
  r.status = Status::missing;
  r.impact =
      "systemd is not the init: tierd cannot run as a systemd service (Type=notify, watchdog, "
      "restart); run it directly or under another supervisor";
  return r;
}

}  // namespace tier::doctor
