#!/usr/bin/python3
"""Write a private deb822 apt source for the test machine's downloads.

The mirror is never written into the repository: it is taken at run time from
the Debian archive entry already configured on this machine (deb822 *.sources
files or one-line sources.list files), and pointed at the suites we need.

usage: apt_sources.py [--types TYPES] CODENAME SUITE...   (prints the .sources stanza)
  --types   the stanza's Types (default "deb"; "deb-src" for source packages)
"""
import glob
import re
import sys

DEFAULT_KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"


def deb822_paragraphs(text):
    """Yield dicts of raw field values (continuation lines kept) per stanza."""
    para, key = {}, None
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        if not line.strip():
            if para:
                yield para
            para, key = {}, None
        elif line[0] in " \t" and key:
            para[key] += "\n" + line
        else:
            key, _, value = line.partition(":")
            key = key.strip().lower()
            para[key] = value.strip()
    if para:
        yield para


def entries():
    """Yield (types, uri, suites, components, signed_by) for every source."""
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        with open(path, encoding="utf-8") as f:
            for p in deb822_paragraphs(f.read()):
                if p.get("enabled", "yes").lower() == "no":
                    continue
                for uri in p.get("uris", "").split():
                    yield (p.get("types", "").split(), uri,
                           p.get("suites", "").split(),
                           p.get("components", "").split(),
                           p.get("signed-by", ""))
    lists = ["/etc/apt/sources.list"] + sorted(
        glob.glob("/etc/apt/sources.list.d/*.list"))
    for path in lists:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError:
            continue
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            m = re.match(r"(deb|deb-src)\s+(\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s*(.*)",
                         line)
            if not m:
                continue
            opts = dict(o.split("=", 1) for o in (m.group(2) or "")
                        .strip("[] \t").split() if "=" in o)
            yield ([m.group(1)], m.group(3), [m.group(4)], m.group(5).split(),
                   opts.get("signed-by", ""))


def main():
    argv = sys.argv[1:]
    want_types = "deb"
    if argv[:1] == ["--types"]:
        if len(argv) < 2 or not argv[1]:
            sys.exit(__doc__)
        want_types, argv = argv[1], argv[2:]
    if len(argv) < 2:
        sys.exit(__doc__)
    codename, suites = argv[0], argv[1:]
    for types, uri, have_suites, comps, signed_by in entries():
        # The main archive: carries CODENAME itself (not only -security).
        if "deb" in types and codename in have_suites and "main" in comps:
            print("Types: " + want_types)
            print("URIs: " + uri)
            print("Suites: " + " ".join(suites))
            print("Components: main")
            print("Signed-By: " + (signed_by or DEFAULT_KEYRING))
            return
    sys.exit("apt_sources.py: no Debian '%s' main entry in /etc/apt sources"
             % codename)


if __name__ == "__main__":
    main()
