#!/usr/bin/python3
"""Proves that h2h_smoke.check.py can fail: builds results folders the way
guest/h2h.sh writes them (synthetic census lines, vmstat, hotset lines) and
runs the check on them. A balanced run that moved the hot set must pass;
one that moved nothing, one that moved too little and one whose vmstat says
nothing migrated must fail. Host only, no guest:

  tests/vm/lib/h2h_smoke_selftest.py      exit 0 when every case went as expected
"""
import json
import os
import subprocess
import sys
import tempfile

VM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CHECK = os.path.join(VM, "scenarios", "h2h_smoke.check.py")
PAGES, HOT = 98304, 24576


def write_run(folder, prefix, contender, shares, moved_pages, migrated_pages):
    def put(name, text):
        with open(os.path.join(folder, prefix + "." + name), "w", encoding="utf-8") as f:
            f.write(text)
    put("contender", contender + "\n")
    put("seconds", "30\n")
    put("rc", "0\n")
    put("out", json.dumps({"pid": 1, "ready": True, "size": PAGES * 4096}) + "\n" +
        json.dumps({"accesses": 10**6, "verified": True, "bad_pages": 0}) + "\n")
    lines = []
    for i, share in enumerate(shares):
        t = 30.0 * i / (len(shares) - 1)
        on0 = int(moved_pages * i / (len(shares) - 1))
        lines.append(json.dumps({
            "t_s": t, "mono_s": 100 + t, "query_s": 0.3, "phase": 0, "hot_pages": HOT,
            "share": share, "oracle": 1.0, "nodes": {"0": on0, "2": PAGES - on0},
            "moves": on0, "moved_pages": on0, "promoted": on0, "demoted": 0,
            "pingpong_pages": 0, "final": i == len(shares) - 1}))
    put("census.jsonl", "\n".join(lines) + "\n")
    put("vmstat.before", "pgmigrate_success 1000\npgpromote_success 0\n")
    put("vmstat.after", "pgmigrate_success %d\npgpromote_success 0\n" % (1000 + migrated_pages))


def run_case(name, shares, moved, migrated, want_pass):
    with tempfile.TemporaryDirectory() as out:
        folder = os.path.join(out, "h2h_smoke")
        os.makedirs(folder)
        with open(os.path.join(folder, "rc"), "w", encoding="utf-8") as f:
            f.write("0\n")
        write_run(folder, "none", "none", [0.0] * 31, 0, 0)
        write_run(folder, "balanced", "tierd-balanced", shares, moved, migrated)
        r = subprocess.run([sys.executable, CHECK, "--mode", "numa", "--kernel", "6.12",
                            "--out", out, "--expect", os.path.join(VM, "expect", "numa.json"),
                            "--topology", os.path.join(VM, "topology", "numa4.json")],
                           capture_output=True, text=True, check=False)
    ok = (r.returncode == 0) == want_pass
    print("%s %s: check exit %d, want %s\n    %s" % (
        "ok  " if ok else "FAIL", name, r.returncode, "pass" if want_pass else "fail",
        r.stdout.strip().replace("\n", "\n    ")))
    return ok


rising = [min(0.98, 0.05 * i) for i in range(31)]
cases = [
    run_case("balanced promoted the hot set", rising, 22016, 22016, True),
    run_case("balanced moved nothing", [0.0] * 31, 0, 0, False),
    run_case("balanced moved too little (share 0.2)", [0.2 * i / 30 for i in range(31)], 500,
             500, False),
    run_case("no page migrated according to vmstat", rising, 22016, 0, False),
]
sys.exit(0 if all(cases) else 1)
