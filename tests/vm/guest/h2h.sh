# The head-to-head of placement contenders (scenarios h2h_*, docs/testing.md):
# the same hotset workload, measured from its own side (hotset --census),
# under one contender per boot. Sourced: `. /vm/h2h.sh`, then
# `trap h2h_cleanup EXIT`.
#
# Contenders (h2h_contender_start NAME):
#   none            numa_balancing=0, demotion_enabled=false
#   all-fast        as none, but the workload runs wholly in its CPUs'
#                   local DRAM with room (h2h_node/h2h_cpus/h2h_fast: the
#                   DRAM node with more free memory and its CPUs, no
#                   h2h_ballast): the physical limit the others are
#                   measured against
#   kernel          numa_balancing=2 (memory tiering), demotion_enabled=true,
#                   the kernel's default promote rate limit and scanner
#   damon           numa_balancing=0, demotion_enabled=false, two paddr
#                   kdamonds: migrate_hot on nodes 2-3 to node 0 (young pages
#                   only), migrate_cold on node 0 to node 2 (non-young only)
#   damon-autotune  as damon, but set up as the kernel's samples/damon/mtier.c:
#                   auto-tuned intervals, 200 MiB/s quotas tuned by the goals
#                   node_mem_used_bp 99.7 % (promotion) and node_mem_free_bp
#                   0.5 % (demotion) on node 0 (6.16+; the newest kernel)
#   tierd-balanced  tierd, policy balanced, kernel_tiering = "own"
#   tierd-tpp       tierd, policy tpp, kernel_tiering = "own"
#   tierd-coexist   tierd, policy balanced, kernel_tiering = "coexist" (the
#                   kernel's promotion and demotion on, as in kernel)
#   tierd-observe   tierd, policy balanced, kernel_tiering = "observe": heat
#                   and plans, no move; what tierd's sampling alone costs
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
#   R.tierd.*               tierd: status/workloads JSON, its stdout/stderr,
#                           R.tierd.cpu.json its CPU time, lifetime and RSS,
#                           R.tierd.watch.jsonl its status every
#                           H2H_TIERD_WATCH seconds when asked
#                           (H2H_TIERD_LOG: its log level, default info)
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

# h2h_damon_context K NODE...: kdamond K gets one paddr context over the
# physical ranges of NODE... (one region each) and one scheme (unset yet).
# Sets SC (the scheme's folder) and CTX.
h2h_damon_context() {
  k=$1; shift
  CTX="$DAMON/$k"/contexts/0
  echo 1 >"$DAMON/$k"/contexts/nr_contexts
  echo paddr >"$CTX"/operations
  echo 1 >"$CTX"/targets/nr_targets
  echo $# >"$CTX"/targets/0/regions/nr_regions
  i=0
  for n in "$@"; do
    r=$(h2h_node_range "$n")
    echo "${r#* }" >"$CTX/targets/0/regions/$i/end"
    echo "${r% *}" >"$CTX/targets/0/regions/$i/start"
    h2h_log "damon_region kdamond$k node$n $r"
    i=$((i + 1))
  done
  echo 1 >"$CTX"/schemes/nr_schemes
  SC=$CTX/schemes/0
}

# h2h_damon_scheme ACTION TARGET_NID NR_MIN NR_MAX AGE_MIN: the scheme SC
# migrates regions of that access pattern to TARGET_NID. Every access_pattern
# bound is set (they start at 0).
h2h_damon_scheme() {
  echo "$1" >"$SC"/action
  echo "$2" >"$SC"/target_nid
  ap=$SC/access_pattern
  echo 4096 >"$ap"/sz/min
  echo 18446744073709551615 >"$ap"/sz/max
  echo "$3" >"$ap"/nr_accesses/min
  echo "$4" >"$ap"/nr_accesses/max
  echo "$5" >"$ap"/age/min
  echo 4294967295 >"$ap"/age/max
}

