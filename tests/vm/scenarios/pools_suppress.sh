#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 120
# Offline suppression on the 4-CPU guest (cgroup v2): tierd with [pools] and
# [suppression] on (epochs of 200 ms, 2 s restore delay). An offline `sleep`
# sits in the shared pool. hotset is launched with `tierctl run --class
# online --pool exclusive:2` and saturates its two CPUs for 6 s, then exits.
# A watcher records the offline process's Cpus_allowed_list every 50 ms with
# /proc/uptime stamps; pools_suppress.check.py wants it cut to one CPU while
# hotset runs (at the latest 5 s after hotset's ready file) and given back
# only after the restore delay once hotset has ended (within 9 s).
. /vm/tierd.sh
trap 'kill_all' EXIT
if ! tierd --print-default-config 2>/dev/null | grep -q '^\[suppression\]'; then
  echo "tierd has no [suppression]: not built yet" >&2
  exit 127
fi
SOCK=/run/tierd-suppress.sock
W= O=
kill_all() {
  for p in $W $O; do kill "$p" 2>/dev/null; done
  stop_tierd
}
cat >tierd.toml <<TOML
[daemon]
epoch_ms = 200
[pools]
enabled = true
[suppression]
enabled = true
cpu_threshold = 0.65
cpu_restore = 0.5
restore_delay_s = 2
TOML
start_tierd tierd.toml $SOCK
sleep 1000 & O=$!
tierctl --socket $SOCK workloads register --pid $O --class offline --pool shared >/dev/null \
  || { echo "offline registration failed" >&2; exit 1; }
# The watcher: "UPTIME CPUS" per line.
( while :; do
    printf '%s %s\n' "$(cut -d' ' -f1 /proc/uptime)" \
      "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$O/status)"
    sleep 0.05
  done >offline.cpus ) &
W=$!
sleep 1
echo "start $(cut -d' ' -f1 /proc/uptime)" >events
# hotset writes its ready file when its buffer is touched and its threads
# start reading: from then on its two CPUs are saturated.
( until [ -f hotset.ready ]; do sleep 0.02; done
  echo "ready $(cut -d' ' -f1 /proc/uptime)" >>events ) &
tierctl --socket $SOCK run --class online --pool exclusive:2 -- \
  hotset --size 64M --hot 16M --node 0 --threads 2 --duration 6 --ready-file hotset.ready \
  >hotset.out 2>hotset.err
echo "hotset $?" >rc.txt
echo "end $(cut -d' ' -f1 /proc/uptime)" >>events
tierctl --socket $SOCK pools --json >pools.during-end.json 2>&1
sleep 10
tierctl --socket $SOCK pools --json >pools.after.json 2>&1
kill_all
grep -i suppression tierd.log >suppression.log
cat events suppression.log
