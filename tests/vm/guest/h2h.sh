# The head-to-head of placement contenders (scenarios h2h_*, docs/testing.md):
# the same hotset workload, measured from its own side (hotset --census),
# under one contender per boot. Sourced: `. /vm/h2h.sh`, then
# `trap h2h_cleanup EXIT`.
#
# Contenders (h2h_contender_start NAME):
#   none            numa_balancing=0, demotion_enabled=false
#   kernel          numa_balancing=2 (memory tiering), demotion_enabled=true,
#                   the kernel's default promote rate limit and scanner
#   damon           numa_balancing=0, demotion_enabled=false, two paddr
#                   kdamonds: migrate_hot on nodes 2-3 to node 0 (young pages
#                   only), migrate_cold on node 0 to node 2 (non-young only)
#   tierd-balanced  tierd, policy balanced, kernel_tiering = "own"
#   tierd-tpp       tierd, policy tpp, kernel_tiering = "own"
# Every knob is saved and restored (heat.sh's knob_set); tierd starts from the
# "none" knobs and may change them itself (it restores them at its stop).
#
# Files in the scenario's folder, per run prefix R (one per workload run):
#   R.out/.err/.rc          hotset's ready and exit lines, exit status
#   R.census.jsonl          hotset's census lines (workloads/hotset/census.hpp)
#   R.vmstat.before/.after  /proc/vmstat before the contender starts and at
#                           the final census
#   R.contender, R.seconds  the contender's name, the run's length
#   R.damon.txt             damon: the schemes' stats at the end
#   R.tierd.*               tierd: status/workloads JSON, its stdout/stderr
#   h2h.log                 "key value" observations (kdamonds at boot, ...)
# shellcheck shell=sh disable=SC2034  # some values are for the sourcing scenario

. /vm/heat.sh
# shellcheck source=/dev/null # written by lib/initramfs.sh (run.sh --env adds lines)
. /etc/vmtest.env

H2H_GO=/tmp/h2h.go
H2H_SOCK=/run/tierd.sock
NBAL=/proc/sys/kernel/numa_balancing
DEMOTE=/sys/kernel/mm/numa/demotion_enabled
MEMDIR=/sys/devices/system/memory

h2h_log() { echo "$*" >>h2h.log; }

# h2h_cleanup: the EXIT trap: every kdamond off, tierd and hotsets stopped,
# knobs restored.
h2h_cleanup() {
  h2h_damon_stop
  h2h_tierd_stop
  for j in $(jobs -p); do kill "$j" 2>/dev/null; done
  wait 2>/dev/null
  restore_knobs
}

# h2h_node_range N: "START END" physical addresses of node N's memory blocks
# (the lowest to the highest block; nodes are contiguous in this machine).
h2h_node_range() {
  bs=$((0x$(cat $MEMDIR/block_size_bytes)))
  # shellcheck disable=SC2012 # block names only, no odd characters
  ls -d /sys/devices/system/node/node"$1"/memory[0-9]* | sed 's/.*memory//' | sort -n |
    awk -v bs="$bs" 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.0f %.0f\n", lo * bs, (hi + 1) * bs }'
}

# h2h_damon_kdamond K ACTION TARGET_NID YOUNG_MATCHING NR_MIN NR_MAX AGE_MIN NODE...:
# kdamond K monitors the physical ranges of NODE... with one scheme ACTION
# (migrate_hot/migrate_cold) to TARGET_NID. Every access_pattern bound is
# set (they start at 0). A young filter with matching Y filters young pages
# out (migrate_cold), N filters the others out (migrate_hot): without them
# the two schemes ping-pong (environment guide).
h2h_damon_kdamond() {
  k=$1 action=$2 nid=$3 young=$4 nrmin=$5 nrmax=$6 agemin=$7; shift 7
  ctx="$DAMON/$k"/contexts/0
  echo 1 >"$DAMON/$k"/contexts/nr_contexts
  echo paddr >"$ctx"/operations
  echo 1 >"$ctx"/targets/nr_targets
  echo $# >"$ctx"/targets/0/regions/nr_regions
  i=0
  for n in "$@"; do
    r=$(h2h_node_range "$n")
    echo "${r#* }" >"$ctx/targets/0/regions/$i/end"
    echo "${r% *}" >"$ctx/targets/0/regions/$i/start"
    h2h_log "damon_region kdamond$k node$n $r"
    i=$((i + 1))
  done
  echo 1 >"$ctx"/schemes/nr_schemes
  sc=$ctx/schemes/0
  echo "$action" >"$sc"/action
  echo "$nid" >"$sc"/target_nid
  ap=$sc/access_pattern
  echo 4096 >"$ap"/sz/min
  echo 18446744073709551615 >"$ap"/sz/max
  echo "$nrmin" >"$ap"/nr_accesses/min
  echo "$nrmax" >"$ap"/nr_accesses/max
  echo "$agemin" >"$ap"/age/min
  echo 4294967295 >"$ap"/age/max
  echo 1 >"$sc"/filters/nr_filters
  echo young >"$sc"/filters/0/type
  echo "$young" >"$sc"/filters/0/matching
  echo on >"$DAMON/$k"/state
}