# h2h_damon_kdamond K ACTION TARGET_NID YOUNG_MATCHING NR_MIN NR_MAX AGE_MIN NODE...:
# kdamond K monitors the physical ranges of NODE... with one scheme ACTION
# (migrate_hot/migrate_cold) to TARGET_NID. A young filter with matching Y
# filters young pages out (migrate_cold), N filters the others out
# (migrate_hot): without them the two schemes ping-pong (environment guide).
h2h_damon_kdamond() {
  k=$1 action=$2 nid=$3 young=$4 nrmin=$5 nrmax=$6 agemin=$7; shift 7
  h2h_damon_context "$k" "$@"
  h2h_damon_scheme "$action" "$nid" "$nrmin" "$nrmax" "$agemin"
  echo 1 >"$SC"/filters/nr_filters
  echo young >"$SC"/filters/0/type
  echo "$young" >"$SC"/filters/0/matching
  echo on >"$DAMON/$k"/state
}

# h2h_damon_start: the DAMON contender. Default intervals (5 ms samples,
# 100 ms aggregation: nr_accesses 0-20). Hot: accessed in at least one sample
# of an aggregation, any age. Cold: not accessed for 5 s (50 aggregations).
h2h_damon_start() {
  h2h_damon_stat_off
  knob_set "$DAMON"/nr_kdamonds 2
  h2h_damon_kdamond 0 migrate_hot 0 N 1 4294967295 0 2 3
  h2h_damon_kdamond 1 migrate_cold 2 Y 0 0 50 0
}

# h2h_damon_autotune_kdamond K ACTION TARGET_NID NODE...: one of the
# two contexts of the kernel's samples/damon/mtier.c, through sysfs:
# 5 ms / 100 ms intervals auto-tuned for a 4 % observed-access ratio over 3
# aggregations (sampling kept in 5 ms..10 s), 10..1000 regions, the scheme
# applied every second with a 200 MiB/s quota prioritised by access
# frequency and age (size weight 0), and a quota goal on node 0 that tunes
# the quota: promotion (migrate_hot) aims at 99.7 % of node 0 used
# (node_mem_used_bp 9970), demotion at 0.5 % of it free (node_mem_free_bp
# 50). The young filter allows only young pages to promotion and rejects
# them from demotion. A kernel without these files or metrics (before 6.16)
# fails here, naming the file.
h2h_damon_autotune_kdamond() {
  k=$1 action=$2 nid=$3; shift 3
  h2h_damon_context "$k" "$@"
  ia=$CTX/monitoring_attrs
  h2h_damon_write "$ia"/intervals/sample_us 5000 &&
    h2h_damon_write "$ia"/intervals/aggr_us 100000 &&
    h2h_damon_write "$ia"/intervals/update_us 60000000 &&
    h2h_damon_write "$ia"/intervals/intervals_goal/min_sample_us 5000 &&
    h2h_damon_write "$ia"/intervals/intervals_goal/max_sample_us 10000000 &&
    h2h_damon_write "$ia"/intervals/intervals_goal/access_bp 400 &&
    h2h_damon_write "$ia"/intervals/intervals_goal/aggrs 3 &&
    h2h_damon_write "$ia"/nr_regions/min 10 &&
    h2h_damon_write "$ia"/nr_regions/max 1000 || return 1
  if [ "$action" = migrate_hot ]; then
    h2h_damon_scheme "$action" "$nid" 1 4294967295 0
    metric=node_mem_used_bp goal=9970 allow=Y
  else
    h2h_damon_scheme "$action" "$nid" 0 0 0
    metric=node_mem_free_bp goal=50 allow=N
  fi
  q=$SC/quotas
  h2h_damon_write "$SC"/apply_interval_us 1000000 &&
    h2h_damon_write "$q"/ms 0 &&
    h2h_damon_write "$q"/bytes $((200 * 1024 * 1024)) &&
    h2h_damon_write "$q"/reset_interval_ms 1000 &&
    h2h_damon_write "$q"/weights/sz_permil 0 &&
    h2h_damon_write "$q"/weights/nr_accesses_permil 100 &&
    h2h_damon_write "$q"/weights/age_permil 100 &&
    h2h_damon_write "$q"/goals/nr_goals 1 &&
    h2h_damon_write "$q"/goals/0/target_metric $metric &&
    h2h_damon_write "$q"/goals/0/target_value $goal &&
    h2h_damon_write "$q"/goals/0/nid 0 &&
    h2h_damon_write "$SC"/filters/nr_filters 1 &&
    h2h_damon_write "$SC"/filters/0/type young &&
    h2h_damon_write "$SC"/filters/0/matching Y &&
    h2h_damon_write "$SC"/filters/0/allow $allow &&
    h2h_damon_write "$DAMON/$k"/state on
}

