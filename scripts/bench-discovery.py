#!/usr/bin/python3
"""bench-discovery: tierd with thousands of processes it was never told about
(docs/benchmarks.md, "Discovery at scale"; issue 20).

Starts N processes (tier-touch, SIZE of touched anonymous memory each, then
asleep), then runs the real tierd from BUILD/bin twice over them, side by
side in one run:
  - baseline: `discover = "off"` (tierd tracks nothing), BASE_SECONDS;
  - discovery: `discover = "processes"`, `discover_min_size` below SIZE, so
    every one of the N is a workload and its pid is watched by the heat
    source: the time until all N are listed, then tierd's CPU (utime+stime
    of /proc/PID/stat) and RSS over SECONDS, `status` round-trip p50/p99
    over REQUESTS calls, and how long one more process takes to be listed
    (in sampling epochs).
With --shipped, one run instead: tierd on its embedded default configuration
(no file: discover = "auto"; only socket, state and metrics by flag) over
the N processes for SECONDS, its CPU and RSS and what `status` says about
discovery. On a machine with one memory tier that is the idle cost of the
installed service (issue 20: "says so once and idles at near-zero cost").
Each tierd is private (own socket, state, metrics off). Every process
started here is ended by pid at the end.

usage: scripts/bench-discovery.py [--build-dir build] [--processes 2000]
         [--size 2M] [--min-size 1M] [--seconds 600] [--base-seconds 60]
         [--requests 2000] [--heat-source auto] [--shipped]             (root)
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import tierd_client
from tierd_client import percentile

EPOCH_MS = 1000  # the shipped default ([daemon] epoch_ms), written into both configs


def call(sock_path, method, params=None):
    reply = tierd_client.call(sock_path, method, params)
    if not reply.get("ok"):
        raise RuntimeError("%s failed: %s" % (method, reply))
    return reply["result"]


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime (fields 14, 15)


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def discovered_pids(sock):
    listed = call(sock, "workloads.list")["workloads"]
    return {w.get("pid") for w in listed if w.get("source") == "discovered"}


class Tierd:
    def __init__(self, build_dir, tmp, name, discover, min_size, heat_source):
        """discover None: the embedded default configuration, no file."""
        self.sock = os.path.join(tmp, name + ".sock")
        argv = [os.path.join(build_dir, "bin", "tierd"), "--foreground",
                "--socket", self.sock, "--metrics", "off",
                "--state", os.path.join(tmp, name + "-state.json")]
        if discover is not None:
            config = os.path.join(tmp, name + ".toml")
            with open(config, "w") as f:
                f.write("[daemon]\nepoch_ms = %d\n\n[placement]\nheat_source = \"%s\"\n\n"
                        "[workloads]\ndiscover = \"%s\"\ndiscover_min_size = \"%s\"\n"
                        % (EPOCH_MS, heat_source, discover, min_size))
            argv += ["--config", config]
        self.log = os.path.join(tmp, name + ".log")
        self.proc = subprocess.Popen(argv, stderr=open(self.log, "w"))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                sys.exit("bench-discovery: tierd exited: see %s" % self.log)
            try:
                call(self.sock, "status")
                return
            except (OSError, ValueError, RuntimeError):
                time.sleep(0.1)
        sys.exit("bench-discovery: tierd did not answer within 60 s: see %s" % self.log)

    def cost(self, seconds):
        """CPU (% of one core) and RSS (MiB) over `seconds`."""
        hz = os.sysconf("SC_CLK_TCK")
        t0, c0 = time.monotonic(), cpu_ticks(self.proc.pid)
        time.sleep(seconds)
        t1, c1 = time.monotonic(), cpu_ticks(self.proc.pid)
        return 100.0 * (c1 - c0) / hz / (t1 - t0), rss_kib(self.proc.pid) / 1024.0

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def start_touchers(build_dir, count, size):
    touch = os.path.join(build_dir, "bin", "tier-touch")
    procs = []
    while len(procs) < count:  # in batches: one pipe each, closed once read
        batch = [subprocess.Popen([touch, "--size", size, "--node", "0"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
                 for _ in range(min(100, count - len(procs)))]
        procs += batch
        for p in batch:  # each prints its start line once its memory is touched
            if not p.stdout.readline():
                sys.exit("bench-discovery: tier-touch %d did not start" % p.pid)
            p.stdout.close()
    return procs


def wait_listed(sock, pids, deadline_s):
    t0 = time.monotonic()
    while time.monotonic() - t0 < deadline_s:
        if pids <= discovered_pids(sock):
            return time.monotonic() - t0
        time.sleep(0.1)
    missing = len(pids - discovered_pids(sock))
    sys.exit("bench-discovery: %d of %d processes not listed after %.0f s" %
             (missing, len(pids), deadline_s))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--processes", type=int, default=2000)
    ap.add_argument("--size", default="2M", help="touched memory per process (tier-touch --size)")
    ap.add_argument("--min-size", default="1M", help="discover_min_size for the discovery run")
    ap.add_argument("--seconds", type=float, default=600, help="cost window with discovery")
    ap.add_argument("--base-seconds", type=float, default=60, help="cost window of the baseline")
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--heat-source", default="auto", help="[placement] heat_source of both runs")
    ap.add_argument("--shipped", action="store_true",
                    help="one run of tierd on its embedded default configuration instead "
                         "(--min-size, --heat-source, --base-seconds and --requests do not apply)")
    a = ap.parse_args()
    if a.processes < 1 or a.seconds <= 0 or a.base_seconds <= 0 or a.requests < 1:
        ap.error("--processes, --requests, --seconds and --base-seconds must be positive")
    if os.geteuid() != 0:
        sys.exit("bench-discovery: needs root (tierd reads every process's memory)")
    tmp = tempfile.mkdtemp(prefix="bench-discovery-")
    procs = []
    tierd = None
    try:
        t0 = time.monotonic()
        procs = start_touchers(a.build_dir, a.processes, a.size)
        print("%d processes of %s each started in %.1f s" % (len(procs), a.size, time.monotonic() - t0))
        pids = {p.pid for p in procs}

        if a.shipped:
            tierd = Tierd(a.build_dir, tmp, "shipped", None, None, None)
            cpu, rss = tierd.cost(a.seconds)
            status = call(tierd.sock, "status")
            tierd.stop()
            tierd = None
            found = status.get("discovery", {})
            print("tierd on its embedded default configuration, %d processes of %s, %.0f s:"
                  % (a.processes, a.size, a.seconds))
            print("  policy %s, kernel_tiering %s; discovery %s, active %s, %s workloads found "
                  "among %s processes surveyed; %s workloads"
                  % (status["policy"]["name"], status["placement"]["kernel_tiering"],
                     found.get("mode"), found.get("active"), found.get("found"),
                     found.get("processes"), status["workloads"]["count"]))
            if found.get("idle_reason"):
                print("  idle: %s" % found["idle_reason"])
            print("  CPU %.3f%% of one core, RSS %.1f MiB" % (cpu, rss))
            return

        tierd = Tierd(a.build_dir, tmp, "baseline", "off", a.min_size, a.heat_source)
        base_cpu, base_rss = tierd.cost(a.base_seconds)
        tierd.stop()

        tierd = Tierd(a.build_dir, tmp, "discovery", "processes", a.min_size, a.heat_source)
        listed_after = wait_listed(tierd.sock, pids, 600)
        cpu, rss = tierd.cost(a.seconds)
        heat = call(tierd.sock, "status").get("placement", {}).get("heat", {})
        latencies = []
        for _ in range(a.requests):
            s0 = time.perf_counter()
            call(tierd.sock, "status")
            latencies.append((time.perf_counter() - s0) * 1000)
        one = start_touchers(a.build_dir, 1, a.size)
        procs += one
        one_after = wait_listed(tierd.sock, {one[0].pid}, 120)
        still = len(pids & discovered_pids(tierd.sock))
        tierd.stop()
        tierd = None

        print("tierd with %d processes of %s (discover_min_size %s), epoch %d ms:"
              % (a.processes, a.size, a.min_size, EPOCH_MS))
        print("  all %d listed as discovered %.1f s after tierd started; %d still listed at the end"
              % (a.processes, listed_after, still))
        print("  heat source %r watching %s processes (starts %s, retargets %s)%s"
              % (heat.get("source"), heat.get("processes"), heat.get("starts"),
                 heat.get("retargets"), "; error: " + heat["error"] if heat.get("error") else ""))
        print("  %-34s CPU %6.3f%% of one core, RSS %6.1f MiB" %
              ("baseline (discover off, %.0f s)" % a.base_seconds, base_cpu, base_rss))
        print("  %-34s CPU %6.3f%% of one core, RSS %6.1f MiB" %
              ("discovery (%.0f s)" % a.seconds, cpu, rss))
        print("  status round trip over %d calls: p50 %.2f ms, p99 %.2f ms, max %.2f ms"
              % (a.requests, percentile(latencies, 50), percentile(latencies, 99), max(latencies)))
        print("  one more process listed after %.2f s (%.1f epochs)" % (one_after, one_after * 1000 / EPOCH_MS))
    finally:
        if tierd is not None:
            tierd.stop()
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


if __name__ == "__main__":
    main()
