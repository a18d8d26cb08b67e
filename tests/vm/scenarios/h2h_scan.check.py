#!/usr/bin/python3
"""h2h_scan: one head-to-head run of the scan workload (workload A with a full scan
of its buffer every 15 s) under one contender: as h2h_a (hotset ran, verified every
page, a census every 1-8 s), and at least one scan was done. The figures are
printed; scripts/bench-placement.sh compares the contenders."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import h2hcheck  # noqa: E402
import vmcheck  # noqa: E402

c = vmcheck.Check("h2h_scan")
c.eq("exit status", c.rc(), 0)
s = h2hcheck.check_run(c, "scan")
done = next((d for d in h2hcheck.json_lines(c.file("scan.out")) if "accesses" in d), {})
if not done.get("scans"):
    c.fail("scan: no full scan was done (final line: %s)" % done)
c.note("%s; scans %s (%s s scanning)" % (h2hcheck.describe(s), done.get("scans"),
                                          done.get("scan_seconds")))
c.finish()
