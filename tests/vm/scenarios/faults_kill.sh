#!/bin/sh
# vmtest-modes: numa
# vmtest-set: faults
# vmtest-timeout: 2400
# Fault campaign (issue 17 item 1): tierd SIGKILLed at random points of
# FAULTS_CYCLES (default 100) placement cycles while it moves the pages of
# three registered tier-touch workloads (64 MiB each, first touched on node
# 2, one of them rewritten all the time by --write-while), on the 6.12 kernel
# whose nodes 2-3 are a lower tier.
#
# What keeps tierd moving pages (guest/faults.sh, faults_config): each
# workload registered online with a fast-tier quota of 8M, heat_source "off",
# kernel_tiering "own" (numa_balancing 0, demotion_enabled false: knobs to
# restore) and two tier layouts flipped by SIGHUP (A: nodes 0-1 fast, B:
# nodes 2-3 fast); after each flip ~3 s of quota demotions at 64 MB/s.
#
# Each cycle starts a tierd (the restart after the previous kill: it must
# answer, list the three workloads again from the state file and report the
# boot values as the originals of the knobs it owns), does one of (seeded
# PRNG, awk srand(FAULTS_SEED); the seed is printed, --env FAULTS_SEED=N
# replays a run):
#   move    flip the configuration (SIGHUP), wait until pages move
#           (pgmigrate_success rises), kill 0-1.5 s later: mid-move_pages;
#   reload  flip the configuration (SIGHUP), kill 0-0.3 s later: mid-reload;
#   state   register or unregister a fourth process (a sleep) in the
#           background, kill 0-0.3 s later: mid state write;
#   start   kill 0-1.5 s after tierd was spawned: mid start-up (knobs being
#           written, the state file read and rewritten);
# then SIGKILLs tierd by pid. Whether pages were moving at the kill is
# measured: pgmigrate_success rose in the 0.1 s before it (nothing else
# migrates here: the kernel's balancing and demotion are off).
# At the end one more tierd is started and checked, every tier-touch verifies
# all its pages (SIGUSR1), tierd gets SIGTERM and the knobs must be back at
# their boot values.
# Output (faults_kill.check.py judges): cycles.txt, one line per cycle;
# totals.txt "key value"; touch.N.out; tierd.log (the last instance's log);
# tierd_state_lines.txt (every instance's "state:" and "kernel:" log lines).
. /vm/touch.sh
. /vm/faults.sh
[ ! -f /etc/vmtest.env ] || . /etc/vmtest.env

SEED=${FAULTS_SEED:-$(($(date +%s) % 1000000))}
CYCLES=${FAULTS_CYCLES:-100}
SOCK=/run/tierd-faults.sock
T=
C=
TOUCH_PIDS=
BOOT=$(knobs)

cleanup() {
  [ -z "$T" ] || { kill -TERM "$T" 2>/dev/null; wait "$T" 2>/dev/null; }
  for p in $TOUCH_PIDS $C; do kill -TERM "$p" 2>/dev/null; done
  wait 2>/dev/null
  restore_knobs "$BOOT"
}
trap cleanup EXIT

flip() { if [ "$LAYOUT" = A ]; then faults_config tierd.toml B; else faults_config tierd.toml A; fi; }

spawn_tierd() {
  tierd --foreground --config tierd.toml --socket $SOCK --metrics off --state state.json \
    >tierd.log 2>&1 &
  T=$!
}

# answer SECS: waits until tierd answers status; 0 when it did.
answer() {
  i=0
  until tierctl --socket $SOCK status >/dev/null 2>&1; do
    i=$((i + 1)); [ $i -lt $(($1 * 10)) ] || return 1
    kill -0 "$T" 2>/dev/null || return 1
    sleep 0.1
  done
}

# kill_tierd: SIGKILL by pid; MOVING is yes when pages were migrating in the
# 0.1 s before the kill.
kill_tierd() {
  m1=$(migrated)
  sleep 0.1
  kill -KILL "$T"
  m2=$(migrated)
  wait "$T" 2>/dev/null
  T=
  if [ "$m2" -gt "$m1" ]; then MOVING=yes; else MOVING=no; fi
  grep -E 'state:|kernel:' tierd.log >>tierd_state_lines.txt
}

# up CYCLE: one tierd up to the point of answering status (60 s at most),
# the workloads registered by the first one; UP holds the restart's fields.
REGISTERED=no
up() {
  t0=$(uptime_s)
  spawn_tierd
  if ! answer 60; then
    echo "tierd did not answer within 60 s after its start (cycle $1); log:" >&2
    tail -20 tierd.log >&2
    exit 1
  fi
  t1=$(uptime_s)
  if [ $REGISTERED = no ]; then
    faults_register $SOCK
    REGISTERED=yes
  fi
  faults_recovered $SOCK
  UP="answered_s $(elapsed "$t0" "$t1") $RECOVERED"
}

faults_config tierd.toml A
faults_touches
sleep 100000 &
C=$!
CHURN=no
faults_schedule "$SEED" "$CYCLES" "move reload state start"
echo "seed $SEED" >totals.txt
echo "cycles_planned $CYCLES" >>totals.txt
echo "knobs_boot $BOOT" >>totals.txt
MIGRATED_START=$(migrated)
START_S=$(uptime_s)
: >cycles.txt
: >tierd_state_lines.txt

while read -r cyc kind d; do
  if [ "$kind" = start ]; then
    spawn_tierd
    sleep "$d"
    kill_tierd
    echo "cycle $cyc kind start delay $d layout $LAYOUT moving $MOVING knobs_down $(knobs | tr ' ' /)" >>cycles.txt
    continue
  fi
  up "$cyc"
  op=- TC=
  case $kind in
    move | reload)
      flip
      kill -HUP "$T"
      op=layout_$LAYOUT
      if [ "$kind" = move ]; then faults_wait_moving 20; op="${op}_began_$BEGAN"; fi
      ;;
    state)
      if [ $CHURN = no ]; then
        tierctl --socket $SOCK workloads register --pid "$C" --class offline >/dev/null 2>&1 &
        TC=$! CHURN=yes op=register
      else
        tierctl --socket $SOCK workloads unregister "$C" >/dev/null 2>&1 &
        TC=$! CHURN=no op=unregister
      fi
      ;;
  esac
  sleep "$d"
  kill_tierd
  [ -z "$TC" ] || wait "$TC" 2>/dev/null  # the background tierctl
  echo "cycle $cyc kind $kind delay $d op $op layout $LAYOUT moving $MOVING knobs_down $(knobs | tr ' ' /) $UP" >>cycles.txt
done <schedule.txt

# The last restart, then the ground truth and a clean stop.
up final
echo "final $UP" >>cycles.txt
END_S=$(uptime_s)
echo "migrated_pages $(($(migrated) - MIGRATED_START))" >>totals.txt
echo "loop_s $(elapsed "$START_S" "$END_S")" >>totals.txt
ls state.json* >state_files.txt 2>&1
tierctl --socket $SOCK status --json >status.final.json 2>status.final.err
# tierd stopped before the verification: with it still moving pages, a
# 64 MiB verification took over 300 s in a loaded guest (run of 2026-12-02).
kill -TERM "$T"
wait "$T"
echo "tierd_term_rc $?" >>totals.txt
T=
grep -E 'state:|kernel:' tierd.log >>tierd_state_lines.txt
echo "knobs_after $(knobs)" >>totals.txt
faults_verify
kill -TERM "$C"
wait "$C" 2>/dev/null
C=
cat totals.txt
