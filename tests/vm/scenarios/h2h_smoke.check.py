#!/usr/bin/python3
"""h2h_smoke: the direction of the head-to-head, in make vmtest. The same
shortened workload A ran twice in one boot, under no tiering and under tierd
(policy balanced, kernel_tiering = "own"): both hotsets exited 0 and verified,
took their censuses; with no tiering none of the workload's pages moved;
under balanced the access-weighted fast-tier share at the end exceeds no
tiering's by at least MARGIN, and pages moved (/proc/vmstat pgmigrate_success
rose, and the workload's own census saw pages change node).
Exit status 127 from the guest: tierd has no kernel_tiering yet."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import h2hcheck  # noqa: E402
import vmcheck  # noqa: E402

SECONDS = 30
# none stays at 0 (every page on node 2, nothing moves); a policy that
# promotes the hot set reaches most of the oracle's share (1.0 here: node 0
# holds the whole hot set) within 30 s.
MARGIN = 0.3

c = vmcheck.Check("h2h_smoke")
c.eq("exit status", c.rc(), 0)
if c.rc() == 127:
    c.finish()
none = h2hcheck.check_run(c, "none", SECONDS)
bal = h2hcheck.check_run(c, "balanced", SECONDS)
c.eq("none: contender", none["contender"], "none")
c.eq("balanced: contender", bal["contender"], "tierd-balanced")
c.eq("none: workload pages that changed node", none["end_moved_pages"], 0)
if none["end_share"] is None or bal["end_share"] is None:
    c.fail("no final share (none %s, balanced %s)" % (none["end_share"], bal["end_share"]))
elif bal["end_share"] < none["end_share"] + MARGIN:
    c.fail("balanced's fast-tier share at the end %.3f is not above none's %.3f + %.2f "
           "(oracle %s)" % (bal["end_share"], none["end_share"], MARGIN, bal["end_oracle"]))
moved = bal["moved_bytes"]
if not moved:
    c.fail("balanced: no bytes migrated (pgmigrate_success delta %s)" % moved)
if not bal["end_moved_pages"]:
    c.fail("balanced: the workload's census saw no page change node (%s)"
           % bal["end_moved_pages"])
c.note(h2hcheck.describe(none))
c.note(h2hcheck.describe(bal))
c.finish()
