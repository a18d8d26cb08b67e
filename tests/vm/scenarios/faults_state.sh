#!/bin/sh
# vmtest-modes: numa
# vmtest-set: faults
# vmtest-timeout: 400
# Fault campaign (issue 17 item 1): tierd's state file damaged or on a full
# file system. A tier-touch (64 MiB on node 2) is registered
# so the state file has a workload in it; it verifies all its pages at the
# end.
#   truncated, empty, garbage: a good state file (written by a tierd that
#     registered the workload and stopped) cut to half its size, emptied, or
#     replaced by 4 KiB of /dev/urandom; tierd must start, report
#     state_file.found "damaged" with the problem, keep the file
#     byte-identical as state.json.bad, keep serving status, and write a
#     fresh state file;
#   full: the state file on a 64 KiB tmpfs mounted here, then filled: every
#     write (register, unregister, reload) fails, the good file stays
#     byte-identical, the failures are counted and reported; a tierd
#     SIGKILLed and restarted on the full file system still loads the good
#     file (the workload recovered) and serves; once space is freed the next
#     write succeeds.
# Output (faults_state.check.py judges): obs.log "key value" lines,
# CASE.status.json (tierd's status per step), CASE.tierd.log, touch.out.
. /vm/touch.sh
SOCK=/run/tierd-faults-state.sock
FULL=/tmp/tier-full
T=
S=

log() { echo "$*" >>obs.log; }
cleanup() {
  [ -z "$T" ] || { kill -TERM "$T" 2>/dev/null; wait "$T" 2>/dev/null; }
  [ -z "$S" ] || kill "$S" 2>/dev/null
  [ -z "$P" ] || kill -TERM "$P" 2>/dev/null
  umount "$FULL" 2>/dev/null
}
trap cleanup EXIT

cat >tierd.toml <<TOML
[daemon]
epoch_ms = 500
[policy]
tick_ms = 500
[placement]
heat_source = "off"
TOML

# up CASE STATE_PATH: tierd started on STATE_PATH, waits (30 s) for status.
up() {
  tierd --foreground --config tierd.toml --socket $SOCK --metrics off --state "$2" \
    >"$1.tierd.log" 2>&1 &
  T=$!
  i=0
  until tierctl --socket $SOCK status >/dev/null 2>&1; do
    i=$((i + 1))
    if [ $i -ge 300 ] || ! kill -0 "$T" 2>/dev/null; then
      log "$1_answered no"
      echo "tierd ($1) did not answer within 30 s; log:" >&2
      tail -20 "$1.tierd.log" >&2
      exit 1
    fi
    sleep 0.1
  done
  log "$1_answered yes"
}
down() { kill -TERM "$T"; wait "$T"; log "$1_term_rc $?"; T=; }
status() { tierctl --socket $SOCK status --json >"$1.status.json" 2>"$1.status.err"; }
# serves CASE: status answered on 5 calls over 2 s after the start.
serves() {
  n=0
  for _ in 1 2 3 4 5; do
    tierctl --socket $SOCK status >/dev/null 2>&1 && n=$((n + 1))
    sleep 0.4
  done
  log "$1_status_answers $n"
}
# register NAME PID
register() {
  tierctl --socket $SOCK workloads register --pid "$2" --class online >/dev/null 2>>register.err
  log "register_$1_rc $?"
}

start_touch touch --size 64M --node 2
log "touch_pid $P"
sleep 100000 &
S=$!
log "sleep_pid $S"

# --- a good state file to damage -------------------------------------------
up good state.json
register touch "$P"
down good
cp state.json good.json
log "good_bytes $(wc -c <good.json)"

damage() {
  case $1 in
    truncated) head -c $(($(wc -c <good.json) / 2)) good.json >state.json ;;
    empty) : >state.json ;;
    garbage) head -c 4096 /dev/urandom >state.json ;;
  esac
  cp state.json "$1.damaged"
  rm -f state.json.bad
}
for case in truncated empty garbage; do
  damage $case
  up $case state.json
  serves $case
  status $case
  log "${case}_bad_identical $(cmp -s state.json.bad "$case.damaged" && echo yes || echo no)"
  log "${case}_new_state_valid $(tr -d ' \n' <state.json | grep -q '^{"' && echo yes || echo no)"
  down $case
done

# --- the full file system ----------------------------------------------------
mkdir -p $FULL
mount -t tmpfs -o size=64k tier-full $FULL
log "tmpfs_mount_rc $?"
cp good.json $FULL/state.json
up full_first $FULL/state.json
status full_first
cp $FULL/state.json full.good
dd if=/dev/zero of=$FULL/fill bs=4k 2>/dev/null
log "fill_bytes $(wc -c <$FULL/fill)"
log "df_free_kb $(df -k $FULL | awk 'NR==2 {print $4}')"
register sleep_full "$S"
tierctl --socket $SOCK workloads unregister "$S" >/dev/null 2>>register.err
log "unregister_full_rc $?"
kill -HUP "$T"
sleep 2
serves full
status full
log "full_state_identical $(cmp -s $FULL/state.json full.good && echo yes || echo no)"
log "full_leftovers $(ls $FULL | grep -v -x -e state.json -e fill | tr '\n' ,)"

# A crash and a restart on the still-full file system.
kill -KILL "$T"
wait "$T" 2>/dev/null
T=
up full_restart $FULL/state.json
serves full_restart
status full_restart
log "full_restart_state_identical $(cmp -s $FULL/state.json full.good && echo yes || echo no)"

# Space back: the next write goes through.
rm -f $FULL/fill
register sleep_freed "$S"
status full_freed
log "full_freed_state_has_sleep $(grep -q "\"pid\": *$S[,}]" $FULL/state.json && echo yes || echo no)"
down full_freed
umount $FULL
log "tmpfs_umount_rc $?"

verify_touch touch
kill -TERM "$P"
wait "$P"
log "touch_rc $?"
P=
cat obs.log
