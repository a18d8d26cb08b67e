#!/usr/bin/python3
"""h2h_c: one head-to-head run of workload C under one contender
(guest/h2h.sh): the online and the growing offline hotset both ran for
their length (H2H_SECONDS, 60 s), verified every page, took a census every 1-8 s up
to a final one. The figures are printed (the online share, which one was
demoted first); scripts/bench-placement.sh compares the contenders."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import h2hcheck  # noqa: E402

h2hcheck.bench_check("h2h_c", ["c_online", "c_offline"])
