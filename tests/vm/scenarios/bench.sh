#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 240
# tierctl bench over every CPU node x memory node pair of the emulated
# machine, CPU-less nodes 2 and 3 included as targets. Under TCG the timings
# mean nothing; what counts is that every pair is measured, with its buffer
# really on the target node, and the HMAT figures shown beside it.
if ! tierctl bench --help 2>&1 | grep -q -- '--size'; then
  echo "tierctl has no 'bench' command: not built yet" >&2
  exit 127
fi
exec tierctl bench --size 8M --repeat 1 --threads 1 --json
