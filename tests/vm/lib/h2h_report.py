#!/usr/bin/python3
"""The head-to-head's table (scripts/bench-placement.sh): reads every run
folder RESULTS/W-CONTENDER/ (the scenario's out folder in out/, meta.json
with the run's date, commit and status), prints a Markdown table, and with
--docs FILE replaces what lies between the markers
  <!-- bench-placement:begin --> ... <!-- bench-placement:end -->
in FILE with the command, the dates and that table.

usage: h2h_report.py RESULTS [--docs FILE --command TEXT]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h2hcheck  # noqa: E402

WORKLOADS = {"a": ["a"], "b": ["b"], "c": ["c_online", "c_offline"]}
CONTENDERS = ["none", "kernel", "damon", "tierd-balanced", "tierd-tpp"]
BEGIN, END = "<!-- bench-placement:begin -->", "<!-- bench-placement:end -->"


def rel(s, mark):
    m = s["marks"].get(str(mark))
    if not m:
        return "-"
    if m.get("relative") is None:  # no fast capacity left at all: oracle 0
        return "- (%.2f/%.2f)" % (m["share"], m["oracle"])
    return "%.2f (%.2f/%.2f)" % (m["relative"], m["share"], m["oracle"])


def mib(v):
    return "-" if v is None else "%.0f" % (v / 2**20)


def row(workload, contender, meta, runs):
    main = runs[0]
    status = meta.get("status", "?")
    notes = []
    if status != "PASS":
        notes.append("scenario %s" % status)
    if main["rc"] not in (0, None):
        notes.append("hotset exit %s" % main["rc"])
    if workload == "c" and len(runs) == 2:
        on, off = runs
        notes.append("offline share at end %s" % (
            "-" if off["end_share"] is None else "%.2f" % off["end_share"]))
        a, b = on["first_demoted_mono_s"], off["first_demoted_mono_s"]
        if a is None and b is None:
            first = "neither lost a fast page"
        elif a is not None and b is not None and abs(a - b) < 1.0:
            first = "both first lost fast pages in the same census (t=%.0f s)" % (
                on["first_demoted_t_s"])
        elif b is not None and (a is None or b < a):
            first = "offline demoted first (t=%.0f s)" % off["first_demoted_t_s"]
        else:
            first = "online demoted first (t=%.0f s)" % on["first_demoted_t_s"]
        notes.append(first)
        notes.append("pages demoted by the end: online %s, offline %s" % (
            on["end_demoted"], off["end_demoted"]))
    moved = main["vmstat"].get("pgmigrate_success") if main["vmstat"] else None
    return "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        workload.upper() + (" (online)" if workload == "c" else ""), contender,
        rel(main, 10), rel(main, 30), rel(main, 60),
        "-" if main["mean_share"] is None else "%.2f" % main["mean_share"],
        mib(main["moved_bytes"]), "-" if moved is None else moved,
        "-" if main["end_moved_pages"] is None else main["end_moved_pages"],
        "-" if main["end_pingpong_pages"] is None else main["end_pingpong_pages"],
        "; ".join(notes) or "")


def table(results):
    lines = [
        "| workload | contender | share/oracle 10 s | 30 s | 60 s | mean share | migrated MiB "
        "| pgmigrate_success | workload pages moved | ping-pong pages | notes |",
        "|---|---|---|---|---|---|---|---|---|---|---|"]
    dates, commits = set(), set()
    for w in WORKLOADS:
        for c in CONTENDERS:
            d = os.path.join(results, "%s-%s" % (w, c))
            if not os.path.isdir(d):
                continue
            try:
                with open(os.path.join(d, "meta.json"), encoding="utf-8") as f:
                    meta = json.load(f)
            except (OSError, ValueError):
                meta = {}
            dates.add(meta.get("date", "?"))
            commits.add(meta.get("commit", "?"))
            runs = [h2hcheck.summary(os.path.join(d, "out"), p) for p in WORKLOADS[w]]
            lines.append(row(w, c, meta, runs))
    return "\n".join(lines), sorted(dates), sorted(commits)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("results")
    p.add_argument("--docs")
    p.add_argument("--command", default="scripts/bench-placement.sh")
    a = p.parse_args()
    text, dates, commits = table(a.results)
    print(text)
    if not a.docs:
        return
    with open(a.docs, encoding="utf-8") as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        sys.exit("%s has no %s ... %s markers" % (a.docs, BEGIN, END))
    block = "\n".join([
        BEGIN,
        "Written by `%s` from the runs in its results folder (UTC dates of the runs: %s; "
        "commits: %s)." % (a.command, ", ".join(dates), ", ".join(commits)),
        "",
        text,
        END])
    head, rest = doc.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(a.docs, "w", encoding="utf-8") as f:
        f.write(head + block + tail)


if __name__ == "__main__":
    main()
