#!/bin/sh
# vmtest-modes: all
# vmtest-timeout: 60
# tierctl's view of the machine: topo.check.py compares it with the sysfs
# facts of the same boot and with the recorded ground truth.
if ! command -v tierctl >/dev/null; then
  echo "tierctl is not in the guest: BUILD/bin/tierctl was not built" >&2
  exit 127
fi
exec tierctl topo --json
