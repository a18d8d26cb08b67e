"""Host-side helpers for the checks of the scenarios that run the real
daemon/tierd.service under systemd (systemd_service, systemd_recovery).

The guest half (guest/tierd_service.sh) writes its observations to obs.log
as "key value" lines and keeps tierctl's JSON answers as NAME.json with
NAME.rc / NAME.err beside them. `TierdCheck` wraps `vmcheck.Check` with
readers for those and the assertions both scenarios share.
"""
import json
import os
import re

import vmcheck

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
UNIT_FILE = os.path.join(REPO, "daemon", "tierd.service")

# linux/capability.h numbers of the capabilities a unit may name here.
CAPS = {
    "CAP_CHOWN": 0, "CAP_DAC_OVERRIDE": 1, "CAP_DAC_READ_SEARCH": 2, "CAP_FOWNER": 3,
    "CAP_KILL": 5, "CAP_SETGID": 6, "CAP_SETUID": 7, "CAP_NET_BIND_SERVICE": 10,
    "CAP_NET_ADMIN": 12, "CAP_IPC_LOCK": 14, "CAP_SYS_RAWIO": 17, "CAP_SYS_PTRACE": 19,
    "CAP_SYS_ADMIN": 21, "CAP_SYS_NICE": 23, "CAP_SYS_RESOURCE": 24, "CAP_PERFMON": 38,
    "CAP_BPF": 39,
}


def unit_capabilities(path=UNIT_FILE):
    """The capability numbers the shipped unit's CapabilityBoundingSet= lines add
    up to (lines starting with '~' are not used by this unit)."""
    caps = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("CapabilityBoundingSet="):
                for name in line.split("=", 1)[1].split():
                    caps.add(CAPS[name])
    return caps


def cap_names(mask):
    names = {v: k for k, v in CAPS.items()}
    return sorted(names.get(bit, "cap%d" % bit) for bit in range(64) if mask >> bit & 1)


class TierdCheck(vmcheck.Check):
    def __init__(self, name):
        super().__init__(name)
        self.obs = {}
        for line in self.file("obs.log").splitlines():
            key, _, value = line.partition(" ")
            self.obs[key] = value.strip()

    def get(self, key):
        return self.obs.get(key)

    def want(self, key, value):
        return self.eq(key, self.obs.get(key), value)

    def want_in(self, key, text):
        got = self.obs.get(key) or ""
        if text not in got:
            self.fail("%s: %r does not contain %r" % (key, got, text))
            return False
        return True

    def same(self, what, key_a, key_b):
        a, b = self.obs.get(key_a), self.obs.get(key_b)
        if a in (None, "", "0") or a != b:
            self.fail("%s: %s=%r, %s=%r" % (what, key_a, a, key_b, b))
            return False
        return True

    def status(self, name):
        """`tierctl status --json` of step NAME as a dict, or None (a finding)."""
        rc = self.file(name + ".rc").strip()
        if rc != "0":
            self.fail("%s: `tierctl status --json` exit %s: %s" % (name, rc or "?", first_line(self.file(name + ".err"))))
            return None
        doc = self.json_output(name + ".json")
        return doc if isinstance(doc, dict) else None

    def doc(self, name, what):
        """Another JSON answer (NAME.json, exit status logged as NAME_rc)."""
        if self.obs.get(name + "_rc") != "0":
            self.fail("%s: exit %s: %s" % (what, self.obs.get(name + "_rc"),
                                           first_line(self.file(name + ".err"))))
            return None
        doc = self.json_output(name + ".json")
        return doc if isinstance(doc, dict) else None

    def field(self, doc, path):
        """doc["a"]["b"] for path "a.b"; None when missing."""
        cur = doc
        for part in path.split("."):
            if not isinstance(cur, dict) or part not in cur:
                return None
            cur = cur[part]
        return cur

    def want_field(self, step, doc, path, value):
        if doc is None:
            return False
        got = self.field(doc, path)
        # Kernel values may come as "2" or 2: compare their text.
        if isinstance(value, str) and isinstance(got, int) and not isinstance(got, bool):
            got = str(got)
        return self.eq("%s: status %s" % (step, path), got, value)

    # --- shared assertions -------------------------------------------------
    def unit_as_shipped(self):
        """The installed unit differs from daemon/tierd.service in ExecStart's
        binary path only."""
        self.want("unit_installed", "yes")
        self.want("unit_type", "notify")
        diff = [l for l in self.file("unit.diff").splitlines() if l[:2] in ("< ", "> ")]
        old = [l[2:] for l in diff if l.startswith("< ")]
        new = [l[2:] for l in diff if l.startswith("> ")]
        ok = (len(old) == 1 and len(new) == 1
              and old[0].startswith("ExecStart=/usr/sbin/tierd ")
              and new[0] == old[0].replace("/usr/sbin/tierd", "/opt/tier/bin/tierd", 1))
        if not ok:
            self.fail("installed unit differs from daemon/tierd.service in more than ExecStart's path: %r" % diff)

    def spec_config(self):
        """The daemon took the issue-5 configuration file (a tierd without those
        keys makes the scenario fall back to a minimal file: machinery only)."""
        if self.obs.get("spec_config_accepted") != "yes":
            self.fail("tierd rejects the issue-5 configuration keys ([daemon] state/epoch_ms, "
                      "[metrics], [policy], [kernel]): %s" % self.obs.get("spec_config_error"))

    def stopped_clean(self, nb_boot_key="nb_boot"):
        self.want("stop_rc", "0")
        self.want("active_after_stop", "inactive")
        # systemd counts a stop it asked for as clean; a tierd that died on
        # SIGTERM would leave "signal" here.
        self.want("result_after_stop", "success")
        self.want("socket_after_stop", "absent")
        self.eq("numa_balancing after stop (the boot value)", self.get("nb_after_stop"),
                self.get(nb_boot_key))

    def journal(self):
        return self.file("journal.txt")

    def journal_has(self, what, pattern):
        if not re.search(pattern, self.journal()):
            self.fail("journal: no %s (/%s/)" % (what, pattern))
            return False
        return True


def first_line(text):
    """An error's first line (tierctl follows a usage error with its help)."""
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[0][:300] if lines else "<no stderr>"


def pretty(doc):
    return json.dumps(doc, sort_keys=True)[:300]
