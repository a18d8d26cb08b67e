#!/usr/bin/python3
"""heat_kernel_migrations: while the kernel's own tiering (numa_balancing=2)
promotes hotset's moving hot set from node 2 to node 0, `tierctl heat`
counts those migrations through its eBPF mm_migrate_pages program: at
least one phase's hot set (8192 pages) as numa_misplaced, and no more than
/proc/vmstat's numa_pages_migrated over a window that encloses tierctl's.
Its run time per CPU node puts hotset on node 0: its two worker threads are
pinned to node 0's CPUs (only the mostly sleeping main thread may run
elsewhere), so >= 99% of the time, and at least 5 s of it. Data verified,
knobs restored."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import heatcheck  # noqa: E402

MIB = 1 << 20
SIZE, HOT = 128 * MIB, 32 * MIB
PHASE_PAGES = HOT // heatcheck.PAGE

c = heatcheck.new_check("heat_kernel_migrations")
c.eq("exit status", c.rc(), 0)
if c.rc() == 127:
    c.finish()
heatcheck.check_hotset(c, SIZE, HOT, {"2": SIZE // heatcheck.PAGE}, kept=False)
doc = heatcheck.heat_doc(c)
heatcheck.knobs_restored(c)
migrated = heatcheck.vmstat_delta(c, "numa_pages_migrated")
kernel = (doc or {}).get("kernel")
if not isinstance(kernel, dict):
    c.fail("tierctl heat JSON has no 'kernel' object: %s" % (doc or {}).get("kernel"))
else:
    c.eq("migrations watched (no error)", kernel.get("migrations_error"), "")
    counted = (kernel.get("migrated_by_reason") or {}).get("numa_misplaced", 0)
    heatcheck.at_least(c, "numa_misplaced pages counted by tier", counted, PHASE_PAGES)
    if migrated is not None and counted > migrated:
        c.fail("tier counted %d numa_misplaced pages, more than vmstat's %d over a wider window"
               % (counted, migrated))
    run = {r.get("node"): r.get("ms") for r in kernel.get("run_time_ms_by_node") or []}
    total = sum(v for v in run.values() if isinstance(v, (int, float)))
    heatcheck.at_least(c, "share of run time on node 0", run.get(0, 0) / total if total else 0,
                       0.99)
    heatcheck.at_least(c, "run time on node 0 (ms, 2 threads x 15 s)", run.get(0, 0), 5000)
    # The programs watch from their attach to the read, a little longer than
    # the 15 s of sampling (loading BPF under TCG takes a while): at most the
    # two workers plus the main thread for that whole window.
    window_ms = 1000 * (kernel.get("seconds") or 0)
    if total > 3 * window_ms:
        c.fail("run time %.0f ms is more than 3 threads x the %.0f ms window" % (total, window_ms))
    c.note("kernel migrations: tier counted %s numa_misplaced (%s pages in all, by reason %s), "
           "vmstat numa_pages_migrated +%s; run time %s ms on node 0 in a %.1f s window, hook %s"
           % (counted, kernel.get("migrated_pages"), kernel.get("migrated_by_reason"), migrated,
              run.get(0), kernel.get("seconds") or 0, kernel.get("migrations_hook")))
c.finish()
