#!/bin/sh
# vmtest-modes: systemd
# vmtest-timeout: 600
# (start_mix waits up to 300 s per process, settle_mix 240 s; quiet runs
# take about 70 s.)
# discover_default's proof under systemd as PID 1 (issue 20, item 4, second
# half): the shipped daemon/tierd.service (only ExecStart's path rewritten,
# guest/tierd_service.sh) with /etc/tier/tierd.toml the embedded default
# as is (`tierd --print-default-config`, what a package installs), the
# kernel's knobs as booted. The 50 processes start from a plain shell loop,
# each a transient service (systemd-run) as a systemd machine's services
# are, so discovery's unit here is the leaf cgroup (auto: cgroup v2 is
# mounted). discover_systemd.check.py wants what discover_default's check
# wants (lib/discovercheck.py), with the workloads found as cgroups.
# shellcheck source=../guest/tierd_service.sh
. /vm/tierd_service.sh
. /vm/discover.sh
[ ! -f /etc/vmtest.env ] || . /etc/vmtest.env
if ! tierd --print-default-config 2>/dev/null | grep -q '^discover = "auto"'; then
  echo "tierd's default configuration does not discover (not built yet)" >&2
  exit 127
fi
finish() {
  [ ! -f mix.pids ] || while read -r name pid; do
    systemctl stop "mix-$name.service" 2>/dev/null
  done <mix.pids
  sctl stop "$UNIT" >/dev/null 2>&1
}
trap finish EXIT

mix_knobs knobs.before
cp /proc/vmstat vmstat.before
install_tierd_unit
rm -f "$STATE"
mkdir -p /etc/tier
tierd --print-default-config >"$CONF"
cp "$CONF" tierd.toml
sctl start "$UNIT" >start.out 2>&1
echo "start_rc $?" >>obs.log
T=$(prop MainPID)
run_mix launch_unit "$SOCK" "$T"
sctl stop "$UNIT" >stop.out 2>&1
echo "$(prop Result)" >tierd.result
journalctl -u "$UNIT" --no-pager -o cat >tierd.log 2>&1
mix_knobs knobs.after
