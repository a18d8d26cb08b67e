#!/usr/bin/python3
"""Run a command, then record its wall time and peak RSS.

usage: measure.py OUTFILE COMMAND ARGS...
Writes "wall_s=<s> maxrss_kb=<kB> rc=<status>" to OUTFILE and exits with the
command's status. Peak RSS is the largest waited-for descendant (qemu under
timeout), from getrusage(RUSAGE_CHILDREN).
"""
import resource
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    start = time.monotonic()
    rc = subprocess.call(sys.argv[2:])
    wall = time.monotonic() - start
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        f.write("wall_s=%.1f maxrss_kb=%d rc=%d\n" % (wall, rss, rc))
    sys.exit(rc)


if __name__ == "__main__":
    main()
