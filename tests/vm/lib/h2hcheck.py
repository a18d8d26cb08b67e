"""The head-to-head's figures (scenarios h2h_*, scripts/bench-placement.sh),
read from what guest/h2h.sh leaves in a scenario's folder for a run prefix
R: hotset's census lines (R.census.jsonl) or a suite program's report
(R.report.jsonl: workloads/suite/report.hpp), the ready/exit lines (R.out,
R.rc), /proc/vmstat at the start and at the final line, the contender's
name. Used by the checks and, as a program, by the benchmark's report:

  h2hcheck.py summary DIR PREFIX   one JSON object: the run's figures
"""
import json
import os
import sys

PAGE = 4096
MARKS = (10, 30, 60)
# vmstat counters of pages moved, summed or shown per contender.
VMSTAT_KEYS = ("pgmigrate_success", "pgmigrate_fail", "pgpromote_success", "pgdemote_kswapd",
               "pgdemote_direct", "pgdemote_khugepaged", "numa_pages_migrated", "numa_hint_faults")


def _read(path, default=""):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return default


def json_lines(text):
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def vmstat(text):
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            out[parts[0]] = int(parts[1])
    return out


def at_mark(census, mark):
    """The census line for `mark` seconds: the last one at or before
    mark + 0.5 s, if it is within 3 s of the mark (under the latency model's
    matched latency a census of 768 MiB takes 2.2-2.5 s); the final line
    when the mark is the run's length."""
    best = None
    for line in census:
        if line.get("t_s", 1e9) <= mark + 0.5:
            best = line
    if best is None or mark - best.get("t_s", -1e9) > 3.0:
        return None
    return best


def _common(p, prefix):
    """What every run has: contender, exit status, vmstat at both ends."""
    before, after = vmstat(_read(p + ".vmstat.before")), vmstat(_read(p + ".vmstat.after"))
    rc = _read(p + ".rc").strip()
    s = {
        "prefix": prefix,
        "contender": _read(p + ".contender").strip() or None,
        "rc": int(rc) if rc.lstrip("-").isdigit() else None,
        "vmstat": {k: after[k] - before[k] for k in VMSTAT_KEYS if k in before and k in after},
    }
    s["moved_bytes"] = s["vmstat"].get("pgmigrate_success", 0) * PAGE if s["vmstat"] else None
    s["first_evidence"] = _first_evidence(p)
    s["tierd_usage"] = _tierd_usage(p)
    return s


def _tierd_usage(p):
    """tierd's {"cpu_s", "wall_s", "cpu_share", "rss_kb"} at the end of the
    run (guest/h2h.sh h2h_tierd_usage), None without tierd."""
    try:
        with open(p + ".tierd.cpu.json") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _first_evidence(p):
    """tierd's first_samples_after_s / first_promotion_after_s for the run's
    workload (its status at the end, placement section), None without tierd
    or a tierd that does not report them."""
    try:
        with open(p + ".tierd.status.json") as f:
            workloads = json.load(f).get("placement", {}).get("workloads", [])
    except (OSError, ValueError):
        return None
    for w in workloads:
        if "first_promotion_after_s" in w:
            return {k: w.get(k) for k in ("first_samples_after_s", "first_promotion_after_s")}
    return None


