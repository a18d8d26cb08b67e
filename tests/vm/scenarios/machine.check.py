#!/usr/bin/python3
"""machine: the guest's sysfs matches the recorded ground truth (expect/MODE.json)
and the configured QEMU topology, converted to the kernel's units."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

c = vmcheck.Check("machine")
f, x = c.facts, c.expect

release = (f.read("/proc/version", "").split() + ["?"] * 3)[2]
if not release.startswith(c.kernel + "."):
    c.fail("guest kernel %s is not a %s kernel" % (release, c.kernel))

c.eq("online nodes", f.nodes(), [n["id"] for n in x["nodes"]])
for n in x["nodes"]:
    nid = n["id"]
    c.eq("node%d cpus" % nid, f.cpus(nid), n["cpus"])
    lo, hi = n["memory_bytes_range"]
    c.within("node%d MemTotal bytes" % nid, f.mem_total_bytes(nid), lo, hi)
    free = re.search(r"node%d MemFree: *(\d+) kB" % nid, c.file("stdout"))
    if not free or int(free.group(1)) == 0:
        c.fail("node%d has no free memory in the guest" % nid)

c.eq("SLIT distances", {"nodes": f.nodes(), "matrix": [f.distance_row(n) for n in f.nodes()]},
     x["distances"])
c.eq("HMAT in sysfs", f.hmat(), x["hmat"])
c.eq("kernel memory tiers", f.memory_tiers(), x["memory_tiers"])

# The recorded HMAT figures are what QEMU was told, after unit conversion:
# this is what pins the conversion (latency ns -> ns, G bytes/s -> MB/s).
configured = vmcheck.configured_hmat(c.topology)
for e in x["hmat"]:
    want = configured.get((e["initiator"], e["target"]))
    if want is None:
        c.fail("HMAT entry %d->%d is not in the topology file" % (e["initiator"], e["target"]))
        continue
    got = {k: e[k] for k in want}
    c.eq("HMAT %d->%d vs topology" % (e["initiator"], e["target"]), got, want)

# Where CPU-less memory comes from: dax devices onlined by kmem, per bus.
c.eq("memory devices", f.memory_devices(), x.get("memory_devices", []))
for d in x.get("memory_devices", []):
    if d["bus"] == "cxl":
        region = "/sys/bus/cxl/devices/" + d["region"]
        c.eq("%s commit" % d["region"], f.read(region + "/commit"), "1")
    if d["bus"] == "nd" and "Persistent Memory (legacy)" not in f.read("/proc/iomem", ""):
        c.fail("no legacy pmem range in /proc/iomem")

c.note("kernel %s, %d nodes, tiers %s" % (release, len(f.nodes()), " ".join(
    "%d:%s" % (t["id"], ",".join(map(str, t["nodes"]))) for t in f.memory_tiers())))
c.finish()
