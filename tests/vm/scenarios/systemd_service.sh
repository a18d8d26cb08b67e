#!/bin/sh
# vmtest-modes: systemd
# vmtest-timeout: 240
# The real daemon/tierd.service (Type=notify, every hardening line as
# shipped; only ExecStart's path rewritten to this run's tierd) under
# systemd as PID 1 -- issue 5 item 7, first half:
#   - the unit's sandbox, probed by a oneshot with the same lines: which
#     kernel knobs tierd can write, what stays read-only;
#   - `systemctl start tierd` returns once tierd sent READY=1: the unit is
#     active and `tierctl status` answers at the first try, StatusText is
#     tierd's STATUS=; numa_balancing is what the config asks;
#   - `systemctl reload tierd` after changing [policy] tick_ms and
#     [daemon] log_level: status shows the new values, same PID;
#   - a reload with an unknown key: old values kept, unit still active,
#     the journal names file:line and key;
#   - `systemctl stop tierd`: inactive, Result=success, socket gone,
#     numa_balancing back to the boot value.
# Observations go to obs.log ("key value"); systemd_service.check.py judges
# them, so this script goes on after a failed step. Every wait is bounded.
# shellcheck source=../guest/tierd_service.sh
. /vm/tierd_service.sh

SINCE=$(date +%s)
pick_numa_balancing
install_tierd_unit
probe_sandbox

# A fresh daemon: no state left by an earlier scenario.
rm -f "$STATE"
configure 1000 info

# --- start: Type=notify, so start returns after READY=1 -------------------
t0=$(now)
sctl start "$UNIT" >start.out 2>&1
log "start_rc $?"
log "start_seconds $(echo "$t0 $(now)" | awk '{ printf "%.2f", $2 - $1 }')"
# Straight after start returned, no polling: READY=1 means serving.
log "active_after_start $(systemctl is-active "$UNIT")"
status started
answers started
pid=$(prop MainPID)
log "pid_started $pid"
log "comm_started $(cat "/proc/$pid/comm" 2>/dev/null)"
log "status_text_started $(prop StatusText)"
log "notify_access $(prop NotifyAccess)"
log "nb_running $(cat "$NB")"
sandbox "$pid" started

# --- reload with a changed configuration ---------------------------------
configure 500 debug
text=$(prop StatusText)
sctl reload "$UNIT" >reload.out 2>&1
log "reload_rc $?"
if wait_status_text_change "$text" 20; then changed=yes; else changed=no; fi
log "reload_status_text_changed $changed"
log "status_text_reloaded $(prop StatusText)"
log "active_after_reload $(systemctl is-active "$UNIT")"
log "pid_reloaded $(prop MainPID)"
status reloaded

# --- reload with a bad file: the running configuration stays ---------------
configure 250 warn "no_such_key = 1"
log "bad_line $CONFIG_BAD_LINE"
text=$(prop StatusText)
sctl reload "$UNIT" >badreload.out 2>&1
log "badreload_rc $?"
if wait_status_text_change "$text" 20; then changed=yes; else changed=no; fi
log "badreload_status_text_changed $changed"
log "status_text_badreload $(prop StatusText)"
log "active_after_badreload $(systemctl is-active "$UNIT")"
log "pid_badreload $(prop MainPID)"
status badreload
log "nb_after_reloads $(cat "$NB")"

# --- stop: every changed sysctl restored ------------------------------------
pid=$(prop MainPID)
sctl stop "$UNIT" >stop.out 2>&1
log "stop_rc $?"
log "active_after_stop $(systemctl is-active "$UNIT")"
log "result_after_stop $(prop Result)"
log "process_gone_after_stop $( [ -d "/proc/$pid" ] && echo no || echo yes)"
log "socket_after_stop $( [ -e "$SOCK" ] && echo present || echo absent)"
log "nb_after_stop $(cat "$NB")"
log "state_file_after_stop $( [ -f "$STATE" ] && echo present || echo absent)"

finish_journal "$SINCE"
restore_numa_balancing
cp "$CONF" last_config.toml
cat obs.log
