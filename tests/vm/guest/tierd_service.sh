# Helpers for the scenarios that run the real daemon/tierd.service under
# systemd (systemd_service, systemd_recovery). Sourced: `. /vm/tierd_service.sh`.
# Every observation goes to obs.log as "key value" lines for the host-side
# check; nothing here exits on a failed step, and every wait is bounded.
# Works in Debian's dash (the systemd guest runs scenarios with /bin/sh).
# shellcheck shell=sh disable=SC2034  # NB_BOOT, NB_WANT, ... are for the sourcing scenario

UNIT=tierd.service
SOCK=/run/tier/tierd.sock
CONF=/etc/tier/tierd.toml
STATE=/var/lib/tier/state.json
NB=/proc/sys/kernel/numa_balancing
# lib/initramfs.sh copies daemon/tierd.service, exactly as shipped, here.
SHIPPED=/vm/tierd.service
INSTALLED=/run/systemd/system/tierd.service

log() { echo "$*" >>obs.log; }
prop() { systemctl show -P "$1" "$UNIT" 2>/dev/null; }
# sctl ARGS...: systemctl under a time limit (a start waits for READY=1,
# bounded by the unit's TimeoutStartSec=60s; never more than 90 s here).
sctl() { timeout 90 systemctl "$@"; }
now() { cut -d' ' -f1 /proc/uptime; }

# install_tierd_unit: the shipped unit with only ExecStart's binary path
# rewritten to this run's tierd, so every hardening line runs as shipped.
# unit.diff records the rewrite (the check wants exactly that one line).
install_tierd_unit() {
  sed 's|^ExecStart=/usr/sbin/tierd |ExecStart=/opt/tier/bin/tierd |' "$SHIPPED" >"$INSTALLED"
  diff "$SHIPPED" "$INSTALLED" >unit.diff
  systemctl daemon-reload
  log "unit_installed $( [ -s "$INSTALLED" ] && echo yes || echo no)"
  log "unit_type $(prop Type)"
  log "unit_fragment $(prop FragmentPath)"
}

# pick_numa_balancing: NB_BOOT is the value the machine has now (the guest
# boots with 1); NB_WANT is what the configuration asks tierd to apply, a
# different value so that applying and restoring both show.
pick_numa_balancing() {
  NB_BOOT=$(cat "$NB")
  if [ "$NB_BOOT" = 2 ]; then NB_WANT=0; else NB_WANT=2; fi
  log "nb_boot $NB_BOOT"
  log "nb_want $NB_WANT"
}

# write_config TICK_MS LOG_LEVEL [EXTRA_DAEMON_LINE]: /etc/tier/tierd.toml to
# the daemon's configuration spec (docs/api.md, issue 5). CONFIG_LINES is
# left holding the number of lines written before the extra line, so a bad
# key's line number is known: it is line CONFIG_BAD_LINE.
write_config() {
  mkdir -p /etc/tier
  cat >"$CONF" <<TOML
# written by the vmtest scenario $(basename "$PWD")
[daemon]
socket = "$SOCK"
state = "$STATE"
log_level = "$2"
epoch_ms = 1000
${3:-}
[metrics]
listen = "off"

[policy]
name = "static"
tick_ms = $1
paused = false

[kernel]
numa_balancing = $NB_WANT
demotion_enabled = "keep"
TOML
  # The extra line (if any) is line 7: comment, [daemon], four keys.
  CONFIG_BAD_LINE=7
}

# write_legacy_config TICK_MS LOG_LEVEL [EXTRA_DAEMON_LINE]: what a tierd
# without the issue-5 keys accepts ([daemon] socket and log_level), used
# only when that tierd rejects the spec file, so the systemd machinery
# (READY, reload, restart, stop) is still exercised. The check fails on
# spec_config_accepted no in any case.
write_legacy_config() {
  mkdir -p /etc/tier
  cat >"$CONF" <<TOML
# written by the vmtest scenario $(basename "$PWD") (tierd without the issue-5 keys)
[daemon]
socket = "$SOCK"
log_level = "$2"
${3:-}
TOML
  CONFIG_BAD_LINE=5
}

# configure TICK_MS LOG_LEVEL [EXTRA]: the spec file if this tierd takes it,
# else the legacy one (decided once, by the first call, with --check-config).
configure() {
  if [ -z "${SPEC_CONFIG:-}" ]; then
    write_config "$1" "$2"
    if tierd --check-config --config "$CONF" >check_config.out 2>check_config.err; then
      SPEC_CONFIG=yes
    else
      SPEC_CONFIG=no
    fi
    log "spec_config_accepted $SPEC_CONFIG"
    log "spec_config_error $(tail -n1 check_config.err)"
  fi
  if [ "$SPEC_CONFIG" = yes ]; then
    write_config "$@"
  else
    write_legacy_config "$@"
  fi
}

# status NAME: `tierctl status --json` into NAME.json (NAME.err, NAME.rc).
status() {
  tierctl --socket "$SOCK" status --json >"$1.json" 2>"$1.err"
  echo $? >"$1.rc"
  log "status_$1_rc $(cat "$1.rc")"
}

