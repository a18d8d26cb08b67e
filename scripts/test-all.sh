#!/usr/bin/env bash
# The steps of `make test` after the release build, with the machine's cores
# used (issue 17's goal: a clean clone on the 2-core machine in 35 minutes at
# most, package installation included).
#
# usage: scripts/test-all.sh MAKE ASAN_BUILD
#   MAKE        the make to run the Makefile's step targets with ($(MAKE):
#               BUILD, JOBS and CMAKE_ARGS given to make reach them too)
#   ASAN_BUILD  the ASan+UBSan build folder (its build log goes there)
#
#   1. `asan-compile` starts in the background at the lowest CPU priority
#      (nice 19, its own process group in this session): it only fills the
#      cycles the steps below leave idle (the emulated machine keeps about
#      one of the two cores busy), so it barely slows them;
#   2. `unit-tests` (release) and `vmtest-run` (the emulated machine's
#      scenarios) run in the foreground at normal priority;
#   3. once the ASan build is done, `asan-tests` (nothing else runs by then).
# Every step runs even when an earlier one failed, so one CI run shows every
# failure; the end prints each step's result and time. The ASan build's
# output is ASAN_BUILD/build.log (its last 60 lines are printed if it fails).
# Exit status: 0 when every step passed, 1 otherwise, 2 bad usage.
set -uo pipefail

[[ $# -eq 2 && -n $1 && -n $2 ]] || {
  sed -n '/^# usage:/,/^#   ASAN_BUILD/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
MAKE_CMD=("$1" --no-print-directory -C "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)")
ASAN_LOG=$(realpath -m "$2")/build.log

START=$SECONDS SUMMARY=() FAILED=0
# step TARGET WHAT: runs make TARGET in the foreground, records its outcome.
step() {
  local target=$1 what=$2 t0=$SECONDS rc
  echo "== test-all: $what (make $target)"
  "${MAKE_CMD[@]}" "$target"
  rc=$?
  if [[ $rc -eq 0 ]]; then
    SUMMARY+=("$what: ok ($((SECONDS - t0)) s)")
  else
    SUMMARY+=("$what: FAILED, exit $rc ($((SECONDS - t0)) s)")
    FAILED=1
  fi
}

mkdir -p "$(dirname "$ASAN_LOG")"
ASAN_T0=$SECONDS
# Job control gives the background build its own process group (so an
# interrupt ends the build this script started, make and its compilers, and
# nothing else) but not its own session: with sched_autogroup_enabled=1 (the
# Debian default) a new session is a new scheduling group, in which nice 19
# would only rank the build against itself and it would get half the CPU.
set -m
nice -n 19 "${MAKE_CMD[@]}" asan-compile >"$ASAN_LOG" 2>&1 &
ASAN_PID=$!
set +m
echo "== test-all: ASan+UBSan build started in the background (nice 19, pid $ASAN_PID, log $ASAN_LOG)"
trap 'kill -- -$ASAN_PID 2>/dev/null; exit 130' INT TERM

step unit-tests "unit tests (release)"
step vmtest-run "emulated machine scenarios"

echo "== test-all: waiting for the ASan+UBSan build"
if wait "$ASAN_PID"; then
  SUMMARY+=("ASan+UBSan build, in the background: ok ($((SECONDS - ASAN_T0)) s from its start)")
  step asan-tests "unit tests (ASan+UBSan)"
else
  SUMMARY+=("ASan+UBSan build, in the background: FAILED ($((SECONDS - ASAN_T0)) s); log $ASAN_LOG")
  tail -n 60 "$ASAN_LOG"
  FAILED=1
fi

echo "== test-all: $((SECONDS - START)) s after the release build"
printf '  %s\n' "${SUMMARY[@]}"
exit $FAILED
