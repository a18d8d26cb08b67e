#!/bin/sh
# vmtest-modes: numa
# vmtest-set: faults
# vmtest-timeout: 900
# vmtest-tools: strace
# Faults met by tierd's moves (issue 17 item 1), on the 6.12 kernel whose
# CPU-less nodes 2-3 are the slow tier. In each phase tierd (balanced,
# kernel_tiering "own", DAMON heat) promotes a tier-touch buffer written from
# node 0's CPU 0 (--write-while: hot) off node 2, and meets one fault:
#   fill/    node 0 filling up: a filler (tier-touch bound to node 0,
#            --leave-free) takes node 0 down to 48 MiB above tierd's
#            free-memory floor (node 1 ranked slow: node 0 the only fast
#            node); once tierd promotes the 192 MiB workload, a second
#            filler takes node 0 at 2 MiB/s to within 8 MiB of its min
#            watermark (per zone, from /proc/zoneinfo) while tierd goes on
#            promoting into it. The OOM killer must not fire.
#   busy/    pinned pages: tier-touch --pin-fraction 0.9 holds a reference to
#            9 in 10 of its pages in pipes (vmsplice); `tierctl migrate` first
#            (ground truth for "the kernel refuses those"), then tierd.
#   cgroup/  a cgroup v2 workload (a [[workloads.watch]] child, eight
#            processes) killed and its cgroup removed while one of tierd's
#            move_pages calls for it is held at its entry by strace; a
#            bystander in another cgroup verifies.
#   procs/   short-lived processes matched by a rule, 4 at a time for 40 s,
#            exiting while tierd scans and moves them, beside a long-lived one.
#   nomem/   move_pages answering ENOMEM: the workload's buffer is 2 MiB
#            hugetlb pages on node 2, and node 0 has free memory but no free
#            2 MiB block (tier-fragment keeps one pinned page of each block
#            it took and gives the rest back; node 0's hugetlb pool then
#            takes every block the kernel can still assemble, and a holder
#            maps them all). `tierctl migrate` first (the kernel's word),
#            then tierd.
# Every phase: tierd's pid at start and end, `tierctl status --json` and
# `tierctl workloads --json` at the end, every surviving tier-touch verified
# (its "verified" line), dmesg's OOM lines. faults_move.check.py judges.
# FAULTS_MOVE_PHASES (run.sh --env) picks phases, default all four.
. /vm/heat.sh
. /vm/touch.sh
. /etc/vmtest.env
SOCK=/run/tierd-faults.sock
CG=/sys/fs/cgroup/faultmove
BYSTANDER=/sys/fs/cgroup/faultmove-bystander
T= HOLD=
kill_tierd() { [ -z "$T" ] || { kill -TERM "$T" 2>/dev/null; wait "$T" 2>/dev/null; T=; }; }
cleanup() {
  release_moves
  kill_tierd
  tlb_tick_stop
  for p in $(cat "$CG"/*/cgroup.procs $BYSTANDER/cgroup.procs 2>/dev/null); do
    kill -KILL "$p" 2>/dev/null
  done
  sleep 0.2
  rmdir "$CG"/* "$CG" $BYSTANDER 2>/dev/null
  heat_cleanup
}
trap cleanup EXIT
if ! tierd --print-default-config 2>/dev/null | grep -q '^kernel_tiering'; then
  echo "tierd has no [placement] kernel_tiering: not built yet" >&2
  exit 127
fi
if ! command -v strace >/dev/null; then
  echo "no strace in the guest (the scenario's vmtest-tools header puts the host's there)" >&2
  exit 1
fi
if ! tier-touch --help 2>&1 | grep -q -- '--pin-fraction'; then
  echo "tier-touch has no --pin-fraction: not built yet" >&2
  exit 127
fi

up() { cut -d' ' -f1 /proc/uptime; }

# config FILE EXTRA_POLICY_PARAMS WORKLOAD_TOML: tierd's configuration.
config() {
  cat >"$1" <<TOML
[daemon]
epoch_ms = 500
[policy]
name = "balanced"
params = { budget_mbps = 512$2 }
[placement]
kernel_tiering = "own"
heat_source = "damon"
$3
TOML
}

# tierd_up DIR: tierd with DIR/tierd.toml; T its pid, DIR/tierd.pid.start.
tierd_up() {
  tierd --foreground --config "$1/tierd.toml" --socket $SOCK --metrics off \
    --state "$1/state.json" >"$1/tierd.log" 2>&1 &
  T=$!
  i=0
  until tierctl --socket $SOCK status >/dev/null 2>&1; do
    i=$((i + 1)); [ $i -lt 300 ] || { echo "$1: tierd did not answer within 30 s" >&2; exit 1; }
    sleep 0.1
  done
  echo "$T" >"$1/tierd.pid.start"
}

# tierd_down DIR: tierd's status (answering?) and workloads, its pid now,
# then SIGTERM; DIR/tierd.rc its exit status.
tierd_down() {
  tierctl --socket $SOCK status --json >"$1/status.json" 2>"$1/status.err"
  echo $? >"$1/status.rc"
  tierctl --socket $SOCK workloads --json >"$1/workloads.json" 2>"$1/workloads.err"
  if kill -0 "$T" 2>/dev/null; then echo "$T" >"$1/tierd.pid.end"; else : >"$1/tierd.pid.end"; fi
  kill -TERM "$T" 2>/dev/null
  wait "$T"
  echo $? >"$1/tierd.rc"
  T=
}

# status_field NAME: the first "NAME": N in tierd's status (0 if none).
status_field() {
  v=$(tierctl --socket $SOCK status --json 2>/dev/null | tr -d ' \n' | grep -o "\"$1\":[0-9]*" |
    head -1 | grep -o '[0-9]*$')
  echo "${v:-0}"
}

# elapsed_since T0: seconds of uptime since T0 (an uptime reading).
elapsed_since() { echo "$(up) $1" | awk '{print $1 - $2}'; }

# wait_for DIR SECS WHAT CMD...: polls CMD (true = done) every 0.5 s for SECS
# seconds of uptime; DIR/waits gets "WHAT waited_s ok|timeout".
wait_for() {
  d=$1 secs=$2 what=$3; shift 3
  s=$(up)
  until "$@"; do
    if [ "$(elapsed_since "$s" | cut -d. -f1)" -ge "$secs" ]; then
      echo "$what $(elapsed_since "$s") timeout" >>"$d/waits"
      return 1
    fi
    sleep 0.5
  done
  echo "$what $(elapsed_since "$s") ok" >>"$d/waits"
}

# node_pages PID ADDR NODE: pages of the mapping at ADDR (hex, as numa_maps
# names it) on NODE, from the kernel's numa_maps.
node_pages() {
  a=$(echo "$2" | sed 's/^0x//; s/^0*//')
  v=$(sed -n "s/^0*${a} .* N$3=\([0-9]*\).*/\1/p" "/proc/$1/numa_maps" 2>/dev/null)
  echo "${v:-0}"
}
addr_of() { sed -n '1s/.*"addr":"\([^"]*\)".*/\1/p' "$1.out"; }
on_node0_at_least() { [ "$(node_pages "$1" "$2" 0)" -ge "$3" ]; }
field_at_least() { [ "$(status_field "$1")" -ge "$2" ]; }
# fill_counted: tierd counted node 0 filling up (a batch stopped at the
# floor, or pages the kernel refused for want of memory).
fill_counted() { [ $(($(status_field low_free_memory) + $(status_field no_memory))) -gt 0 ]; }

# touch_on_cpu0 OUT ARGS...: start_touch with the process on CPU 0 (node 0:
# where balanced promotes to); P, RANGE as start_touch.
touch_on_cpu0() { o=$1; shift; start_touch_cmd "$o" taskset -c 0 tier-touch "$@"; }

# oom_lines DIR: the kernel's OOM-killer lines so far.
oom_lines() { dmesg | grep -iE 'out of memory|oom-kill|killed process' >"$1/oom.txt"; }

# zone_figures: node 0's free memory and watermarks from /proc/zoneinfo, in
# bytes: "free min low high usable_zone_free usable_zone_min" (the zone with
# the most managed pages is the one movable allocations draw on; the DMA
# zone's free pages are counted in MemFree but kept by lowmem_reserve).
zone_figures() {
  awk '
    /^Node/ { node = $2; sub(",", "", node); zone = $4 }
    node != "0" { next }
    $1 == "pages" && $2 == "free" { free[zone] = $3 }
    $1 == "min" { mn[zone] = $2 } $1 == "low" { lo[zone] = $2 } $1 == "high" { hi[zone] = $2 }
    $1 == "managed" { man[zone] = $2 }
    END {
      for (z in free) { f += free[z]; m += mn[z]; l += lo[z]; h += hi[z]
                        if (man[z] > best) { best = man[z]; bz = z } }
      printf "%.0f %.0f %.0f %.0f %.0f %.0f\n", f * 4096, m * 4096, l * 4096, h * 4096,
             free[bz] * 4096, mn[bz] * 4096
    }' /proc/zoneinfo
}
node0_memfree() { awk '/MemFree/ { print $4 * 1024 }' /sys/devices/system/node/node0/meminfo; }
node0_memtotal() { awk '/MemTotal/ { print $4 * 1024 }' /sys/devices/system/node/node0/meminfo; }

RULE_TOUCH='[[workloads.rule]]
match = "tier-touch"
class = "online"'

# --- fill: node 0 filling up during a promotion ------------------------------
phase_fill() {
  d=fill; mkdir -p $d
  # Node 1 ranked slow: node 0 is then the only fast node, so the policy
  # cannot route its promotions around node 0 filling up (it does: to node 1).
  # The policy's own margins at 0 and the kernel's watermarks low
  # (min_free_kbytes 8192, restored after the phase): the policy then plans
  # promotions into node 0 down to its high watermark, below the mover's
  # floor (2 % of the node), so the mover is what stops node 0 filling.
  knob_set /proc/sys/vm/min_free_kbytes 8192
  config $d/tierd.toml ", low_free_pct = 0, high_free_pct = 0" "$RULE_TOUCH
[topology]
tier_override = { \"1\" = 1 }"
  # The fillers are a copy of tier-touch under another name: no rule matches
  # them (a rule matches comm or the executable's basename, so not a link).
  cp "$(command -v tier-touch)" /tmp/node-filler
  # shellcheck disable=SC2046 # six numbers, one word each
  set -- $(zone_figures)
  high=$4
  total=$(node0_memtotal)
  floor=$((total / 50)); [ "$high" -le "$floor" ] || floor=$high
  echo "zone_before $(zone_figures)" >$d/fill.txt
  echo "memfree_before $(node0_memfree) memtotal $total mover_floor $floor" >>$d/fill.txt
  # Filler 1, at once: node 0 down to tierd's floor + 48 MiB, less than the
  # workload tierd will want to promote.
  start_touch_cmd $d/filler1 /tmp/node-filler --size 1G --node 0 --leave-free $((floor + (48 << 20)))
  F1=$P
  echo "memfree_after_filler1 $(node0_memfree)" >>$d/fill.txt
  tierd_up $d
  tlb_tick 0 1
  touch_on_cpu0 $d/touch --size 192M --node 2 --write-while
  W=$P
  wa=$(addr_of $d/touch)
  # Promotion under way (up to 120 s): then filler 2 takes node 0, at
  # 2 MiB/s (a few policy ticks plan into room it is taking), to within 8 MiB of its min watermark in the zone movable memory
  # comes from (MemFree counts the other zones' free pages too, which
  # lowmem_reserve keeps from it), while tierd goes on promoting into it.
  wait_for $d 120 promoting on_node0_at_least $W "$wa" 256 || :
  # shellcheck disable=SC2046 # six numbers, one word each
  set -- $(zone_figures)
  leave=$(($1 - $5 + $6 + (8 << 20)))
  echo "zone_before_filler2 $* leave_free $leave memfree $(node0_memfree)" >>$d/fill.txt
  echo "workload_node0_pages_at_filler2 $(node_pages $W "$wa" 0)" >>$d/fill.txt
  start_touch_cmd $d/filler2 /tmp/node-filler --size 1G --node 0 --fill-mbps 2 --leave-free $leave
  F2=$P
  echo "zone_after_filler2 $(zone_figures)" >>$d/fill.txt
  wait_for $d 60 counted fill_counted || :
  # tierd runs on near the watermark (demoting, refusing promotions) for 15 s.
  sleep 15
  echo "zone_end $(zone_figures)" >>$d/fill.txt
  echo "workload_node0_pages_end $(node_pages $W "$wa" 0)" >>$d/fill.txt
  for x in touch:$W filler1:$F1 filler2:$F2; do
    P=${x#*:}; verify_touch "$d/${x%%:*}"
  done
  tierd_down $d
  tlb_tick_stop
  for p in $W $F1 $F2; do kill -TERM "$p"; wait "$p"; done
  restore_knobs
  echo "min_free_kbytes $(cat /proc/sys/vm/min_free_kbytes)" >$d/min_free.after
  oom_lines $d
  echo "fill: done, $(wc -l <$d/oom.txt) OOM lines"
}

# --- busy: pinned pages -------------------------------------------------------
phase_busy() {
  d=busy; mkdir -p $d
  # One pipe can then hold the whole buffer's references (16384 slots).
  knob_set /proc/sys/fs/pipe-max-size 67108864
  touch_on_cpu0 $d/touch --size 64M --node 2 --write-while --pin-fraction 0.9
  W=$P
  tierctl migrate --pid "$W" --to 0 --range "$RANGE" --json >$d/migrate.json 2>$d/migrate.err
  echo $? >$d/migrate.rc
  # tierd promotes what is left on node 2: pinned pages only.
  config $d/tierd.toml "" "$RULE_TOUCH"
  tierd_up $d
  tlb_tick 0 1
  wait_for $d 120 busy_counted field_at_least busy 1
  sleep 5  # a few more ticks trying: counts grow, tierd keeps answering
  verify_touch $d/touch
  tierd_down $d
  tlb_tick_stop
  kill -TERM "$W"; wait "$W"
  echo "pipe-max-size $(cat /proc/sys/fs/pipe-max-size)" >$d/pipe.during
  restore_knobs
  echo "pipe-max-size $(cat /proc/sys/fs/pipe-max-size)" >$d/pipe.after
  oom_lines $d
  echo "busy: done"
}

# --- cgroup: a workload's cgroup removed mid-move -----------------------------
# in_cgroup DIR OUT ARGS...: start tier-touch (on CPU 0) inside cgroup DIR.
in_cgroup() {
  g=$1 o=$2; shift 2
  start_touch_cmd "$o" sh -c 'echo $$ >"$0/cgroup.procs" && exec taskset -c 0 tier-touch "$@"' "$g" "$@"
}
# moving_one_of PIDS: one of tierd's threads is in move_pages(2) with
# MPOL_MF_MOVE (its 7th field, flags 0x2) for one of PIDS (its 2nd field), as
# /proc/T/task/*/syscall shows it: strace holds every such call at its entry
# (hold_moves), so the kernel has not started it.
moving_one_of() {
  cat /proc/"$T"/task/*/syscall 2>/dev/null | awk -v pids="$1" '
    BEGIN { n = split(pids, p, " "); for (i = 1; i <= n; i++) want[sprintf("0x%x", p[i])] = 1 }
    $1 == 279 && ($2 in want) && $7 == "0x2" { found = 1 }
    END { exit !found }'
}

# hold_moves DIR: strace holds each of tierd's move_pages(2) calls for 2 s at
# its entry (-e inject=...:delay_enter) and logs them to DIR/strace.txt; HOLD
# is its pid. A process killed while tierd's call for it is held is gone when
# the call starts, however fast or slow the guest is: the fault lands inside
# a move every time (without the hold, a call already in the kernel holds
# the process's memory and completes, and the kill often came too late).
hold_moves() {
  strace -f -qq -p "$T" -e trace=move_pages -e inject=move_pages:delay_enter=2000000 \
    -o "$1/strace.txt" 2>"$1/strace.err" &
  HOLD=$!
  wait_for "$1" 30 strace_attached traced_by "$HOLD"
}
# traced_by PID: every thread of tierd is traced by PID.
traced_by() {
  for t in /proc/"$T"/task/*; do
    grep -q "^TracerPid:[[:space:]]*$1\$" "$t/status" 2>/dev/null || return 1
  done
}
release_moves() { [ -z "$HOLD" ] || { kill -INT "$HOLD" 2>/dev/null; wait "$HOLD"; HOLD=; }; }

# doom DIR: cgroup doomed1 with eight tier-touch processes (24 MiB each on
# node 2), a [[workloads.watch]] child. Once one of tierd's move_pages calls
# for them is held (up to 120 s: DAMON ranks them hot, the policy plans), all
# eight are killed and the cgroup removed: that call and every later one
# meet processes that are gone. DIR/events and DIR/waits say when and what
# was seen.
doom() {
  d=$1
  mkdir $CG/doomed1
  doomed=
  for j in 1 2 3 4 5 6 7 8; do
    in_cgroup $CG/doomed1 $d/doomed1.$j --size 24M --node 2 --write-while
    doomed="$doomed $P"
  done
  echo "doomed pids$doomed" >>$d/events
  s=$(up) hit=timeout
  while [ "$(elapsed_since "$s" | cut -d. -f1)" -lt 120 ]; do  # 100 ms apart
    if moving_one_of "$doomed"; then hit=ok; break; fi
    usleep 100000
  done
  echo "doomed1_moving $(elapsed_since "$s") $hit" >>$d/waits
  echo "held: $(cat /proc/"$T"/task/*/syscall 2>/dev/null | awk '$1 == 279' | head -n1)" >>$d/events
  for q in $doomed; do kill -KILL "$q"; done
  echo "attempt 1 killed at $(up): tierd's move held $hit" >>$d/events
  for q in $doomed; do wait "$q" 2>/dev/null; done
  wait_for $d 30 doomed1_empty sh -c "[ -z \"\$(cat $CG/doomed1/cgroup.procs)\" ]"
  rmdir $CG/doomed1
  echo "attempt 1 rmdir $? at $(up)" >>$d/events
  wait_for $d 60 dropped1 field_at_least dropped_total 1
}
gone_counted() { [ $(($(status_field process_gone))) -gt 0 ]; }

phase_cgroup() {
  d=cgroup; mkdir -p $d
  mkdir -p $CG $BYSTANDER
  config $d/tierd.toml "" "[[workloads.watch]]
parent = \"$CG\"
class = \"online\""
  # The bystander is not a workload: tierd's DAMON source takes the one
  # kdamond the kernel offers, and the doomed cgroup needs it for its heat.
  in_cgroup $BYSTANDER $d/bystander --size 32M --node 2 --write-while
  S=$P
  tierd_up $d
  hold_moves $d
  tlb_tick 0 1
  doom $d
  echo "attempts 1" >>$d/events
  # The held call returns once its hold ends; its outcome reaches the status.
  wait_for $d 60 gone_counted gone_counted || :
  release_moves
  P=$S; verify_touch $d/bystander
  tierd_down $d
  tlb_tick_stop
  kill -TERM "$S"; wait "$S"
  rmdir $BYSTANDER $CG
  oom_lines $d
  echo "cgroup: done"
}

# --- procs: processes exiting while tierd reads them --------------------------
phase_procs() {
  d=procs; mkdir -p $d
  ln -sf "$(command -v tier-touch)" /tmp/flash-touch
  config $d/tierd.toml "" "$RULE_TOUCH
[[workloads.rule]]
match = \"flash-touch\"
class = \"online\""
  # epoch 200 ms: the registry and residency scans meet more of them.
  sed -i 's/^epoch_ms = .*/epoch_ms = 200/' $d/tierd.toml
  tierd_up $d
  tlb_tick 0 1
  touch_on_cpu0 $d/touch --size 64M --node 2 --write-while
  W=$P
  end=$(($(date +%s) + 40)) n=0
  while [ "$(date +%s)" -lt $end ]; do
    pids=
    for k in 1 2 3 4; do
      taskset -c $((k % 2)) /tmp/flash-touch --size 8M --node 2 --write-while \
        --exit-after-ms $((200 + (n * 337) % 1300)) >/dev/null 2>>$d/flash.err &
      pids="$pids $!"
      n=$((n + 1))
    done
    for p in $pids; do wait "$p"; echo $? >>$d/flash.rcs; done
  done
  echo "flash_started $n" >$d/events
  sleep 3
  P=$W; verify_touch $d/touch
  tierd_down $d
  tlb_tick_stop
  kill -TERM "$W"; wait "$W"
  oom_lines $d
  echo "procs: done, $n short-lived processes"
}

# --- nomem: no free 2 MiB block on the target ---------------------------------
# hugepages NODE FILE: the node's 2 MiB hugetlb pool file FILE.
hugepages() { echo "/sys/devices/system/node/node$1/hugepages/hugepages-2048kB/$2"; }
pools() {
  for n in 0 2; do
    echo "node$n nr $(cat "$(hugepages $n nr_hugepages)") free $(cat "$(hugepages $n free_hugepages)")"
  done
}
phase_nomem() {
  d=nomem; mkdir -p $d
  # The workload: 64 MiB of hugetlb pages on node 2 (32 pages of a pool of 40).
  knob_set "$(hugepages 2 nr_hugepages)" 40
  touch_on_cpu0 $d/touch --size 64M --node 2 --hugetlb --write-while
  W=$P WRANGE=$RANGE
  # Node 0 in pieces: down to its high watermark + 8 MiB (kswapd stays
  # asleep), one page of each 2 MiB block kept, the rest free again.
  # shellcheck disable=SC2046 # six numbers, one word each
  set -- $(zone_figures)
  echo "zone_before $*" >$d/nomem.txt
  echo "memtotal $(node0_memtotal)" >>$d/nomem.txt
  tier-fragment --node 0 --leave-free $(($4 + (8 << 20))) >$d/fragment.out 2>$d/fragment.err &
  F=$!
  wait_for $d 120 fragmented grep -q pid $d/fragment.out || :
  echo "zone_fragmented $(zone_figures)" >>$d/nomem.txt
  # Node 0's pool grown as far as the kernel can take it (it compacts and
  # reclaims for each page, and stops at the first it cannot make): every
  # 2 MiB block left then belongs to the pool, which a holder maps whole
  # (a copy of tier-touch under another name: no rule makes it a workload,
  # so nothing moves its pages off node 0 and frees a pool page).
  knob_set "$(hugepages 0 nr_hugepages)" 512
  h0=$(cat "$(hugepages 0 nr_hugepages)")
  echo "node0_pool $h0" >>$d/nomem.txt
  H=
  if [ "$h0" -gt 0 ]; then
    cp "$(command -v tier-touch)" /tmp/pool-holder
    start_touch_cmd $d/holder /tmp/pool-holder --size $((h0 * 2))M --node 0 --hugetlb
    H=$P
  fi
  echo "pools_held $(pools | tr '\n' ' ')" >>$d/nomem.txt
  echo "zone_held $(zone_figures)" >>$d/nomem.txt
  tierctl migrate --pid "$W" --to 0 --range "$WRANGE" --json >$d/migrate.json 2>$d/migrate.err
  echo $? >$d/migrate.rc
  config $d/tierd.toml "" "$RULE_TOUCH"
  tierd_up $d
  tlb_tick 0 1
  wait_for $d 120 nomem_counted field_at_least no_memory 1 || :
  sleep 5  # a few more ticks meeting it: counts grow, tierd keeps answering
  echo "pools_end $(pools | tr '\n' ' ')" >>$d/nomem.txt
  P=$W; verify_touch $d/touch
  if [ -n "$H" ]; then P=$H; verify_touch $d/holder; fi
  tierd_down $d
  tlb_tick_stop
  for p in $W $H $F; do kill -TERM "$p"; wait "$p"; done
  restore_knobs
  echo "pools_after $(pools | tr '\n' ' ')" >>$d/nomem.txt
  oom_lines $d
  echo "nomem: done"
}

for ph in ${FAULTS_MOVE_PHASES:-fill busy cgroup procs nomem}; do
  echo "$ph start $(up)"
  "phase_$ph"
  echo "$ph end $(up)"
done
