#!/usr/bin/env bash
# The steps of `make test` after format-check and the packages, with the
# machine's cores used (issue 17's goal: a clean clone on the 2-core machine
# in 35 minutes at most, package installation included).
#
# usage: scripts/test-all.sh MAKE BUILD ASAN_BUILD
#   MAKE        the make to run the Makefile's step targets with ($(MAKE):
#               BUILD, JOBS and CMAKE_ARGS given to make reach them too)
#   BUILD       the release build folder (the downloads' log goes there)
#   ASAN_BUILD  the ASan+UBSan build folder (its build log goes there)
#
#   1. `vmtest-fetch` (the emulated machine's kernels, QEMU 10 and rootfs:
#      downloads and unpacking, mostly waiting on the network) in the
#      background beside `compile-release-step`, the release build of what
#      the emulated machine runs and the benchmarks, without the unit-test
#      binaries: every unit test is built and run in the ASan+UBSan build
#      (the test binaries were half of a release build, their run 3 minutes);
#   2. `asan-compile` starts in the background at the lowest CPU priority
#      (nice 19, its own process group in this session): it fills the
#      cycles the steps below leave idle (the emulated machine's guests run
#      on one TCG thread: one of the two cores);
#   3. `release-tests` (the unit tests the ASan+UBSan build skips, ctest
#      label `release`) and `vmtest-run` (the emulated machine's scenarios,
#      once the downloads are in) in the foreground;
#   4. `vmtest-model`, the latency model's fidelity scenario (its guest
#      times memory against HMAT's table, so nothing else may run: the ASan
#      build is stopped meanwhile, SIGSTOP to its process group, and goes on
#      after; the model's four vCPU threads would have taken both cores from
#      a nice-19 build anyway, so the pause costs the critical path nothing
#      more than running beside it);
#   5. once the ASan build is done, `asan-tests` (nothing else runs by then).
# Every step runs even when an earlier one failed, so one CI run shows every
# failure; the end prints each step's result and time. The background
# steps' output goes to ASAN_BUILD/build.log and BUILD/vm-fetch.log
# (the last 60 lines are printed when one fails); the emulated machine's
# report is also kept in BUILD/vmtest.log (the latency model's in
# BUILD/vmtest-model.log), and its FAIL lines are repeated
# after the summary, at the very end.
# Exit status: 0 when every step passed, 1 otherwise, 2 bad usage.
set -uo pipefail

[[ $# -eq 3 && -n $1 && -n $2 && -n $3 ]] || {
  sed -n '/^# usage:/,/^#   ASAN_BUILD/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
MAKE_CMD=("$1" --no-print-directory -C "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)")
FETCH_LOG=$(realpath -m "$2")/vm-fetch.log
ASAN_LOG=$(realpath -m "$3")/build.log
VM_LOG=$(realpath -m "$2")/vmtest.log
MODEL_LOG=$(realpath -m "$2")/vmtest-model.log

START=$SECONDS SUMMARY=() FAILED=0
# step TARGET WHAT [LOG]: runs make TARGET in the foreground, records its
# outcome. With LOG its output is also kept there, and when it fails its
# emulated-machine FAIL lines (with their indented details) join the summary:
# CI shows only the end of the output, which must name what failed.
FAILED_SCENARIOS=()
step() {
  local target=$1 what=$2 log=${3:-} t0=$SECONDS rc
  echo "== test-all: $what (make $target)"
  if [[ -n $log ]]; then
    mkdir -p "$(dirname "$log")"
    "${MAKE_CMD[@]}" "$target" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
  else
    "${MAKE_CMD[@]}" "$target"
    rc=$?
  fi
  if [[ $rc -eq 0 ]]; then
    SUMMARY+=("$what: ok ($((SECONDS - t0)) s)")
  else
    SUMMARY+=("$what: FAILED, exit $rc ($((SECONDS - t0)) s)")
    FAILED=1
    [[ -z $log ]] || mapfile -t -O "${#FAILED_SCENARIOS[@]}" FAILED_SCENARIOS < <(failed_scenarios "$log")
  fi
}

# failed_scenarios LOG: the FAIL lines of tests/vm/run.sh's report in LOG and
# the detail lines indented under each, at most 12 of those per failure.
failed_scenarios() {
  awk '/^FAIL /    { keep = 1; n = 0; print; next }
       /^    / && keep { if (++n <= 12) print; next }
                 { keep = 0 }' "$1"
}

# background NICE LOG TARGET: starts make TARGET in the background at nice
# NICE, output to LOG; BG_PID is its pid. Job control gives it its own
# process group (so an interrupt ends what this script started, make and its
# children, and nothing else) but not its own session: with
# sched_autogroup_enabled=1 (the Debian default) a new session is a new
# scheduling group, in which nice would only rank the job against itself.
BG_PIDS=()
background() {
  mkdir -p "$(dirname "$2")"
  set -m
  nice -n "$1" "${MAKE_CMD[@]}" "$3" >"$2" 2>&1 &
  BG_PID=$!
  set +m
  BG_PIDS+=("$BG_PID")
  echo "== test-all: make $3 started in the background (nice $1, pid $BG_PID, log $2)"
}
# Interrupted: ends every background group.
# shellcheck disable=SC2317 # called by the trap
stop_background() {
  local pid
  for pid in "${BG_PIDS[@]}"; do
    kill -- "-$pid" 2>/dev/null
    kill -CONT -- "-$pid" 2>/dev/null  # a paused group takes its SIGTERM once continued
  done
  exit 130
}
trap stop_background INT TERM

# joined PID T0 WHAT LOG: waits for a background step, records its outcome;
# 0 when it passed.
joined() {
  echo "== test-all: waiting for $3"
  if wait "$1"; then
    SUMMARY+=("$3, in the background: ok ($((SECONDS - $2)) s from its start)")
    return 0
  fi
  SUMMARY+=("$3, in the background: FAILED ($((SECONDS - $2)) s); log $4")
  tail -n 60 "$4"
  FAILED=1
  return 1
}

FETCH_T0=$SECONDS
background 0 "$FETCH_LOG" vmtest-fetch
FETCH_PID=$BG_PID
step compile-release-step "release build (programs, release-only tests)"

ASAN_T0=$SECONDS
background 19 "$ASAN_LOG" asan-compile
ASAN_PID=$BG_PID
step release-tests "unit tests the ASan build skips (release)"
# A failed download is also seen by vmtest-run, which fetches what is missing.
joined "$FETCH_PID" "$FETCH_T0" "the emulated machine's downloads" "$FETCH_LOG" || true
step vmtest-run "emulated machine scenarios" "$VM_LOG"

# paused PID STEP...: runs `step STEP...` with background group PID stopped.
paused() {
  local pid=$1
  shift
  kill -STOP -- "-$pid" 2>/dev/null
  step "$@"
  kill -CONT -- "-$pid" 2>/dev/null
}
paused "$ASAN_PID" vmtest-model "the latency model's fidelity (ASan build paused)" "$MODEL_LOG"

joined "$ASAN_PID" "$ASAN_T0" "ASan+UBSan build" "$ASAN_LOG" &&
  step asan-tests "unit tests (ASan+UBSan)"

echo "== test-all: $((SECONDS - START)) s in all"
printf '  %s\n' "${SUMMARY[@]}"
if [[ ${#FAILED_SCENARIOS[@]} -gt 0 ]]; then
  echo "== test-all: the emulated machine's failures (whole report: $VM_LOG)"
  printf '  %s\n' "${FAILED_SCENARIOS[@]}"
fi
exit $FAILED