# h2h_damon_write FILE VALUE: VALUE into a DAMON sysfs file, or a message
# naming the file (a kernel without it cannot run the contender).
h2h_damon_write() {
  [ -e "$1" ] || { echo "damon-autotune: $1 does not exist (DAMOS quota goals on node memory need 6.16+)" >&2; return 1; }
  echo "$2" >"$1" 2>/dev/null || { echo "damon-autotune: cannot write '$2' to $1" >&2; return 1; }
}

# h2h_damon_stat_off: the kernel's own DAMON_STAT monitor (6.17+, on by
# default in Debian's 7.3: /sys/module/damon_stat) runs its kdamond as an
# exclusive DAMON context, and then no sysfs kdamond may start (EBUSY on
# "on"). The DAMON contenders switch it off for the run (restored at exit).
h2h_damon_stat_off() {
  ds=/sys/module/damon_stat/parameters/enabled
  [ "$(cat $ds 2>/dev/null)" = Y ] || return 0
  knob_set $ds N
  h2h_log "damon_stat_off yes"
}

# h2h_damon_autotune_start: the damon-autotune contender (mtier.c's two
# contexts with this machine's nodes: hot pages of the slow nodes 2-3 to
# node 0, cold pages of node 0 to node 2).
h2h_damon_autotune_start() {
  h2h_damon_stat_off
  knob_set "$DAMON"/nr_kdamonds 2
  h2h_damon_autotune_kdamond 0 migrate_hot 0 2 3 &&
    h2h_damon_autotune_kdamond 1 migrate_cold 2 0
}

# h2h_damon_stats FILE: both schemes' stats, "kdamondK NAME VALUE" lines.
h2h_damon_stats() {
  for k in 0 1; do
    [ "$(cat "$DAMON/$k"/state 2>/dev/null)" = on ] || continue
    echo update_schemes_stats >"$DAMON/$k"/state
    sc=$DAMON/$k/contexts/0/schemes/0
    for f in "$sc"/stats/*; do
      echo "kdamond$k ${f##*/} $(cat "$f")"
    done
    # damon-autotune: the quota its goal tuned it to (update_schemes_effective_quotas
    # refreshes effective_bytes) and the goal's current_value file.
    if [ "$(cat "$sc"/quotas/goals/nr_goals 2>/dev/null || echo 0)" -gt 0 ]; then
      echo update_schemes_effective_quotas >"$DAMON/$k"/state 2>/dev/null
      echo "kdamond$k effective_bytes $(cat "$sc"/quotas/effective_bytes)"
      echo "kdamond$k goal_current_value $(cat "$sc"/quotas/goals/0/current_value)"
    fi
  done >"$1"
}

h2h_damon_stop() {
  for k in 0 1; do
    if [ "$(cat "$DAMON/$k"/state 2>/dev/null)" = on ]; then echo off >"$DAMON/$k"/state; fi
  done
}

# h2h_tierd_start POLICY KERNEL_TIERING: tierd in the foreground on its own
# socket and state file, no metrics, hotset's online rule; waits (30 s at
# most) until it answers. Sets TIERD (pid).
h2h_tierd_start() {
  cat >/tmp/tierd.toml <<TOML
# written by the vmtest scenario $(basename "$PWD")
[daemon]
log_level = "${H2H_TIERD_LOG:-info}"

[policy]
name = "$1"
tick_ms = 1000

[placement]
kernel_tiering = "$2"
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
  h2h_tierd_watch
}

