#!/usr/bin/env python3
"""Two builds of tier-sim's `balanced` side by side on the generated traces.

usage: scripts/sim-compare.py BEFORE_TIER_SIM AFTER_TIER_SIM

Runs every trace below with seeds 3, 5 and 7 (60 epochs) through both binaries
and prints a Markdown table: migrated GiB, mean fast share over the oracle's,
the modelled mean latency and ping-pong pages, median (min-max) over the seeds,
before -> after (docs/benchmarks.md, "Fresh evidence in two ticks").
Exit status: 0, 1 when a run fails, 2 bad usage.
"""
import json
import os
import statistics
import subprocess
import sys

SEEDS = (3, 5, 7)
HOT = ["--size", "16G", "--hot", "2G"]
TRACES = [
    ("uniform", ["--trace", "uniform", *HOT]),
    ("zipf 0.99", ["--trace", "zipf", "--size", "16G"]),
    ("phases (10 epochs, 3)", ["--trace", "phases", *HOT]),
    ("scan every 10, share 0.5", ["--trace", "scan", *HOT, "--scan-every", "10"]),
    ("scan every 5, share 0.8", ["--trace", "scan", *HOT, "--scan-every", "5", "--scan-share", "0.8"]),
    ("scan every 3, share 0.5", ["--trace", "scan", *HOT, "--scan-every", "3"]),
    ("no scans (share 0)", ["--trace", "scan", *HOT, "--scan-share", "0"]),
    ("mix (8G online + 32G offline)", ["--trace", "mix", "--size", "8G", "--offline-size", "32G"]),
]


def figures(tier_sim, args):
    """Per seed: (migrated GiB, mean fast share / oracle's, latency ns, ping-pong pages)."""
    rows = []
    for seed in SEEDS:
        command = [tier_sim, "--policy", "balanced", "--epochs", "60", "--seed", str(seed),
                   "--json", *args]
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit("sim-compare: %s failed (exit %d): %s" % (" ".join(command), run.returncode,
                                                                run.stderr.strip()))
        s = json.loads(run.stdout)["summary"]
        rows.append((s["bytes_migrated"] / 2**30, s["mean_fast_share"] / s["mean_oracle_share"],
                     s["mean_latency_ns"], s["ping_pong_pages"]))
    return list(zip(*rows))  # one tuple per figure, over the seeds


def spread(values, fmt):
    return "%s (%s-%s)" % (fmt % statistics.median(values), fmt % min(values), fmt % max(values))


def main():
    if len(sys.argv) != 3 or not all(os.access(b, os.X_OK) for b in sys.argv[1:]):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    before, after = sys.argv[1], sys.argv[2]
    print("| trace | migrated GiB, before → after | mean fast share / oracle, before → after "
          "| modelled latency ns, before → after | ping-pong pages, before → after |")
    print("|---|---|---|---|---|")
    for name, args in TRACES:
        o, n = figures(before, args), figures(after, args)
        print("| %s | %s → **%s** | %s → %s | %.1f → %.1f | %.0f → %.0f |" % (
            name, spread(o[0], "%.1f"), spread(n[0], "%.1f"), spread(o[1], "%.3f"),
            spread(n[1], "%.3f"), statistics.median(o[2]), statistics.median(n[2]),
            statistics.median(o[3]), statistics.median(n[3])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
