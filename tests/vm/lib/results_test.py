#!/usr/bin/python3
"""Unit test of results.py, the host's reader of the guest's result stream:
steps with and without their @@DONE line, a garbled tar, a run cut short.
Run by ctest (tests/unit/vm_harness.cmake)."""
import base64
import io
import os
import subprocess
import sys
import tarfile
import tempfile
import unittest

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results.py")


def step_tar(name, files):
    """The lines run_step sends for a folder holding `files` ({name: text})."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for fname, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo("./" + fname)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    b64 = base64.b64encode(buf.getvalue()).decode()
    return ["@@TAR " + name] + [b64[i:i + 76] for i in range(0, len(b64), 76)] + ["@@EOF"]


def run(lines):
    """(steps.tsv rows, OUTDIR, stderr) for a stream of lines."""
    tmp = tempfile.mkdtemp(prefix="results-test-")
    stream = os.path.join(tmp, "stream")
    with open(stream, "w", encoding="ascii") as f:
        f.write("\r\n".join(lines) + "\r\n")
    out = os.path.join(tmp, "out")
    proc = subprocess.run([sys.executable, RESULTS, stream, out], capture_output=True, text=True,
                          check=True)
    with open(os.path.join(out, "steps.tsv"), encoding="utf-8") as f:
        rows = [tuple(line.split("\t")) for line in f.read().splitlines()]
    return rows, out, proc.stderr


class ResultsStream(unittest.TestCase):
    def test_every_done_line_arrived(self):
        rows, out, _ = run(["@@VMTEST BEGIN numa"] + step_tar("_setup", {"rc": "0\n"}) +
                           ["@@DONE _setup 0"] + step_tar("topo", {"rc": "1\n", "stdout": "x"}) +
                           ["@@DONE topo 1", "@@VMTEST END"])
        self.assertEqual(rows, [("_setup", "0"), ("topo", "1"), ("END", "-")])
        with open(os.path.join(out, "topo", "stdout"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "x")

    def test_lost_done_line_takes_the_rc_file(self):
        # As the pmem mode's stream once arrived: no "@@DONE _setup 0".
        rows, _, err = run(["@@VMTEST BEGIN pmem"] + step_tar("_setup", {"rc": "0\n"}) +
                           step_tar("topo", {"rc": "0\n"}) + ["@@DONE topo 0", "@@VMTEST END"])
        self.assertEqual(sorted(rows[:-1]), [("_setup", "0"), ("topo", "0")])
        self.assertEqual(rows[-1], ("END", "-"))
        self.assertIn("step _setup: no @@DONE line", err)

    def test_no_rc_file_and_no_done_line_is_not_finished(self):
        rows, _, _ = run(step_tar("hung", {"stdout": "partial"}))
        self.assertEqual(rows, [])

    def test_garbled_tar_is_reported_and_skipped(self):
        rows, _, err = run(["@@TAR bad", "!!!notbase64", "@@EOF", "@@DONE bad 0"])
        self.assertEqual(rows, [("bad", "0")])
        self.assertIn("step bad:", err)


if __name__ == "__main__":
    unittest.main()
