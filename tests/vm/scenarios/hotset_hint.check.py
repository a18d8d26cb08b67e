#!/usr/bin/python3
"""hotset_hint: NUMA hint faults without migration, the mechanism behind the
bpf-fault heat source. hotset's 256 MiB on node 2 under
MPOL_BIND|MPOL_F_NUMA_BALANCING, a 32 MiB hot set read from node 0's CPUs,
numa_balancing=2 with a fast scanner for 20 s: numa_hint_faults rises by at
least one pass over the hot set, nothing is promoted or migrated, every page
is still on node 2 (numa_maps and hotset's own query), the truth file holds
the hot set, every page verifies, and every knob is restored."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import heatcheck  # noqa: E402

MIB = 1 << 20
SIZE, HOT = 256 * MIB, 32 * MIB
PAGES, HOT_PAGES = SIZE // heatcheck.PAGE, HOT // heatcheck.PAGE

c = heatcheck.new_check("hotset_hint")
c.eq("exit status", c.rc(), 0)
ready, done = heatcheck.check_hotset(c, SIZE, HOT, {"2": PAGES})
if ready:
    c.eq("policy set through", ready.get("policy_method"), "mbind")
heatcheck.truth(c, ready, 1)
nodes, policy = heatcheck.buffer_nodes(c, ready)
if nodes is not None:
    c.eq("numa_maps: buffer pages per node", nodes, {2: PAGES})
    c.eq("numa_maps: buffer policy", policy, ["bind=balancing:2"])
faults = heatcheck.vmstat_delta(c, "numa_hint_faults")
heatcheck.at_least(c, "numa_hint_faults during 20 s (one pass over the hot set)", faults, HOT_PAGES)
c.eq("pgpromote_success during 20 s", heatcheck.vmstat_delta(c, "pgpromote_success"), 0)
c.eq("numa_pages_migrated during 20 s", heatcheck.vmstat_delta(c, "numa_pages_migrated"), 0)
heatcheck.knobs_restored(c)
if done:
    c.note("%s hint faults in 20 s (%.1f passes over the %d hot pages), %s accesses/s" % (
        faults, (faults or 0) / HOT_PAGES, HOT_PAGES, done.get("accesses_per_s")))
c.finish()
