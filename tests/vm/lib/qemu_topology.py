#!/usr/bin/python3
"""Print the QEMU options for a topology file, one argument per line.

usage: qemu_topology.py TOPOLOGY.json [MACHINE_EXTRA]
       qemu_topology.py --plugin-layout TOPOLOGY.json
MACHINE_EXTRA is appended to the -M value (e.g. ",cxl=on").
--plugin-layout prints the latency plugin's memory layout instead
(tests/vm/plugin/model.h): each node's guest-physical ranges, each socket
node's vCPUs, and the HMAT latency/bandwidth of every pair.
"""
import json
import re
import sys

GIB = 1 << 30
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def size_bytes(text):
    """QEMU's size syntax: "1G", "512M", "4096" (binary units)."""
    m = re.fullmatch(r"(\d+)([KMGT]?)", str(text))
    if not m:
        raise ValueError("size '%s': expected digits with K, M, G or T" % text)
    return int(m.group(1)) * UNITS[m.group(2)]


def q35_split(ram):
    """RAM below 4 GiB on q35 (QEMU 7.2 and 10, hw/i386/pc_q35.c): 2 GiB when
    the machine has 2.75 GiB or more (the rest is the PCI hole), else all of
    it up to 2.75 GiB; the remainder starts at 4 GiB."""
    return 0x80000000 if ram >= 0xB0000000 else min(ram, 0xB0000000)


def ram_ranges(offset, size, lowmem):
    """Guest-physical ranges of [offset, offset + size) of the RAM space."""
    out = []
    if offset < lowmem:
        end = min(offset + size, lowmem)
        out.append((offset, end))
        size -= end - offset
        offset = end
    if size > 0:
        start = 4 * GIB + (offset - lowmem)
        out.append((start, start + size))
    return out


def plugin_layout(topo):
    """The plugin's layout: nodes take RAM in node order (QEMU's NUMA memory
    is laid out that way), mapped through the q35 split; vCPUs by socket,
    the -smp cores (and threads) of each socket in order."""
    if not topo["machine"].startswith("q35"):
        raise ValueError("machine '%s': the layout knows q35 only" % topo["machine"])
    smp = dict(kv.split("=") for kv in topo["smp"].split(",")[1:])
    per_socket = int(smp.get("cores", 1)) * int(smp.get("threads", 1))
    total = sum(size_bytes(n["memory"]) for n in topo["nodes"])
    if total != size_bytes(topo["memory"]):
        raise ValueError("nodes hold %d bytes, memory is %s" % (total, topo["memory"]))
    lowmem = q35_split(total)
    cpus, ranges, offset = [], [], 0
    for n in sorted(topo["nodes"], key=lambda n: n["id"]):
        if "socket" in n:
            first = n["socket"] * per_socket
            cpus.append("cpus %d %d-%d" % (n["id"], first, first + per_socket - 1))
        size = size_bytes(n["memory"])
        ranges += [(start, end, n["id"]) for start, end in ram_ranges(offset, size, lowmem)]
        offset += size
    hmat = ["hmat %d %d %d %d" % (e["initiator"], e["target"], e["latency_ns"],
                                  size_bytes(e["bandwidth"])) for e in topo["hmat"]]
    # The plugin wants ranges in address order.
    return (["# tier latency-model layout (lib/qemu_topology.py --plugin-layout)"] + cpus +
            ["range %d 0x%x 0x%x" % (node, start, end) for start, end, node in sorted(ranges)] +
            hmat)


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
    if len(sys.argv) == 3 and sys.argv[1] == "--plugin-layout":
        with open(sys.argv[2], encoding="utf-8") as f:
            topo = json.load(f)
        try:
            print("\n".join(plugin_layout(topo)))
        except (ValueError, KeyError) as e:
            sys.exit("qemu_topology.py: %s: %s" % (sys.argv[2], e))
        return
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        topo = json.load(f)
    print("\n".join(args(topo, sys.argv[2] if len(sys.argv) == 3 else "")))


if __name__ == "__main__":
    main()
