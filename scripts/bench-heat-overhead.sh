#!/usr/bin/env bash
# What watching a process costs it: hotset's throughput (accesses/s) alone
# and with `tierctl heat --source SOURCE` attached, on this host, in
# alternating rounds (A B, then B A, ...) so drift in the machine's load hits
# both sides alike. Prints every round, the median of each side and their
# ratio; issue 4 wants with/without >= 0.97.
#
# usage: scripts/bench-heat-overhead.sh [--duration S] [--rounds N] [--source NAME]
#          [--size BYTES] [--hot BYTES] [--threads N] [--cpus LIST] [--node N]
#          [--min-ratio R] [--build-dir DIR]
# Defaults: 10 s rounds, 6 rounds, bpf-fault, 256M with a 32M hot set, one
# thread on CPU 0 (the other CPU is left to tierctl), node 0, 0.97, ./build.
# Exit status: 0 ratio >= min-ratio, 1 below it or a run failed, 2 bad
# arguments, 127 no `tierctl heat` in this build yet.
set -euo pipefail

usage() {
  sed -n '/^# usage:/,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

duration=10 rounds=6 source=bpf-fault size=256M hot=32M threads=1 cpus=0 node=0
min_ratio=0.97 build=$(cd "$(dirname "$0")/.." && pwd)/build
while [[ $# -gt 0 ]]; do
  [[ $# -ge 2 ]] || usage
  case $1 in
    --duration) duration=$2 ;;
    --rounds) rounds=$2 ;;
    --source) source=$2 ;;
    --size) size=$2 ;;
    --hot) hot=$2 ;;
    --threads) threads=$2 ;;
    --cpus) cpus=$2 ;;
    --node) node=$2 ;;
    --min-ratio) min_ratio=$2 ;;
    --build-dir) build=$2 ;;
    *) echo "unknown argument '$1'" >&2; usage ;;
  esac
  shift 2
done
[[ $duration =~ ^[0-9]+$ && $duration -gt 0 ]] || { echo "bad --duration" >&2; usage; }
[[ $rounds =~ ^[0-9]+$ && $rounds -gt 0 ]] || { echo "bad --rounds" >&2; usage; }
[[ $min_ratio =~ ^[0-9]*\.?[0-9]+$ ]] || { echo "bad --min-ratio" >&2; usage; }

hotset=$build/bin/hotset tierctl=$build/bin/tierctl
[[ -x $hotset ]] || { echo "no $hotset (cmake --build $build --target hotset)" >&2; exit 1; }
if ! "$tierctl" heat --help 2>&1 | grep -q -- '--source'; then
  echo "$tierctl has no 'heat' command yet" >&2
  exit 127
fi
work=$(mktemp -d)
# shellcheck disable=SC2046 # one word per job id
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

# run WATCHED: one hotset round, optionally with tierctl heat attached from
# its ready line to its end; prints its accesses/s.
run() {
  local watched=$1 out=$work/hotset.out hpid
  rm -f "$work/ready"
  "$hotset" --size "$size" --hot "$hot" --node "$node" --threads "$threads" --cpus "$cpus" \
    --duration "$duration" --ready-file "$work/ready" >"$out" 2>"$work/hotset.err" &
  hpid=$!
  while [[ ! -f $work/ready ]]; do
    kill -0 "$hpid" 2>/dev/null || { cat "$work/hotset.err" >&2; return 1; }
    sleep 0.05
  done
  if [[ $watched == 1 ]]; then
    "$tierctl" heat --pid "$hpid" --source "$source" --duration $((duration + 1)) --json \
      >"$work/heat.json" 2>"$work/heat.err" &
  fi
  wait "$hpid" || { echo "hotset failed: $(cat "$work/hotset.err")" >&2; return 1; }
  if [[ $watched == 1 ]]; then
    wait %% 2>/dev/null || { echo "tierctl heat failed: $(cat "$work/heat.err")" >&2; return 1; }
  fi
  sed -n 's/.*"accesses_per_s":\([0-9.]*\).*/\1/p' "$out"
}

alone=() watched=()
echo "hotset --size $size --hot $hot --node $node --threads $threads --cpus $cpus, ${duration}s rounds;"
echo "watched = with tierctl heat --source $source attached"
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then order=(0 1); else order=(1 0); fi
  for w in "${order[@]}"; do
    v=$(run "$w")
    if [[ $w == 1 ]]; then watched+=("$v"); else alone+=("$v"); fi
    printf 'round %d %-7s %s accesses/s\n' "$r" "$([[ $w == 1 ]] && echo watched || echo alone)" "$v"
  done
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
  print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
a=$(median "${alone[@]}") w=$(median "${watched[@]}")
ratio=$(awk -v a="$a" -v w="$w" 'BEGIN { printf "%.4f", w / a }')
echo "median alone $a, watched $w accesses/s: ratio $ratio (want >= $min_ratio)"
awk -v r="$ratio" -v m="$min_ratio" 'BEGIN { exit !(r >= m) }'
