#!/usr/bin/python3
"""discover_default: tierd on no configuration file (its embedded default:
balanced, coexist, discover auto), 50 processes nobody registered
(guest/discover.sh, lib/discovercheck.py):
  - status: policy balanced, kernel_tiering coexist and why, discovery auto
    and active;
  - the five sizeable processes are discovered workloads, no small one is;
  - each hot set ends >= 0.9 on the fast nodes (its own census), tierd
    promoted some of it; tierd demoted cold data and some of it is on the
    slow nodes at the end;
  - every small process's pages are where it put them, every process's
    data verified;
  - the kernel's knobs the same before, during and after (coexist changes
    nothing), tierd exited 0."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import discovercheck  # noqa: E402
import vmcheck  # noqa: E402

c = vmcheck.Check("discover_default")
c.eq("tierd exit status", c.file("tierd.rc").strip(), "0")
discovercheck.check_run(c)
c.finish()
