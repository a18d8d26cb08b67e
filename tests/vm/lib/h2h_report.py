#!/usr/bin/python3
"""The head-to-head's table (scripts/bench-placement.sh): reads every boot
folder RESULTS/W-CONTENDER/boot-K/ (the scenario's out folder in out/,
meta.json with the run's date, commit and status; a cell folder with out/
directly is one boot of the older layout), prints a Markdown table, and with
--docs FILE replaces what lies between the mode's markers
  <!-- bench-placement[-MODE]:begin --> ... <!-- bench-placement[-MODE]:end -->
in FILE with the command, the dates and that table (numa: no suffix).

Per workload and contender, over the boots that passed: the workload's own
throughput (hotset's accesses/s, a suite program's ops/s in its own unit)
relative to the median of the workload's all-fast boots, as median and
min-max; the median ops/s; p99 latency where the workload has requests;
the share of accesses served by the fast node over the oracle's at 10, 30,
60 s and the mean share (medians); bytes migrated (pgmigrate_success) and
the workload's ping-pong pages (medians). Workload C's row is the online
job; its notes give the offline job's throughput the same way.

A boot folder without out/ (one kept in the tree: scripts/bench-placement.sh
commits each boot's meta.json and summary.json under docs/bench-runs/, so
that boots of several sittings make one table) is read from its summary.json.

usage: h2h_report.py RESULTS [--mode model|numa] [--docs FILE --command TEXT]
       h2h_report.py BOOT_FOLDER --summarize WORKLOAD
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h2hcheck  # noqa: E402

WORKLOADS = {"a": ["a"], "b": ["b"], "c": ["c_online", "c_offline"], "gups": ["gups"],
             "graph": ["graph"], "kv": ["kv"], "scan": ["scan"]}
# What one operation is, per workload (hotset's accesses; the suite's own unit).
UNITS = {"a": "accesses", "b": "accesses", "c": "accesses", "gups": "updates", "graph": "edges",
         "kv": "requests", "scan": "hot accesses"}
CONTENDERS = ["all-fast", "none", "kernel", "damon", "damon-autotune", "tierd-balanced",
              "tierd-tpp", "tierd-coexist", "tierd-observe"]
REFERENCE = "all-fast"


def markers(mode):
    name = "bench-placement" if mode == "numa" else "bench-placement-" + mode
    return "<!-- %s:begin -->" % name, "<!-- %s:end -->" % name


def read_meta(folder):
    try:
        with open(os.path.join(folder, "meta.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def summaries_from_out(folder, workload):
    """[summary per prefix] read from the boot's raw out/ folder."""
    return [h2hcheck.summary(os.path.join(folder, "out"), p) for p in WORKLOADS[workload]]


def boot_summaries(folder, workload):
    """[summary per prefix] of one boot: from its out/ folder where it has
    one, else from summary.json, the same list kept without the raw files
    (a boot kept in the tree); a boot with neither reads as failed."""
    if not os.path.isdir(os.path.join(folder, "out")):
        try:
            with open(os.path.join(folder, "summary.json"), encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError):
            pass
    return summaries_from_out(folder, workload)


def boots(cell, workload):
    """[(meta, [summary per prefix])] of every boot kept in a cell folder."""
    if os.path.isdir(os.path.join(cell, "out")):
        folders = [cell]
    else:
        folders = sorted((os.path.join(cell, d) for d in os.listdir(cell) if d.startswith("boot-")),
                         key=lambda d: int(d.rsplit("-", 1)[1]) if d.rsplit("-", 1)[1].isdigit()
                         else 0)
    return [(read_meta(d), boot_summaries(d, workload)) for d in folders]


