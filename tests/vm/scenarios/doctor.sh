#!/bin/sh
# vmtest-modes: all
# vmtest-timeout: 60
# tierctl doctor on a real multi-node kernel: the guest kernels have kprobes,
# BTF and (6.12) DAMON vaddr, which the build machine lacks.
if ! command -v tierctl >/dev/null; then
  echo "tierctl is not in the guest: BUILD/bin/tierctl was not built" >&2
  exit 127
fi
exec tierctl doctor --json
