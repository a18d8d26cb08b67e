#!/usr/bin/python3
"""h2h_gups: one head-to-head run of the suite's GUPS workload under one contender
(guest/h2h.sh): tier-gups ran for its length, replayed its updates and found every
word as it started (bad 0), wrote an interval line about every second, /proc/vmstat
was read at both ends. The figures are printed; scripts/bench-placement.sh compares
the contenders."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import h2hcheck  # noqa: E402

h2hcheck.bench_check("h2h_gups", ["gups"])
