#!/usr/bin/python3
"""h2h_graph: one head-to-head run of the suite's graph workload under one contender
(guest/h2h.sh): tier-graph ran for its length, every BFS traversal passed Graph500's
validation and the CSR's checksum held at exit (bad 0), an interval line came about
every second, /proc/vmstat was read at both ends. The figures are printed;
scripts/bench-placement.sh compares the contenders."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import h2hcheck  # noqa: E402

h2hcheck.bench_check("h2h_graph", ["graph"])
