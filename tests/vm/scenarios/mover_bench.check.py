#!/usr/bin/python3
"""mover_bench: PageMover (tierctl migrate) vs the kernel's migrate_pages(2)
(one call, as numactl's migratepages makes), each moving a 64 MiB tier-touch buffer from node 2
to node 0 in the same guest, seven interleaved rounds, each side's fastest round compared;
vs one move_pages(2) call per page (16 MiB); plus a --rate 20 run on
another 64 MiB buffer.

Asserts: every run moved the whole buffer (tier-touch's own residency query:
all on node 0) and the data verifies (the ratios to migrate_pages and to
naive are reported, not asserted: see below); the rate-limited run's reported mbps within +-10% of 20 and
consistent with its bytes_moved / seconds. All MB/s figures here are
10^6 bytes per second computed from bytes and seconds, each timed around its own syscalls (PageMover: its
bytes_moved and seconds; migrate_pages: tier-kernel-migrate's clock around
the one migrate_pages(2) call; naive: its own clock).
Writes the figures to out/mover_bench/results.json."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

mc = vmcheck.scenario_check("migrate")

RATE = 20.0
c = vmcheck.Check("mover_bench")
c.eq("exit status", c.rc(), 0)
if c.rc() == 127:
    c.finish()


def touch(tag):
    start, verifies = None, []
    for d in mc.json_lines(c.file("touch-%s.out" % tag)):
        if "pid" in d:
            start = d
        elif "verified" in d:
            verifies.append(d)
    if start is None:
        c.fail("%s: tier-touch did not start" % tag)
        return None
    c.eq("%s: first touch on node 2" % tag, start.get("resident"), {"2": start["pages"]})
    if not verifies:
        c.fail("%s: tier-touch did not verify" % tag)
    else:
        v = verifies[-1]
        c.eq("%s: verified" % tag, v.get("verified"), True)
        c.eq("%s: buffer residency after the move" % tag, v.get("nodes"), {"0": start["pages"]})
    return start


def uptime(name):
    try:
        return [float(x) for x in c.file(name + ".uptime").split()]
    except ValueError:
        return []


res = {"buffer_bytes": None, "unit": "MB/s = 10^6 bytes/s"}

ROUNDS = 7


def median(values):
    values = sorted(v for v in values if v)
    return values[len(values) // 2] if len(values) == ROUNDS else None


def fastest(values):
    """Noise under TCG only ever slows a run down: the fastest of the rounds
    is each mechanism's least disturbed figure. Both sides get the same
    treatment, and a side with a failed round gets no figure at all."""
    values = [v for v in values if v]
    return max(values) if len(values) == ROUNDS else None


def pagemover_round(r):
    st = touch("pagemover-%d" % r)
    c.eq("pagemover-%d: tierctl exit status" % r, c.file("pagemover-%d.rc" % r).strip(), "0")
    pm = mc.load_json_file(c, "pagemover-%d.json" % r, "tierctl migrate --json")
    if not (pm and st):
        return None
    mc.check_migrate_doc(c, pm, st["pages"], st["page_size"])
    res["buffer_bytes"] = st["size"]
    if not (isinstance(pm.get("seconds"), (int, float)) and pm["seconds"] > 0):
        return None
    u = uptime("pagemover-%d" % r)
    res["pagemover"]["rounds"].append({
        "mbps": pm.get("bytes_moved", 0) / pm["seconds"] / 1e6, "seconds": pm["seconds"],
        "reported_mbps": pm.get("mbps"),
        "wall_seconds_with_exec": round(u[1] - u[0], 2) if len(u) == 2 else None})
    return res["pagemover"]["rounds"][-1]["mbps"]


def migrate_pages_round(r):
    tag = "migrate_pages-%d" % r
    st = touch(tag)
    c.eq(tag + ": tier-kernel-migrate exit status", c.file(tag + ".rc").strip(), "0")
    mp = mc.load_json_file(c, tag + ".json", "tier-kernel-migrate")
    if not (st and mp):
        return None
    n2 = sum(int(x.split("=")[1]) for x in c.file(tag + ".n2_before").split())
    c.eq(tag + ": pages of the process on node 2 before (only the buffer)", n2, st["pages"])
    c.eq(tag + ": pages migrate_pages(2) could not move", mp.get("not_moved"), 0)
    secs = mp.get("seconds") or 0
    if secs <= 0:
        c.fail("%s: no timing" % tag)
        return None
    res["migrate_pages"]["rounds"].append({"mbps": st["size"] / secs / 1e6, "seconds": secs})
    return res["migrate_pages"]["rounds"][-1]["mbps"]


res["pagemover"] = {"rounds": []}
res["migrate_pages"] = {"rounds": []}
pm_all, mp_all = [], []
for r in range(1, ROUNDS + 1):
    pm_all.append(pagemover_round(r))
    mp_all.append(migrate_pages_round(r))
pm_mbps, mp_mbps = fastest(pm_all), fastest(mp_all)
res["pagemover"]["fastest_mbps"] = pm_mbps
res["migrate_pages"]["fastest_mbps"] = mp_mbps
res["pagemover"]["median_mbps"] = median(pm_all)
res["migrate_pages"]["median_mbps"] = median(mp_all)

# naive
st = touch("naive")
c.eq("naive exit status", c.file("naive.rc").strip(), "0")
nv = mc.load_json_file(c, "naive.json", "tier-naive-move")
nv_mbps = None
if nv and st:
    c.eq("naive: moved pages", nv.get("moved"), st["pages"])
    if nv.get("seconds", 0) > 0:
        nv_mbps = nv.get("bytes_moved", 0) / nv["seconds"] / 1e6
    res["naive"] = {"mbps": nv_mbps, "seconds": nv.get("seconds")}

# rate-limited
st = touch("rate")
c.eq("rate: tierctl exit status", c.file("rate.rc").strip(), "0")
rt = mc.load_json_file(c, "rate.json", "tierctl migrate --rate 20 --json")
if rt and st:
    mc.check_migrate_doc(c, rt, st["pages"], st["page_size"])
    rep = rt.get("mbps")
    secs = rt.get("seconds") or 0
    derived = {"10^6": rt.get("bytes_moved", 0) / secs / 1e6 if secs else None,
               "2^20": rt.get("bytes_moved", 0) / secs / 2**20 if secs else None}
    u = uptime("rate")
    res["rate"] = {"requested_mbps": RATE, "reported_mbps": rep, "seconds": secs,
                   "bytes_over_seconds": derived,
                   "wall_seconds_with_exec": round(u[1] - u[0], 2) if len(u) == 2 else None}
    if isinstance(rep, (int, float)):
        c.within("rate: reported mbps (want %g +-10%%)" % RATE, rep, RATE * 0.9, RATE * 1.1)
        if not any(d and abs(d - rep) <= 0.03 * rep for d in derived.values()):
            c.fail("rate: reported mbps %.2f matches neither bytes_moved/seconds in 10^6 (%s) "
                   "nor 2^20 (%s) bytes/s" % (rep, derived["10^6"], derived["2^20"]))

if pm_mbps and mp_mbps:
    # Reported, not asserted: PageMover and migrate_pages(2) do the same kernel
    # work per page and sit at parity within TCG's noise (fastest-round
    # ratios 0.88-1.20 recorded in docs/benchmarks.md), so a >= 0.9x gate
    # would fail at random. The 0.9x criterion is therefore open.
    res["pagemover_over_migrate_pages"] = pm_mbps / mp_mbps
    c.note("PageMover / migrate_pages(2) fastest rounds: %.2f (%s 0.9x)" % (
        pm_mbps / mp_mbps, "meets" if pm_mbps >= 0.9 * mp_mbps else "BELOW"))
if pm_mbps and nv_mbps:
    # Reported, not asserted, for the same reason: a ratio of two timings of
    # the emulator. Recorded PageMover / naive ratios run from 107 down to 5.0
    # (docs/benchmarks.md), and a soak run of 2026-12-06 read 4.95, under the
    # 5x gate this check had: a timing that must pass is a benchmark.
    res["pagemover_over_naive"] = pm_mbps / nv_mbps
    c.note("PageMover / naive fastest rounds: %.1f" % (pm_mbps / nv_mbps))
try:
    with open(os.path.join(c.dir, "results.json"), "w", encoding="utf-8") as f:
        json.dump(res, f, indent=2, sort_keys=True)
        f.write("\n")
except OSError as e:
    c.fail("cannot write results.json: %s" % e)


def fmt(x):
    return "%.1f" % x if isinstance(x, (int, float)) else "n/a"


c.note("PageMover %s MB/s, migrate_pages %s MB/s, naive %s MB/s, --rate 20 -> %s MB/s "
       "(results.json)" % (fmt(pm_mbps), fmt(mp_mbps), fmt(nv_mbps),
                           fmt(res.get("rate", {}).get("reported_mbps"))))
c.finish()
