#!/usr/bin/python3
"""fidelity: with the latency model (mode model) the guest's own tools see the
configured HMAT table; without it (mode numa) they see flat memory.

model mode:
  - the plugin calibrated at setup (t0, tline > 0, charging on), every RAM
    access it saw mapped to a node (unmapped = 0), all four nodes reached;
  - tierctl bench: for every (CPU node -> memory node) pair, latency / local
    latency within +-15 % of HMAT's ratio, local read bandwidth / the pair's
    within +-20 % of HMAT's;
  - loaded latency rises with load: with node 0 half used by two streams
    from the other socket, the chaser's latency at the sweep's full load
    (delay 0) at least 1.15x its idle point (measured 1.21-1.49x), and the
    loaders' bandwidth above the first loaded point's;
  - hotset with its hot set on node 0 runs at least 2x the accesses/s of the
    same hot set on node 2;
  - a writer stalling on node 3 from CPU 0 leaves hotset on CPU 2 at least
    0.6 of its speed alone (a stall shared by every vCPU would cost more
    than the writer's stall share, ~0.75, of it).
numa mode: the same ratios flat: every latency and bandwidth ratio and the
hotset speed-up under 1.3 (HMAT's smallest ratio is 1.75)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

LATENCY_TOLERANCE = 0.15
BANDWIDTH_TOLERANCE = 0.20
FLAT_LIMIT = 1.3
FIRMWARE = (0xFF000000, 0xFFFFFFFF)  # QEMU's pc.bios flash, the top 16 MiB below 4 GiB

c = vmcheck.Check("fidelity")
c.eq("exit status", c.rc(), 0)
modelled = c.mode == "model"
bench = c.json_output("bench.json")
loaded = c.json_output("loaded.json")


def hotset_summary(name):
    """hotset prints one JSON object per line; the last is its summary."""
    lines = [line for line in c.file(name + ".json").splitlines() if line.strip()]
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError) as e:
        c.fail("%s.json: no JSON summary line (%s): %s" % (name, e, lines[-1:]))
        return None


runs = {name: hotset_summary(name) for name in
        (["hot0", "hot2", "alone", "beside", "hog"] if modelled else ["hot0", "hot2"])}
if bench is None or loaded is None or None in runs.values():
    c.finish()

hmat = vmcheck.configured_hmat(c.topology)
inits, targets = bench["initiators"], bench["targets"]
lat = bench["latency_ns"]
bw = bench["bandwidth_mbps"]["read"]


def ratio(a, b):
    return a / b if a and b else None


for i, init in enumerate(inits):
    local = targets.index(init)
    for j, target in enumerate(targets):
        if target == init:
            continue
        pair = "%d->%d" % (init, target)
        got_lat = ratio(lat[i][j], lat[i][local])
        got_bw = ratio(bw[i][local], bw[i][j])
        want_lat = ratio(hmat[(init, target)]["read_latency_ns"],
                         hmat[(init, init)]["read_latency_ns"])
        want_bw = ratio(hmat[(init, init)]["read_bandwidth_mbps"],
                        hmat[(init, target)]["read_bandwidth_mbps"])
        c.note("%s latency x%.2f (HMAT x%.2f), bandwidth /%.2f (HMAT /%.2f)" %
               (pair, got_lat or 0, want_lat, got_bw or 0, want_bw))
        if modelled:
            c.within("%s latency ratio to local (HMAT %.2f)" % (pair, want_lat), got_lat,
                     want_lat * (1 - LATENCY_TOLERANCE), want_lat * (1 + LATENCY_TOLERANCE))
            c.within("%s local/pair read bandwidth ratio (HMAT %.2f)" % (pair, want_bw), got_bw,
                     want_bw * (1 - BANDWIDTH_TOLERANCE), want_bw * (1 + BANDWIDTH_TOLERANCE))
        else:
            c.within("%s latency ratio to local without the model" % pair, got_lat, 0,
                     FLAT_LIMIT)
            c.within("%s local/pair bandwidth ratio without the model" % pair, got_bw, 0,
                     FLAT_LIMIT)

for name, run in runs.items():
    c.eq("hotset %s verified" % name, run.get("verified"), True)
    c.eq("hotset %s bad pages" % name, run.get("bad_pages"), 0)
speedup = ratio(runs["hot0"].get("accesses_per_s"), runs["hot2"].get("accesses_per_s"))
c.note("hotset hot set on node 0 vs node 2: x%.2f" % (speedup or 0))
if modelled:
    c.within("hotset accesses/s, hot set on node 0 over node 2", speedup, 2.0, float("inf"))
else:
    c.within("hotset accesses/s, node 0 over node 2, without the model", speedup, 0, FLAT_LIMIT)

points = (loaded.get("loaded") or [{}])[0].get("points") or []
if len(points) < 2:
    c.fail("loaded latency: %d points, want the sweep (%s)" % (len(points), json.dumps(points)))
else:
    idle, full = points[0], points[-1]
    c.note("loaded latency %.0f ns idle -> %.0f ns at %.0f MB/s (delay %s)" %
           (idle["latency_ns"], full["latency_ns"], full["bandwidth_mbps"], full["delay"]))
    if modelled:
        c.within("loaded latency at full load over idle", ratio(full["latency_ns"],
                 idle["latency_ns"]), 1.15, float("inf"))
        c.within("loaders' bandwidth at full load (MB/s)", full["bandwidth_mbps"],
                 points[1]["bandwidth_mbps"] * 1.01, float("inf"))

if modelled:
    keep = ratio(runs["beside"].get("accesses_per_s"), runs["alone"].get("accesses_per_s"))
    c.note("hotset on CPU 2 beside the writer on CPU 0: x%.2f of alone" % (keep or 0))
    c.within("hotset on CPU 2 beside a stalling writer on CPU 0, over alone", keep, 0.6,
             float("inf"))
    c.note("calibration: %s" % ", ".join(c.file("../_setup/stdout").strip().splitlines()))
    counters_path = os.path.join(c.args.out, "..", "model-counters.json")
    try:
        with open(counters_path, encoding="utf-8") as f:
            counters = json.load(f)
    except (OSError, ValueError) as e:
        c.fail("the plugin's counters %s: %s" % (counters_path, e))
        c.finish()
    c.eq("plugin charging", counters["charging"], True)
    for cal in counters["calibration"]:
        c.within("plugin's node %d t0 (ns)" % cal["node"], cal["t0_ns"], 1, 1e5)
        c.within("plugin's node %d tline (ns)" % cal["node"], cal["tline_ns"], 1, 1e5)
    reached = set()
    for v in counters["vcpus"]:
        # Outside every node's range is only the firmware's flash, mapped
        # just below 4 GiB (pc.bios): every RAM address maps to its node.
        if v["unmapped"]:
            c.within("vCPU %d lowest address outside every node" % v["vcpu"], v["unmapped_min"],
                     FIRMWARE[0], FIRMWARE[1])
            c.within("vCPU %d highest address outside every node" % v["vcpu"], v["unmapped_max"],
                     FIRMWARE[0], FIRMWARE[1])
        reached |= {n["node"] for n in v["nodes"] if n["misses"] > 0}
    c.eq("nodes the guest's misses reached", sorted(reached), targets)
c.finish()
