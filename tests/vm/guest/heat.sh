# Helpers for the heat scenarios (hotset_*, heat_*): kernel knobs saved and
# restored, hotset started and stopped, `tierctl heat` run against it.
# Sourced by scenarios: `. /vm/heat.sh`; they then `trap heat_cleanup EXIT`.
# Files written in the scenario's folder (read by lib/heatcheck.py):
#   knobs.saved, knobs.restored   "PATH VALUE" per knob changed, before/after
#   hotset.out/.err/.rc           hotset's ready and exit JSON lines, status
#   truth.json                    hotset's hot ranges per phase
#   vmstat.before/.after          /proc/vmstat around the observation
#   numa_maps.after               the hotset process's numa_maps at the end
#   heat.json/.err/.rc            `tierctl heat ... --json` (heat scenarios)
# shellcheck shell=sh disable=SC2034  # P is for the sourcing scenario

NB=/sys/kernel/debug/sched/numa_balancing

# knob_set PATH VALUE: write VALUE, saving the old value first (once per
# PATH, so a second write still restores the original).
knob_set() {
  [ -e "$1" ] || { echo "knob $1 does not exist" >&2; exit 1; }
  grep -q "^$1 " knobs.saved 2>/dev/null || echo "$1 $(cat "$1")" >>knobs.saved
  echo "$2" >"$1" || { echo "cannot write $2 to $1" >&2; exit 1; }
}

# restore_knobs: write back every saved value, then record what the knobs
# hold now (knobs.restored), for the check to compare with knobs.saved.
restore_knobs() {
  [ -f knobs.saved ] || return 0
  while read -r path value; do echo "$value" >"$path"; done <knobs.saved
  while read -r path value; do echo "$path $(cat "$path")"; done <knobs.saved >knobs.restored
}

# heat_cleanup: the EXIT trap. Stops what is left running (a kdamond
# first: nr_kdamonds cannot change while one runs), restores knobs.
heat_cleanup() {
  damon_stop
  for j in $(jobs -p); do kill "$j" 2>/dev/null; done
  wait 2>/dev/null
  restore_knobs
}

# hint_knobs MODE: NUMA balancing in MODE (1 normal, 2 memory tiering), and
# the scanner kept at a fast, steady pace: 6.12's defaults start after 1 s
# and back off to one pass a minute on a task whose pages never move, which
# would leave a 20 s observation with one or two passes.
hint_knobs() {
  knob_set /proc/sys/kernel/numa_balancing "$1"
  knob_set $NB/scan_delay_ms 100
  knob_set $NB/scan_period_min_ms 200
  knob_set $NB/scan_period_max_ms 500
  knob_set $NB/scan_size_mb 1024
}

# need_heat: exit 127 (not built yet) unless tierctl has the heat command.
need_heat() {
  if ! tierctl heat --help 2>&1 | grep -q -- '--source'; then
    echo "tierctl has no 'heat' command (--pid/--source): not built yet" >&2
    exit 127
  fi
}

# start_hotset ARGS...: start hotset with its truth file and wait for its
# ready line (placement and first touch done). Sets P.
start_hotset() {
  rm -f hotset.ready
  hotset "$@" --truth truth.json --ready-file hotset.ready >hotset.out 2>hotset.err &
  P=$!
  i=0
  until [ -f hotset.ready ]; do
    i=$((i + 1)); [ $i -lt 1200 ] || { echo "hotset did not get ready" >&2; exit 1; }
    kill -0 "$P" 2>/dev/null || { echo "hotset died: $(cat hotset.err)" >&2; exit 1; }
    sleep 0.1
  done
}

# stop_hotset: SIGTERM; hotset verifies every page and prints its exit line.
stop_hotset() {
  kill -TERM "$P"
  wait "$P"
  echo $? >hotset.rc
}

