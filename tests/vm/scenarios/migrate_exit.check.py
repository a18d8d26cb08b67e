#!/usr/bin/python3
"""migrate_exit: tierctl migrate on a process that exits mid-move (256 MiB at
--rate 20; the process ends once 4 MiB of it are on node 0) exits cleanly:
status 0 or 1 (not a crash: no signal, no 134/139), and reports the exit,
either in its JSON (failed.process_gone > 0 or a stop_reason naming the
process's exit) or, without JSON, in a message on stderr. It moved part of
the buffer - at least the pages seen on node 0 before the exit, never all -
and stopped within 10 s of the exit (the rest of the move would take ~12 s)."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

GONE = re.compile(r"process[ _-]?gone|exit|gone|no such process|esrch|vanished|terminated", re.I)

c = vmcheck.Check("migrate_exit")
c.eq("exit status", c.rc(), 0)
if c.rc() == 127:
    c.finish()
rc_text = c.file("migrate.rc").strip()
rc = int(rc_text) if rc_text.lstrip("-").isdigit() else None
c.allowed("tierctl migrate exit status (0 or 1: clean)", rc, [0, 1])
c.eq("tier-touch exit status (exited on its own)", c.file("touch.rc").strip(), "0")
err = c.file("migrate.err").strip()
text = c.file("migrate.json").strip()
doc = None
if text:
    try:
        doc = json.loads(text)
    except ValueError as e:
        c.fail("tierctl migrate --json printed something that is not JSON (%s): %s" % (e, text[:300]))
start = next((json.loads(line) for line in c.file("touch.out").splitlines() if '"pid"' in line), None)
pages = start["pages"] if start else None
if isinstance(doc, dict):
    failed = doc.get("failed") if isinstance(doc.get("failed"), dict) else {}
    gone = failed.get("process_gone", 0)
    stop = str(doc.get("stop_reason", ""))
    if not (isinstance(gone, int) and gone > 0) and not GONE.search(stop):
        c.fail("JSON does not report the exit: failed.process_gone %r, stop_reason %r" % (gone, stop))
    moved = doc.get("moved_pages")
    if not isinstance(moved, int) or pages is None or not 0 < moved < pages:
        c.fail("moved_pages %r: want part of the %r-page buffer, more than 0" % (moved, pages))
    c.note("rc %s, moved %s of %s pages in %s s, stop_reason %r, failed %s" % (
        rc, moved, pages, doc.get("seconds"), stop, failed))
elif doc is None:
    if rc == 0:
        c.fail("exit 0 without a JSON report")
    if not GONE.search(err):
        c.fail("no JSON and no message naming the process's exit on stderr: %r" % err[:300])
    c.note("rc %s, stderr: %s" % (rc, err[:200]))
seen = re.search(r"node0_pages_at_exit ([0-9]+)", c.file("events"))
c.eq("pages of the buffer on node 0 when the process was ended (>= 1024 wanted)",
     bool(seen) and int(seen.group(1)) >= 1024, True)
up = c.file("migrate.uptime").split()
if len(up) != 3:
    c.fail("migrate.uptime: want 'start exit end', got %r" % c.file("migrate.uptime"))
elif float(up[2]) - float(up[1]) > 10:
    c.fail("tierctl ran %.1f s after the process exited: it kept going" % (
        float(up[2]) - float(up[1])))
else:
    c.note("tierctl stopped %.1f s after the process exited" % (float(up[2]) - float(up[1])))
c.finish()
