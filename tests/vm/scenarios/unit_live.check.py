#!/usr/bin/python3
"""unit_live: the live DAMON and soft-dirty unit tests ran in the guest,
none skipped, all passed (gtest's JSON report, not the exit status alone:
a skipped test exits 0 too)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

# The live cases that must run here; a renamed or removed one fails this
# check instead of silently running nowhere again.
WANTED = {
    "heat_kernel.json": ["DamonSource.LiveMonitorsThisProcess",
                         "SoftDirtySource.LiveSeesThisProcessWrites"],
}

c = vmcheck.Check("unit_live")
c.eq("exit status", c.rc(), 0)
for report, names in WANTED.items():
    doc = c.json_output(report)
    if doc is None:
        continue
    seen = {}
    for suite in doc.get("testsuites", []):
        for test in suite.get("testsuite", []):
            seen["%s.%s" % (suite.get("name"), test.get("name"))] = test
    for name in names:
        test = seen.get(name)
        if test is None:
            c.fail("%s: %s did not run (ran: %s)" % (report, name, ", ".join(sorted(seen)) or "none"))
        elif test.get("result") != "COMPLETED" or test.get("status") != "RUN":
            c.fail("%s: %s was %s/%s, not run to the end" % (report, name, test.get("status"),
                                                             test.get("result")))
        elif test.get("failures"):
            c.fail("%s: %s failed: %s" % (report, name, test["failures"][0].get("failure", "")[:400]))
        else:
            c.note("%s passed in %s" % (name, test.get("time")))
c.finish()
