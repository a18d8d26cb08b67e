#!/usr/bin/env bash
# The head-to-head of placement contenders in the emulated machine
# (docs/benchmarks.md, "Head-to-head in the emulated machine"): every
# contender x workload in fresh boots (tests/vm/run.sh --scenario h2h_W
# --env H2H_CONTENDER=C), each boot's results kept under
# RESULTS/W-C/boot-K/, then the table of every run kept there written into
# docs/benchmarks.md: each workload's own throughput relative to the median
# of its all-fast boots (median and min-max over the boots), next to the
# share of accesses served by the fast node, the bytes migrated and the
# ping-pong. Not part of make test.
#
# usage: scripts/bench-placement.sh [--mode model|numa] [--boots N] [--latency L]
#          [--build-dir DIR] [--results DIR] [--contenders C,...]
#          [--workloads W,...] [--seconds S] [--resume] [--no-docs]
#          [--report-only]
#   --mode         model (default): the latency model on the newest kernel
#                  (run.sh --mode model --kernel 7.3), where a page's node
#                  decides its speed; numa: the flat machine (shares only)
#   --latency      the model's latency (model mode): matched (default), a
#                  random miss with the streams' time dilation, so that
#                  hotset's own work between misses does not hide it
#                  (tests/vm/plugin/model.h), or calibrated (the fidelity
#                  scenario's setting)
#   --boots        boots per contender x workload (default 3); the runs go
#                  boot by boot over every cell, so a stopped run has
#                  covered the cells evenly
#   --contenders   default all-fast,none,kernel,damon,damon-autotune,
#                  tierd-balanced,tierd-tpp (numa: without damon-autotune,
#                  whose quota goals its 6.12 kernel lacks); also known:
#                  tierd-coexist (balanced beside the kernel's tiering) and
#                  tierd-observe (sampling only: what heat alone costs)
#   --workloads    default a,b,c,gups,graph,kv,scan: hotset's A, B and C
#                  (docs/testing.md) and the suite's (docs/workloads.md:
#                  tier-gups, tier-graph, tier-kv against redis-server,
#                  hotset with full scans); scenarios tests/vm/scenarios/h2h_W
#   --results      default docs/bench-runs/placement-MODE, in the tree: each
#                  boot's meta.json and summary.json are committed (the
#                  folder's .gitignore leaves out the raw files), so boots of
#                  several sittings make one table (with --resume); runs of
#                  other contenders or workloads already there stay in the table
#   --seconds      shorter runs (the table's 60 s mark needs 60)
#   --resume       keep every boot folder that already passed, run the rest
#   --no-docs      print the table, leave docs/benchmarks.md alone
#   --report-only  no runs: the table from what RESULTS holds
# Exits 2 on bad usage, 1 if any run failed (the table is written all the same).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$REPO/build RESULTS="" CONTENDERS="" MODE=model BOOTS=3 RESUME=0 LATENCY=matched
ALL_WORKLOADS=a,b,c,gups,graph,kv,scan
WORKLOADS=$ALL_WORKLOADS SECONDS_OPT="" DOCS=1 RUN=1
ALL_CONTENDERS=" all-fast none kernel damon damon-autotune tierd-balanced tierd-tpp tierd-coexist tierd-observe "

usage() {
  sed -n '/^# usage:/,/^# Exits/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
bad() { echo "bench-placement: $*" >&2; usage; }

while [[ $# -gt 0 ]]; do
  case $1 in
    --mode) [[ $# -ge 2 ]] || usage; MODE=$2; shift 2 ;;
    --boots) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]?$ ]] || bad "--boots wants a number from 1 to 99"
             BOOTS=$2; shift 2 ;;
    --latency) [[ $# -ge 2 && ($2 == matched || $2 == calibrated) ]] ||
                 bad "--latency wants matched or calibrated"
               LATENCY=$2; shift 2 ;;
    --build-dir) [[ $# -ge 2 ]] || usage; BUILD=$2; shift 2 ;;
    --results) [[ $# -ge 2 ]] || usage; RESULTS=$2; shift 2 ;;
    --contenders) [[ $# -ge 2 && -n $2 ]] || bad "--contenders wants a list"; CONTENDERS=$2; shift 2 ;;
    --workloads) [[ $# -ge 2 && -n $2 ]] || bad "--workloads wants a list"; WORKLOADS=$2; shift 2 ;;
    --seconds) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || bad "--seconds wants a positive number"
               SECONDS_OPT=$2; shift 2 ;;
    --resume) RESUME=1; shift ;;
    --no-docs) DOCS=0; shift ;;
    --report-only) RUN=0; shift ;;
    -h | --help) usage ;;
    *) bad "unknown argument '$1'" ;;
  esac
