#!/usr/bin/python3
"""systemd_service: the real daemon/tierd.service (only ExecStart's path
rewritten) under systemd. Its sandbox lets tierd write the kernel knobs it
owns and its state directory, and nothing else probed; `systemctl start`
returns after READY=1 (active, `tierctl status` answers at the first try,
StatusText is tierd's); numa_balancing is the configured value while tierd
runs; `systemctl reload` applies a changed tick_ms and log_level (status
shows them, same PID); a reload with an unknown key keeps them, the unit
stays active and the journal names file:line:key; `systemctl stop` leaves
the unit inactive/success, the socket gone and numa_balancing at its boot
value."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import tierdcheck  # noqa: E402

c = tierdcheck.TierdCheck("systemd_service")
c.eq("exit status", c.rc(), 0)
nb_boot, nb_want = c.get("nb_boot"), c.get("nb_want")

# --- the unit as shipped, and its sandbox ------------------------------------
c.unit_as_shipped()
c.want("probe_start_rc", "0")
for knob in ("numa_balancing_promote_rate_limit_MBps", "demotion_enabled"):
    c.want("probe_" + knob, "ok")
# "ok": the write got through ReadWritePaths= (the mount) AND the kernel's own
# permission check: numa_balancing's sysctl handler demands CAP_SYS_ADMIN. The
# second probe (the same sandbox plus CAP_SYS_ADMIN) tells the two apart.
if c.get("probe_numa_balancing") != "ok":
    mount = [l for l in c.file("started.mounts").splitlines()
             if l.startswith("/proc/sys/kernel/numa_balancing ")]
    if c.get("probe_sysadmin_numa_balancing") == "ok":
        c.fail("tierd.service cannot write /proc/sys/kernel/numa_balancing (%s) though the path "
               "is writable (%s): CapabilityBoundingSet= lacks CAP_SYS_ADMIN, which the "
               "kernel's handler requires; with it the write succeeds (docs/systemd.md)"
               % (c.get("probe_numa_balancing"), mount[0] if mount else "mount not seen"))
    else:
        c.fail("tierd.service cannot write /proc/sys/kernel/numa_balancing: %s (with "
               "CAP_SYS_ADMIN: %s; mount: %s)" % (c.get("probe_numa_balancing"),
                                                 c.get("probe_sysadmin_numa_balancing"), mount))
c.want("probe_state_dir", "ok")
# The protections themselves: a sysctl tier does not own stays read-only,
# and so does the configuration directory.
c.want_in("probe_swappiness", "failed")
c.want_in("probe_config_dir", "failed")

# --- start: READY=1 before `systemctl start` returns ------------------------
c.spec_config()
c.want("start_rc", "0")
c.want("active_after_start", "active")
c.want("comm_started", "tierd")
c.want("started_topo_answered", "yes")
c.want_in("status_text_started", "serving on /run/tier/tierd.sock")
c.eq("numa_balancing while tierd runs", c.get("nb_running"), nb_want)
c.want("started_no_new_privs", "1")
c.want("started_seccomp", "2")
try:
    eff = int(c.get("started_cap_eff") or "", 16)
    want_caps = tierdcheck.unit_capabilities()
    got_caps = {b for b in range(64) if eff >> b & 1}
    if got_caps != want_caps:
        c.fail("tierd's effective capabilities %s, the unit's bounding set %s" % (
            tierdcheck.cap_names(eff), sorted(tierdcheck.cap_names(sum(1 << b for b in want_caps)))))
except ValueError:
    c.fail("CapEff of tierd not read: %r" % c.get("started_cap_eff"))

started = c.status("started")
if started is not None:
    c.eq("started: status pid = MainPID", str(started.get("pid")), c.get("pid_started"))
    c.want_field("started", started, "state", "running")
    c.want_field("started", started, "config.tick_ms", 1000)
    c.want_field("started", started, "config.log_level", "info")
    c.want_field("started", started, "kernel.numa_balancing.original", nb_boot)
    c.want_field("started", started, "kernel.numa_balancing.applied", nb_want)

# --- reload with a changed file ----------------------------------------------
c.want("reload_rc", "0")
c.want("reload_status_text_changed", "yes")
c.want_in("status_text_reloaded", "configuration reloaded")
c.want("active_after_reload", "active")
c.same("PID kept across reload", "pid_started", "pid_reloaded")
c.journal_has("log_level change logged", r"reload: daemon\.log_level: info -> debug")
reloaded = c.status("reloaded")
if reloaded is not None:
    c.want_field("reloaded", reloaded, "pid", int(c.get("pid_started") or 0))
    c.want_field("reloaded", reloaded, "config.tick_ms", 500)
    c.want_field("reloaded", reloaded, "config.log_level", "debug")
    c.want_field("reloaded", reloaded, "last_reload.ok", True)

# --- reload with an unknown key: nothing changes ---------------------------------
c.want("badreload_rc", "0")
c.want("badreload_status_text_changed", "yes")
c.want_in("status_text_badreload", "reload failed")
c.want("active_after_badreload", "active")
c.same("PID kept across the bad reload", "pid_started", "pid_badreload")
where = "/etc/tier/tierd.toml:%s: key 'daemon.no_such_key'" % c.get("bad_line")
c.want_in("status_text_badreload", where)
c.journal_has("file:line:key of the bad reload", re.escape(where))
bad = c.status("badreload")
if bad is not None:
    c.want_field("badreload", bad, "config.tick_ms", 500)
    c.want_field("badreload", bad, "config.log_level", "debug")
    c.want_field("badreload", bad, "last_reload.ok", False)
c.eq("numa_balancing after the reloads", c.get("nb_after_reloads"), nb_want)

# --- stop ------------------------------------------------------------------------
c.stopped_clean()
c.want("process_gone_after_stop", "yes")

if not c.problems:
    c.note("start %ss, numa_balancing %s -> %s -> %s, reload and bad reload on pid %s" % (
        c.get("start_seconds"), nb_boot, c.get("nb_running"), c.get("nb_after_stop"),
        c.get("pid_started")))
c.finish()