def write_summary(folder, workload):
    """Writes folder/summary.json from folder/out (bench-placement.sh, after each boot)."""
    runs = summaries_from_out(folder, workload)
    with open(os.path.join(folder, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(runs, f, sort_keys=True)
        f.write("\n")


def passed(boot):
    meta, runs = boot
    return meta.get("status") == "PASS" and all(r["rc"] == 0 and r["verified"] for r in runs)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def spread(values, fmt):
    """'median (min-max)' of the values, '-' without any."""
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    m = fmt % statistics.median(values)
    if len(values) == 1:
        return m
    return "%s (%s-%s)" % (m, fmt % min(values), fmt % max(values))


def mark_relative(run, mark):
    m = run["marks"].get(str(mark))
    return m.get("relative") if m else None


def row(workload, contender, kept, reference):
    ok = [b for b in kept if passed(b)]
    notes = []
    if len(ok) < len(kept):
        notes.append("%d boot(s) failed" % (len(kept) - len(ok)))
    main = [runs[0] for _, runs in ok]
    thr = [r["accesses_per_s"] for r in main]
    ref = reference.get(workload, [None])[0]
    rel = [t / ref if ref and t else None for t in thr]
    if workload == "c":
        offline = [runs[1]["accesses_per_s"] for _, runs in ok if len(runs) == 2]
        oref = reference.get(workload, [None, None])[1]
        if oref:
            notes.append("offline throughput %s of its all-fast" % spread(
                [t / oref if t else None for t in offline], "%.2f"))
        firsts = []
        for _, runs in ok:
            on, off = runs
            a, b = on["first_demoted_mono_s"], off["first_demoted_mono_s"]
            if a is None and b is None:
                firsts.append("none")
            elif a is not None and b is not None and abs(a - b) < 1.0:
                firsts.append("both")
            elif b is not None and (a is None or b < a):
                firsts.append("offline")
            else:
                firsts.append("online")
        if firsts:
            notes.append("first to lose fast pages: " + ", ".join(firsts))
    usage = [r.get("tierd_usage") for r in main if r.get("tierd_usage")]
    if usage:
        notes.append("tierd CPU %s %% of a core, RSS %s MiB" % (
            spread([u["cpu_share"] * 100 for u in usage], "%.1f"),
            spread([u["rss_kb"] / 1024 for u in usage], "%.0f")))
    moved = [r["moved_bytes"] / 2**20 if r["moved_bytes"] is not None else None for r in main]
    p99 = [r.get("p99_us") for r in main]
    return "| %s | %s | %d/%d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        workload.upper() + (" (online)" if workload == "c" else ""), contender, len(ok), len(kept),
        spread(rel, "%.2f") if ref else "- (no all-fast)",
        spread([t / 1e3 if t else None for t in thr], "%.0f") + " " + UNITS[workload],
        spread(p99, "%.0f") if any(v is not None for v in p99) else "-",
        spread([mark_relative(r, 10) for r in main], "%.2f"),
        spread([mark_relative(r, 30) for r in main], "%.2f"),
        spread([mark_relative(r, 60) for r in main], "%.2f"),
        spread([r["mean_share"] for r in main], "%.2f"),
        spread(moved, "%.0f"),
        spread([r["end_pingpong_pages"] for r in main], "%d"),
        "; ".join(notes))


def table(results):
    lines = [
        "| workload | contender | boots passed | throughput / all-fast | k ops/s | p99 µs "
        "| share/oracle 10 s | 30 s | 60 s | mean share | migrated MiB | ping-pong pages | notes |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    dates, commits = set(), set()
    for w in WORKLOADS:
        cells = {}
        for c in CONTENDERS:
            d = os.path.join(results, "%s-%s" % (w, c))
            if os.path.isdir(d):
                cells[c] = boots(d, w)
        # The reference: per prefix, the median throughput of the all-fast boots that passed.
        reference = {}
        ref_ok = [b for b in cells.get(REFERENCE, []) if passed(b)]
        if ref_ok:
            reference[w] = [median([runs[i]["accesses_per_s"] for _, runs in ref_ok])
                            for i in range(len(WORKLOADS[w]))]
        for c, kept in cells.items():
            for meta, _ in kept:
                dates.add(meta.get("date", "?"))
                commits.add(meta.get("commit", "?"))
            lines.append(row(w, c, kept, reference))
    return "\n".join(lines), sorted(dates), sorted(commits)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("results")
    p.add_argument("--mode", default="model", choices=["model", "numa"])
    p.add_argument("--docs")
    p.add_argument("--command", default="scripts/bench-placement.sh")
    p.add_argument("--summarize", metavar="WORKLOAD",
                   help="write RESULTS/summary.json (RESULTS: one boot folder) and stop")
    a = p.parse_args()
    if a.summarize:
        write_summary(a.results, a.summarize)
        return
    text, dates, commits = table(a.results)
    print(text)
    if not a.docs:
        return
    begin, end = markers(a.mode)
    with open(a.docs, encoding="utf-8") as f:
        doc = f.read()
    if begin not in doc or end not in doc:
        sys.exit("%s has no %s ... %s markers" % (a.docs, begin, end))
    block = "\n".join([
        begin,
        "Written by `%s` from the runs in its results folder (UTC dates of the runs: %s; "
        "commits: %s). Each cell: median over the boots that passed, (min-max) when more "
        "than one." % (a.command, ", ".join(dates), ", ".join(commits)),
        "",
        text,
        end])
    head, rest = doc.split(begin, 1)
    tail = rest.split(end, 1)[1]
    with open(a.docs, "w", encoding="utf-8") as f:
        f.write(head + block + tail)


if __name__ == "__main__":
    main()