def summary(folder, prefix):
    """Figures of one workload run: {"contender", "rc", "verified", ...,
    "marks": {"10": {"share", "oracle", "relative"}, ...}, "moved_bytes", ...};
    for a suite program (R.report.jsonl) suite_summary's."""
    p = os.path.join(folder, prefix)
    if os.path.exists(p + ".report.jsonl"):
        return suite_summary(folder, prefix)
    census = json_lines(_read(p + ".census.jsonl"))
    lines = json_lines(_read(p + ".out"))
    ready = next((d for d in lines if d.get("ready") is True), None)
    done = next((d for d in lines if "accesses" in d), None)
    s = _common(p, prefix)
    s.update({
        "verified": (done or {}).get("verified"),
        "accesses_per_s": (done or {}).get("accesses_per_s"),
        "seconds": (done or {}).get("seconds"),
        "pages": (ready or {}).get("size", 0) // PAGE or None,
        "census_lines": len(census),
        "census_query_s_max": max((c.get("query_s", 0) for c in census), default=None),
        "final": census[-1] if census and census[-1].get("final") else None,
        "marks": {},
    })
    for mark in MARKS:
        line = at_mark(census, mark)
        if line is None:
            continue
        share, oracle = line.get("share"), line.get("oracle")
        s["marks"][str(mark)] = {
            "t_s": line.get("t_s"), "share": share, "oracle": oracle,
            "relative": share / oracle if oracle else None}
    last = census[-1] if census else {}
    for key in ("share", "oracle", "moves", "moved_pages", "promoted", "demoted", "pingpong_pages",
                "nodes"):
        s["end_" + key] = last.get(key)
    first_demoted = next((c for c in census if c.get("demoted", 0) > 0), None)
    s["first_demoted_mono_s"] = first_demoted.get("mono_s") if first_demoted else None
    s["first_demoted_t_s"] = first_demoted.get("t_s") if first_demoted else None
    s["mean_share"] = (sum(c.get("share", 0) for c in census) / len(census)) if census else None
    return s


def suite_summary(folder, prefix):
    """Figures of a suite program's run (tier-gups, tier-graph, tier-kv): its
    final line's throughput (ops/s in its own unit, as "accesses_per_s" so the
    table reads every workload alike), p50/p99 where it has requests, its
    verification (verified = nothing bad), the interval lines."""
    p = os.path.join(folder, prefix)
    lines = json_lines(_read(p + ".report.jsonl"))
    final = lines[-1] if lines and lines[-1].get("final") else None
    s = _common(p, prefix)
    f = final or {}
    s.update({
        "workload": f.get("workload"),
        "unit": f.get("unit"),
        "final": final,
        "verified": (f.get("bad") == 0 and f.get("verified", 0) > 0) if final else None,
        "bad": f.get("bad"),
        "accesses_per_s": f.get("ops_per_s"),
        "seconds": f.get("seconds"),
        "p50_us": f.get("p50_us"),
        "p99_us": f.get("p99_us"),
        "intervals": len([ln for ln in lines if not ln.get("final")]),
        "nodes": f.get("nodes"),
        "marks": {},
        "mean_share": None,
        "end_share": None,
        "end_moved_pages": None,
        "end_pingpong_pages": None,
        "census_query_s_max": None,
        "first_demoted_mono_s": None,
    })
    return s


