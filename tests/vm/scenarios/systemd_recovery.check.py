#!/usr/bin/python3
"""systemd_recovery: the real daemon/tierd.service, crashed. With two
registered `sleep` workloads, `kill -9` of tierd and the exit of one sleep
while tierd is down: systemd restarts tierd (new PID, NRestarts +1, active
again, i.e. READY=1); the new tierd lists the live sleep with the same id
and class, has the dead one in `dropped` with a "while tierd was down"
reason, and reports the ORIGINAL numa_balancing recorded by the crashed
instance; `systemctl stop` then restores the boot value."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import tierdcheck  # noqa: E402

c = tierdcheck.TierdCheck("systemd_recovery")
c.eq("exit status", c.rc(), 0)
nb_boot, nb_want = c.get("nb_boot"), c.get("nb_want")
live, dead = c.get("pid_live"), c.get("pid_dead")

c.unit_as_shipped()
c.spec_config()
c.want("start_rc", "0")
c.want("active_after_start", "active")
c.eq("numa_balancing while the first tierd runs", c.get("nb_first"), nb_want)
first = c.status("first")
if first is not None:
    c.want_field("first", first, "kernel.numa_balancing.original", nb_boot)
    c.want_field("first", first, "kernel.numa_balancing.applied", nb_want)

# --- registration ------------------------------------------------------------------
registered = {}
for w, pid in (("live", live), ("dead", dead)):
    doc = c.doc("register_" + w, "workloads register --pid %s" % pid)
    wl = doc.get("workload") if isinstance(doc, dict) else None
    if isinstance(wl, dict):
        c.eq("register %s: pid" % w, str(wl.get("pid")), pid)
        c.eq("register %s: class" % w, wl.get("class"), "online")
        c.eq("register %s: source" % w, wl.get("source"), "api")
        registered[w] = wl
    elif doc is not None:
        c.fail("register %s: no workload object: %s" % (w, tierdcheck.pretty(doc)))
before = c.doc("list_before", "workloads list before the crash")
if before is not None:
    pids = sorted(str(w.get("pid")) for w in before.get("workloads", []))
    c.eq("workloads before the crash (pids)", pids, sorted([live, dead]))
c.want("state_file_before", "present")

# --- the crash ---------------------------------------------------------------------
c.want("kill_rc", "0")
# The premise: the sleep exited while no tierd ran (MainPID 0 or still the
# killed one, systemd waiting out RestartSec=2s).
if c.get("main_pid_when_dead_exited") not in ("0", c.get("pid_first")):
    c.fail("a new tierd (pid %s) was already up when the workload exited: the "
           "'exited while tierd was down' case was not produced" % c.get("main_pid_when_dead_exited"))
c.eq("numa_balancing while tierd is down (kill -9 restores nothing)", c.get("nb_while_down"), nb_want)

first_pid, second_pid = c.get("pid_first"), c.get("pid_second")
if first_pid in (None, "", "0") or second_pid in (None, "", "0") or first_pid == second_pid:
    c.fail("no restart seen: main PID %s before kill -9, %s after" % (first_pid, second_pid))
try:
    c.eq("NRestarts increase after kill -9",
         int(c.get("restarts_after")) - int(c.get("restarts_before")), 1)
except (TypeError, ValueError):
    c.fail("NRestarts not read: %r / %r" % (c.get("restarts_before"), c.get("restarts_after")))
c.want("first_gone", "yes")
c.want("active_after_restart", "active")
c.want("second_topo_answered", "yes")
c.want_in("status_text_restarted", "serving on /run/tier/tierd.sock")
c.journal_has("SIGKILL seen by systemd", r"tierd\.service: Main process exited, code=killed, status=9/KILL")
c.journal_has("restart scheduled by Restart=on-failure", r"tierd\.service: Scheduled restart job")

# --- what the restarted tierd recovered -----------------------------------------------
second = c.status("second")
if second is not None:
    c.eq("second: status pid = new MainPID", str(second.get("pid")), second_pid)
    # The crashed instance's original, not the value it left applied.
    c.want_field("second", second, "kernel.numa_balancing.original", nb_boot)
    c.want_field("second", second, "kernel.numa_balancing.applied", nb_want)
    c.want_field("second", second, "workloads.count", 1)
c.eq("numa_balancing under the restarted tierd", c.get("nb_restarted"), nb_want)

after = c.doc("list_after", "workloads list after the restart")
if after is not None:
    listed = [w for w in after.get("workloads", []) if isinstance(w, dict)]
    c.eq("workloads after the restart (pids)", [str(w.get("pid")) for w in listed], [live])
    mine = [w for w in listed if str(w.get("pid")) == live]
    if mine and "live" in registered:
        c.eq("recovered workload: id", mine[0].get("id"), registered["live"].get("id"))
        c.eq("recovered workload: class", mine[0].get("class"), "online")
    dropped = [d for d in after.get("dropped", []) if isinstance(d, dict)
               and isinstance(d.get("workload"), dict) and str(d["workload"].get("pid")) == dead]
    if not dropped:
        c.fail("the workload that exited while tierd was down (pid %s) is not in dropped: %s"
               % (dead, tierdcheck.pretty(after.get("dropped"))))
    else:
        reason = dropped[-1].get("reason") or ""
        if "while tierd was down" not in reason:
            c.fail("dropped pid %s: reason %r lacks 'while tierd was down'" % (dead, reason))
        if "dead" in registered:
            c.eq("dropped workload: id", dropped[-1]["workload"].get("id"), registered["dead"].get("id"))

# --- stop after the crash ---------------------------------------------------------------
c.stopped_clean()
c.want("second_gone", "yes")

if not c.problems:
    c.note("tierd %s killed, restarted as %s; numa_balancing %s -> %s -> %s after stop" % (
        first_pid, second_pid, nb_boot, c.get("nb_restarted"), c.get("nb_after_stop")))
c.finish()
