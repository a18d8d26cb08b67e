#!/usr/bin/env bash
# Install every Debian package tier needs to build and test, and nothing that
# is already there. Idempotent: a second run changes nothing and takes a second.
# Usage: scripts/install-deps.sh [--check]   (--check: list missing, install none)
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake g++ pkg-config make git clang-format clang-tidy
  # libtier
  libhwloc-dev hwloc libnuma-dev numactl libboost1.81-dev libboost-json1.81-dev
  libcli11-dev libtomlplusplus-dev zlib1g-dev libpfm4-dev
  # tierd metrics exporter (prometheus-cpp; /metrics is served by its pull part), promtool for its tests
  prometheus-cpp-dev libprometheus-cpp-pull1.0 prometheus
  libsystemd-dev  # tierd: sd_notify, watchdog (daemon/service_notifier.cpp)
  # tests and benchmarks
  libgtest-dev libgmock-dev googletest libbenchmark-dev mbw gnuplot-nox
  # eBPF (CO-RE skeletons)
  clang llvm libbpf-dev bpftool linux-libc-dev
  libclang-rt-14-dev  # libFuzzer runtime for `make fuzz` (fuzz/)
  # emulated CXL/NUMA machine (tests/vm)
  qemu-system-x86 busybox-static cpio xz-utils zstd kmod bzip2 file ndctl daxctl python3
  debootstrap  # the systemd mode's Debian root filesystem (tests/vm/lib/rootfs.sh)
  strace  # holds tierd's move_pages calls in the fault campaign (scenarios/faults_move.sh)
  libglib2.0-dev  # QEMU 10's qemu-plugin.h includes <glib.h> (tests/vm/plugin)
  # libtierpreload: real programs under LD_PRELOAD (tests/preload/real_programs.sh)
  # and the allocators it is benchmarked against (scripts/bench-preload.sh)
  sqlite3 redis-server redis-tools gzip coreutils libjemalloc2 libmimalloc2.0
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
if [[ "${1:-}" == "--check" ]]; then
  printf 'install-deps: missing: %s\n' "${missing[*]}"
  exit 1
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: missing ${missing[*]}; run as root to install them" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists yet; refresh only when needed.
if ! apt-get install -y --no-install-recommends "${missing[@]}"; then
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
fi
