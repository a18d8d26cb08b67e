#!/usr/bin/python3
"""The table of scripts/vmtest-soak.sh, from its results.tsv (kind, run,
mode/scenario, PASS|FAIL, seconds in the guest or -, limit or -).

usage: vmtest_soak_table.py RESULTS.tsv QUIET_RUNS LOADED_RUNS

One markdown row per mode/scenario: passes/runs quiet and loaded (a run
that never reported the scenario counts as a failure: the guest hung or the
harness failed), the guest's time median and maximum for quiet and loaded
runs, the limit, and limit / slowest run (how far the deadline is from the
measured distribution)."""
import statistics
import sys


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    path, runs = argv[1], {"quiet": int(argv[2]), "loaded": int(argv[3])}
    rows = {}
    with open(path) as f:
        for line in f:
            kind, _run, name, result, secs, limit = line.rstrip("\n").split("\t")
            row = rows.setdefault(name, {"limit": limit, "quiet": [], "loaded": []})
            row[kind].append((result == "PASS", None if secs == "-" else float(secs)))

    def cell(results, kind):
        if runs[kind] == 0:
            return "-"
        return "%d/%d" % (sum(1 for ok, _ in results if ok), runs[kind])

    def times(results):
        secs = [s for _, s in results if s is not None]
        if not secs:
            return "-", None
        return "%.1f / %.1f" % (statistics.median(secs), max(secs)), max(secs)

    print("| scenario | quiet | loaded | quiet s (median / max) | loaded s (median / max) "
          "| limit s | limit / slowest |")
    print("|---|---|---|---|---|---|---|")
    total_bad = 0
    for name in sorted(rows):
        row = rows[name]
        q_text, q_max = times(row["quiet"])
        l_text, l_max = times(row["loaded"])
        slowest = max([m for m in (q_max, l_max) if m is not None], default=None)
        margin = "-"
        if slowest and row["limit"] != "-":
            margin = "%.1fx" % (float(row["limit"]) / slowest)
        for kind in ("quiet", "loaded"):
            total_bad += runs[kind] - sum(1 for ok, _ in row[kind] if ok)
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            name, cell(row["quiet"], "quiet"), cell(row["loaded"], "loaded"), q_text, l_text,
            row["limit"], margin))
    print()
    print("%d scenario results, %d failed or missing over %d quiet and %d loaded runs" % (
        len(rows), total_bad, runs["quiet"], runs["loaded"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