# h2h_tierd_watch: with H2H_TIERD_WATCH=S (run.sh --env), tierd's status
# every S seconds into R.tierd.watch.jsonl, one line each with the guest's
# uptime: when the heat came, what was planned and moved, for a diagnosis.
# Each poll costs the guest a tierctl, so the bench's boots leave it off.
h2h_tierd_watch() {
  [ -n "${H2H_TIERD_WATCH:-}" ] || return 0
  (
    while kill -0 "$TIERD" 2>/dev/null; do
      up=$(cut -d' ' -f1 /proc/uptime)
      s=$(tierctl --socket $H2H_SOCK status --json 2>/dev/null | tr -d '\n') || s=
      printf '{"uptime":%s,"status":%s}\n' "$up" "${s:-null}"
      sleep "$H2H_TIERD_WATCH"
    done
  ) >>"$R.tierd.watch.jsonl" &
}

# h2h_tierd_usage FILE: tierd's CPU time (user + system; USER_HZ is 100 on
# x86), its lifetime and resident memory as one JSON line (issue 19: tierd's
# own CPU at most 2 % of a core over a run, reported with its RSS).
h2h_tierd_usage() {
  usage_file=$1
  [ -n "${TIERD:-}" ] && [ -r "/proc/$TIERD/stat" ] || return 0
  # After "pid (comm) " the fields start at the state (field 3): utime is
  # field 14, stime 15, starttime 22.
  # shellcheck disable=SC2046 # split into fields on purpose
  set -- $(sed 's/^.*) //' "/proc/$TIERD/stat")
  awk -v u="${12}" -v s="${13}" -v start="${20}" -v up="$(cut -d' ' -f1 /proc/uptime)" \
    -v rss="$(awk '/^VmRSS:/ { print $2 }' "/proc/$TIERD/status")" 'BEGIN {
      cpu = (u + s) / 100; wall = up - start / 100
      printf "{\"cpu_s\": %.2f, \"wall_s\": %.2f, \"cpu_share\": %.4f, \"rss_kb\": %d}\n",
        cpu, wall, (wall > 0 ? cpu / wall : 0), rss }' >"$usage_file"
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

# h2h_placing: the kernel's balancing and demotion off (the "none" knobs)
# while the workloads are placed, so every contender starts from the same
# placement: the guest boots with numa_balancing=1, which moved 15 044 of
# tier-graph's CSR pages from node 2 to its builder threads' node 1 before
# the contender was on.
h2h_placing() {
  knob_set $NBAL 0
  knob_set $DEMOTE false
}

# h2h_contender_start NAME: switch the contender on (run prefix R set).
h2h_contender_start() {
  echo "$1" >"$R.contender"
  case $1 in
    kernel | tierd-coexist)
      knob_set $NBAL 2
      knob_set $DEMOTE true ;;
    none | all-fast | damon | damon-autotune | tierd-balanced | tierd-tpp | tierd-observe)
      knob_set $NBAL 0
      knob_set $DEMOTE false ;;
    *) echo "unknown contender '$1'" >&2; return 1 ;;
  esac
  case $1 in
    damon) h2h_damon_start ;;
    damon-autotune) h2h_damon_autotune_start ;;
    tierd-balanced | tierd-tpp) h2h_tierd_start "${1#tierd-}" own ;;
    tierd-coexist) h2h_tierd_start balanced coexist ;;
    tierd-observe) h2h_tierd_start balanced observe ;;
  esac
}

