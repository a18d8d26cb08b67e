#!/usr/bin/env bash
# The emulated machine's scenarios run again and again, to show the suite
# passes every time (issue 17): QUIET runs on an otherwise idle host, then
# LOADED runs with a competing CPU load on the host (one busy process per
# core but one, started and ended here by pid), each what make test runs in
# the emulated machine: a whole tests/vm/run.sh (make vmtest-run), then the
# latency model's fidelity (make vmtest-model: modes numa and model, whose
# rows are named "vmtest-model:MODE/SCENARIO"; not when --mode, --scenario
# or --set choose the scenarios). Prints per mode/scenario: passes/runs quiet and loaded,
# and the scenario's time in the guest (median and maximum over the runs)
# against its limit, i.e. how far the deadline is from what was measured.
#
# usage: scripts/vmtest-soak.sh [--quiet N] [--loaded N] [--build-dir DIR]
#                               [--out DIR] [--resume] [run.sh options...]
#   --quiet N     quiet runs (default 20)      --loaded N   loaded runs (default 10)
#   --build-dir   the build to test (default build/)
#   --out DIR     where every run's report and timings go (default BUILD/vm/soak)
#   --resume      add N more runs to OUT's results (numbered on from its last
#                 run of each kind; the table counts them all): one soak of
#                 one tree and build spread over several sittings. Refused
#                 when OUT's recorded commit is not this tree's.
#   anything else is passed to tests/vm/run.sh (--mode, --scenario, --set, --jobs)
# Exit status: 0 when every scenario passed every run, 1 otherwise, 2 bad usage.
# The table is also written to OUT/table.md.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
QUIET=20 LOADED=10 BUILD="$REPO/build" OUT="" RESUME=0 RUN_ARGS=() CHOSEN=0