# h2h_damon_start: the DAMON contender. Default intervals (5 ms samples,
# 100 ms aggregation: nr_accesses 0-20). Hot: accessed in at least one sample
# of an aggregation, any age. Cold: not accessed for 5 s (50 aggregations).
h2h_damon_start() {
  knob_set "$DAMON"/nr_kdamonds 2
  h2h_damon_kdamond 0 migrate_hot 0 N 1 4294967295 0 2 3
  h2h_damon_kdamond 1 migrate_cold 2 Y 0 0 50 0
}

# h2h_damon_stats FILE: both schemes' stats, "kdamondK NAME VALUE" lines.
h2h_damon_stats() {
  for k in 0 1; do
    [ "$(cat "$DAMON/$k"/state 2>/dev/null)" = on ] || continue
    echo update_schemes_stats >"$DAMON/$k"/state
    for f in "$DAMON/$k"/contexts/0/schemes/0/stats/*; do
      echo "kdamond$k ${f##*/} $(cat "$f")"
    done
  done >"$1"
}

h2h_damon_stop() {
  for k in 0 1; do
    if [ "$(cat "$DAMON/$k"/state 2>/dev/null)" = on ]; then echo off >"$DAMON/$k"/state; fi
  done
}

# h2h_tierd_start POLICY: tierd in the foreground on its own socket and
# state file, no metrics, hotset's online rule; waits (30 s at most) until
# it answers. Sets TIERD (pid).
h2h_tierd_start() {
  cat >/tmp/tierd.toml <<TOML
# written by the vmtest scenario $(basename "$PWD")
[daemon]
log_level = "info"

[policy]
name = "$1"
tick_ms = 1000

[placement]
kernel_tiering = "own"
heat_source = "${H2H_HEAT:-auto}"

[[workloads.rule]]
match = "hotset"
class = "online"
TOML
  cp /tmp/tierd.toml "$R.tierd.toml"
  tierd --foreground --config /tmp/tierd.toml --state /tmp/tierd-state.json --metrics off \
    --socket $H2H_SOCK >"$R.tierd.out" 2>"$R.tierd.err" &
  TIERD=$!
  i=0
  until tierctl --socket $H2H_SOCK status --json >/dev/null 2>&1; do
    i=$((i + 1))
    if [ $i -ge 300 ] || ! kill -0 "$TIERD" 2>/dev/null; then
      h2h_log "tierd_started no"
      echo "tierd did not start: $(tail -n 5 "$R.tierd.err")" >&2
      return 1
    fi
    sleep 0.1
  done
  h2h_log "tierd_started yes"
}

# h2h_tierd_stop: SIGTERM (tierd restores the kernel settings it changed),
# SIGKILL if it is still there after 10 s.
h2h_tierd_stop() {
  [ -n "${TIERD:-}" ] || return 0
  kill -TERM "$TIERD" 2>/dev/null
  i=0
  # Running or sleeping, not yet a zombie waiting for us.
  while [ $i -lt 100 ] && grep -q ') [^Z]' "/proc/$TIERD/stat" 2>/dev/null; do
    i=$((i + 1)); sleep 0.1
  done
  if grep -q ') [^Z]' "/proc/$TIERD/stat" 2>/dev/null; then
    h2h_log "tierd_sigkill yes"
    kill -KILL "$TIERD" 2>/dev/null
  fi
  wait "$TIERD" 2>/dev/null
  TIERD=
}

# h2h_contender_start NAME: switch the contender on (run prefix R set).
h2h_contender_start() {
  echo "$1" >"$R.contender"
  case $1 in
    kernel)
      knob_set $NBAL 2
      knob_set $DEMOTE true ;;
    none | damon | tierd-*)
      knob_set $NBAL 0
      knob_set $DEMOTE false ;;
    *) echo "unknown contender '$1'" >&2; return 1 ;;
  esac
  case $1 in
    damon) h2h_damon_start ;;
    tierd-*) h2h_tierd_start "${1#tierd-}" ;;
  esac
}

