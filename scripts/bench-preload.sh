#!/usr/bin/env bash
# libtierpreload against glibc alone, jemalloc and mimalloc (Debian .so's via
# LD_PRELOAD), all in one run: small malloc/free pairs (16-512 B, 1 and 2
# threads, Mops/s) and large allocations (ns per malloc+touch+free); each
# figure is the median of 5 rounds, every round running all allocators in
# turn (so a slow spell of this shared VM hits them all alike).
# Usage: scripts/bench-preload.sh [BUILD_DIR]   (prints a markdown table)
set -euo pipefail
build=${1:-build}
bench=$build/bin/preload_bench
ours=$(realpath "$build/lib/libtierpreload.so")
libdir=/usr/lib/x86_64-linux-gnu
declare -A preload=([glibc]="" [glibc-mmap]="" [tierpreload]="$ours" [jemalloc]="$libdir/libjemalloc.so.2"
  [mimalloc]="$libdir/libmimalloc.so.2")
# glibc-mmap: glibc with a fixed 64 KiB mmap threshold (no dynamic raise), i.e.
# glibc's own mmap path for the large sizes, the fair baseline for placed ones.
order=(glibc glibc-mmap tierpreload jemalloc mimalloc)

median() { printf '%s\n' "$@" | sort -g | sed -n "$((($# + 1) / 2))p"; }
run() { # allocator, args...
  local who=$1
  shift
  local mmap_threshold=
  [[ $who == glibc-mmap ]] && mmap_threshold=65536
  env LD_PRELOAD="${preload[$who]}" TIER_PRELOAD_POLICY=nodes:0 \
    ${mmap_threshold:+MALLOC_MMAP_THRESHOLD_=$mmap_threshold} "$bench" "$@"
}

echo "| workload | $(printf "%s | " "${order[@]}")tierpreload / baseline |"
echo "|---|---|---|---|---|---|---|"
# measure ARGS...: fig[allocator] = median over 5 interleaved rounds.
measure() {
  local -A all=()
  local round who
  for round in 1 2 3 4 5; do
    for who in "${order[@]}"; do all[$who]+="$(run "$who" "$@") "; done
  done
  for who in "${order[@]}"; do
    # shellcheck disable=SC2086 # the figures are words
    fig[$who]=$(median ${all[$who]})
  done
}

declare -A fig=()
for threads in 1 2; do
  measure small "$threads"
  ratio=$(echo "scale=3; ${fig[tierpreload]} / ${fig[glibc]}" | bc)
  echo "| small 16-512 B, $threads thread(s), Mops/s (baseline glibc) | ${fig[glibc]} | ${fig[glibc-mmap]} | ${fig[tierpreload]} | ${fig[jemalloc]} | ${fig[mimalloc]} | $ratio |"
done
for bytes in 1048576 4194304 16777216 67108864; do
  measure large "$bytes"
  ratio=$(echo "scale=2; ${fig[tierpreload]} / ${fig[glibc-mmap]}" | bc)
  echo "| large $((bytes >> 20)) MiB, ns per alloc+touch+free (baseline glibc-mmap) | ${fig[glibc]} | ${fig[glibc-mmap]} | ${fig[tierpreload]} | ${fig[jemalloc]} | ${fig[mimalloc]} | $ratio |"
done