done
case $MODE in
  model) RUN_MODE=(--mode model --kernel 7.3 --plugin-arg "latency=$LATENCY")
         DEFAULT_CONTENDERS=all-fast,none,kernel,damon,damon-autotune,tierd-balanced,tierd-tpp ;;
  numa) RUN_MODE=(--mode numa)
        DEFAULT_CONTENDERS=all-fast,none,kernel,damon,tierd-balanced,tierd-tpp ;;
  *) bad "unknown mode '$MODE' (model or numa)" ;;
esac
CONTENDERS=${CONTENDERS:-$DEFAULT_CONTENDERS}
BUILD=$(cd "$BUILD" && pwd)
RESULTS=${RESULTS:-$REPO/docs/bench-runs/placement-$MODE}
IFS=, read -r -a contenders <<<"$CONTENDERS"
IFS=, read -r -a workloads <<<"$WORKLOADS"
for c in "${contenders[@]}"; do
  [[ $ALL_CONTENDERS == *" $c "* ]] || bad "unknown contender '$c' (${ALL_CONTENDERS# })"
done
for w in "${workloads[@]}"; do
  [[ ,$ALL_WORKLOADS, == *",$w,"* ]] || bad "unknown workload '$w' ($ALL_WORKLOADS)"
done
mkdir -p "$RESULTS"

# run_boot W C K: boot K of workload W under contender C into RESULTS/W-C/boot-K.
failed=0
run_boot() {
  local w=$1 c=$2 k=$3 dir status start
  dir=$RESULTS/$w-$c/boot-$k
  if [[ $RESUME == 1 ]] && grep -qs '"status":"PASS"' "$dir/meta.json"; then
    echo "bench-placement: workload $w, contender $c, boot $k: kept (--resume)"
    return 0
  fi
  rm -rf "$dir"; mkdir -p "$dir"
  env_args=(--env "H2H_CONTENDER=$c")
  [[ -z $SECONDS_OPT ]] || env_args+=(--env "H2H_SECONDS=$SECONDS_OPT")
  echo "bench-placement: workload $w, contender $c, boot $k of $BOOTS ($MODE mode)"
  start=$(date +%s)
  status=PASS
  "$REPO/tests/vm/run.sh" --build-dir "$BUILD" "${RUN_MODE[@]}" \
    --scenario "h2h_$w" "${env_args[@]}" >"$dir/run.log" 2>&1 || status=FAIL
  cp -a "$BUILD/vm/runs/$MODE/out/h2h_$w" "$dir/out" 2>/dev/null || status=FAIL
  cp "$BUILD/vm/runs/$MODE/console.log" "$dir/" 2>/dev/null || true
  cp "$BUILD/vm/runs/$MODE/model-counters.json" "$dir/" 2>/dev/null || true
  # The figures the table needs, kept where the raw files are not (above).
  python3 "$REPO/tests/vm/lib/h2h_report.py" "$dir" --summarize "$w" || status=FAIL
  [[ $status == PASS ]] || failed=$((failed + 1))
  printf '{"workload":"%s","contender":"%s","boot":%s,"mode":"%s","latency":"%s","status":"%s","date":"%s","commit":"%s","seconds":%s,"wall_s":%s}\n' \
    "$w" "$c" "$k" "$MODE" "$LATENCY" "$status" "$(date -u +%Y-%m-%d)" "$commit" "${SECONDS_OPT:-60}" \
    "$(($(date +%s) - start))" >"$dir/meta.json"
  sed -n "/^\(PASS\|FAIL\) $MODE\/h2h/,\$p" "$dir/run.log" | head -n 8
}

if [[ $RUN == 1 ]]; then
  commit=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)
  # Uncommitted changes outside docs/ (this script writes the table there).
  git -C "$REPO" diff --quiet HEAD -- . ':(exclude)docs' 2>/dev/null || commit="$commit+changes"
  for ((k = 1; k <= BOOTS; k++)); do
    for w in "${workloads[@]}"; do
      for c in "${contenders[@]}"; do run_boot "$w" "$c" "$k"; done
    done
  done
fi

cmd="scripts/bench-placement.sh"
[[ $MODE == model ]] || cmd+=" --mode $MODE"
[[ $BOOTS == 3 ]] || cmd+=" --boots $BOOTS"
[[ $MODE != model || $LATENCY == matched ]] || cmd+=" --latency $LATENCY"
[[ $CONTENDERS == "$DEFAULT_CONTENDERS" ]] || cmd+=" --contenders $CONTENDERS"
[[ $WORKLOADS == "$ALL_WORKLOADS" ]] || cmd+=" --workloads $WORKLOADS"
[[ -z $SECONDS_OPT ]] || cmd+=" --seconds $SECONDS_OPT"
report=(python3 "$REPO/tests/vm/lib/h2h_report.py" "$RESULTS" --mode "$MODE" --command "$cmd")
[[ $DOCS == 0 ]] || report+=(--docs "$REPO/docs/benchmarks.md")
"${report[@]}"
[[ $failed == 0 ]] || { echo "bench-placement: $failed run(s) failed (see RESULTS/*/boot-*/run.log)" >&2; exit 1; }
