#!/usr/bin/python3
"""kernel_tiering: `tierctl doctor --json`'s "kernel_tiering" object reports
what the scenario wrote (numa_balancing 2, promote limit 4321 MB/s, debugfs
hot_threshold_ms 1500 and scan_size_mb 512, demotion_enabled true, node 2
interleave weight 3, a running kdamond whose vaddr context targets the
sleeping process with a migrate_cold -> node 2 scheme, summary all true),
and after the restore reports the boot values again (knobs.saved) with no
kdamond left."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

NB = "/sys/kernel/debug/sched/numa_balancing"
DAMON = "/sys/kernel/mm/damon/admin/kdamonds"
WI = "/sys/kernel/mm/mempolicy/weighted_interleave"

c = vmcheck.Check("kernel_tiering")
c.eq("exit status", c.rc(), 0)

saved = {}
for line in c.file("knobs.saved").strip().splitlines():
    path, _, value = line.partition(" ")
    saved[path] = value
restored = c.file("knobs.restored").strip().splitlines()
c.eq("knobs after the scenario (knobs.restored = knobs.saved)", restored,
     c.file("knobs.saved").strip().splitlines())


def kernel_tiering(name):
    if not c.file(name):
        c.fail("%s missing: %s" % (name, c.file(name.replace(".json", ".err")).strip()[:300]))
        return None
    doc = c.json_output(name)
    if not isinstance(doc, dict) or not isinstance(doc.get("kernel_tiering"), dict):
        c.fail("%s has no kernel_tiering object" % name)
        return None
    return doc["kernel_tiering"]


def as_bool(text):
    return {"true": True, "1": True, "Y": True, "false": False, "0": False, "N": False}.get(text)


def expect_knobs(what, kt, want):
    """want: mode, limit, hot, scan_size, demotion, weight2 (None = skip)."""
    nb, wi = kt["numa_balancing"], kt["weighted_interleave"]
    got = {"mode": nb.get("mode"), "limit": nb.get("promote_rate_limit_mbps"),
           "hot": nb.get("hot_threshold_ms"), "scan_size": nb.get("scan_size_mb"),
           "demotion": kt["demotion"].get("enabled"),
           "weight2": wi.get("weights", {}).get("2")}
    for key, value in want.items():
        if value is not None:
            c.eq("%s: %s" % (what, key), got[key], value)
    for key in ("mode", "promote_rate_limit_mbps", "hot_threshold_ms", "scan_size_mb"):
        if nb.get(key) is None:
            c.fail("%s: numa_balancing.%s is null: %s" % (what, key, nb["why_not"].get(key)))


def intval(text):
    return int(text) if text is not None and text.lstrip("-").isdigit() else None


boot = {"mode": intval(saved.get("/proc/sys/kernel/numa_balancing")),
        "limit": intval(saved.get("/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps")),
        "hot": intval(saved.get(NB + "/hot_threshold_ms")),
        "scan_size": intval(saved.get(NB + "/scan_size_mb")),
        "demotion": as_bool(saved.get("/sys/kernel/mm/numa/demotion_enabled")),
        "weight2": intval(saved.get(WI + "/node2"))}
for key, value in boot.items():
    if value is None:
        c.fail("knobs.saved lacks the boot value of %s" % key)

before = kernel_tiering("doctor.before.json")
if before is not None:
    expect_knobs("before", before, boot)
    c.eq("before: kdamonds", before["damon"].get("kdamonds"), [])

kt = kernel_tiering("doctor.set.json")
if kt is not None:
    expect_knobs("set", kt, {"mode": 2, "limit": 4321, "hot": 1500, "scan_size": 512,
                             "demotion": True, "weight2": 3})
    c.eq("set: numa_balancing.memory_tiering", kt["numa_balancing"].get("memory_tiering"), True)
    c.eq("set: numa_balancing.normal", kt["numa_balancing"].get("normal"), False)
    sleeper = intval(c.file("sleeper.pid").strip())
    kds = kt["damon"].get("kdamonds", [])
    c.eq("set: DAMON sysfs", kt["damon"].get("sysfs"), True)
    c.eq("set: number of kdamonds", len(kds), 1)
    if kds:
        k = kds[0]
        c.eq("set: kdamond 0 state", k.get("state"), "on")
        c.eq("set: kdamond 0 running", k.get("running"), True)
        if not isinstance(k.get("pid"), int) or k["pid"] <= 0:
            c.fail("set: kdamond 0 has no pid: %s" % k.get("pid"))
        ctxs = k.get("contexts", [])
        c.eq("set: contexts", len(ctxs), 1)
        if ctxs:
            c.eq("set: operations", ctxs[0].get("operations"), "vaddr")
            c.eq("set: target pids", ctxs[0].get("target_pids"), [sleeper])
            schemes = ctxs[0].get("schemes", [])
            c.eq("set: schemes (action, target_nid, effect)",
                 [[s.get("action"), s.get("target_nid"), s.get("effect")] for s in schemes],
                 [["migrate_cold", 2, "migrate"]])
    summary = kt.get("summary", {})
    c.eq("set: summary", {k: summary.get(k) for k in
                          ("kernel_promotes", "kernel_demotes", "damon_acts")},
         {"kernel_promotes": True, "kernel_demotes": True, "damon_acts": True})
    c.eq("set: migrating schemes", summary.get("damon_acting_schemes"),
         ["kdamond 0 context 0 scheme 0: migrate_cold -> node 2"])
    text = c.file("doctor.set.txt")
    for part in ("kernel tiering:", "2 (memory tiering", "4321 MB/s", "1500 ms",
                 "migrate_cold -> node 2"):
        if part not in text:
            c.fail("doctor text lacks %r" % part)

after = kernel_tiering("doctor.restored.json")
if after is not None:
    expect_knobs("restored", after, boot)
    c.eq("restored: kdamonds", after["damon"].get("kdamonds"), [])
    c.eq("restored: damon_acts", after["summary"].get("damon_acts"), False)
    c.eq("restored: kernel_promotes", after["summary"].get("kernel_promotes"),
         bool((boot["mode"] or 0) & 2))

if kt is not None:
    nb = kt["numa_balancing"]
    c.note("boot: numa_balancing=%s limit=%s hot=%s ms demotion=%s node2 weight=%s; set and "
           "restored as written; kdamond pid %s" % (
               boot["mode"], boot["limit"], boot["hot"], boot["demotion"], boot["weight2"],
               (kt["damon"].get("kdamonds") or [{}])[0].get("pid")))
c.finish()
