#!/usr/bin/python3
"""bench-pools: what one workload arrival and exit costs tierd with CPU pools
on (docs/benchmarks.md, "CPU pools"). Starts the real tierd from BUILD/bin
with [pools] enabled (its own cpuset group, removed at the end), registers N
sleeping processes one by one over the control socket (each registration
recomputes the whole layout, writes the cpusets and moves the process before
tierd replies), then with N registered measures ROUNDS arrivals (register)
and exits (unregister) of one more workload, and prints p50/p99/max of each.

usage: scripts/bench-pools.py [--build-dir build] [--workloads 200] [--rounds 200]
                              [--pool shared|exclusive]   (root)
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

from tierd_client import call, percentile


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--workloads", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--pool", default="shared", help="pool of the measured workload")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench-pools: needs root (cpusets)")
    tmp = tempfile.mkdtemp(prefix="bench-pools-")
    sock = os.path.join(tmp, "tierd.sock")
    with open(os.path.join(tmp, "tierd.toml"), "w") as f:
        f.write('[pools]\nenabled = true\nparent = "tier-bench-%d"\n' % os.getpid())
    tierd = subprocess.Popen([os.path.join(a.build_dir, "bin", "tierd"), "--foreground",
                              "--config", os.path.join(tmp, "tierd.toml"), "--socket", sock,
                              "--metrics", "off", "--state", os.path.join(tmp, "state.json")],
                             stderr=open(os.path.join(tmp, "tierd.log"), "w"))
    sleepers = []
    try:
        for _ in range(100):
            if os.path.exists(sock):
                try:
                    if call(sock, "status").get("ok"):
                        break
                except OSError:
                    pass
            time.sleep(0.1)
        for _ in range(a.workloads):
            p = subprocess.Popen(["sleep", "1000"])
            sleepers.append(p)
            r = call(sock, "workloads.register", {"pid": p.pid, "class": "offline"})
            if not r.get("ok"):
                sys.exit("register failed: %s" % r)
        pools = call(sock, "pools.list")["result"]
        arrive, leave = [], []
        spec = {"pool": "exclusive:1", "class": "online"} if a.pool == "exclusive" else {}
        for _ in range(a.rounds):
            p = subprocess.Popen(["sleep", "1000"])
            t0 = time.perf_counter()
            r = call(sock, "workloads.register", dict(spec, pid=p.pid))
            t1 = time.perf_counter()
            u = call(sock, "workloads.unregister", {"id": p.pid})
            t2 = time.perf_counter()
            p.kill()
            p.wait()
            if not (r.get("ok") and u.get("ok")):
                sys.exit("round failed: %s %s" % (r, u))
            arrive.append((t1 - t0) * 1000)
            leave.append((t2 - t1) * 1000)
        print("backend: %s" % pools.get("backend_description"))
        print("%d workloads registered; %d rounds of one more (%s pool)" % (a.workloads, a.rounds, a.pool))
        for name, v in (("arrival (register: layout + cpuset writes + move)", arrive),
                        ("exit (unregister: layout + cpuset writes)", leave)):
            print("  %-52s p50 %6.2f ms  p99 %6.2f ms  max %6.2f ms"
                  % (name, percentile(v, 50), percentile(v, 99), max(v)))
    finally:
        for p in sleepers:
            p.kill()
            p.wait()
        tierd.terminate()
        tierd.wait()


if __name__ == "__main__":
    main()
