#!/usr/bin/python3
"""faults_state: tierd's state file truncated, empty, garbage, or on a full
tmpfs. Judged: tierd starts and serves status in every case; a damaged file
is reported (state_file.found "damaged", the problem named), kept
byte-identical as state.json.bad, and replaced by a fresh valid file; on the
full file system every write fails, is counted (state_file.write_failures,
last_write_error "No space left on device", state_error while it lasts), the
good file stays byte-identical (also across a SIGKILL and a restart, which
loads it and recovers the workload), no temporary file is left, and once
space is back the next write succeeds. The tier-touch verifies all its
pages with 0 bad pages."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

PAGES = 64 * (1 << 20) // 4096
PROBLEMS = {"truncated": "is not valid JSON", "empty": "is empty (0 bytes)",
            "garbage": "is not valid JSON"}

c = vmcheck.Check("faults_state")
c.eq("exit status", c.rc(), 0)
obs = {}
for line in c.file("obs.log").splitlines():
    key, _, value = line.partition(" ")
    obs[key] = value


def want(key, value):
    c.eq(key, obs.get(key), value)


def state_file(step):
    doc = c.json_output(step + ".status.json")
    section = (doc or {}).get("state_file")
    if not isinstance(section, dict):
        c.fail("%s: status has no state_file section: %s" % (step, json.dumps(doc)[:300]))
        return doc or {}, {}
    return doc, section


def log_has(step, text):
    log = c.file(step + ".tierd.log")
    if text not in log:
        c.fail("%s: tierd's log does not say '%s'; its state lines: %s" %
               (step, text, " | ".join(l for l in log.splitlines() if "state" in l)[-600:]))


want("register_touch_rc", "0")
want("good_term_rc", "0")
for case, problem in PROBLEMS.items():
    want(case + "_answered", "yes")
    want(case + "_status_answers", "5")
    doc, s = state_file(case)
    c.eq("%s: state_file.found" % case, s.get("found"), "damaged")
    if problem not in (s.get("problem") or ""):
        c.fail("%s: state_file.problem %s does not say '%s'" % (case, json.dumps(s.get("problem")),
                                                               problem))
    c.eq("%s: state_file.kept_as" % case, s.get("kept_as"), (s.get("path") or "?") + ".bad")
    c.eq("%s: state_file.write_failures" % case, s.get("write_failures"), 0)
    want(case + "_bad_identical", "yes")
    want(case + "_new_state_valid", "yes")
    want(case + "_term_rc", "0")
    log_has(case, "kept as ")

# --- full file system ---------------------------------------------------------------
want("tmpfs_mount_rc", "0")
want("full_first_answered", "yes")
_, first = state_file("full_first")
c.eq("full_first: state_file.found", first.get("found"), "loaded")
c.eq("full_first: recovered workloads", first.get("recovered_workloads"), 1)
c.eq("full_first: write failures", first.get("write_failures"), 0)
c.eq("tmpfs free after the fill (KiB)", obs.get("df_free_kb"), "0")
want("register_sleep_full_rc", "0")
want("unregister_full_rc", "0")
want("full_status_answers", "5")
doc, full = state_file("full")
# register, unregister, reload: three writes that must all have failed.
if (full.get("write_failures") or 0) < 3:
    c.fail("full: state_file.write_failures %s, want at least 3 (register, unregister, reload)"
           % full.get("write_failures"))
if "No space left on device" not in (full.get("last_write_error") or ""):
    c.fail("full: last_write_error %s does not say ENOSPC" % json.dumps(full.get("last_write_error")))
if "state_error" not in (doc or {}):
    c.fail("full: status has no state_error while writes fail")
want("full_state_identical", "yes")
want("full_leftovers", "")
log_has("full_first", "the previous ")
want("full_restart_answered", "yes")
want("full_restart_status_answers", "5")
_, again = state_file("full_restart")
c.eq("full_restart: state_file.found", again.get("found"), "loaded")
c.eq("full_restart: recovered workloads", again.get("recovered_workloads"), 1)
if (again.get("write_failures") or 0) < 1:
    c.fail("full_restart: the start's write on the full tmpfs was not counted: %s" % again)
want("full_restart_state_identical", "yes")
want("register_sleep_freed_rc", "0")
doc, freed = state_file("full_freed")
if "state_error" in (doc or {}):
    c.fail("full_freed: state_error still reported after a good write: %s" % doc["state_error"])
if (freed.get("writes") or 0) < 1:
    c.fail("full_freed: no successful write counted: %s" % freed)
want("full_freed_state_has_sleep", "yes")
want("full_freed_term_rc", "0")
want("tmpfs_umount_rc", "0")

# --- the workload ---------------------------------------------------------------------
verified = bad = None
for line in c.file("touch.out").splitlines():
    try:
        d = json.loads(line)
    except ValueError:
        continue
    if "verified" in d:
        verified, bad = d.get("verified"), d.get("bad_pages")
c.eq("touch verified", verified, True)
c.eq("touch bad pages", bad, 0)
want("touch_rc", "0")
c.note("damaged cases %s: reported, kept aside, replaced; full tmpfs: %s failed writes, "
       "good file kept, restart loaded it (%s failed at start), write after freeing ok; "
       "pages verified %d, bad pages %s" %
       (", ".join(PROBLEMS), full.get("write_failures"), again.get("write_failures"),
        PAGES if verified else 0, bad))
c.finish()
