#!/bin/sh
# vmtest-modes: systemd
# vmtest-timeout: 240
# The real daemon/tierd.service under systemd, issue 5 item 7, second half:
# a crash and what survives it.
#   - start tierd (numa_balancing applied), start two `sleep 1000`, register
#     both (`tierctl workloads register --pid P --class online`);
#   - `kill -9` tierd, and while it is down (RestartSec=2s) kill one sleep;
#   - Restart=on-failure brings a new tierd (new PID, NRestarts +1) that
#     reads the state file: the live sleep is listed again with the same id
#     and class, the dead one is in `dropped` ("... while tierd was down"),
#     and status keeps the crashed instance's ORIGINAL numa_balancing;
#   - `systemctl stop` restores the boot value, i.e. the value from before
#     the first tierd, not the one the crashed tierd left applied.
# Observations go to obs.log ("key value"); systemd_recovery.check.py judges.
# shellcheck source=../guest/tierd_service.sh
. /vm/tierd_service.sh

SINCE=$(date +%s)
pick_numa_balancing
install_tierd_unit
rm -f "$STATE"
configure 1000 info

sctl start "$UNIT" >start.out 2>&1
log "start_rc $?"
log "active_after_start $(systemctl is-active "$UNIT")"
pid1=$(prop MainPID)
log "pid_first $pid1"
log "restarts_before $(prop NRestarts)"
log "nb_first $(cat "$NB")"
status first

# Two workloads, children of this script (in vmtest.service's cgroup, so
# stopping or killing tierd's unit never touches them).
sleep 1000 &
live=$!
sleep 1000 &
dead=$!
log "pid_live $live"
log "pid_dead $dead"
register() {
  tierctl --socket "$SOCK" workloads register --pid "$2" --class online --json \
    >"register_$1.json" 2>"register_$1.err"
  log "register_$1_rc $?"
}
register live "$live"
register dead "$dead"
tierctl --socket "$SOCK" workloads list --json >list_before.json 2>list_before.err
log "list_before_rc $?"
# What the crashed tierd leaves behind (0600 root, readable here as root).
cp "$STATE" state_before.json 2>/dev/null
log "state_file_before $( [ -f "$STATE" ] && echo present || echo absent)"

# --- crash: kill -9, and one workload exits while tierd is down ------------
kill -9 "$pid1"
log "kill_rc $?"
kill "$dead"
wait "$dead" 2>/dev/null
# Still down? RestartSec=2s leaves ~2 s before systemd starts a new tierd.
log "main_pid_when_dead_exited $(prop MainPID)"
log "substate_when_dead_exited $(prop SubState)"
log "nb_while_down $(cat "$NB")"

pid2=$(new_pid "$pid1" 30)
log "pid_second $pid2"
wait_active 60
log "active_after_restart $(systemctl is-active "$UNIT")"
log "restarts_after $(prop NRestarts)"
log "first_gone $( [ -d "/proc/$pid1" ] && echo no || echo yes)"
log "status_text_restarted $(prop StatusText)"
log "nb_restarted $(cat "$NB")"
status second
answers second
tierctl --socket "$SOCK" workloads list --json >list_after.json 2>list_after.err
log "list_after_rc $?"
cp "$STATE" state_after.json 2>/dev/null

# --- stop after the crash: the value from before the first start -------------
sctl stop "$UNIT" >stop.out 2>&1
log "stop_rc $?"
log "active_after_stop $(systemctl is-active "$UNIT")"
log "result_after_stop $(prop Result)"
log "second_gone $( [ -d "/proc/$pid2" ] && echo no || echo yes)"
log "socket_after_stop $( [ -e "$SOCK" ] && echo present || echo absent)"
log "nb_after_stop $(cat "$NB")"

kill "$live" 2>/dev/null
wait "$live" 2>/dev/null
finish_journal "$SINCE"
restore_numa_balancing
cat obs.log
