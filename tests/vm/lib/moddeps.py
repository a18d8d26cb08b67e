#!/usr/bin/python3
"""Print the kernel modules to insmod, in dependency order.

usage: moddeps.py MODULES_DIR NAME...
MODULES_DIR is lib/modules/<release> of an unpacked kernel package after
depmod. Prints one path (relative to MODULES_DIR) per line, dependencies
first. Names that are built into the kernel are skipped; unknown names fail.
"""
import os
import sys


def modname(path):
    """kernel/drivers/dax/device_dax.ko.xz -> device_dax"""
    base = os.path.basename(path)
    return base.split(".ko")[0].replace("-", "_")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    moddir, wanted = sys.argv[1], sys.argv[2:]
    deps, paths = {}, {}
    with open(os.path.join(moddir, "modules.dep"), encoding="utf-8") as f:
        for line in f:
            mod, _, rest = line.partition(":")
            name = modname(mod)
            paths[name] = mod
            deps[name] = [modname(d) for d in rest.split()]
    builtin = set()
    with open(os.path.join(moddir, "modules.builtin"), encoding="utf-8") as f:
        builtin = {modname(line.strip()) for line in f if line.strip()}

    order, seen = [], set()

    def visit(name):
        if name in seen:
            return
        seen.add(name)
        for dep in deps[name]:
            visit(dep)
        order.append(paths[name])

    for name in (w.replace("-", "_") for w in wanted):
        if name in builtin:
            continue
        if name not in deps:
            sys.exit("moddeps.py: no module '%s' in %s" % (name, moddir))
        visit(name)
    print("\n".join(order))


if __name__ == "__main__":
    main()