# answers NAME: one `tierctl topo --daemon` question (the daemon's oldest
# method, to tell "tierd is not serving" from "status is missing").
answers() {
  if tierctl --socket "$SOCK" topo --daemon --json >"$1.topo.json" 2>"$1.topo.err"; then
    log "$1_topo_answered yes"
  else
    log "$1_topo_answered no"
  fi
}

# wait_active SECS: until the unit is "active" (for Type=notify: READY=1
# received) or SECS pass. Logs nothing; returns 0 when active.
wait_active() {
  i=0
  while [ "$(systemctl is-active "$UNIT" 2>/dev/null)" != active ]; do
    i=$((i + 1))
    [ $i -lt $(($1 * 4)) ] || return 1
    sleep 0.25
  done
}

# new_pid OLD SECS: prints the first main PID other than OLD and 0 within
# SECS seconds, or 0.
new_pid() {
  i=0
  while :; do
    p=$(prop MainPID)
    [ -n "$p" ] && [ "$p" != 0 ] && [ "$p" != "$1" ] && { echo "$p"; return 0; }
    i=$((i + 1))
    [ $i -lt $(($2 * 4)) ] || { echo 0; return 1; }
    sleep 0.25
  done
}

# wait_status_text_change OLD SECS: until StatusText differs from OLD (tierd
# sends READY=1 + a new STATUS= when a SIGHUP reload is done: `systemctl
# reload` returns when `kill -HUP` has, which may be before that).
wait_status_text_change() {
  i=0
  while [ "$(prop StatusText)" = "$1" ]; do
    i=$((i + 1))
    [ $i -lt $(($2 * 4)) ] || return 1
    sleep 0.25
  done
}

# sandbox PID PREFIX: what the kernel says about the running tierd's
# sandbox: capabilities, seccomp, NoNewPrivs, and the mount flags of the
# kernel knobs it is to write (ReadWritePaths= under ProtectKernelTunables=).
sandbox() {
  s=/proc/$1/status
  log "$2_cap_eff $(sed -n 's/^CapEff:[[:space:]]*//p' "$s")"
  log "$2_cap_bnd $(sed -n 's/^CapBnd:[[:space:]]*//p' "$s")"
  log "$2_seccomp $(sed -n 's/^Seccomp:[[:space:]]*//p' "$s")"
  log "$2_no_new_privs $(sed -n 's/^NoNewPrivs:[[:space:]]*//p' "$s")"
  awk '$5 ~ /^\/proc\/sys/ || $5 ~ /^\/sys\/kernel\/mm/ || $5 == "/sys" || $5 == "/proc/sys" {
         print $5, $6 }' "/proc/$1/mountinfo" >"$2.mounts" 2>/dev/null
}

# finish_journal SINCE: the unit's journal since SINCE (seconds since the
# epoch) into journal.txt.
finish_journal() {
  journalctl -u "$UNIT" --since "@$1" --no-pager -o short-monotonic >journal.txt 2>&1
}

# restore_numa_balancing: put the boot value back whatever tierd did, so a
# failed run does not change the machine for the next scenario.
restore_numa_balancing() {
  [ "$(cat "$NB")" = "$NB_BOOT" ] || echo "$NB_BOOT" >"$NB"
}

# probe_sandbox: run guest/sandbox_probe.sh under the installed unit's own
# sandbox (every line of it but Type, ExecStart and the restart/reload/
# watchdog lines, which a oneshot has no use for) and log its findings as
# probe_NAME RESULT; then once more with a drop-in adding CAP_SYS_ADMIN to
# the bounding set (probe_sysadmin_NAME), to tell a missing capability from
# a read-only mount. Run while tierd is stopped: both units own
# RuntimeDirectory=tier, which the probe's stop removes.
probe_sandbox() {
  P=tier-sandbox-probe.service
  sed -e '/^\(ExecReload\|Restart\|RestartSec\|WatchdogSec\)=/d' \
      -e 's|^Type=notify$|Type=oneshot\nStandardOutput=truncate:/run/tier-sandbox-probe.txt\nStandardError=inherit|' \
      -e 's|^ExecStart=.*|ExecStart=/bin/sh /vm/sandbox_probe.sh|' \
      -e 's|^Description=.*|Description=tierd.service sandbox probe (vmtest)|' \
      "$INSTALLED" >/run/systemd/system/$P
  for run in probe probe_sysadmin; do
    if [ $run = probe_sysadmin ]; then
      mkdir -p /run/systemd/system/$P.d
      printf '[Service]\nCapabilityBoundingSet=CAP_SYS_ADMIN\n' >/run/systemd/system/$P.d/sys-admin.conf
    fi
    systemctl daemon-reload
    rm -f /run/tier-sandbox-probe.txt
    sctl start $P >$run.start.out 2>&1
    log "${run}_start_rc $?"
    if [ -f /run/tier-sandbox-probe.txt ]; then
      while read -r name result; do
        log "${run}_$name $result"
      done </run/tier-sandbox-probe.txt
      cp /run/tier-sandbox-probe.txt $run.txt
    fi
  done
  rm -rf /run/systemd/system/$P /run/systemd/system/$P.d /run/tier-sandbox-probe.txt
  systemctl daemon-reload
}
