#!/usr/bin/python3
"""faults_kill: tierd SIGKILLed at random points of 100 placement cycles
(mid-move, mid-reload, mid state write, mid start-up) while it moves the
pages of three registered tier-touch workloads.
Judged: every planned cycle ran; every restarted tierd answered, listed the
three workloads again (from the state file, which it found loaded: never
damaged, no state.json.bad) and owns the knobs with their boot values as
originals; while it runs the knobs are numa_balancing 0 / demotion false;
tierd really moved pages (pgmigrate_success grew) and some kills landed
while pages were moving; every tier-touch verified all its pages with 0 bad
pages; after the final SIGTERM the knobs are back at their boot values."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

WORKLOADS = 3
PAGES = 64 * (1 << 20) // 4096
# Moves-in-flight kills: in the two measured runs 30-40 of the ~45 move
# cycles; a floor far below that still proves the fault was exercised.
MIN_MOVING_KILLS = 5


def fields(line):
    words = line.split()
    return dict(zip(words[::2], words[1::2]))


def totals_of(text):
    """"key value" lines as a dict."""
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        out[key] = value
    return out


def totals(c):
    return totals_of(c.file("totals.txt"))


def json_lines(text):
    for line in text.splitlines():
        try:
            yield json.loads(line)
        except ValueError:
            continue


def check_start(c, what, f, boot, first):
    """One tierd start that answered: listed workloads, knob originals, state
    file (absent only for the FIRST tierd that answered: none before it got
    as far as writing one)."""
    c.eq("%s: workloads listed again" % what, f.get("listed"), str(WORKLOADS))
    c.allowed("%s: state file found" % what, f.get("state_found"),
              ["absent", "loaded"] if first else "loaded")
    nb_boot, dem_boot = boot
    # tierd records every knob "own" writes, also one already at the value
    # it wants (demotion_enabled boots false here).
    c.eq("%s: numa_balancing original" % what, f.get("nb_original"), nb_boot)
    c.eq("%s: demotion_enabled original" % what, f.get("dem_original"), dem_boot)
    c.eq("%s: knobs while tierd runs" % what, f.get("knobs_up"), "0/false")


def judge(c, cycles_wanted, kinds_wanted, min_moving):
    """The judgement shared with faults_kill_systemd: at least MIN_MOVING
    kills while pages moved. Returns the totals and the cycle lines."""
    c.eq("exit status", c.rc(), 0)
    t = totals(c)
    boot = tuple((t.get("knobs_boot") or "? ?").split())
    planned = int(t.get("cycles_planned") or 0)
    c.eq("cycles planned", planned, cycles_wanted)

    cycles, final = [], None
    for line in c.file("cycles.txt").splitlines():
        if line.startswith("cycle "):
            cycles.append(fields(line))
        elif line.startswith("final "):
            final = fields(line[len("final "):])
    c.eq("cycles run", len(cycles), planned)
    kinds, moving = {}, {}
    answered = 0
    for f in cycles:
        kind = f.get("kind")
        kinds[kind] = kinds.get(kind, 0) + 1
        if f.get("moving") == "yes":
            moving[kind] = moving.get(kind, 0) + 1
        if kind != "start":
            check_start(c, "cycle %s (%s) start" % (f.get("cycle"), kind), f, boot, answered == 0)
            answered += 1
    if final is None:
        c.fail("no final start line in cycles.txt")
    else:
        check_start(c, "final start", final, boot, answered == 0)
    restarts = sum(1 for f in cycles if f.get("kind") != "start")
    for kind in kinds_wanted:
        if not kinds.get(kind):
            c.fail("no %s kill among the %d cycles (seed %s)" % (kind, len(cycles), t.get("seed")))

    migrated = int(t.get("migrated_pages") or 0)
    if migrated < WORKLOADS * PAGES // 2:
        c.fail("pages migrated during the run: %d, want at least %d (tierd moving the workloads)" %
               (migrated, WORKLOADS * PAGES // 2))
    moving_kills = sum(moving.values())
    began = sum(1 for f in cycles if f.get("kind") == "move" and "began_yes" in f.get("op", ""))
    if moving_kills < min_moving:
        c.fail("kills while pages were moving: %d, want at least %d" % (moving_kills, min_moving))
    c.eq("state files at the end", c.file("state_files.txt").split(), ["state.json"])
    damaged = [line for line in c.file("tierd_state_lines.txt").splitlines()
               if "not valid JSON" in line or ".bad" in line]
    if damaged:
        c.fail("a tierd found a damaged state file: %s" % damaged[0])

    verified = bad = 0
    for n in range(WORKLOADS):
        lines = list(json_lines(c.file("touch.%d.out" % n)))
        done = [doc for doc in lines if "verified" in doc]
        if not done:
            c.fail("touch.%d: no verification line" % n)
            continue
        doc = done[-1]
        c.eq("touch.%d verified" % n, doc.get("verified"), True)
        c.eq("touch.%d bad pages" % n, doc.get("bad_pages"), 0)
        bad += doc.get("bad_pages") or 0
        if doc.get("verified"):
            verified += PAGES
    c.eq("tierd exit after SIGTERM", t.get("tierd_term_rc"), "0")
    c.eq("knobs after the final stop", tuple((t.get("knobs_after") or "").split()), boot)

    c.note("seed %s: %d cycles (%s), %d restarts checked, %s s; move cycles whose moves began %d; kills while moving %d (%s); "
           "pages migrated %d; pages verified %d, bad pages %d; knobs boot %s restored" %
           (t.get("seed"), len(cycles), ", ".join("%s %d" % kv for kv in sorted(kinds.items())),
            restarts + (final is not None), t.get("loop_s"), began, moving_kills,
            ", ".join("%s %d" % kv for kv in sorted(moving.items())), migrated, verified, bad,
            "/".join(boot)))
    return t, cycles


if __name__ == "__main__":
    check = vmcheck.Check("faults_kill")
    judge(check, 100, ("move", "reload", "state", "start"), MIN_MOVING_KILLS)
    check.finish()
