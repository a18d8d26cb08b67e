#!/usr/bin/python3
"""systemd_unit: tierd as a Type=simple, Restart=on-failure unit. systemctl
start brings it up and it answers `tierctl topo --daemon` with the guest's
nodes; after `kill -9` systemd starts a new tierd (another PID, NRestarts
up by one) that answers too; systemctl stop leaves the unit inactive, the
process gone and no socket behind."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

c = vmcheck.Check("systemd_unit")
c.eq("exit status", c.rc(), 0)
log = {}
for line in c.file("unit.log").splitlines():
    key, _, value = line.partition(" ")
    log[key] = value.strip()


def want(key, value):
    c.eq(key, log.get(key), value)


want("start_rc", "0")
want("active_after_start", "active")
want("first_answered", "yes")
want("comm_first", "tierd")
want("kill_rc", "0")
want("first_gone", "yes")
want("second_answered", "yes")
want("active_after_kill", "active")
want("stop_rc", "0")
want("active_after_stop", "inactive")
want("second_gone", "yes")
want("socket_after_stop", "absent")
# "success": systemd counts a stop it asked for as clean, whatever the kill
# before it; a tierd that died on SIGTERM would leave "signal" here.
want("result_after_stop", "success")

first, second = log.get("pid_first", "0"), log.get("pid_second", "0")
if first in ("", "0") or second in ("", "0") or first == second:
    c.fail("no restart seen: main PID %s before kill -9, %s after" % (first, second))
try:
    restarts = int(log["restarts_after"]) - int(log["restarts_before"])
    c.eq("NRestarts increase after kill -9", restarts, 1)
except (KeyError, ValueError):
    c.fail("NRestarts not read: %r / %r" % (log.get("restarts_before"), log.get("restarts_after")))

want_nodes = [n["id"] for n in c.expect["nodes"]]
for step in ("first", "second"):
    doc = c.json_output(step + ".json") if log.get(step + "_answered") == "yes" else None
    if isinstance(doc, dict):
        c.eq("%s answer: node ids" % step, [n.get("id") for n in doc.get("nodes", [])], want_nodes)
    elif log.get(step + "_answered") != "yes":
        c.fail("%s question: tierctl said %r" % (step, c.file(step + ".err").strip()[-300:]))

if not c.problems:
    c.note("tierd pid %s, killed, restarted as %s after %s polls" % (
        first, second, log.get("second_after_polls")))
c.finish()
