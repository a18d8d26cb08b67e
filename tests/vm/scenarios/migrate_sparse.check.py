#!/usr/bin/python3
"""migrate_sparse: tier-touch's 16 MiB buffer inside a 4 GiB reservation (one
VMA, a sparse mapping) was first-touched on node 2 (numa_maps.before: that
VMA holds exactly the buffer's pages, all on node 2). `tierctl migrate --pid
P --from 2 --to 0` without --range listed and moved every one of them
(requested == moved == the buffer's pages, nothing failed, no "sparse
mapping" warning); numa_maps.after puts them on node 0 and tier-touch's own
query and verification agree (bad_pages 0)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

migrate = vmcheck.scenario_check("migrate")


def vma_of(vmas, addr):
    """The numa_maps line whose mapping holds addr (the last start <= addr)."""
    below = [v for v in vmas if v["start"] <= addr]
    return max(below, key=lambda v: v["start"]) if below else None


c = vmcheck.Check("migrate_sparse")
c.eq("exit status", c.rc(), 0)
start, verifies = migrate.touch_docs(c)
if start is None:
    c.finish()
pages, page_size = start["pages"], start["page_size"]
addr = int(start["addr"], 16)
c.eq("tier-touch first touch on node 2", start.get("resident"), {"2": pages})

before = vma_of(migrate.parse_numa_maps(c.file("numa_maps.before")), addr)
if before is None:
    c.fail("numa_maps.before has no mapping holding the buffer %#x" % addr)
else:
    c.eq("numa_maps.before: the reservation's pages", before["nodes"], {2: pages})
    if addr - before["start"] < (1 << 30):
        c.fail("the buffer starts %d MiB into its mapping: not the middle of a 4 GiB reservation"
               % ((addr - before["start"]) >> 20))

c.eq("tierctl migrate exit status", c.file("migrate.rc").strip(), "0")
warnings = [line for line in c.file("migrate.err").splitlines() if "sparse mapping" in line]
c.eq("migrate's warnings about sparse mappings", warnings, [])
doc = migrate.load_json_file(c, "migrate.json", "tierctl migrate --json")
if doc:
    migrate.check_migrate_doc(c, doc, pages, page_size)

after = vma_of(migrate.parse_numa_maps(c.file("numa_maps.after")), addr)
if after is None:
    c.fail("numa_maps.after has no mapping holding the buffer")
else:
    c.eq("numa_maps.after: the reservation's pages", after["nodes"], {0: pages})

if not verifies:
    c.fail("tier-touch never answered SIGUSR1")
else:
    c.eq("verified", verifies[-1].get("verified"), True)
    c.eq("bad_pages", verifies[-1].get("bad_pages"), 0)
    c.eq("tier-touch's own residency query", verifies[-1].get("nodes"), {"0": pages})
c.note("kernel %s: %d pages of a %d MiB buffer in a 4 GiB reservation moved 2 -> 0 in %.3f s, "
       "no range given" % (c.file("kernel.txt").strip(), (doc or {}).get("moved_pages", 0),
                           pages * page_size >> 20, (doc or {}).get("seconds", 0)))
c.finish()
