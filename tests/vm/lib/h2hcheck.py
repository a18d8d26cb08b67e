"""The head-to-head's figures (scenarios h2h_*, scripts/bench-placement.sh),
read from what guest/h2h.sh leaves in a scenario's folder for a run prefix
R: hotset's census lines (R.census.jsonl), its ready/exit lines (R.out,
R.rc), /proc/vmstat at the start and at the final census, the contender's
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


def summary(folder, prefix):
    """Figures of one workload run: {"contender", "rc", "verified", ...,
    "marks": {"10": {"share", "oracle", "relative"}, ...}, "moved_bytes", ...}."""
    p = os.path.join(folder, prefix)
    census = json_lines(_read(p + ".census.jsonl"))
    lines = json_lines(_read(p + ".out"))
    ready = next((d for d in lines if d.get("ready") is True), None)
    done = next((d for d in lines if "accesses" in d), None)
    before, after = vmstat(_read(p + ".vmstat.before")), vmstat(_read(p + ".vmstat.after"))
    rc = _read(p + ".rc").strip()
    s = {
        "prefix": prefix,
        "contender": _read(p + ".contender").strip() or None,
        "rc": int(rc) if rc.lstrip("-").isdigit() else None,
        "verified": (done or {}).get("verified"),
        "accesses_per_s": (done or {}).get("accesses_per_s"),
        "seconds": (done or {}).get("seconds"),
        "pages": (ready or {}).get("size", 0) // PAGE or None,
        "census_lines": len(census),
        "census_query_s_max": max((c.get("query_s", 0) for c in census), default=None),
        "final": census[-1] if census and census[-1].get("final") else None,
        "vmstat": {k: after[k] - before[k] for k in VMSTAT_KEYS if k in before and k in after},
        "marks": {},
    }
    s["moved_bytes"] = s["vmstat"].get("pgmigrate_success", 0) * PAGE if s["vmstat"] else None
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
    return ("%s: share/oracle %s; end share %s; migrated %s MiB (pgpromote %s, pgdemote_kswapd %s); "
            "pages moved %s, ping-pong %s; census query <= %s s" % (
                s["contender"], marks or "-", s["end_share"],
                None if s["moved_bytes"] is None else round(s["moved_bytes"] / 2**20, 1),
                s["vmstat"].get("pgpromote_success"), s["vmstat"].get("pgdemote_kswapd"),
                s["end_moved_pages"], s["end_pingpong_pages"], s["census_query_s_max"]))


def bench_check(name, prefixes):
    """The check of a benchmark scenario (h2h_a/b/c): the runs happened and
    were measured; the figures are printed, not judged (the benchmark's
    report compares contenders)."""
    import vmcheck
    c = vmcheck.Check(name)
    c.eq("exit status", c.rc(), 0)
    for prefix in prefixes:
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