# soft_dirty_json: the soft-dirty pages of hotset's buffer (pid P), read
# from /proc/P/pagemap (bit 55 of each 8-byte entry), as heat.json-style
# {"hot": [{"start", "end"}]} ranges: the kernel mechanism itself, no tier.
soft_dirty_json() {
  base=$(sed -n '1s/.*"base":\([0-9]*\).*/\1/p' hotset.out)
  size=$(sed -n '1s/.*"size":\([0-9]*\).*/\1/p' hotset.out)
  dd if="/proc/$P/pagemap" bs=8 skip=$((base / 4096)) count=$((size / 4096)) 2>/dev/null |
    od -An -v -tx8 -w8 |
    awk -v base="$base" '
      # bit 55 is the top bit of the third hex digit (bits 52-55)
      { d = index("89abcdef", substr($1, 3, 1)) > 0 }
      d && !run { run = 1; s = NR - 1 }
      !d && run { run = 0; out = out sep range(s, NR - 1); sep = "," }
      function range(a, b) { return sprintf("{\"start\":%.0f,\"end\":%.0f}", base + a * 4096, base + b * 4096) }
      END { if (run) out = out sep range(s, NR); printf "{\"pages\":%d,\"hot\":[%s]}\n", NR, out }'
}

# tlb_tick CPU...: one process per CPU, pinned there, waking every 20 ms
# (a busybox usleep each time: a switch to another address space). Why: x86
# Linux clears accessed bits without a TLB flush (DAMON's mkold), relying on
# small hardware TLBs and context switches to re-walk the page tables. QEMU's
# software TLB grows (up to 4 M entries) at each flush taken under heavy use,
# e.g. the shootdowns of page migrations, and then holds a whole hot set:
# its accesses stop setting accessed bits and DAMON goes blind to it
# (`damon_tlb`: no region seen accessed after 16 migrations of a cold
# range, recall 1.000 again with the ticks). A CR3 write flushes QEMU's TLB,
# so the ticks give the workload's CPUs the flushes hardware would see.
# Stopped by tlb_tick_stop (heat_cleanup kills every job too).
TICKS=
# cpus_of_args HOTSET_ARGS...: the CPUs of hotset's --cpus LIST, one per word.
cpus_of_args() {
  while [ $# -gt 1 ] && [ "$1" != --cpus ]; do shift; done
  [ "$1" = --cpus ] || return 0
  echo "$2" | tr ',' '\n' | while IFS=- read -r a b; do seq "$a" "${b:-$a}"; done
}
tlb_tick() {
  for cpu in "$@"; do
    taskset -c "$cpu" sh -c 'while :; do usleep 20000; done' &
    TICKS="$TICKS $!"
  done
}
tlb_tick_stop() {
  for t in $TICKS; do kill "$t" 2>/dev/null; done
  for t in $TICKS; do wait "$t" 2>/dev/null; done
  TICKS=
}

DAMON=/sys/kernel/mm/damon/admin/kdamonds

# damon_start PID: one kdamond monitoring PID's virtual address space (the
# default intervals: 5 ms samples, 100 ms aggregation) with a "stat" scheme
# that matches every region accessed at least once per aggregation. Every
# access_pattern bound is set: they all start at 0, and a scheme with a
# 0 maximum matches nothing.
damon_start() {
  knob_set $DAMON/nr_kdamonds 1
  echo 1 >$DAMON/0/contexts/nr_contexts
  ctx=$DAMON/0/contexts/0
  echo vaddr >$ctx/operations
  echo 1 >$ctx/targets/nr_targets
  echo "$1" >$ctx/targets/0/pid_target
  echo 1 >$ctx/schemes/nr_schemes
  echo stat >$ctx/schemes/0/action
  ap=$ctx/schemes/0/access_pattern
  echo 0 >$ap/sz/min
  echo 18446744073709551615 >$ap/sz/max
  echo 1 >$ap/nr_accesses/min
  echo 4294967295 >$ap/nr_accesses/max
  echo 0 >$ap/age/min
  echo 4294967295 >$ap/age/max
  echo on >$DAMON/0/state
}

# damon_stop: switch the kdamond of damon_start off, if one runs.
damon_stop() {
  if [ "$(cat $DAMON/0/state 2>/dev/null)" = on ]; then echo off >$DAMON/0/state; fi
}

# damon_json [READS]: the regions the scheme tried (accessed at least once
# in an aggregation) in each of READS (default 5) consecutive aggregations,
# as heat.json-style {"hot": [{"start", "end", "nr_accesses"}],
# "aggregations"}: their union, as tier's damon source accumulates its
# polls (one aggregation is 100 ms, 20 samples). Each update returns after
# the next aggregation; one refused or empty is asked for again, 1 s apart,
# for up to 30 s from the first ask (a soak run once met 5 in a row within
# 5 s: the old bound), each recorded in damon.refused with what was seen.
# One awk per read (a cat per file would cost a fork each under TCG).
damon_json() {
  t=$DAMON/0/contexts/0/schemes/0/tried_regions
  want=${1:-5} reads=0 since=$(cut -d' ' -f1 /proc/uptime)
  : >damon.regions
  while [ $reads -lt "$want" ]; do
    # shellcheck disable=SC2116 # the echo is the write; its error message is what is kept
    if refusal=$(echo update_schemes_tried_regions 2>&1 >$DAMON/0/state) && [ -e $t/0/start ]; then
      # shellcheck disable=SC2086 # the globs expand to one file per region
      awk '{ n = split(FILENAME, p, "/"); v[p[n - 1], p[n]] = $1; r[p[n - 1]] = 1 }
           END { for (i in r) print v[i, "start"], v[i, "end"], v[i, "nr_accesses"] }' \
        $t/[0-9]*/start $t/[0-9]*/end $t/[0-9]*/nr_accesses 2>/dev/null >>damon.regions
      reads=$((reads + 1))
    else
      now=$(cut -d' ' -f1 /proc/uptime)
      echo "$now ${refusal:-no region tried in the aggregation} (state $(cat $DAMON/0/state))" >>damon.refused
      awk -v a="$since" -v b="$now" 'BEGIN { exit !(b - a < 30) }' || break
      sleep 1
    fi
  done
  [ $reads -gt 0 ] || return 1
  awk -v reads=$reads '
    { out = out sep sprintf("{\"start\":%s,\"end\":%s,\"nr_accesses\":%s}", $1, $2, $3); sep = "," }
    END { printf "{\"aggregations\":%d,\"hot\":[%s]}\n", reads, out }' damon.regions
}

# observe SECONDS SOURCE HOTSET_ARGS...: the body of the heat scenarios.
# hotset runs (its accesses warm up for 2 s), then for SECONDS:
#   none        nothing watches it;
#   pagemap-sd  the kernel's soft-dirty bits are cleared (clear_refs 4) and
#               read back from pagemap afterwards (no tier: the mechanism);
#   damon-sysfs a kdamond monitors it through DAMON's sysfs (no tier);
#   SOURCE      `tierctl heat --source SOURCE` watches it;
# with /proc/vmstat around that and numa_maps after; then hotset is stopped.
observe() {
  secs=$1 src=$2; shift 2
  start_hotset "$@"
  # shellcheck disable=SC2046 # one CPU per word
  case $src in damon*) tlb_tick $(cpus_of_args "$@") ;; esac
  sleep 2
  cp /proc/vmstat vmstat.before
  case $src in
    none) sleep "$secs" ;;
    pagemap-sd)
      echo 4 >"/proc/$P/clear_refs"
      sleep "$secs"
      soft_dirty_json >heat.json
      echo $? >heat.rc ;;
    damon-sysfs)
      damon_start "$P"
      sleep "$secs"
      damon_json 5 >heat.json
      echo $? >heat.rc
      damon_stop ;;
    *)
      tierctl heat --pid "$P" --source "$src" --duration "$secs" --json >heat.json 2>heat.err
      echo $? >heat.rc ;;
  esac
  cp /proc/vmstat vmstat.after
  cp "/proc/$P/numa_maps" numa_maps.after
  stop_hotset
  tlb_tick_stop
  echo "hotset $* observed ${secs}s with source $src: hotset exit $(cat hotset.rc)"
}
