#!/usr/bin/env bash
# Writes every plan and report the placement policies produce on the traces
# docs/benchmarks.md documents (tier-sim --json --plans) and the plan digest of
# policy_bench's first tick, into OUT_DIR: run it on two builds and `diff -r`
# the folders to show a refactor left the policies' behaviour unchanged.
#   scripts/policy-equivalence.sh BUILD_DIR OUT_DIR
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 BUILD_DIR OUT_DIR" >&2
  exit 2
fi
bin="$1/bin"
out="$2"
mkdir -p "$out"
common=(--size 16G --hot 2G --fast-bytes 4G --seed 3 --epochs 60)
run() {  # NAME ARGS...: one tier-sim run, its JSON report and its plans
  local name="$1"
  shift
  "$bin/tier-sim" "$@" --json --plans "$out/$name.plans" >"$out/$name.json"
}
for p in balanced tpp static; do
  for t in zipf uniform phases; do
    run "$t-$p" --policy "$p" --trace "$t" "${common[@]}"
  done
  run "phases20-$p" --policy "$p" --trace phases --phase-epochs 20 "${common[@]}"
  run "mix-$p" --policy "$p" --trace mix --size 4G --hot 512M --fast-bytes 1G --seed 5 --epochs 40
  run "zipf-budget-$p" --policy "$p" --trace zipf --size 4G --fast-bytes 1G --seed 7 --epochs 30 \
    --budget-mbps 256
done
# The first tick of each policy on policy_bench's 1 M-region snapshot.
"$bin/policy_bench" --benchmark_filter=. --benchmark_repetitions=1 2>&1 >/dev/null |
  grep "^policy_bench:" | sort -u >"$out/policy_bench.digest"
wc -c "$out"/* | tail -1