def check_suite_run(c, prefix, seconds):
    """A suite program's run: exit 0, a final line with every byte verified
    (bad 0), an interval line about every second (report-ms 1000: at least a
    third of them, since a loaded guest's timer may lag), vmstat at both ends."""
    s = suite_summary(c.dir, prefix)
    c.eq("%s: exit status" % prefix, s["rc"], 0)
    if s["final"] is None:
        c.fail("%s: no final line in %s.report.jsonl" % (prefix, prefix))
    else:
        c.eq("%s: bad data at exit" % prefix, s["bad"], 0)
        if not s["final"].get("verified"):
            c.fail("%s: nothing verified: %s" % (prefix, s["final"]))
    want = max(2, seconds // 3)
    if s["intervals"] < want:
        c.fail("%s: %d interval lines, want >= %d over %d s" % (prefix, s["intervals"], want, seconds))
    if not s["vmstat"]:
        c.fail("%s: no /proc/vmstat at both ends" % prefix)
    return s


def describe_suite(s):
    lat = "" if s["p99_us"] is None else ", p50 %.1f us, p99 %.1f us" % (s["p50_us"], s["p99_us"])
    return ("%s: %s %.0f %s/s%s; migrated %s MiB (pgpromote %s, pgdemote_kswapd %s); nodes at end %s"
            % (s["contender"], s["workload"], s["accesses_per_s"] or 0, s["unit"], lat,
               None if s["moved_bytes"] is None else round(s["moved_bytes"] / 2**20, 1),
               s["vmstat"].get("pgpromote_success"), s["vmstat"].get("pgdemote_kswapd"), s["nodes"]))


def check_run(c, prefix, seconds=None):
    """The common assertions on one run: hotset exited 0 and verified, a
    census every 1-8 s through the run (`seconds` long, default: what
    the guest wrote in PREFIX.seconds), the final one, vmstat read at both
    ends. Returns the summary."""
    s = summary(c.dir, prefix)
    if seconds is None:
        text = _read(os.path.join(c.dir, prefix + ".seconds")).strip()
        seconds = int(text) if text.isdigit() else 60
    c.eq("%s: hotset exit status" % prefix, s["rc"], 0)
    c.eq("%s: hotset verified every page" % prefix, s["verified"], True)
    if s["final"] is None:
        c.fail("%s: no final census line" % prefix)
    # A census every 1-8 s: hotset takes the next as soon as one is done, and
    # one of 768 MiB takes 0.2-1.7 s in the numa mode, 2.2-2.5 s under the
    # latency model's matched latency, up to 7.9 s there beside tierd.
    want = max(3, seconds // 8)
    if s["census_lines"] < want:
        c.fail("%s: %d census lines, want >= %d over %d s" % (prefix, s["census_lines"], want,
                                                               seconds))
    if not s["vmstat"]:
        c.fail("%s: no /proc/vmstat at both ends" % prefix)
    return s


def describe(s):
    marks = " ".join("%ss %.3f/%.3f" % (m, v["share"], v["oracle"])
                     for m, v in sorted(s["marks"].items(), key=lambda kv: int(kv[0])))
    text = ("%s: share/oracle %s; end share %s; migrated %s MiB (pgpromote %s, pgdemote_kswapd %s); "
            "pages moved %s, ping-pong %s; census query <= %s s" % (
                s["contender"], marks or "-", s["end_share"],
                None if s["moved_bytes"] is None else round(s["moved_bytes"] / 2**20, 1),
                s["vmstat"].get("pgpromote_success"), s["vmstat"].get("pgdemote_kswapd"),
                s["end_moved_pages"], s["end_pingpong_pages"], s["census_query_s_max"]))
    first = s.get("first_evidence")
    if first:
        text += "; after tierd listed it: first samples %s s, first promotion %s s" % tuple(
            "-" if first[k] is None else "%.1f" % first[k]
            for k in ("first_samples_after_s", "first_promotion_after_s"))
    return text


def bench_check(name, prefixes):
    """The check of a benchmark scenario (h2h_a/b/c, and the suite's h2h_gups,
    h2h_graph, h2h_kv): the runs happened and were measured; the figures are
    printed, not judged (the benchmark's report compares contenders)."""
    import vmcheck
    c = vmcheck.Check(name)
    c.eq("exit status", c.rc(), 0)
    for prefix in prefixes:
        if os.path.exists(os.path.join(c.dir, prefix + ".report.jsonl")):
            text = _read(os.path.join(c.dir, prefix + ".seconds")).strip()
            c.note(describe_suite(check_suite_run(c, prefix, int(text) if text.isdigit() else 60)))
            continue
        s = check_run(c, prefix)
        c.note(describe(s))
    log = _read(os.path.join(c.dir, "h2h.log"))
    kd = [ln for ln in log.splitlines() if ln.startswith("kdamonds_at_boot")]
    if kd:
        c.note(kd[0])
    c.finish()


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "summary":
        json.dump(summary(sys.argv[2], sys.argv[3]), sys.stdout, indent=1, sort_keys=True)
        print()
    else:
        sys.exit(__doc__)
