#!/usr/bin/env bash
# libtierpreload against glibc alone, jemalloc and mimalloc (Debian .so's via
# LD_PRELOAD), all in one run: small malloc/free pairs (16-512 B, 1 and 2
# threads, Mops/s, median of 3) and large allocations (ns per malloc+touch+free).
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

median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
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
for threads in 1 2; do
  declare -A fig=()
  for who in "${order[@]}"; do
    fig[$who]=$(median3 "$(run "$who" small "$threads")" "$(run "$who" small "$threads")" \
      "$(run "$who" small "$threads")")
  done
  ratio=$(echo "scale=3; ${fig[tierpreload]} / ${fig[glibc]}" | bc)
  echo "| small 16-512 B, $threads thread(s), Mops/s (baseline glibc) | ${fig[glibc]} | ${fig[glibc-mmap]} | ${fig[tierpreload]} | ${fig[jemalloc]} | ${fig[mimalloc]} | $ratio |"
done
for bytes in 1048576 4194304 16777216 67108864; do
  declare -A fig=()
  for who in "${order[@]}"; do
    fig[$who]=$(median3 "$(run "$who" large "$bytes")" "$(run "$who" large "$bytes")" \
      "$(run "$who" large "$bytes")")
  done
  ratio=$(echo "scale=2; ${fig[tierpreload]} / ${fig[glibc-mmap]}" | bc)
  echo "| large $((bytes >> 20)) MiB, ns per alloc+touch+free (baseline glibc-mmap) | ${fig[glibc]} | ${fig[glibc-mmap]} | ${fig[tierpreload]} | ${fig[jemalloc]} | ${fig[mimalloc]} | $ratio |"
done