# h2h_contender_stop NAME: what it moved is recorded, then it is switched
# off and the knobs are back to the "none" values (restored at exit).
h2h_contender_stop() {
  case $1 in
    damon | damon-autotune) h2h_damon_stats "$R.damon.txt"; h2h_damon_stop ;;
    tierd-*)
      tierctl --socket $H2H_SOCK status --json >"$R.tierd.status.json" 2>>"$R.tierd.err"
      tierctl --socket $H2H_SOCK workloads --json >"$R.tierd.workloads.json" 2>>"$R.tierd.err"
      h2h_tierd_usage "$R.tierd.cpu.json"
      h2h_tierd_stop ;;
  esac
  echo 0 >$NBAL
  echo false >$DEMOTE
}

# h2h_start NAME FLAG FILE PROGRAM ARGS...: start PROGRAM with its own
# measurement FLAG FILE (hotset's --census, a suite program's --report),
# held at the start line until h2h_go; waits for its ready file. Sets HS_PID.
h2h_start() {
  n=$1 flag=$2 file=$3 prog=$4; shift 4
  rm -f "$n.ready"
  "$prog" "$@" "$flag" "$file" --ready-file "$n.ready" --start-file $H2H_GO \
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

# h2h_hotset NAME PROGRAM ARGS...: PROGRAM (hotset or a copy under another
# name) with a census into NAME.census.jsonl (h2h_start).
h2h_hotset() {
  n=$1 prog=$2; shift 2
  h2h_start "$n" --census "$n.census.jsonl" "$prog" "$@"
}

# h2h_suite NAME PROGRAM ARGS...: a program of the workload suite
# (tier-gups, tier-graph, tier-kv: workloads/suite/) with its interval
# report into NAME.report.jsonl (h2h_start).
h2h_suite() {
  n=$1 prog=$2; shift 2
  h2h_start "$n" --report "$n.report.jsonl" "$prog" "$@"
}

# h2h_ballast MIB: take MIB of node 0 out of play with 2 MiB huge pages
# reserved on it (no process holds them; restored at exit), so node 0 fits
# the hot set but not the whole workload, as the issue's workloads A and B
# ask: the 4-node machine's 1 GiB node 0 alone would hold all 768 MiB.
h2h_ballast() {
  if h2h_all_fast; then
    h2h_log "ballast_node0_mib 0 (all-fast: the workload in local DRAM with room)"
    return 0
  fi
  hp=/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages
  knob_set $hp $(($1 / 2))
  h2h_log "ballast_node0_mib $(($(cat $hp) * 2))"
  h2h_log "node0_free_kb_after_ballast $(awk '/MemFree/ { print $4 }' /sys/devices/system/node/node0/meminfo)"
}

# h2h_node_hugepages N PAGES: N's 2 MiB huge pages reserved to PAGES (knob
# saved and restored at exit); PAGES beyond what N can give leave it with
# as many as it could (the kernel's answer, logged). The suite's kv
# scenario fills nodes 0 and 1 this way while redis-server loads, so its
# data is first-touched on node 2 as the other workloads' is.
h2h_node_hugepages() {
  hp=/sys/devices/system/node/node$1/hugepages/hugepages-2048kB/nr_hugepages
  knob_set "$hp" "$2"
  h2h_log "node$1_hugepages $(cat "$hp") (asked $2), MemFree kB $(awk '/MemFree/ { print $4 }' /sys/devices/system/node/node"$1"/meminfo)"
}

# The all-fast contender's placement (H2H_CONTENDER=all-fast): the workload
# wholly in its CPUs' local DRAM with room. The guest's root file system
# (~200 MiB of shmem) is unpacked by the kernel on node 0 or node 1 (whichever
# CPU ran the unpacking), leaving no room there for workload A's 768 MiB, so
# all-fast takes the DRAM node with more free memory and that node's CPUs:
# nodes 0 and 1 are mirror images (80 ns, 20 GB/s from their own CPUs).
# Otherwise the scenario's own node, CPUs and fast node.
#   h2h_node NODE     the node to first-touch on
#   h2h_cpus LIST     the CPUs to run on ("0-1": the node's CPUs, "0": its first)
#   h2h_fast NODE     the fast node the census scores against
#   h2h_other NODE    workload C's offline job: NODE, or under all-fast the
#                     other DRAM node (out of the online job's way)
h2h_all_fast() { [ "${H2H_CONTENDER:-none}" = all-fast ]; }
h2h_all_fast_node() {
  if [ ! -s /tmp/h2h.all-fast ]; then
    f0=$(awk '/MemFree/ { print $4 }' /sys/devices/system/node/node0/meminfo)
    f1=$(awk '/MemFree/ { print $4 }' /sys/devices/system/node/node1/meminfo)
    if [ "$f1" -gt "$f0" ]; then n=1; else n=0; fi
    echo "$n" >/tmp/h2h.all-fast
    h2h_log "all_fast_node $n (MemFree kB: node0 $f0, node1 $f1)"
  fi
  cat /tmp/h2h.all-fast
}
h2h_node() { if h2h_all_fast; then h2h_all_fast_node; else echo "$1"; fi; }
h2h_fast() { h2h_node "$1"; }
h2h_other() { if h2h_all_fast; then echo $((1 - $(h2h_all_fast_node))); else echo "$1"; fi; }
h2h_cpus() {
  if ! h2h_all_fast; then echo "$1"; return; fi
  cpus=$(cat /sys/devices/system/node/node"$(h2h_all_fast_node)"/cpulist)
  case $1 in
    *-* | *,*) echo "$cpus" ;;
    *) echo "${cpus%%[-,]*}" ;;
  esac
}

