#!/usr/bin/python3
"""faults_kill_systemd: the real tierd.service SIGKILLed at random points of
20 placement cycles, systemd restarting it (Restart=on-failure). Judged as
faults_kill (every restart lists the workloads from a loaded state file and
owns the knobs with their boot values as originals, pages moved, 0 bad
pages, knobs restored by `systemctl stop`), plus: systemd restarted tierd
after every kill (NRestarts = kills) within a bounded time, the unit ended
stopped cleanly, never start-limit-hit, under systemd's default start
limit (the unit sets none)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

CYCLES = 20
# About 9 move cycles in 20; measured runs had most of them land mid-move.
MIN_MOVING_KILLS = 2
# RestartSec=2s plus a start in the guest (~1-3 s measured); far above that
# is a restart that did not come by itself in time.
RESTART_LIMIT_S = 30

kill = vmcheck.scenario_check("faults_kill")
c = vmcheck.Check("faults_kill_systemd")
t, cycles = kill.judge(c, CYCLES, ("move", "reload", "state"), MIN_MOVING_KILLS)
obs = kill.totals_of(c.file("obs.log"))
c.eq("start", obs.get("start_rc"), "0")
# The unit sets no start limit: systemd's defaults (5 in 10 s) hold.
c.eq("StartLimitBurst in force", obs.get("start_limit_burst"), "5")
c.eq("StartLimitIntervalUSec in force", obs.get("start_limit_interval_us"), "10s")
c.eq("RestartUSec", obs.get("restart_us"), "2s")
c.eq("NRestarts after the kills", t.get("nrestarts"), str(len(cycles)))
c.eq("result after the final stop", t.get("result_after_stop"), "success")
restarts = []
for f in cycles[1:]:  # the first cycle's tierd is the scenario's start
    value = f.get("restart_s")
    try:
        restarts.append(float(value))
    except (TypeError, ValueError):
        c.fail("cycle %s: no restart time (%s)" % (f.get("cycle"), value))
final = [line for line in c.file("cycles.txt").splitlines() if line.startswith("final ")]
if final:
    words = final[0].split()
    if "restart_s" in words:
        restarts.append(float(words[words.index("restart_s") + 1]))
if restarts:
    c.within("slowest restart by systemd (s)", max(restarts), 2.0, RESTART_LIMIT_S)
    c.note("restarts by systemd %.1f-%.1f s after the kill (median %.1f)" %
           (min(restarts), max(restarts), sorted(restarts)[len(restarts) // 2]))
journal = c.file("journal.txt")
if "start-limit-hit" in journal or "Start request repeated too quickly" in journal:
    c.fail("the unit hit systemd's start limit")
c.finish()