# h2h_contender_stop NAME: what it moved is recorded, then it is switched
# off and the knobs are back to the "none" values (restored at exit).
h2h_contender_stop() {
  case $1 in
    damon) h2h_damon_stats "$R.damon.txt"; h2h_damon_stop ;;
    tierd-*)
      tierctl --socket $H2H_SOCK status --json >"$R.tierd.status.json" 2>>"$R.tierd.err"
      tierctl --socket $H2H_SOCK workloads --json >"$R.tierd.workloads.json" 2>>"$R.tierd.err"
      h2h_tierd_stop ;;
  esac
  echo 0 >$NBAL
  echo false >$DEMOTE
}

# h2h_hotset NAME PROGRAM ARGS...: start PROGRAM (hotset or a copy under
# another name) with a census into NAME.census.jsonl, held at the start
# line until h2h_go; waits for its ready line. Sets HS_PID.
h2h_hotset() {
  n=$1 prog=$2; shift 2
  rm -f "$n.ready"
  "$prog" "$@" --census "$n.census.jsonl" --ready-file "$n.ready" --start-file $H2H_GO \
    >"$n.out" 2>"$n.err" &
  HS_PID=$!
  # Every contender's run gets the same TLB flushes on the workload's CPUs
  # (heat.sh's tlb_tick): without them QEMU's TLB hides a hot set from the
  # accessed bits DAMON reads (the damon_tlb scenario), which would handicap
  # the damon contenders; hint faults are not affected.
  # shellcheck disable=SC2046 # one CPU per word
  tlb_tick $(cpus_of_args "$@")
  i=0
  until [ -f "$n.ready" ]; do
    i=$((i + 1)); [ $i -lt 3000 ] || { echo "$n did not get ready" >&2; return 1; }
    kill -0 "$HS_PID" 2>/dev/null || { echo "$n died: $(cat "$n.err")" >&2; return 1; }
    sleep 0.1
  done
  h2h_log "ready $n uptime $(cut -d' ' -f1 /proc/uptime)"
}

# h2h_ballast MIB: take MIB of node 0 out of play with 2 MiB huge pages
# reserved on it (no process holds them; restored at exit), so node 0 fits
# the hot set but not the whole workload, as the issue's workloads A and B
# ask: the 4-node machine's 1 GiB node 0 alone would hold all 768 MiB.
h2h_ballast() {
  hp=/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages
  knob_set $hp $(($1 / 2))
  h2h_log "ballast_node0_mib $(($(cat $hp) * 2))"
  h2h_log "node0_free_kb_after_ballast $(awk '/MemFree/ { print $4 }' /sys/devices/system/node/node0/meminfo)"
}

# h2h_go: release every waiting hotset at once (their t_s = 0).
h2h_go() {
  h2h_log "go uptime $(cut -d' ' -f1 /proc/uptime)"
  touch $H2H_GO
}

# h2h_wait_final NAME LIMIT_S: wait for NAME's final census line.
h2h_wait_final() {
  i=0
  until grep -q '"final":true' "$1.census.jsonl" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt $(($2 * 10)) ] || { echo "$1: no final census" >&2; return 1; }
    sleep 0.1
  done
}

# h2h_wait_exit PID NAME: hotset's exit status into NAME.rc.
h2h_wait_exit() {
  wait "$1"
  echo $? >"$2.rc"
}

# h2h_run R CONTENDER SECONDS HOTSET_ARGS...: one workload run of a single
# hotset under CONTENDER: ready (placed, first-touched), vmstat, contender
# on, go, SECONDS of accesses with a census a second, vmstat at the final
# census, contender off, hotset verifies and exits.
h2h_run() {
  R=$1 c=$2 secs=$3; shift 3
  echo "$secs" >"$R.seconds"
  rm -f $H2H_GO
  h2h_hotset "$R" hotset "$@" --duration "$secs" || return 1
  pid=$HS_PID
  cp /proc/vmstat "$R.vmstat.before"
  h2h_contender_start "$c" || { kill "$pid"; return 1; }
  h2h_go
  h2h_wait_final "$R" $((secs + 120))
  cp /proc/vmstat "$R.vmstat.after"
  h2h_contender_stop "$c"
  h2h_wait_exit "$pid" "$R"
  tlb_tick_stop
  echo "$R: contender $c, hotset exit $(cat "$R.rc")"
}

# h2h_kdamonds_at_boot: is a kdamond already there? (the build machine's VM
# has one; this guest should not)
h2h_kdamonds_at_boot() {
  h2h_log "kdamonds_at_boot $(cat "$DAMON"/nr_kdamonds 2>/dev/null || echo none)"
}