# h2h_go: release every waiting hotset at once (their t_s = 0).
h2h_go() {
  h2h_log "go uptime $(cut -d' ' -f1 /proc/uptime)"
  touch $H2H_GO
}

# h2h_wait_final NAME LIMIT_S [FILE]: wait for NAME's final line in FILE
# (default NAME.census.jsonl: hotset's census).
h2h_wait_final() {
  i=0
  until grep -q '"final":true' "${3:-$1.census.jsonl}" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt $(($2 * 10)) ] || { echo "$1: no final line in ${3:-$1.census.jsonl}" >&2; return 1; }
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
  h2h_run_with h2h_hotset hotset "$R.census.jsonl" "$c" "$secs" "$@"
}

# h2h_run_suite R CONTENDER SECONDS PROGRAM ARGS...: the same for a program
# of the workload suite, measured by its own report (R.report.jsonl).
h2h_run_suite() {
  R=$1 c=$2 secs=$3 prog=$4; shift 4
  h2h_run_with h2h_suite "$prog" "$R.report.jsonl" "$c" "$secs" "$@"
}

# h2h_run_with STARTER PROGRAM FINAL_FILE CONTENDER SECONDS ARGS... (R set):
# what h2h_run and h2h_run_suite share.
h2h_run_with() {
  starter=$1 prog=$2 final=$3 c=$4 secs=$5; shift 5
  echo "$secs" >"$R.seconds"
  rm -f $H2H_GO
  h2h_placing
  "$starter" "$R" "$prog" "$@" --duration "$secs" || return 1
  pid=$HS_PID
  # A scenario's step between the workload's ready line and the contender
  # (h2h_kv: the load's ballast lifted).
  if [ -n "${H2H_AFTER_READY:-}" ]; then "$H2H_AFTER_READY" || { kill "$pid"; return 1; }; fi
  cp /proc/vmstat "$R.vmstat.before"
  h2h_contender_start "$c" || { kill "$pid"; return 1; }
  h2h_go
  h2h_wait_final "$R" $((secs + 120)) "$final"
  cp /proc/vmstat "$R.vmstat.after"
  h2h_contender_stop "$c"
  h2h_wait_exit "$pid" "$R"
  tlb_tick_stop
  echo "$R: contender $c, $prog exit $(cat "$R.rc")"
}

# h2h_kdamonds_at_boot: is a kdamond already there? (the build machine's VM
# has one; this guest should not)
h2h_kdamonds_at_boot() {
  h2h_log "kdamonds_at_boot $(cat "$DAMON"/nr_kdamonds 2>/dev/null || echo none)"
}
