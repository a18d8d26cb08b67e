#!/usr/bin/env bash
# The head-to-head of placement contenders in the emulated machine
# (docs/benchmarks.md, "Head-to-head in the emulated machine"): every
# contender x workload in a fresh boot of the numa mode (tests/vm/run.sh
# --scenario h2h_W --env H2H_CONTENDER=C), the results kept under
# RESULTS/W-C/, then the table of every run kept there written into
# docs/benchmarks.md. Not part of make test.
#
# usage: scripts/bench-placement.sh [--build-dir DIR] [--results DIR]
#          [--contenders none,kernel,damon,tierd-balanced,tierd-tpp]
#          [--workloads a,b,c] [--seconds S] [--no-docs] [--report-only]
#   --results      default BUILD/bench-placement; runs of other contenders
#                  or workloads already there stay in the table
#   --seconds      shorter runs (the table's marks need 60)
#   --no-docs      print the table, leave docs/benchmarks.md alone
#   --report-only  no runs: the table from what RESULTS holds
# Exits non-zero if any run failed (the table is written all the same).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$REPO/build RESULTS="" CONTENDERS=none,kernel,damon,tierd-balanced,tierd-tpp
WORKLOADS=a,b,c SECONDS_OPT="" DOCS=1 RUN=1
ALL_CONTENDERS=" none kernel damon tierd-balanced tierd-tpp "

usage() {
  sed -n '/^# usage:/,/^# Exits/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

while [[ $# -gt 0 ]]; do
  case $1 in
    --build-dir) [[ $# -ge 2 ]] || usage; BUILD=$2; shift 2 ;;
    --results) [[ $# -ge 2 ]] || usage; RESULTS=$2; shift 2 ;;
    --contenders) [[ $# -ge 2 ]] || usage; CONTENDERS=$2; shift 2 ;;
    --workloads) [[ $# -ge 2 ]] || usage; WORKLOADS=$2; shift 2 ;;
    --seconds) [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || usage; SECONDS_OPT=$2; shift 2 ;;
    --no-docs) DOCS=0; shift ;;
    --report-only) RUN=0; shift ;;
    -h | --help) usage ;;
    *) echo "bench-placement: unknown argument '$1'" >&2; usage ;;
  esac
done
BUILD=$(cd "$BUILD" && pwd)
RESULTS=${RESULTS:-$BUILD/bench-placement}
mkdir -p "$RESULTS"
IFS=, read -r -a contenders <<<"$CONTENDERS"
IFS=, read -r -a workloads <<<"$WORKLOADS"
for c in "${contenders[@]}"; do
  [[ $ALL_CONTENDERS == *" $c "* ]] || { echo "bench-placement: unknown contender '$c'" >&2; usage; }
done
for w in "${workloads[@]}"; do
  [[ $w == a || $w == b || $w == c ]] || { echo "bench-placement: unknown workload '$w'" >&2; usage; }
done

failed=0
if [[ $RUN == 1 ]]; then
  commit=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)
  # Uncommitted changes outside docs/ (this script writes the table there).
  git -C "$REPO" diff --quiet HEAD -- . ':(exclude)docs' 2>/dev/null || commit="$commit+changes"
  for w in "${workloads[@]}"; do
    for c in "${contenders[@]}"; do
      dir=$RESULTS/$w-$c
      rm -rf "$dir"; mkdir -p "$dir"
      env_args=(--env "H2H_CONTENDER=$c")
      [[ -z $SECONDS_OPT ]] || env_args+=(--env "H2H_SECONDS=$SECONDS_OPT")
      echo "bench-placement: workload $w, contender $c (fresh boot)"
      start=$(date +%s)
      status=PASS
      "$REPO/tests/vm/run.sh" --build-dir "$BUILD" --mode numa \
        --scenario "h2h_$w" "${env_args[@]}" >"$dir/run.log" 2>&1 || status=FAIL
      cp -a "$BUILD/vm/runs/numa/out/h2h_$w" "$dir/out" 2>/dev/null || status=FAIL
      cp "$BUILD/vm/runs/numa/console.log" "$dir/" 2>/dev/null || true
      [[ $status == PASS ]] || failed=$((failed + 1))
      printf '{"workload":"%s","contender":"%s","status":"%s","date":"%s","commit":"%s","seconds":%s,"wall_s":%s}\n' \
        "$w" "$c" "$status" "$(date -u +%Y-%m-%d)" "$commit" "${SECONDS_OPT:-60}" \
        "$(($(date +%s) - start))" >"$dir/meta.json"
      sed -n '/^\(PASS\|FAIL\) numa\/h2h/,$p' "$dir/run.log" | head -n 8
    done
  done
fi

cmd="scripts/bench-placement.sh"
[[ $CONTENDERS == none,kernel,damon,tierd-balanced,tierd-tpp ]] || cmd+=" --contenders $CONTENDERS"
[[ $WORKLOADS == a,b,c ]] || cmd+=" --workloads $WORKLOADS"
[[ -z $SECONDS_OPT ]] || cmd+=" --seconds $SECONDS_OPT"
report=(python3 "$REPO/tests/vm/lib/h2h_report.py" "$RESULTS" --command "$cmd")
[[ $DOCS == 0 ]] || report+=(--docs "$REPO/docs/benchmarks.md")
"${report[@]}"
[[ $failed == 0 ]] || { echo "bench-placement: $failed run(s) failed (see RESULTS/*/run.log)" >&2; exit 1; }
