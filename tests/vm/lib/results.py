#!/usr/bin/python3
"""Unpack the guest's result stream (serial port ttyS1) into a folder.

usage: results.py STREAM OUTDIR
Extracts each step's tar (format: tests/vm/guest/steps.sh) into OUTDIR/<step>/
and writes OUTDIR/steps.tsv: one "step<TAB>exit status" line per finished
step, and a last line "END<TAB>-" if the guest finished the run. A stream cut
short (guest hung, timed out, crashed) yields what arrived.

A step whose tar arrived but whose "@@DONE" line did not (the serial line
once dropped that short line after the pmem mode's setup, on a loaded host)
gets its exit status from the "rc" file inside the tar: the guest writes it
before sending the folder (guest/steps.sh run_step).
"""
import base64
import binascii
import io
import os
import sys
import tarfile


def extract(data, dest):
    """Extract a tar of regular files, folders and symlinks into dest.

    Written out by hand because this Python's tarfile has no extraction
    filters: names must stay inside dest and never pass through a symlink
    the archive itself created.
    """
    root = os.path.realpath(dest)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
        for m in tar.getmembers():
            name = os.path.normpath(m.name)
            if name == ".":
                continue
            if name.startswith(("/", "..")):
                raise ValueError("unsafe name in result tar: %r" % m.name)
            path = os.path.join(root, name)
            parent = os.path.dirname(path)
            os.makedirs(parent, exist_ok=True)
            if os.path.realpath(parent) != parent:
                raise ValueError("result tar writes through a symlink: %r" % m.name)
            if m.isdir():
                os.makedirs(path, exist_ok=True)
            elif m.issym():
                if os.path.lexists(path):
                    os.remove(path)
                os.symlink(m.linkname, path)
            elif m.isfile():
                with open(path, "wb") as out:
                    out.write(tar.extractfile(m).read())


def rc_in_folder(folder):
    """The exit status run_step wrote into a step's folder, or None."""
    try:
        with open(os.path.join(folder, "rc"), encoding="utf-8") as f:
            text = f.read().strip()
    except OSError:
        return None
    return text if text.isdigit() else None


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    stream, root = sys.argv[1], sys.argv[2]
    os.makedirs(root, exist_ok=True)
    steps, step, chunks, arrived = [], None, [], []
    with open(stream, "rb") as f:
        lines = f.read().decode("ascii", "replace").splitlines()
    for raw in lines:
        line = raw.strip("\r\n\x00 ")
        if step is not None:
            if line != "@@EOF":
                chunks.append(line)
                continue
            try:
                extract(base64.b64decode("".join(chunks)), os.path.join(root, step))
                arrived.append(step)
            except (binascii.Error, tarfile.TarError, ValueError) as e:
                print("results.py: step %s: %s" % (step, e), file=sys.stderr)
            step, chunks = None, []
        elif line.startswith("@@TAR "):
            step = line.split()[1]
            if "/" in step or step.startswith("."):
                raise SystemExit("results.py: bad step name %r" % step)
        elif line.startswith("@@DONE "):
            _, name, rc = line.split()
            steps.append((name, rc))
        elif line == "@@VMTEST END":
            steps.append(("END", "-"))
    done = {name for name, _ in steps}
    recovered = []
    for name in arrived:
        rc = rc_in_folder(os.path.join(root, name))
        if name not in done and rc is not None:
            print("results.py: step %s: no @@DONE line; exit status %s from its rc file"
                  % (name, rc), file=sys.stderr)
            recovered.append((name, rc))
    end = [s for s in steps if s[0] == "END"]
    steps = [s for s in steps if s[0] != "END"] + recovered + end
    with open(os.path.join(root, "steps.tsv"), "w", encoding="utf-8") as f:
        for name, rc in steps:
            f.write("%s\t%s\n" % (name, rc))


if __name__ == "__main__":
    main()
