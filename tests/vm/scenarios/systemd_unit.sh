#!/bin/sh
# vmtest-modes: systemd
# vmtest-timeout: 90
# tierd as a systemd service: a minimal Type=simple unit (the real
# tierd.service, Type=notify, will replace it), started with systemctl,
# asked for the topology over its socket, killed with SIGKILL to see
# Restart=on-failure bring it back, asked again, then stopped. Each
# observation goes to unit.log as "key value" lines; systemd_unit.check.py
# judges them, so this script goes on after a failed step.
UNIT=tier-vmtest.service
SOCK=/run/tier/tierd.sock

log() { echo "$*" >>unit.log; }
prop() { systemctl show -P "$1" "$UNIT"; }

# ask NAME: wait up to 20 s for tierd to answer on its socket; keep the last
# reply (or error) in NAME.json / NAME.err.
ask() {
  i=0
  until tierctl --socket "$SOCK" topo --daemon --json >"$1.json" 2>"$1.err"; do
    i=$((i + 1))
    if [ $i -ge 40 ]; then log "$1_answered no"; return 1; fi
    sleep 0.5
  done
  log "$1_answered yes"
  log "$1_after_polls $i"
}

# new_pid OLD: wait up to 20 s for a main PID other than OLD and 0.
new_pid() {
  i=0
  while :; do
    p=$(prop MainPID)
    [ "$p" != 0 ] && [ "$p" != "$1" ] && { echo "$p"; return 0; }
    i=$((i + 1))
    [ $i -lt 40 ] || { echo 0; return 1; }
    sleep 0.5
  done
}

# /run/systemd/system: a unit that lives only as long as this boot.
cat >/run/systemd/system/$UNIT <<UNITFILE
[Unit]
Description=tierd under test (vmtest systemd_unit)

[Service]
Type=simple
ExecStart=/opt/tier/bin/tierd --foreground --socket $SOCK
RuntimeDirectory=tier
Restart=on-failure
UNITFILE
systemctl daemon-reload
systemctl start "$UNIT"
log "start_rc $?"
log "active_after_start $(systemctl is-active "$UNIT")"
ask first
pid1=$(new_pid 0)
log "pid_first $pid1"
log "comm_first $(cat "/proc/$pid1/comm" 2>/dev/null)"
log "restarts_before $(prop NRestarts)"

kill -9 "$pid1"
log "kill_rc $?"
pid2=$(new_pid "$pid1")
log "pid_second $pid2"
log "restarts_after $(prop NRestarts)"
log "first_gone $( [ -d "/proc/$pid1" ] && echo no || echo yes)"
ask second
log "active_after_kill $(systemctl is-active "$UNIT")"

systemctl stop "$UNIT"
log "stop_rc $?"
log "active_after_stop $(systemctl is-active "$UNIT")"
log "result_after_stop $(prop Result)"
log "second_gone $( [ -d "/proc/$pid2" ] && echo no || echo yes)"
log "socket_after_stop $( [ -e "$SOCK" ] && echo present || echo absent)"
journalctl -u "$UNIT" --no-pager -o short-monotonic >journal.txt 2>&1
cat unit.log
