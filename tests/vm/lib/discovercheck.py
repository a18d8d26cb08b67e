"""What the discover_* scenarios (guest/discover.sh) show: tierd on its
shipped default configuration finds the machine's sizeable processes by
itself, promotes their hot data, demotes cold data and leaves small ones
alone. Shared by discover_default (tierd started by hand) and
discover_systemd (the shipped unit)."""
import json

FAST_NODES = {0, 1}  # numa4: the nodes with CPUs, tier 0
HOT_SHARE = 0.9      # each hot set's census share on the fast nodes at the end
SIZEABLE = ("hot0", "hot1", "hot2", "cold0", "fill0")


def lines(check, name):
    out = []
    for line in check.file(name).splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def vmstat(check, name):
    values = {}
    for line in check.file(name).splitlines():
        key, _, value = line.partition(" ")
        if value.strip().isdigit():
            values[key] = int(value)
    return values


def check_mix(c, status, listed):
    """c: vmcheck.Check; status: tierctl status --json; listed: tierctl
    workloads --json."""
    pids = {}
    for line in c.file("mix.pids").splitlines():
        name, _, pid = line.partition(" ")
        if pid.strip().isdigit():
            pids[name] = int(pid)
    c.eq("processes the shell loop started", len(pids), 50)
    c.note(c.file("wait.txt").strip())

    # What tierd runs, and why.
    c.eq("policy", status.get("policy", {}).get("name"), "balanced")
    placement = status.get("placement", {})
    c.eq("kernel_tiering", placement.get("kernel_tiering"), "coexist")
    why = placement.get("kernel_tiering_why", "")
    c.eq("kernel_tiering_why says coexist", why.startswith("coexist: "), True)
    c.note("why: " + why)
    discovery = status.get("discovery", {})
    c.eq("discovery mode", discovery.get("mode"), "auto")
    c.eq("discovery active", discovery.get("active"), True)
    c.note("heat source %s" % (placement.get("heat_source_picked") or placement.get("heat_source")))

    # Who is a workload: the five sizeable ones, found by discovery; no small one.
    # A process is its own unit (found:PID) where processes are the units, its
    # transient service's cgroup (mix-NAME.service) where leaf cgroups are.
    found = [w for w in listed.get("workloads", []) if w.get("source") == "discovered"]

    def workload_of(name):
        for w in found:
            if w.get("pid") == pids.get(name) or \
                    (w.get("cgroup") or "").endswith("/mix-%s.service" % name):
                return w
        return None

    for name in SIZEABLE:
        w = workload_of(name)
        c.eq("%s (pid %s) discovered" % (name, pids.get(name)), w is not None, True)
        if w is not None and name == "hot0":
            c.note("found as %s: %s" % (w.get("id"), w.get("found")))
    small = sorted(n for n in pids if n.startswith("small") and workload_of(n) is not None)
    c.eq("small processes listed as workloads", small, [])
    c.note("%d workloads discovered, %s processes and %s cgroups surveyed" %
           (len(found), discovery.get("processes", 0), discovery.get("cgroups", 0)))

    # tierd's own moves per workload (status' placement detail).
    moved = {w.get("id"): w for w in placement.get("workloads", [])}

    def tierd_bytes(names, key):
        total = 0
        for name in names:
            item = workload_of(name)
            detail = moved.get(item.get("id")) if item else None
            total += (detail or {}).get(key, 0)
        return total

    # Hot data promoted: every hot set on the fast nodes, tierd among the movers.
    for name in ("hot0", "hot1", "hot2"):
        census = lines(c, name + ".census")
        share = census[-1].get("share") if census else None
        c.within("%s hot set's share on the fast nodes (census)" % name, share, HOT_SHARE, 1.0)
        end = lines(c, name + ".out")
        c.eq("%s verified" % name, bool(end) and end[-1].get("verified"), True)
        c.eq("%s bad pages" % name, end[-1].get("bad_pages") if end else None, 0)
    promoted = tierd_bytes(("hot0", "hot1", "hot2"), "promoted_bytes")
    c.within("hot data promoted by tierd (MiB)", promoted / 2**20, 1, float("inf"))
    before, after = vmstat(c, "vmstat.before"), vmstat(c, "vmstat.after")
    delta = {k: after.get(k, 0) - before.get(k, 0)
             for k in ("numa_pages_migrated", "pgpromote_success", "pgdemote_kswapd")}
    c.note("tierd promoted %.0f MiB of the hot sets; the kernel migrated %d pages "
           "(numa_pages_migrated), promoted %d, demoted %d" %
           (promoted / 2**20, delta["numa_pages_migrated"], delta["pgpromote_success"],
            delta["pgdemote_kswapd"]))

    # Cold data demoted: by tierd (the kernel's demotion is off), and off node 0.
    demoted = tierd_bytes(("cold0", "fill0"), "demoted_bytes")
    c.within("cold data demoted by tierd (MiB)", demoted / 2**20, 1, float("inf"))
    slow_pages = 0
    for name in ("cold0", "fill0"):
        verify = [x for x in lines(c, name + ".out") if "verified" in x]
        c.eq("%s verified" % name, bool(verify) and verify[-1].get("verified"), True)
        nodes = verify[-1].get("nodes", {}) if verify else {}
        slow_pages += sum(n for node, n in nodes.items() if int(node) not in FAST_NODES)
    c.note("tierd demoted %.0f MiB of cold data; %d of its pages on the slow nodes at the end" %
           (demoted / 2**20, slow_pages))
    c.within("cold pages on the slow nodes at the end", slow_pages, 1, float("inf"))

    # Small ones left alone: verified, every page where it was put.
    for name in sorted(n for n in pids if n.startswith("small")):
        start = lines(c, name + ".out")
        verify = [x for x in start if "verified" in x]
        if not start or not verify:
            c.fail("%s: no start or verify line" % name)
            continue
        c.eq("%s verified" % name, verify[-1].get("verified"), True)
        c.eq("%s pages by node" % name, verify[-1].get("nodes"),
             {str(start[0].get("node")): start[0].get("pages")})


def note_cpu(c):
    """tierd's CPU over the run (cpu.txt: "start|end UPTIME TICKS HZ"), as a
    share of one guest CPU: a figure, not a bound (TCG)."""
    rows = {}
    for line in c.file("cpu.txt").splitlines():
        fields = line.split()
        if fields:
            rows[fields[0]] = fields[1:]
    try:
        t0, ticks0 = float(rows["start"][0]), int(rows["start"][1])
        t1, ticks1, hz = float(rows["end"][0]), int(rows["end"][1]), int(rows["end"][2])
    except (KeyError, IndexError, ValueError):
        c.note("tierd's CPU: no figures (%r)" % c.file("cpu.txt").strip())
        return
    c.note("tierd's CPU %.1f %% of one guest CPU over %.0f s" %
           (100.0 * (ticks1 - ticks0) / hz / (t1 - t0), t1 - t0))


def check_run(c):
    """What both scenarios check: the scenario's exit status, the kernel's
    knobs the same before, during and after tierd (coexist changes
    nothing), check_mix, tierd's CPU. Returns the status (None without one)."""
    c.eq("exit status", c.rc(), 0)
    before = c.file("knobs.before")
    c.eq("knobs while tierd runs", c.file("knobs.during"), before)
    c.eq("knobs after tierd", c.file("knobs.after"), before)
    status = c.json_output("status.json")
    listed = c.json_output("workloads.json")
    if status is None or listed is None:
        return None
    check_mix(c, status, listed)
    note_cpu(c)
    return status
