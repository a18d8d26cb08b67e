#!/usr/bin/python3
"""Print the QEMU options for a topology file, one argument per line.

usage: qemu_topology.py TOPOLOGY.json [MACHINE_EXTRA]
MACHINE_EXTRA is appended to the -M value (e.g. ",cxl=on").
"""
import json
import sys


def args(topo, machine_extra=""):
    out = ["-M", topo["machine"] + machine_extra,
           "-smp", topo["smp"], "-m", topo["memory"]]
    for n in topo["nodes"]:
        nid = n["id"]
        out += ["-object", "memory-backend-ram,id=m%d,size=%s" % (nid, n["memory"])]
        node = "node,nodeid=%d,memdev=m%d" % (nid, nid)
        if "initiator" in n:
            node += ",initiator=%d" % n["initiator"]
        out += ["-numa", node]
    # CPUs by socket: -numa node,cpus= is deprecated in newer QEMU.
    for n in topo["nodes"]:
        if "socket" in n:
            out += ["-numa", "cpu,node-id=%d,socket-id=%d" % (n["id"], n["socket"])]
    for src, dst, val in topo["distances"]:
        out += ["-numa", "dist,src=%d,dst=%d,val=%d" % (src, dst, val)]
    for e in topo["hmat"]:
        pair = "hmat-lb,initiator=%d,target=%d,hierarchy=memory" % (
            e["initiator"], e["target"])
        out += ["-numa", pair + ",data-type=access-latency,latency=%d" % e["latency_ns"]]
        out += ["-numa", pair + ",data-type=access-bandwidth,bandwidth=%s" % e["bandwidth"]]
    return out


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        topo = json.load(f)
    print("\n".join(args(topo, sys.argv[2] if len(sys.argv) == 3 else "")))


if __name__ == "__main__":
    main()
