#!/bin/sh
# vmtest-modes: systemd
# vmtest-set: faults
# vmtest-timeout: 1200
# Fault campaign (issue 17 item 1), systemd half: the real daemon/tierd.service
# (Restart=on-failure, RestartSec=2s) SIGKILLed by its MainPID at random
# points of FAULTS_CYCLES (default 20) placement cycles; systemd, not the
# scenario, starts every new tierd. The workloads, the configuration that
# keeps tierd moving pages and the per-cycle checks are faults_kill's
# (guest/faults.sh); the kinds are move, reload and state (no start-up kill:
# see below). Per cycle: wait for a new MainPID and the unit active (READY=1),
# check what it recovered, wait 1 s, act, wait the drawn delay, kill -9.
# Start rate limit: the unit sets no StartLimitBurst/StartLimitIntervalSec,
# so systemd's defaults hold (5 starts in 10 s; the values in force are
# logged). Each cycle lasts at least RestartSec 2 s + the start + the 1 s
# pause, so no more than 3 starts fall in any 10 s: the limit is never
# approached, and the check wants NRestarts equal to the kills and the unit
# never in start-limit-hit. A start-up kill (0-1.5 s after the fork) would
# make cycles of ~2.5 s, 4-5 starts per 10 s: that fault is faults_kill's.
# Output as faults_kill's (cycles.txt, totals.txt, touch.N.out) plus
# obs.log and journal.txt.
# shellcheck source=../guest/tierd_service.sh
. /vm/tierd_service.sh
. /vm/touch.sh
. /vm/faults.sh
[ ! -f /etc/vmtest.env ] || . /etc/vmtest.env

SEED=${FAULTS_SEED:-$(($(date +%s) % 1000000))}
CYCLES=${FAULTS_CYCLES:-20}
SINCE=$(date +%s)
BOOT=$(knobs)
C=
TOUCH_PIDS=
cleanup() {
  sctl stop "$UNIT" >/dev/null 2>&1
  for p in $TOUCH_PIDS $C; do kill -TERM "$p" 2>/dev/null; done
  wait 2>/dev/null
  restore_knobs "$BOOT"
}
trap cleanup EXIT

install_tierd_unit
log "start_limit_burst $(prop StartLimitBurst)"
log "start_limit_interval_us $(prop StartLimitIntervalUSec)"
log "restart_us $(prop RestartUSec)"
rm -f "$STATE" "$STATE.bad"
mkdir -p /etc/tier
DAEMON_LINES="socket = \"$SOCK\"
state = \"$STATE\"
[metrics]
listen = \"off\""
flip() {
  if [ "$LAYOUT" = A ]; then next=B; else next=A; fi
  faults_config "$CONF" $next "$DAEMON_LINES"
}
faults_config "$CONF" A "$DAEMON_LINES"

faults_touches
sleep 100000 &
C=$!
CHURN=no
faults_schedule "$SEED" "$CYCLES" "move reload state"
echo "seed $SEED" >totals.txt
echo "cycles_planned $CYCLES" >>totals.txt
echo "knobs_boot $BOOT" >>totals.txt
: >cycles.txt

sctl start "$UNIT" >start.out 2>&1
log "start_rc $?"
PID=$(prop MainPID)
faults_register "$SOCK"
MIGRATED_START=$(migrated)
START_S=$(uptime_s)
KILLED_AT=

# next_tierd CYCLE: after a kill, the tierd systemd starts (a MainPID other
# than the killed one, the unit active again: 60 s at most for each); UP
# holds the restart's fields.
next_tierd() {
  if [ -n "$KILLED_AT" ]; then
    new=$(new_pid "$PID" 60)
    if [ "$new" = 0 ] || ! wait_active 60; then
      echo "systemd did not restart tierd within 60 s (cycle $1): MainPID $(prop MainPID)," \
        "$(systemctl is-active "$UNIT"), result $(prop Result), NRestarts $(prop NRestarts)" >&2
      exit 1
    fi
    PID=$new
  fi
  t1=$(uptime_s)
  faults_recovered "$SOCK"
  UP="restart_s $([ -n "$KILLED_AT" ] && elapsed "$KILLED_AT" "$t1" || echo -) $RECOVERED"
}

while read -r cyc kind d; do
  next_tierd "$cyc"
  sleep 1  # pacing: see the header (start rate limit)
  op=- TC=
  case $kind in
    move | reload)
      flip
      kill -HUP "$PID"
      op=layout_$LAYOUT
      if [ "$kind" = move ]; then faults_wait_moving 20; op="${op}_began_$BEGAN"; fi
      ;;
    state)
      if [ $CHURN = no ]; then
        tierctl --socket "$SOCK" workloads register --pid "$C" --class offline >/dev/null 2>&1 &
        TC=$! CHURN=yes op=register
      else
        tierctl --socket "$SOCK" workloads unregister "$C" >/dev/null 2>&1 &
        TC=$! CHURN=no op=unregister
      fi
      ;;
  esac
  sleep "$d"
  m1=$(migrated)
  sleep 0.1
  kill -KILL "$PID"
  m2=$(migrated)
  KILLED_AT=$(uptime_s)
  if [ "$m2" -gt "$m1" ]; then MOVING=yes; else MOVING=no; fi
  [ -z "$TC" ] || wait "$TC" 2>/dev/null
  echo "cycle $cyc kind $kind delay $d op $op layout $LAYOUT moving $MOVING $UP" >>cycles.txt
done <schedule.txt

next_tierd final
echo "final $UP" >>cycles.txt
END_S=$(uptime_s)
echo "migrated_pages $(($(migrated) - MIGRATED_START))" >>totals.txt
echo "loop_s $(elapsed "$START_S" "$END_S")" >>totals.txt
echo "nrestarts $(prop NRestarts)" >>totals.txt
ls "$STATE"* 2>&1 | sed 's|.*/||' >state_files.txt
# Stopped before the verification, as faults_kill (a moving tierd slowed
# it past 300 s).
sctl stop "$UNIT" >stop.out 2>&1
echo "tierd_term_rc $?" >>totals.txt
echo "result_after_stop $(prop Result)" >>totals.txt
echo "knobs_after $(knobs)" >>totals.txt
faults_verify
kill -TERM "$C"
wait "$C" 2>/dev/null
C=
finish_journal "$SINCE"
grep -E 'state:|kernel:' journal.txt >tierd_state_lines.txt
cat totals.txt obs.log
