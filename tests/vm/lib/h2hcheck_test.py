#!/usr/bin/python3
"""Unit test of h2hcheck.py's reading of a suite program's run (tier-gups,
tier-graph, tier-kv: R.report.jsonl, workloads/suite/report.hpp): the figures it
takes, and the check failing on bad data, a missing final line, too few
interval lines or a non-zero exit. Run by ctest (tests/unit/vm_harness.cmake)."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h2hcheck  # noqa: E402


class FakeCheck:
    """What check_suite_run uses of vmcheck.Check: the folder and fail()."""

    def __init__(self, folder):
        self.dir = folder
        self.problems = []

    def fail(self, msg):
        self.problems.append(msg)

    def eq(self, what, got, want):
        if got != want:
            self.fail("%s: got %s, want %s" % (what, got, want))


def write_run(folder, prefix, intervals=10, bad=0, final=True, rc=0, latency=True):
    p = os.path.join(folder, prefix)
    lines = [{"t": float(i + 1), "ops": 1000, "ops_per_s": 1000.0} for i in range(intervals)]
    if final:
        f = {"final": True, "workload": "kv", "unit": "requests", "ops": 10000, "seconds": 10.0,
             "ops_per_s": 1000.0, "verified": 5000, "verified_unit": "keys", "bad": bad,
             "nodes": {"0": 10, "2": 90}}
        if latency:
            f.update({"requests": 10000, "p50_us": 80.5, "p99_us": 410.0, "p999_us": 900.0})
        lines.append(f)
    with open(p + ".report.jsonl", "w", encoding="utf-8") as out:
        out.write("".join(json.dumps(ln) + "\n" for ln in lines))
    with open(p + ".rc", "w", encoding="utf-8") as out:
        out.write("%d\n" % rc)
    with open(p + ".contender", "w", encoding="utf-8") as out:
        out.write("kernel\n")
    for name, migrated in (("before", 100), ("after", 612)):
        with open(p + ".vmstat." + name, "w", encoding="utf-8") as out:
            out.write("pgmigrate_success %d\npgpromote_success %d\n" % (migrated, migrated // 2))


class SuiteRun(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_figures_of_a_good_run(self):
        write_run(self.dir, "kv")
        s = h2hcheck.summary(self.dir, "kv")  # dispatches on the report file
        self.assertEqual(s["accesses_per_s"], 1000.0)
        self.assertEqual(s["unit"], "requests")
        self.assertEqual(s["p99_us"], 410.0)
        self.assertTrue(s["verified"])
        self.assertEqual(s["rc"], 0)
        self.assertEqual(s["contender"], "kernel")
        self.assertEqual(s["moved_bytes"], 512 * 4096)
        self.assertEqual(s["intervals"], 10)
        c = FakeCheck(self.dir)
        h2hcheck.check_suite_run(c, "kv", 10)
        self.assertEqual(c.problems, [])
        self.assertIn("p99 410.0 us", h2hcheck.describe_suite(s))

    def test_bad_data_fails(self):
        write_run(self.dir, "kv", bad=3)
        c = FakeCheck(self.dir)
        h2hcheck.check_suite_run(c, "kv", 10)
        self.assertFalse(h2hcheck.suite_summary(self.dir, "kv")["verified"])
        self.assertTrue(any("bad data" in p for p in c.problems), c.problems)

    def test_missing_final_line_fails(self):
        write_run(self.dir, "kv", final=False)
        c = FakeCheck(self.dir)
        h2hcheck.check_suite_run(c, "kv", 10)
        self.assertTrue(any("no final line" in p for p in c.problems), c.problems)

    def test_too_few_intervals_fail(self):
        write_run(self.dir, "kv", intervals=2)
        c = FakeCheck(self.dir)
        h2hcheck.check_suite_run(c, "kv", 60)
        self.assertTrue(any("interval lines" in p for p in c.problems), c.problems)

    def test_exit_status_fails(self):
        write_run(self.dir, "kv", rc=1)
        c = FakeCheck(self.dir)
        h2hcheck.check_suite_run(c, "kv", 10)
        self.assertTrue(any("exit status" in p for p in c.problems), c.problems)

    def test_no_latency_for_a_workload_without_requests(self):
        write_run(self.dir, "gups", latency=False)
        s = h2hcheck.summary(self.dir, "gups")
        self.assertIsNone(s["p99_us"])
        self.assertNotIn("p99", h2hcheck.describe_suite(s))


if __name__ == "__main__":
    unittest.main()
