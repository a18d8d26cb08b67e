"""Host-side helpers for the heat scenarios (hotset_*, heat_*): read what
guest/heat.sh left in the scenario's folder and score a heat source against
hotset's truth file.

Scoring is per 4 KiB page of hotset's buffer: a page is "reported" when a
range of `tierctl heat`'s "hot" list covers any byte of it, "hot" when a
range of the truth file's phase covers it. precision = reported and hot /
reported (inside the buffer), recall = reported and hot / hot. Pages
reported outside the buffer (stack, program text) are counted and shown but
do not lower precision: the truth file says nothing about them.
"""
import json
import os

import vmcheck

PAGE = 4096

_migrate = vmcheck.scenario_check("migrate")
parse_numa_maps = _migrate.parse_numa_maps
json_lines = _migrate.json_lines


def hotset_lines(c):
    """(ready line, exit line) of hotset.out; a finding for each one missing."""
    docs = json_lines(c.file("hotset.out"))
    ready = next((d for d in docs if d.get("ready") is True), None)
    done = next((d for d in docs if "accesses" in d), None)
    if ready is None:
        c.fail("hotset printed no ready line: %s" % c.file("hotset.err").strip()[:300])
    if done is None:
        c.fail("hotset printed no exit line: %s" % c.file("hotset.err").strip()[:300])
    return ready, done


def check_hotset(c, size, hot, nodes, kept=True):
    """hotset placed `size` bytes as `nodes` ({"node": pages} from its own
    move_pages query; None: not judged, something else may move pages during
    the first touch), kept them there (unless not `kept`: the kernel was
    allowed to move them), ran, and verified every page.
    Returns (ready, exit) lines or (None, None)."""
    ready, done = hotset_lines(c)
    c.eq("hotset exit status", c.file("hotset.rc").strip(), "0")
    if ready is None or done is None:
        return None, None
    c.eq("hotset size", ready.get("size"), size)
    if nodes is not None:
        c.eq("hotset placement at the ready line", ready.get("nodes"), nodes)
    if kept and nodes is not None:
        c.eq("hotset placement at exit", done.get("nodes"), nodes)
    c.eq("hotset hot set", ready.get("hot"), [ready.get("base"), ready.get("base", 0) + hot])
    c.eq("hotset bad_pages", done.get("bad_pages"), 0)
    c.eq("hotset verified", done.get("verified"), True)
    if not isinstance(done.get("accesses"), int) or done["accesses"] <= 0:
        c.fail("hotset made no accesses: %s" % done)
    return ready, done


def truth(c, ready, phases):
    """truth.json, checked against the ready line: page size, base, size and
    `phases` phases; the first one's hot set is the ready line's."""
    doc = c.json_output("truth.json")
    if not isinstance(doc, dict) or ready is None:
        return None
    c.eq("truth page_size", doc.get("page_size"), PAGE)
    c.eq("truth base", doc.get("base"), ready.get("base"))
    c.eq("truth size", doc.get("size"), ready.get("size"))
    ph = doc.get("phases")
    if not isinstance(ph, list) or len(ph) != phases:
        c.fail("truth phases: got %s, want %d phases" % (json.dumps(ph)[:200], phases))
        return None
    c.eq("truth phase 0 start_s", ph[0].get("start_s"), 0)
    c.eq("truth phase 0 hot ranges", ph[0].get("hot"), [ready.get("hot")])
    return doc


def knobs_restored(c):
    """Every knob the scenario changed holds its saved value again."""
    saved = c.file("knobs.saved").strip().splitlines()
    restored = c.file("knobs.restored").strip().splitlines()
    if not saved:
        c.fail("knobs.saved is empty: the scenario changed no knob?")
    c.eq("knobs after the scenario (knobs.restored = knobs.saved)", restored, saved)
    return saved


def vmstat(c, name):
    out = {}
    for line in c.file(name).splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            out[parts[0]] = int(parts[1])
    return out


def vmstat_delta(c, key):
    """after - before of one /proc/vmstat counter; a finding if it is absent."""
    before, after = vmstat(c, "vmstat.before"), vmstat(c, "vmstat.after")
    if key not in before or key not in after:
        c.fail("/proc/vmstat has no %s" % key)
        return None
    return after[key] - before[key]


def buffer_nodes(c, ready):
    """The buffer in numa_maps.after, over every VMA inside it (mbind splits
    the buffer into one VMA per region): ({node: pages}, [policy per VMA])."""
    base = (ready or {}).get("base")
    if base is None:
        return None, None
    end = base + ready.get("size", 0)
    vmas = [v for v in parse_numa_maps(c.file("numa_maps.after")) if base <= v["start"] < end]
    if not vmas or vmas[0]["start"] != base:
        c.fail("numa_maps.after has no mapping at the buffer %#x" % base)
        return None, None
    nodes = {}
    for v in vmas:
        for node, pages in v["nodes"].items():
            nodes[node] = nodes.get(node, 0) + pages
    return nodes, [v["policy"] for v in vmas]


