#!/usr/bin/python3
"""systemd_boot: PID 1 is systemd, the boot finished (`systemctl
is-system-running` says running, or degraded with the failed units named),
the guest has the topology's nodes, and `tierctl doctor --json` finds
systemd usable ("systemd": "ok")."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

c = vmcheck.Check("systemd_boot")
c.eq("exit status", c.rc(), 0)
c.eq("PID 1 name", c.file("pid1.comm").strip(), "systemd")
exe = c.file("pid1.exe").strip()
if os.path.basename(exe) != "systemd":
    c.fail("PID 1 runs %r, not a systemd binary" % exe)

state = c.file("system.state").strip()
failed = [line.split()[0] for line in c.file("failed.units").splitlines() if line.strip()]
if c.allowed("systemctl is-system-running --wait", state, ["running", "degraded"]):
    if state == "degraded":
        c.note("degraded, failed units: " + (" ".join(failed) or "none listed"))
    else:
        c.note("running")
if state == "degraded" and not failed:
    c.fail("state degraded but no failed unit listed")

# "Startup finished in 6.1s (kernel) + 31.9s (userspace) = 38.0s ..."
startup = c.file("analyze.time").strip().splitlines()
if startup:
    c.note(startup[0].replace("Startup finished in ", "boot: "))

want_nodes = [n["id"] for n in c.expect["nodes"]]
c.eq("online nodes", vmcheck.parse_cpulist(c.file("nodes.online")), want_nodes)
c.eq("online nodes (facts)", c.facts.nodes(), want_nodes)

doc = c.json_output("doctor.json")
if isinstance(doc, dict):
    checks = {k.get("name"): k for k in doc.get("checks", []) if isinstance(k, dict)}
    sd = checks.get("systemd")
    if sd is None:
        c.fail("tierctl doctor has no 'systemd' check")
    elif c.eq("doctor systemd status", sd.get("status"), "ok"):
        c.note("doctor: " + str(sd.get("detail")))
c.finish()
