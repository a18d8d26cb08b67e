#!/usr/bin/python3
"""h2h_b: one head-to-head run of workload B under one contender (guest/h2h.sh):
hotset ran for its length (H2H_SECONDS, 60 s), verified every page, took a census about
every 1-8 s up to a final one, /proc/vmstat was read at both ends. The
figures are printed; scripts/bench-placement.sh compares the contenders."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import h2hcheck  # noqa: E402

h2hcheck.bench_check("h2h_b", ["b"])
