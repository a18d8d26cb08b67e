#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The emulated CXL/NUMA test machine: for each mode, boot a QEMU guest (TCG
# only: this machine's /dev/kvm cannot run a guest) with a busybox
# initramfs holding the project's binaries, run the scenarios inside, bring
# their results back over a serial port and check them on the host.
#
# usage: tests/vm/run.sh [--mode MODE|all] [--kernel 6.12|6.1|7.3]
#                        [--build-dir DIR] [--scenario NAME]... [--set NAME]
#                        [--jobs N] [--keep] [--env KEY=VALUE]...
#                        [--fetch-only] [--no-plugin] [--plugin-arg KEY=VALUE]...
# A scenario with "# vmtest-tools: PROGRAM..." gets those host programs
# (and their libraries) in its guest, as a mode's MODE_TOOLS.
# --env adds KEY=VALUE to the guest's /etc/vmtest.env (scenario parameters,
# e.g. the head-to-head's contender). A scenario with "# vmtest-explicit: yes"
# runs only when --scenario names it (benchmarks, not part of make vmtest).
# --scenario may be given several times: those scenarios run, no others.
# A scenario with "# vmtest-set: NAME" runs only with --set NAME (the fault
# campaign, `make faults`) or when --scenario names it; --set runs only
# that set's scenarios, and the modes that have none are not booted.
# --jobs N boots up to N modes' guests at once (downloads and initramfs
# images are made first, one mode at a time); the report keeps mode order.
# --fetch-only downloads what the modes' boots need (kernels, QEMU 10, the
# systemd mode's rootfs) into the caches and stops: it needs no build, so
# `make test` runs it beside the release build (scripts/test-all.sh).
# --no-plugin boots the modes without their TCG plugin (the latency model's
# cost is measured that way: scenarios/model_cost.sh). --plugin-arg adds an
# option to the mode's plugin after the mode's own (the later one wins, e.g.
# scale=24 for the head-to-head, scripts/bench-placement.sh); a mode
# without a plugin refuses it.
# Prints one PASS/FAIL line per mode and scenario and ends with
# "vmtest: N passed, M failed"; exits non-zero on any failure or timeout.
# Everything downloaded or produced lives under BUILD/vm (see docs/testing.md).
set -euo pipefail

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$VM_DIR/../.." && pwd)
# shellcheck source=lib/common.sh
. "$VM_DIR/lib/common.sh"
# shellcheck source=lib/fetch.sh
. "$VM_DIR/lib/fetch.sh"
# shellcheck source=lib/initramfs.sh
. "$VM_DIR/lib/initramfs.sh"
# shellcheck source=lib/rootfs.sh
. "$VM_DIR/lib/rootfs.sh"

# model (the latency model) is left out of `all` for now: its fidelity scenario
# is a benchmark (make bench-model) and one boot in ~12 lost a vCPU in idle
# before nohz=off (modes/model.sh); --mode model boots it.
ALL_MODES=(numa numa61 pmem cxl systemd newest)
SCENARIO_TIMEOUT=120  # default per scenario, inside the guest
SETUP_TIMEOUT=120     # the mode's setup inside the guest
BOOT_ALLOWANCE=90     # boot + facts + poweroff, on top of the above

