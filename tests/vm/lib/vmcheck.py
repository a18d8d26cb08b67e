"""Shared host-side helpers for the scenario checks (tests/vm/scenarios/*.check.py).

A check is a small script that the runner calls as

    NAME.check.py --mode M --kernel K --out DIR --expect FILE --topology FILE

where DIR holds what the guest sent back: DIR/NAME/{stdout,stderr,rc,...}
for the scenario itself and DIR/_facts/ for the sysfs facts of the same boot
(a partial copy of the guest's /sys and /proc, see guest/facts.sh). The
check prints what it found wrong and exits 1, or prints an optional one-line
note and exits 0. Use `Check` to collect findings and `Facts` to read the
guest's sysfs.
"""
import argparse
import importlib.util
import json
import os
import re
import sys

# QEMU's size suffixes are binary (1G = 2^30 bytes); the kernel reports HMAT
# bandwidth in MB/s with MB = 2^20 bytes, so "20G" becomes 20480.
_SUFFIX = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def scenario_check(name):
    """Another scenario's check script (scenarios/NAME.check.py) loaded as a
    module, for the helpers it defines (its file name has dots, so it cannot
    be imported by name). Its main part does not run."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenarios",
                        name + ".check.py")
    spec = importlib.util.spec_from_file_location(name + "_check", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def qemu_size(text):
    """'20G' -> 21474836480 (QEMU's binary size suffixes)."""
    m = re.fullmatch(r"(\d+)([KMGT]?)", str(text).upper())
    if not m:
        raise ValueError("not a QEMU size: %r" % text)
    return int(m.group(1)) * _SUFFIX[m.group(2)]


def qemu_bandwidth_to_sysfs(text):
    """QEMU hmat-lb bandwidth ('8G', bytes/s) -> sysfs MB/s (8192)."""
    return qemu_size(text) // (1 << 20)


def parse_cpulist(text):
    """'0-1,4' -> [0, 1, 4]; '' -> []."""
    cpus = []
    for part in text.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        cpus.extend(range(int(lo), int(hi or lo) + 1))
    return cpus


class Facts:
    """Read the guest's sysfs copy (DIR/_facts) with the kernel's own units."""

    def __init__(self, root):
        self.root = root

    def path(self, p):
        return os.path.join(self.root, p.lstrip("/"))

    def read(self, p, default=None):
        try:
            with open(self.path(p), encoding="utf-8", errors="replace") as f:
                return f.read().strip()
        except OSError:
            return default

    def exists(self, p):
        return os.path.lexists(self.path(p))

    def listdir(self, p):
        try:
            return sorted(os.listdir(self.path(p)))
        except OSError:
            return []

    def link_target(self, p):
        """Where a copied symlink points (last component), or None."""
        try:
            return os.path.basename(os.readlink(self.path(p)))
        except OSError:
            return None

    def realpath(self, p):
        """The sysfs path a copied link resolves to, as a guest path."""
        real = os.path.realpath(self.path(p))
        return "/" + os.path.relpath(real, os.path.realpath(self.root))

    NODE = "/sys/devices/system/node"

    def nodes(self):
        return parse_cpulist(self.read(self.NODE + "/online", ""))

    def cpus(self, node):
        return parse_cpulist(self.read("%s/node%d/cpulist" % (self.NODE, node), ""))

    def distance_row(self, node):
        return [int(x) for x in self.read("%s/node%d/distance" % (self.NODE, node), "").split()]

    def mem_total_bytes(self, node):
        text = self.read("%s/node%d/meminfo" % (self.NODE, node), "")
        m = re.search(r"MemTotal:\s+(\d+) kB", text)
        return int(m.group(1)) * 1024 if m else None

    def hmat(self):
        """Every HMAT figure the kernel publishes: one dict per (access
        class, target node, initiator node listed for that target)."""
        out = []
        for target in self.nodes():
            base = "%s/node%d" % (self.NODE, target)
            for acc in self.listdir(base):
                m = re.fullmatch(r"access(\d+)", acc)
                if not m:
                    continue
                ini = base + "/" + acc + "/initiators"
                values = {}
                for key in ("read_latency", "write_latency", "read_bandwidth", "write_bandwidth"):
                    v = self.read(ini + "/" + key)
                    if v is not None:
                        values[key] = int(v)
                for name in self.listdir(ini):
                    mm = re.fullmatch(r"node(\d+)", name)
                    if not mm:
                        continue
                    out.append({
                        "access_class": int(m.group(1)),
                        "initiator": int(mm.group(1)),
                        "target": target,
                        "read_latency_ns": values.get("read_latency"),
                        "write_latency_ns": values.get("write_latency"),
                        "read_bandwidth_mbps": values.get("read_bandwidth"),
                        "write_bandwidth_mbps": values.get("write_bandwidth"),
                    })
        return sorted(out, key=lambda e: (e["access_class"], e["target"], e["initiator"]))

    def memory_tiers(self):
        """[{'id': 4, 'nodes': [0, 1]}, ...] sorted by id."""
        tiers = []
        base = "/sys/devices/virtual/memory_tiering"
        for name in self.listdir(base):
            m = re.fullmatch(r"memory_tier(\d+)", name)
            if m:
                tiers.append({"id": int(m.group(1)),
                              "nodes": parse_cpulist(self.read(base + "/" + name + "/nodelist", ""))})
        return sorted(tiers, key=lambda t: t["id"])

    def dax_devices(self):
        """[{'name', 'target_node', 'driver', 'path'}] for /sys/bus/dax."""
        out = []
        for name in self.listdir("/sys/bus/dax/devices"):
            link = "/sys/bus/dax/devices/" + name
            real = self.realpath(link)
            tn = self.read(real + "/target_node")
            out.append({"name": name, "path": real,
                        "target_node": int(tn) if tn is not None else None,
                        "driver": self.link_target(real + "/driver")})
        return out

    def memory_devices(self):
        """dax devices and where their memory comes from: [{'dax', 'node',
        'driver', 'bus' ('cxl' under ACPI0017, 'nd' under an ndbus), 'region'}]."""
        out = []
        for d in self.dax_devices():
            parts = d["path"].split("/")
            bus = "cxl" if any(p.startswith("ACPI0017") for p in parts) else (
                "nd" if any(p.startswith("ndbus") for p in parts) else "other")
            region = next((p for p in reversed(parts) if p.startswith("region")), None)
            out.append({"dax": d["name"], "node": d["target_node"], "driver": d["driver"],
                        "bus": bus, "region": region})
        return out

    def pci_devices(self):
        """{'0000:00:1f.2': {'class': '0x010601', 'numa_node': -1}, ...}"""
        out = {}
        for name in self.listdir("/sys/bus/pci/devices"):
            real = self.realpath("/sys/bus/pci/devices/" + name)
            nn = self.read(real + "/numa_node")
            out[name] = {"class": self.read(real + "/class"),
                         "numa_node": int(nn) if nn is not None else None}
        return out


class Check:
    """Collect findings; `finish()` prints them and exits 0 or 1."""

    def __init__(self, name):
        self.name = name
        self.problems = []
        self.notes = []
        p = argparse.ArgumentParser(prog=name)
        p.add_argument("--mode", required=True)
        p.add_argument("--kernel", required=True)
        p.add_argument("--out", required=True)
        p.add_argument("--expect", required=True)
        p.add_argument("--topology", required=True)
        self.args = p.parse_args()
        self.mode, self.kernel = self.args.mode, self.args.kernel
        self.facts = Facts(os.path.join(self.args.out, "_facts"))
        self.expect = self._load_json(self.args.expect)
        self.topology = self._load_json(self.args.topology)
        self.dir = os.path.join(self.args.out, name)

    @staticmethod
    def _load_json(path):
        with open(path, encoding="utf-8") as f:
            return json.load(f)

    # --- the scenario's own output -------------------------------------
    def file(self, name, default=""):
        try:
            with open(os.path.join(self.dir, name), encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return default

    def rc(self):
        text = self.file("rc").strip()
        return int(text) if text.lstrip("-").isdigit() else None

    def json_output(self, name="stdout"):
        """Parse a JSON file the scenario produced; a finding if it isn't JSON."""
        text = self.file(name)
        try:
            return json.loads(text)
        except ValueError as e:
            self.fail("%s is not JSON (%s): %s" % (name, e, text[:300].strip() or "<empty>"))
            return None

    # --- findings ---------------------------------------------------------
    def fail(self, msg):
        self.problems.append(msg)

    def note(self, msg):
        self.notes.append(msg)

    def eq(self, what, got, want):
        if got != want:
            self.fail("%s: got %s, want %s" % (what, json.dumps(got), json.dumps(want)))
            return False
        return True

    def within(self, what, got, lo, hi):
        if got is None or not lo <= got <= hi:
            self.fail("%s: got %s, want %s..%s" % (what, got, lo, hi))
            return False
        return True

    def allowed(self, what, got, want):
        """want is a value or a list of allowed values."""
        options = want if isinstance(want, list) else [want]
        if got not in options:
            self.fail("%s: got %s, want %s" % (what, json.dumps(got),
                                              " or ".join(json.dumps(o) for o in options)))
            return False
        return True

    def finish(self):
        if self.problems:
            for p in self.problems:
                print(p)
            # What was measured besides, so a failure read from CI's log
            # alone shows the figures around it (the run's files are gone).
            if self.notes:
                print("measured: " + "; ".join(self.notes))
            stderr = self.file("stderr").strip()
            if stderr:
                print("guest stderr: " + stderr[-800:])
            sys.exit(1)
        if self.notes:
            print("; ".join(self.notes))
        sys.exit(0)


def configured_hmat(topology):
    """The topology file's hmat-lb entries in sysfs units, keyed (initiator, target)."""
    out = {}
    for e in topology.get("hmat", []):
        out[(e["initiator"], e["target"])] = {
            "read_latency_ns": e["latency_ns"], "write_latency_ns": e["latency_ns"],
            "read_bandwidth_mbps": qemu_bandwidth_to_sysfs(e["bandwidth"]),
            "write_bandwidth_mbps": qemu_bandwidth_to_sysfs(e["bandwidth"]),
        }
    return out


def hotset_summary(check, name):
    """hotset's summary: the last of the JSON lines it printed to NAME.json
    (a finding if there is none)."""
    lines = [line for line in check.file(name + ".json").splitlines() if line.strip()]
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError) as e:
        check.fail("%s.json: no JSON summary line (%s): %s" % (name, e, lines[-1:]))
        return None


def ratio(a, b):
    """a / b, None unless both are non-zero numbers."""
    return a / b if a and b else None
