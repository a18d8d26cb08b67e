#!/usr/bin/python3
"""discover_systemd: the shipped tierd.service on the embedded default
configuration (as /etc/tier/tierd.toml), under systemd as PID 1, 50
transient services nobody registered (guest/discover.sh,
lib/discovercheck.py): what discover_default wants, with each sizeable
service found as its leaf cgroup; the unit started and stopped with
Result=success; the knobs the same before, during and after."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import discovercheck  # noqa: E402
import vmcheck  # noqa: E402

c = vmcheck.Check("discover_systemd")
c.eq("unit started", "start_rc 0" in c.file("obs.log"), True)
c.eq("unit's result after stop", c.file("tierd.result").strip(), "success")
status = discovercheck.check_run(c)
if status is not None:
    c.eq("configuration", status.get("config", {}).get("origin"), "/etc/tier/tierd.toml")
    c.eq("discovery by cgroup", status.get("discovery", {}).get("by_cgroup"), True)
c.finish()