usage() {
  sed -n '/^# usage:/,/^# Everything/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

parse_args() {
  MODES=() KERNEL_OVERRIDE="" BUILD="$REPO/build" ONLY_SCENARIOS=() KEEP=0 GUEST_ENV=()
  ONLY_SET="" JOBS=1 FETCH_ONLY=0 NO_PLUGIN=0 PLUGIN_ARGS=""
  while [[ $# -gt 0 ]]; do
    case $1 in
      --mode) [[ $# -ge 2 ]] || usage
        if [[ $2 == all ]]; then MODES=("${ALL_MODES[@]}"); else MODES+=("$2"); fi
        shift 2 ;;
      --kernel) [[ $# -ge 2 ]] || usage; KERNEL_OVERRIDE=$2; shift 2 ;;
      --build-dir) [[ $# -ge 2 ]] || usage; BUILD=$2; shift 2 ;;
      --scenario) [[ $# -ge 2 && -n $2 ]] || usage; ONLY_SCENARIOS+=("$2"); shift 2 ;;
      --set) [[ $# -ge 2 ]] || usage; ONLY_SET=$2; shift 2 ;;
      --jobs) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]?$ ]] || die "--jobs wants a number of guests from 1 to 99"
              JOBS=$2; shift 2 ;;
      --keep) KEEP=1; shift ;;
      --fetch-only) FETCH_ONLY=1; shift ;;
      --no-plugin) NO_PLUGIN=1; shift ;;
      --plugin-arg) [[ $# -ge 2 && $2 =~ ^[a-z_]+=[A-Za-z0-9_.]+$ ]] ||
                      die "--plugin-arg wants KEY=VALUE (a plugin option, e.g. scale=24)"
                    PLUGIN_ARGS+=${PLUGIN_ARGS:+,}$2; shift 2 ;;
      --env) [[ $# -ge 2 && $2 =~ ^[A-Z][A-Z0-9_]*=[A-Za-z0-9_.,:/+-]*$ ]] ||
               die "--env wants KEY=VALUE (KEY in capitals, VALUE without blanks or quotes)"
             GUEST_ENV+=("$2"); shift 2 ;;
      -h|--help) usage ;;
      *) log "unknown argument '$1'"; usage ;;
    esac
  done
  [[ ${#MODES[@]} -gt 0 ]] || MODES=("${ALL_MODES[@]}")
  local m
  for m in "${MODES[@]}"; do
    [[ -f $VM_DIR/modes/$m.sh ]] || die "unknown mode '$m' (modes: ${ALL_MODES[*]} all)"
  done
  local named
  for named in "${ONLY_SCENARIOS[@]}"; do
    [[ -f $VM_DIR/scenarios/$named.sh ]] || die "no scenario '$named' in tests/vm/scenarios/"
  done
  if [[ -n $ONLY_SET ]] && ! grep -lqs "^# vmtest-set: *$ONLY_SET\$" "$VM_DIR"/scenarios/*.sh; then
    die "no scenario in tests/vm/scenarios/ belongs to set '$ONLY_SET'"
  fi
  if [[ -n $KERNEL_OVERRIDE && -z ${KERNEL_SUITE[$KERNEL_OVERRIDE]:-} ]]; then
    die "unknown kernel '$KERNEL_OVERRIDE' (${!KERNEL_SUITE[*]})"
  fi
  mkdir -p "$BUILD"
  BUILD=$(cd "$BUILD" && pwd)
  VMB=$BUILD/vm
}

# scenario_header FILE KEY: the value of a "# vmtest-KEY: value" line.
scenario_header() { sed -n "s/^# vmtest-$2: *//p" "$1" | head -n1; }

# scenarios_for MODE [GUEST]: names of the scenarios that run in MODE's
# guest GUEST (1 or 2; empty: both), sorted. A scenario says where it runs
# with "# vmtest-modes: all" or a mode list, and "# vmtest-guest: 2" puts it
# in its mode's second guest, booted beside the first under --jobs 2 (the
# numa mode's scenarios take ~480 s of guest time: split over two guests,
# a whole run takes about half as long).
scenarios_for() {
  local mode=$1 guest=${2:-} f name modes named
  for f in "$VM_DIR"/scenarios/*.sh; do
    name=$(basename "$f" .sh)
    named=0
    [[ " ${ONLY_SCENARIOS[*]} " == *" $name "* ]] && named=1
    [[ ${#ONLY_SCENARIOS[@]} -eq 0 || $named == 1 ]] || continue
    modes=$(scenario_header "$f" modes)
    [[ $(scenario_header "$f" explicit) != yes || $named == 1 ]] || continue
    [[ $(scenario_header "$f" set) == "$ONLY_SET" || $named == 1 ]] || continue
    [[ -z $guest || $(scenario_header "$f" guest | grep . || echo 1) == "$guest" ]] || continue
    if [[ $modes == all || " $modes " == *" $mode "* ]]; then
      printf '%s\n' "$name"
    fi
  done
}

# guests_of MODE: the guests MODE boots, by run name: MODE, and MODE.2 when
# one of its scenarios (after --scenario and --set) asks for the second.
guests_of() {
  if [[ -z $(scenarios_for "$1" 2) ]]; then
    printf '%s\n' "$1"
    return
  fi
  [[ -z $(scenarios_for "$1" 1) ]] || printf '%s\n' "$1"
  printf '%s\n' "$1.2"
}

# expect_file MODE KERNEL: the ground truth recorded for MODE on KERNEL:
# expect/MODE.json when it was recorded on that kernel, else
# expect/MODE-KERNEL.json; empty if there is none.
expect_file() {
  local mode=$1 kver=$2 f="$VM_DIR/expect/$1.json"
  if [[ -f $f ]] && "$PY" -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["kernel"] != sys.argv[2])' "$f" "$kver"; then
    printf '%s\n' "$f"
  elif [[ -f $VM_DIR/expect/$mode-$kver.json ]]; then
    printf '%s\n' "$VM_DIR/expect/$mode-$kver.json"
  fi
}

# qemu_command MODE KDIR RUNDIR: fill QEMU (argv array) for the mode.
qemu_command() {
  local mode=$1 kdir=$2 rundir=$3 topo
  if [[ $MODE_QEMU == qemu10 ]]; then
    local q="$VMB/qemu10/root"
    QEMU_BIN=(env "QEMU_MODULE_DIR=$q/usr/lib/x86_64-linux-gnu/qemu"
              "$q/usr/bin/qemu-system-x86_64"
              -L "$q/usr/share/qemu" -L "$q/usr/share/seabios")
  else
    QEMU_BIN=("$(command -v qemu-system-x86_64)")
  fi
  QEMU=("${QEMU_BIN[@]}")
  # tb-size: the default 1 GiB translation cache doubles QEMU's RSS.
  # thread: single-threaded TCG unless a mode asks for multi
  # (MODE_TCG_THREAD=multi: the latency model, modes/model.sh). Under
  # multi-threaded TCG a vCPU can run half-patched kernel text after an eBPF
  # or perf probe attaches ("Oops: int3": modes/numa.sh, modes/systemd.sh),
  # and a boot once stopped in a PCI probe (modes/cxl.sh); every mode's
  # `tierctl doctor` attaches such probes.
  # no_timer_check: the kernel's IO-APIC timer check counts timer interrupts
  # over a busy-wait calibrated earlier in the boot; a TCG vCPU slowed by a
  # busy host misses it and panics ("IO-APIC + timer doesn't work!", a cxl
  # boot of a loaded soak run, 2026-12-06). Virtual machines' kernel command
  # lines commonly carry it for this reason.
  # shellcheck disable=SC2054 # commas belong to QEMU option values
  QEMU+=(-nodefaults -display none -no-reboot
         -accel "tcg,tb-size=256,thread=${MODE_TCG_THREAD:-single}"
         -kernel "$kdir/vmlinuz" -initrd "$rundir/initramfs.cpio"
         -append "console=ttyS0 rdinit=/init panic=-1 no_timer_check $MODE_CMDLINE"
         -serial "file:$rundir/console.log" -serial "file:$rundir/results.log")
  mapfile -t topo < <("$PY" "$VM_DIR/lib/qemu_topology.py" \
                        "$VM_DIR/topology/$MODE_TOPOLOGY.json" "$MODE_MACHINE_EXTRA")
  QEMU+=("${topo[@]}" "${MODE_QEMU_ARGS[@]}")
  # The latency model (modes/model.sh): its layout comes from the same
  # topology JSON; its per vCPU x node counters land in RUNDIR at power-off.
  if [[ -n $MODE_PLUGIN ]]; then
    "$PY" "$VM_DIR/lib/qemu_topology.py" --plugin-layout \
      "$VM_DIR/topology/$MODE_TOPOLOGY.json" >"$rundir/model-layout.txt"
    QEMU+=(-plugin "$(plugin_path)$(printf ',%s' layout="$rundir/model-layout.txt" \
                     out="$rundir/model-counters.json")${MODE_PLUGIN_ARGS:+,$MODE_PLUGIN_ARGS}"
           -d plugin -D "$rundir/plugin.log")
  fi
}

# plugin_path: the mode's TCG plugin in the build.
plugin_path() { printf '%s\n' "$BUILD/lib/lib$MODE_PLUGIN.so"; }

# plugin_problem: why the mode's plugin cannot be loaded, empty if it can.
plugin_problem() {
  [[ -z $MODE_PLUGIN ]] && return 0
  if [[ ! -f $(plugin_path) ]]; then
    echo "the mode loads the TCG plugin $(plugin_path), which is not built (make build)"
  elif ! "${QEMU_BIN[@]}" -help 2>/dev/null | grep -q -- '^-plugin'; then
    echo "the mode's QEMU ($("${QEMU_BIN[@]}" -version 2>&1 | head -n1)) has no TCG plugin" \
         "support (no -plugin option)"
  fi
}

# report RESULT NAME DETAIL...: one PASS/FAIL line, details indented below.
report() {
  local result=$1 name=$2; shift 2
  printf '%s %s\n' "$result" "$name"
  if [[ $# -gt 0 && -n $* ]]; then printf '%s\n' "$@" | sed 's/^/    /'; fi
  if [[ $result == PASS ]]; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); fi
}

# step_rc OUT NAME: the guest's exit status for a step, empty if it never
# finished (guest hung, crashed or ran out of time).
step_rc() {
  [[ -f $1/steps.tsv ]] || return 0
  awk -F'\t' -v n="$2" '$1 == n { print $2 }' "$1/steps.tsv"
}

# boot_summary RUNDIR: "boot-to-poweroff 22.5 s, QEMU peak RSS 548 MB", and
# how often the guest kernel reported an RCU stall (a vCPU that stopped
# answering: see modes/model.sh), if it did.
boot_summary() {
  local stalls
  awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
       END { printf "boot-to-poweroff %s s, QEMU peak RSS %d MB, exit %s",
             v["wall_s"], v["maxrss_kb"] / 1024, v["rc"] }' "$1/measure" 2>/dev/null
  stalls=$(grep -c 'rcu: INFO: .* detected stalls' "$1/console.log" 2>/dev/null || true)
  [[ ${stalls:-0} == 0 ]] || printf ', %s RCU stall reports in console.log' "$stalls"
}

# tail_of N FILE...: the last N lines of the files that exist, and never a
# failure: under set -e a failed command substitution in an assignment would
# end the mode's checks before they report (a guest that panicked early has
# no setup output), and the run would say only "harness error".
tail_of() {
  local n=$1 f
  shift
  for f in "$@"; do [[ -f $f ]] && tail -n "$n" "$f"; done
  return 0
}

# check_boot MODE RUNDIR: the guest booted, ran its setup and finished.
check_boot() {
  local mode=$1 rundir=$2 out=$2/out rc
  local why=()
  if [[ $(step_rc "$out" END) != - ]]; then
    why+=("guest did not finish ($(boot_summary "$rundir")); see $rundir/console.log")
    [[ -s $rundir/qemu.log ]] && why+=("qemu: $(tail -n 5 "$rundir/qemu.log")")
    why+=("last console lines:" "$(tail_of 8 "$rundir/console.log")")
  fi
  rc=$(step_rc "$out" _setup)
  [[ $rc == 0 ]] || why+=("mode setup exit status '${rc:-none}':" \
                         "$(tail_of 15 "$out/_setup/stdout" "$out/_setup/stderr")")
  if [[ ${#why[@]} -eq 0 ]]; then
    report PASS "$mode/boot" "$(boot_summary "$rundir")"
  else
    report FAIL "$mode/boot" "${why[@]}"
  fi
}

# check_scenario MODE KVER RUNDIR EXPECT NAME: run the host half.
check_scenario() {
  local mode=$1 kver=$2 rundir=$3 expect=$4 s=$5 out=$3/out rc msg
  rc=$(step_rc "$out" "$s")
  if [[ -z $rc ]]; then
    report FAIL "$mode/$s" "did not finish in the guest; see $rundir/console.log"
    return
  fi
  if [[ $rc == 124 || $rc == 143 ]]; then
    report FAIL "$mode/$s" "timed out in the guest (exit $rc)"
    return
  fi
  if msg=$("$PY" "$VM_DIR/scenarios/$s.check.py" --mode "$mode" --kernel "$kver" \
             --out "$out" --expect "$expect" \
             --topology "$VM_DIR/topology/$MODE_TOPOLOGY.json" 2>&1); then
    report PASS "$mode/$s" "$msg"
  else
    report FAIL "$mode/$s" "$msg"
  fi
}

# load_mode GUEST: the settings of the guest's mode (GUEST is MODE or
# MODE.2, guests_of; modes/MODE.sh over the defaults), its run folder, ground
# truth and scenarios. Sets MODE_NAME and GUEST_NAME. Call in a subshell: the
# mode file sets variables.
load_mode() {
  local mode=${1%.2} guest=1
  [[ $1 == "$mode" ]] || guest=2
  MODE_NAME=$mode GUEST_NAME=$1
  # Defaults for what modes/MODE.sh may set (read by lib/initramfs.sh too).
  # shellcheck disable=SC2034
  {
    MODE_KERNEL="" MODE_QEMU=system MODE_TOPOLOGY=numa4 MODE_MACHINE_EXTRA=""
    MODE_CMDLINE="" MODE_MODULES="" MODE_TOOLS="" MODE_QEMU_ARGS=() MODE_ROOTFS=""
    MODE_PLUGIN="" MODE_PLUGIN_ARGS=""
  }
  # shellcheck source=/dev/null
  . "$VM_DIR/modes/$mode.sh"
  [[ -n $KERNEL_OVERRIDE ]] && MODE_KERNEL=$KERNEL_OVERRIDE
  [[ $NO_PLUGIN == 0 ]] || MODE_PLUGIN=""
  if [[ -n $PLUGIN_ARGS ]]; then
    [[ -n $MODE_PLUGIN ]] || die "--plugin-arg: mode '$mode' loads no TCG plugin"
    MODE_PLUGIN_ARGS+=${MODE_PLUGIN_ARGS:+,}$PLUGIN_ARGS
  fi
  RUNDIR="$VMB/runs/$GUEST_NAME"
  # Without recorded ground truth (e.g. --kernel on another mode) the guest
  # still boots, so its facts can be drafted into an expect file.
  EXPECT=$(expect_file "$mode" "$MODE_KERNEL")
  SCENARIOS=()
  [[ -z $EXPECT ]] || mapfile -t SCENARIOS < <(scenarios_for "$mode" "$guest")
  # Host tools a scenario needs in the guest ("# vmtest-tools: strace"),
  # copied only into the guests that run it.
  local s tool
  for s in "${SCENARIOS[@]}"; do
    for tool in $(scenario_header "$VM_DIR/scenarios/$s.sh" tools); do
      [[ " $MODE_TOOLS " == *" $tool "* ]] || MODE_TOOLS+="${MODE_TOOLS:+ }$tool"
    done
  done
}

# mode_wanted MODE: false when --set is given and MODE has none of its
# scenarios (nothing to boot for).
mode_wanted() {
  [[ -z $ONLY_SET ]] && return 0
  [[ -n $(scenarios_for "$1") ]]
}

# fetch_mode MODE: the downloads MODE's boot needs, into the shared caches
# (each fetch returns at once when its cache is ready).
fetch_mode() {
  load_mode "$1"
  fetch_kernel "$MODE_KERNEL"
  [[ $MODE_QEMU == qemu10 ]] && fetch_qemu10
  [[ -z $MODE_ROOTFS ]] || fetch_rootfs "$MODE_ROOTFS"
}

# prepare_guest GUEST: everything the boot needs that touches shared caches
# (kernel, QEMU 10 and rootfs downloads) and the guest's initramfs. Runs one
# guest at a time, so parallel boots never race on a download.
prepare_guest() {
  fetch_mode "${1%.2}"
  load_mode "$1"
  rm -rf "$RUNDIR"; mkdir -p "$RUNDIR"
  build_initramfs "$MODE_NAME" "$VMB/kernel-$MODE_KERNEL" "$RUNDIR/initramfs.cpio"
  [[ $KEEP == 1 ]] || rm -rf "$VMB/initramfs/$MODE_NAME"
}

# boot_guest GUEST: boot one prepared guest and check everything it ran. The
# PASS/FAIL report goes to stdout (the boot as GUEST/boot, scenarios as
# MODE/NAME); writes "passed failed" to RUNDIR/counts.
boot_guest() {
  local kdir s limit start mode
  PASSED=0 FAILED=0
  load_mode "$1"
  mode=$MODE_NAME
  kdir="$VMB/kernel-$MODE_KERNEL"
  # Outer limit: only a hung guest kernel should ever reach it, since the
  # guest enforces the per-scenario limits itself.
  limit=$((BOOT_ALLOWANCE + SETUP_TIMEOUT))
  for s in "${SCENARIOS[@]}"; do
    limit=$((limit + $(scenario_header "$VM_DIR/scenarios/$s.sh" timeout | grep . || echo "$SCENARIO_TIMEOUT")))
  done
  qemu_command "$mode" "$kdir" "$RUNDIR"
  printf '%q ' "${QEMU[@]}" >"$RUNDIR/qemu.cmd"
  local problem
  problem=$(plugin_problem)
  if [[ -n $problem ]]; then
    report FAIL "$GUEST_NAME/boot" "$problem"
    for s in "${SCENARIOS[@]}"; do report FAIL "$mode/$s" "$problem"; done
    echo "$PASSED $FAILED" >"$RUNDIR/counts"
    return 0
  fi
  log "$GUEST_NAME: booting kernel $(cat "$kdir/release") ($MODE_QEMU qemu), scenarios: ${SCENARIOS[*]:-none}"
  start=$(now)
  "$PY" "$VM_DIR/lib/measure.py" "$RUNDIR/measure" \
    timeout --kill-after=10 "$limit" "${QEMU[@]}" >"$RUNDIR/qemu.log" 2>&1 || true
  log "$GUEST_NAME: guest ran $(elapsed "$start")s"
  "$PY" "$VM_DIR/lib/results.py" "$RUNDIR/results.log" "$RUNDIR/out" || true
  [[ $KEEP == 1 ]] || rm -f "$RUNDIR/initramfs.cpio"

  check_boot "$GUEST_NAME" "$RUNDIR"
  if [[ -z $EXPECT ]]; then
    "$PY" "$VM_DIR/lib/facts2expect.py" "$mode" "$MODE_KERNEL" "$RUNDIR/out" \
      >"$RUNDIR/expect-draft.json" 2>&1 || true
    report FAIL "$GUEST_NAME/expect" "no expected results for $mode on kernel $MODE_KERNEL" \
      "(tests/vm/expect/$mode-$MODE_KERNEL.json); a draft from this boot: $RUNDIR/expect-draft.json"
  fi
  for s in "${SCENARIOS[@]}"; do
    check_scenario "$mode" "$MODE_KERNEL" "$RUNDIR" "$EXPECT" "$s"
  done
  echo "$PASSED $FAILED" >"$RUNDIR/counts"
}

main() {
  parse_args "$@"
  mkdir -p "$VMB"
  # One run at a time per build dir: the caches and run folders are shared.
  exec 9>"$VMB/.lock"
  flock -n 9 || { log "waiting for another vmtest run on $VMB"; flock 9; }

  local total_pass=0 total_fail=0 mode p f start running=0
  local -A failed_prepare=()
  start=$(now)
  if [[ $FETCH_ONLY == 1 ]]; then
    for mode in "${MODES[@]}"; do
      mode_wanted "$mode" || continue
      (fetch_mode "$mode") || { log "$mode: fetching failed (see the messages above)"; return 1; }
    done
    log "fetched what the modes need in $(elapsed "$start")s"
    return 0
  fi
  local guests=() guest
  for mode in "${MODES[@]}"; do
    mode_wanted "$mode" || continue
    mapfile -t -O "${#guests[@]}" guests < <(guests_of "$mode")
  done
  for guest in "${guests[@]}"; do
    rm -f "$VMB/runs/$guest/counts" "$VMB/runs/$guest.report"
    (prepare_guest "$guest") || failed_prepare[$guest]=1
  done
  # Each boot's report is kept in RUNDIR.report and printed in guest order.
  for guest in "${guests[@]}"; do
    [[ -z ${failed_prepare[$guest]:-} ]] || continue
    if [[ $running -ge $JOBS ]]; then wait -n || true; running=$((running - 1)); fi
    (boot_guest "$guest") >"$VMB/runs/$guest.report" &
    running=$((running + 1))
  done
  wait || true
  for guest in "${guests[@]}"; do
    [[ -z ${failed_prepare[$guest]:-} ]] && cat "$VMB/runs/$guest.report"
    if [[ -z ${failed_prepare[$guest]:-} ]] && read -r p f <"$VMB/runs/$guest/counts"; then
      total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
    else
      echo "FAIL $guest/boot"
      echo "    harness error: the guest's checks stopped before counting their results"
      echo "    (see the messages above; the guest's console: $VMB/runs/$guest/console.log)"
      total_fail=$((total_fail + 1))
    fi
  done
  log "all modes took $(elapsed "$start")s; logs and results under $VMB/runs/"
  echo "vmtest: $total_pass passed, $total_fail failed"
  [[ $total_fail -eq 0 ]]
}

main "$@"
