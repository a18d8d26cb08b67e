#!/bin/sh
# Runs INSIDE the tierd unit's sandbox (tier-sandbox-probe.service: the
# shipped daemon/tierd.service with ExecStart pointed here, Type=oneshot;
# every hardening line unchanged, see tierd_service.sh:probe_sandbox). Tries
# what tierd will do to the machine: write each kernel knob the unit
# re-opens with ReadWritePaths= (writing back the value it already has, so
# the machine does not change) and its state directory; and two writes the
# sandbox must refuse (a sysctl tier does not own, the configuration
# directory). One "name result" line each on stdout, which the unit sends
# to a file the scenario reads.
# shellcheck shell=sh

# try_write NAME PATH: "NAME ok", "NAME absent" or "NAME failed ERRNO-TEXT".
try_write() {
  if [ ! -f "$2" ]; then echo "$1 absent"; return; fi
  v=$(head -n1 "$2")
  if err=$(printf '%s\n' "$v" | dd of="$2" conv=notrunc status=none 2>&1); then
    echo "$1 ok"
  else
    echo "$1 failed ${err##*: }"
  fi
}

try_write numa_balancing /proc/sys/kernel/numa_balancing
try_write numa_balancing_promote_rate_limit_MBps /proc/sys/kernel/numa_balancing_promote_rate_limit_MBps
try_write demotion_enabled /sys/kernel/mm/numa/demotion_enabled
# Not opened by the unit: ProtectKernelTunables= must keep it read-only.
try_write swappiness /proc/sys/vm/swappiness
# try_create NAME DIR: can a file be created in DIR?
try_create() {
  if err=$(touch "$2/.probe" 2>&1); then echo "$1 ok"; rm -f "$2/.probe"
  else echo "$1 failed ${err##*: }"; fi
}
try_create state_dir /var/lib/tier
# /etc/tier: systemd leaves a ConfigurationDirectory= writable even under
# ProtectSystem=strict; the unit's ReadOnlyPaths=/etc/tier must close it.
try_create config_dir /etc/tier
echo "cap_eff $(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)"
