#!/usr/bin/env bash
# make fuzz: configure and build the libFuzzer targets with clang in their own
# build dir, replay the committed reproducers, then run each target for a
# bounded time (or number of executions) and print what it did.
#
#   fuzz/run.sh [--build-dir DIR] [TARGET...]     (TARGET: config, request)
#   FUZZ_SECONDS=60   seconds per target (default 60)
#   FUZZ_RUNS=N       executions per target instead of a time bound
#
# Exits non-zero when a target crashes or a sanitizer reports; the input is in
# DIR/crashes/. The corpus grows in DIR/corpus/TARGET across runs and starts
# from the committed seeds in fuzz/corpus/TARGET, which are never written.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build="$root/build/fuzz"
targets=()
while (($#)); do
  case "$1" in
    --build-dir) build=$(realpath -m "$2"); shift 2 ;;
    config | request) targets+=("$1"); shift ;;
    *) echo "usage: $0 [--build-dir DIR] [config] [request]" >&2; exit 2 ;;
  esac
done
((${#targets[@]})) || targets=(config request)
seconds=${FUZZ_SECONDS:-60}
runs=${FUZZ_RUNS:-}

# Debian ships libFuzzer's runtime in libclang-rt-14-dev, only a recommended
# package of clang: say so instead of failing at link time.
runtime="$(clang -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a"
if [[ ! -f "$runtime" ]]; then
  echo "fuzz: libFuzzer runtime not found ($runtime): apt-get install libclang-rt-14-dev" >&2
  exit 1
fi

# Every build and run is niced: the machine's cores are shared.
CC=clang CXX=clang++ nice -n 19 cmake -S "$here" -B "$build" -DTIER_FUZZ=ON >/dev/null
if ! nice -n 19 cmake --build "$build" -j "$(nproc)" >"$build/build.log" 2>&1; then
  cat "$build/build.log" >&2
  exit 1
fi

if [[ -n "$runs" ]]; then bound=(-runs="$runs"); else bound=(-max_total_time="$seconds"); fi
failed=0
for target in "${targets[@]}"; do
  binary="$build/bin/fuzz_$target"
  corpus="$build/corpus/$target"
  crashes="$build/crashes"
  log="$build/fuzz_$target.log"
  mkdir -p "$corpus" "$crashes"

  # Inputs that once failed must keep passing (fixed bugs stay fixed).
  mapfile -t known < <(find "$here/crashes" -name "$target-*" -type f | sort)
  if ((${#known[@]})) && ! nice -n 19 "$binary" "${known[@]}" >"$log.replay" 2>&1; then
    echo "fuzz_$target: a reproducer in fuzz/crashes/ fails again, see $log.replay" >&2
    failed=1
    continue
  fi

  status=0
  nice -n 19 "$binary" -dict="$here/$target.dict" "${bound[@]}" -print_final_stats=1 \
    -artifact_prefix="$crashes/$target-" "$corpus" "$here/corpus/$target" >"$log" 2>&1 ||
    status=$?
  execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
  rate=$(awk '/stat::average_exec_per_sec/ {print $2}' "$log")
  files=$(find "$corpus" -type f | wc -l)
  if ((status)); then
    echo "fuzz_$target: FAILED after ${execs:-?} executions (exit $status); log $log" >&2
    grep -m1 -E "^(==[0-9]+==ERROR|SUMMARY|fuzz_$target:)|runtime error" "$log" >&2 || true
    grep -m1 "Test unit written to" "$log" >&2 || true
    failed=1
  else
    echo "fuzz_$target: ${execs:-?} executions, ${rate:-?} exec/s, 0 crashes, corpus $files files"
  fi
done
exit "$failed"