def heat_doc(c):
    """heat.json: exit status 0 and the fields of the contract."""
    c.eq("tierctl heat exit status", c.file("heat.rc").strip(), "0")
    doc = c.json_output("heat.json")
    if not isinstance(doc, dict):
        return None
    for k in ("pid", "source", "samples", "drops", "granule_bytes", "hot", "per_node",
              "local_share", "remote_share", "sources"):
        if k not in doc:
            c.fail("tierctl heat JSON lacks '%s'" % k)
    hot = doc.get("hot")
    if not isinstance(hot, list) or not all(
            isinstance(h, dict) and isinstance(h.get("start"), int) and isinstance(h.get("end"), int)
            and h["end"] > h["start"] for h in hot):
        c.fail("tierctl heat 'hot' is not a list of {start < end} integer ranges: %s"
               % json.dumps(hot)[:300])
        doc["hot"] = []
    return doc


def pages_of(ranges, lo, hi):
    """The 4 KiB page numbers (address // PAGE) that [start, end) ranges
    touch inside [lo, hi)."""
    out = set()
    for start, end in ranges:
        s, e = max(start, lo), min(end, hi)
        if s < e:
            out.update(range(s // PAGE, (e - 1) // PAGE + 1))
    return out


def reported_and_hot(doc, truth_doc, phase=0):
    """(pages heat.json's hot ranges report inside the buffer, the truth
    phase's hot pages), as page-number sets."""
    lo, hi = truth_doc["base"], truth_doc["base"] + truth_doc["size"]
    reported = pages_of([(h["start"], h["end"]) for h in doc.get("hot", [])], lo, hi)
    hot = pages_of([tuple(r) for r in truth_doc["phases"][phase]["hot"]], lo, hi)
    return reported, hot


def score(c, doc, truth_doc, phase=0):
    """(precision, recall, reported pages in the buffer, pages reported
    outside it) of heat.json's hot ranges against the truth's phase."""
    lo, hi = truth_doc["base"], truth_doc["base"] + truth_doc["size"]
    ranges = [(h["start"], h["end"]) for h in doc.get("hot", [])]
    outside = sum(max(0, min(e, lo) - s) + max(0, e - max(s, hi)) for s, e in ranges) // PAGE
    reported, hot = reported_and_hot(doc, truth_doc, phase)
    both = len(reported & hot)
    precision = both / len(reported) if reported else 0.0
    recall = both / len(hot) if hot else 0.0
    tool = "; %s samples, %s drops, granule %s" % (
        doc.get("samples"), doc.get("drops"), doc.get("granule_bytes")) if "samples" in doc else ""
    c.note("precision %.3f recall %.3f (%d pages reported in the buffer, %d hot, %d both; "
           "%d reported outside%s)" % (precision, recall, len(reported), len(hot), both, outside,
                                       tool))
    return precision, recall


def at_least(c, what, got, want):
    """Fails the check unless got >= want; returns whether it held."""
    if got is None or got < want:
        c.fail("%s: got %s, want >= %s" % (what, got if got is None else round(got, 3), want))
        return False
    return True


def new_check(name):
    return vmcheck.Check(name)


def heat_scenario(name, size, hot, nodes):
    """The common part of the heat_* checks: scenario exit status (127: no
    `tierctl heat` yet, reported as such), hotset placed as `nodes`
    ({"node": pages}), kept there (its own query and numa_maps) and
    verified, the truth file, tierctl heat's JSON, knobs restored.
    Returns (check, ready line, heat JSON or None, truth or None)."""
    c = new_check(name)
    c.eq("exit status", c.rc(), 0)
    if c.rc() == 127:
        c.finish()
    ready, _ = check_hotset(c, size, hot, nodes)
    numa_nodes, _ = buffer_nodes(c, ready)
    if numa_nodes is not None:
        c.eq("numa_maps: buffer pages per node", numa_nodes,
             {int(k): v for k, v in nodes.items()})
    truth_doc = truth(c, ready, 1)
    doc = heat_doc(c)
    if doc is not None and ready is not None:
        c.eq("tierctl heat pid", doc.get("pid"), ready.get("pid"))
    knobs_restored(c)
    return c, ready, doc, truth_doc


def source_used(c, doc, name):
    """tierctl heat says it used `name`, and lists it as available."""
    c.eq("tierctl heat source", doc.get("source"), name)
    entry = next((s for s in doc.get("sources") or [] if s.get("name") == name), None)
    if entry is None or entry.get("available") is not True:
        c.fail("source %s not listed as available: %s" % (name, entry))