usage() {
  sed -n '/^# usage:/,/^# The table/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
count() { [[ $2 =~ ^[0-9]+$ ]] || { echo "vmtest-soak: $1 '$2': expected a number of runs" >&2; exit 2; }; }

while [[ $# -gt 0 ]]; do
  case $1 in
    --quiet) [[ $# -ge 2 ]] || usage; count "$1" "$2"; QUIET=$2; shift 2 ;;
    --loaded) [[ $# -ge 2 ]] || usage; count "$1" "$2"; LOADED=$2; shift 2 ;;
    --build-dir) [[ $# -ge 2 ]] || usage; BUILD=$2; shift 2 ;;
    --out) [[ $# -ge 2 ]] || usage; OUT=$2; shift 2 ;;
    --resume) RESUME=1; shift ;;
    -h | --help) usage ;;
    --mode | --scenario | --set) CHOSEN=1; RUN_ARGS+=("$1"); shift ;;
    *) RUN_ARGS+=("$1"); shift ;;
  esac
done
[[ $((QUIET + LOADED)) -gt 0 ]] || { echo "vmtest-soak: no runs asked (--quiet 0 --loaded 0)" >&2; exit 2; }
[[ -d $BUILD/bin ]] || { echo "vmtest-soak: $BUILD/bin: no build there (make build first)" >&2; exit 2; }
BUILD=$(cd "$BUILD" && pwd)
OUT=${OUT:-$BUILD/vm/soak}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# The tree under test: its commit, and whether the work tree differs from it.
TREE=$(git -C "$REPO" rev-parse HEAD 2>/dev/null || echo unknown)
git -C "$REPO" diff --quiet HEAD -- 2>/dev/null || TREE="$TREE+changes"
FIRST_QUIET=1 FIRST_LOADED=1
if [[ $RESUME == 1 && -s $OUT/results.tsv ]]; then
  was=$(cat "$OUT/tree" 2>/dev/null || echo unknown)
  [[ $was == "$TREE" && $TREE != *+changes ]] ||
    { echo "vmtest-soak: --resume: $OUT holds runs of $was, this tree is $TREE" >&2; exit 2; }
  last() { awk -F'\t' -v k="$1" '$1 == k && $2 > n { n = $2 } END { print n + 0 }' "$OUT/results.tsv"; }
  FIRST_QUIET=$(($(last quiet) + 1)) FIRST_LOADED=$(($(last loaded) + 1))
else
  : >"$OUT/results.tsv"
  echo "$TREE" >"$OUT/tree"
fi

# The competing load: busy loops at normal priority, ended by their pids.
LOAD_PIDS=()
start_load() {
  local n i
  n=$(($(nproc) - 1))
  [[ $n -ge 1 ]] || n=1
  for ((i = 0; i < n; i++)); do
    (trap - TERM; while :; do :; done) &
    LOAD_PIDS+=($!)
  done
}
stop_load() {
  [[ ${#LOAD_PIDS[@]} -eq 0 ]] && return 0
  kill "${LOAD_PIDS[@]}" 2>/dev/null || true
  wait "${LOAD_PIDS[@]}" 2>/dev/null || true
  LOAD_PIDS=()
}
trap stop_load EXIT

# make test's second emulated-machine step (Makefile: vmtest-model).
MODEL_STEP=(--mode numa --mode model --scenario fidelity)

# record KIND RUN REPORT [PREFIX]: one results.tsv line per PASS/FAIL of the
# report: kind, run, PREFIXmode/scenario, result, seconds in the guest, limit.
record() {
  local kind=$1 run=$2 report=$3 prefix=${4:-}
  awk -v kind="$kind" -v run="$run" '$1 == "PASS" || $1 == "FAIL" { print kind "\t" run "\t" $2 "\t" $1 }' "$report" |
    while IFS=$'\t' read -r k r name result; do
      local mode=${name%%/*} s=${name#*/} secs=- limit=- guest
      # The scenario ran in its mode's first guest (runs/MODE) or second (runs/MODE.2).
      for guest in "$mode" "$mode.2"; do
        if [[ -f $BUILD/vm/runs/$guest/out/$s/uptime ]]; then
          secs=$(awk '{ printf "%.1f", $2 - $1 }' "$BUILD/vm/runs/$guest/out/$s/uptime")
        fi
      done
      if [[ -f $REPO/tests/vm/scenarios/$s.sh ]]; then
        limit=$(sed -n 's/^# vmtest-timeout: *//p' "$REPO/tests/vm/scenarios/$s.sh" | head -n1)
        limit=${limit:-120}
      fi
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$r" "$prefix$name" "$result" "$secs" "$limit"
    done >>"$OUT/results.tsv"
}

# one_step KIND RUN NAME PREFIX RUN.SH-ARGS...: one tests/vm/run.sh, recorded.
one_step() {
  local kind=$1 run=$2 name=$3 prefix=$4 report started
  shift 4
  report="$OUT/$kind-$run$name.report"
  started=$(date +%s)
  "$REPO/tests/vm/run.sh" --build-dir "$BUILD" "$@" >"$report" 2>"$OUT/$kind-$run$name.log" || true
  record "$kind" "$run" "$report" "$prefix"
  # A failed run's guest output is kept: the next run overwrites BUILD/vm/runs.
  if grep -q '^FAIL' "$report"; then cp -r "$BUILD/vm/runs" "$OUT/$kind-$run$name.runs"; fi
  echo "vmtest-soak: $kind run $run$name: $(tail -n1 "$report") ($(($(date +%s) - started)) s)" >&2
}

one_run() {
  one_step "$1" "$2" "" "" "${RUN_ARGS[@]}"
  [[ $CHOSEN == 1 ]] || one_step "$1" "$2" "-model" "vmtest-model:" "${MODEL_STEP[@]}"
}

for ((i = FIRST_QUIET; i < FIRST_QUIET + QUIET; i++)); do one_run quiet "$i"; done
if [[ $LOADED -gt 0 ]]; then
  start_load
  echo "vmtest-soak: competing load: pids ${LOAD_PIDS[*]}" >&2
  for ((i = FIRST_LOADED; i < FIRST_LOADED + LOADED; i++)); do one_run loaded "$i"; done
  stop_load
fi

/usr/bin/python3 "$REPO/scripts/vmtest_soak_table.py" "$OUT/results.tsv" \
  $((FIRST_QUIET - 1 + QUIET)) $((FIRST_LOADED - 1 + LOADED)) | tee "$OUT/table.md"
! awk -F'\t' '$4 != "PASS" { bad = 1 } END { exit !bad }' "$OUT/results.tsv"
