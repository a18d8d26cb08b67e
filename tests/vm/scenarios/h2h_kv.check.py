#!/usr/bin/python3
"""h2h_kv: one head-to-head run of the suite's key-value service under one contender
(guest/h2h.sh): redis-server loaded by tier-kv, tier-kv ran its requests for the run's
length, read every key back and found each at its last version (bad 0), wrote an
interval line about every second, /proc/vmstat was read at both ends. The figures
(requests/s, p50/p99) are printed; scripts/bench-placement.sh compares the contenders."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import h2hcheck  # noqa: E402

h2hcheck.bench_check("h2h_kv", ["kv"])
