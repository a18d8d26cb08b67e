#!/bin/sh
# vmtest-modes: cxl
# vmtest-set: faults
# vmtest-timeout: 1200
# A CXL node going away under tierd, and coming back (issue 17, item 1).
# tierd (balanced, kernel_tiering own, heat off) keeps tier-touch A (32 MiB
# first-touched on node 0, its writer rewriting every page) within a 4 MiB
# fast-tier quota: it demotes the rest to the nearest slower node, the CXL
# node (tier 1 here). Then, with A's pages on the CXL node:
#   gone:  each of the node's memory blocks is offlined (the kernel migrates
#          the pages away or refuses: offline.txt records which, per block)
#          and the dax device is unbound from kmem (unbind.txt);
#   away:  tierd's status must show the node without memory, its topology
#          re-read; tier-touch C (16 MiB on node 0, same quota) is then
#          demoted to the other slower nodes, none of it to the CXL node;
#   back:  the dax device is bound to kmem again (or the blocks onlined
#          again when the unbind was refused) and tier-touch B (32 MiB, same
#          quota) must be demoted to the CXL node again.
# A and B verify every page (SIGUSR1) at each step. faults_cxl_gone.check.py
# reads the files; waits that run out are recorded (waits.txt), not fatal
# here, so the check can say what was seen.
. /vm/touch.sh  # start_touch
. /vm/tierd.sh  # start_tierd
SOCK=/run/tierd-cxlgone.sock
cleanup() {
  for p in $PA $PB $PC $PK; do kill -TERM "$p" 2>/dev/null; done
  stop_tierd
}
trap cleanup EXIT
PA="" PB="" PC="" PK=""
MIB=1048576

# The CXL node: the target node of the dax device kmem onlined in setup.
DAX="" N=""
for d in /sys/bus/dax/devices/dax*; do
  [ -e "$d/target_node" ] || continue
  DAX=${d##*/} N=$(cat "$d/target_node")
done
[ -n "$N" ] || { echo "no dax device: was the cxl setup run?" >&2; exit 1; }
NODE=/sys/devices/system/node/node$N
BLOCKS=$(cd "$NODE" && ls -d memory[0-9]* | tr '\n' ' ')
echo "cxl node $N dax $DAX driver $(basename "$(readlink "/sys/bus/dax/devices/$DAX/driver")")" \
  "blocks $BLOCKS block_size 0x$(cat /sys/devices/system/memory/block_size_bytes)" >cxl.txt
grep MemTotal "$NODE/meminfo" >>cxl.txt
for b in $BLOCKS; do
  echo "$b state $(cat "$NODE/$b/state") zones $(cat "$NODE/$b/valid_zones" 2>/dev/null)" >>cxl.txt
done

now() { cut -d' ' -f1 /proc/uptime; }
# write VALUE PATH: echo VALUE >PATH; prints what the write answered (the
# kernel's errno as the shell words it, e.g. "Device or resource busy").
write() { { echo "$1" >"$2"; } 2>&1; }
status() { tierctl --socket $SOCK status --json 2>/dev/null; }
# pages_on PID ADDR NODE: the process's pages of the VMA at ADDR on NODE.
pages_on() {
  n=$(grep "^${2#0x} " "/proc/$1/numa_maps" 2>/dev/null | grep -o " N$3=[0-9]*" | cut -d= -f2)
  echo "${n:-0}"
}
# elapsed T0: seconds since uptime T0.
elapsed() { awk "BEGIN{print $(now) - $1}"; }
# wait_for WHAT SECS COMMAND...: runs COMMAND every second until it
# succeeds, up to SECS of uptime; a line in waits.txt either way (with the
# last output).
wait_for() {
  what=$1 limit=$2; shift 2
  t0=$(now)
  until seen=$("$@"); do
    if [ "$(awk "BEGIN{print ($(now) - $t0 >= $limit)}")" = 1 ]; then
      echo "$what: not after $(elapsed "$t0") s; saw: $seen" >>waits.txt
      return 1
    fi
    sleep 1
  done
  echo "$what: after $(elapsed "$t0") s; saw: $seen" >>waits.txt
}
# check_touch NAME PID: SIGUSR1 to tier-touch NAME and wait (up to 600 s:
# reading the CXL node runs at emulated-device speed, 15-20 MB/s, far less
# on a loaded host) for the verified line; verify.txt gets the seconds it took. A verification that never
# comes ends the scenario: nothing after it could be judged.
check_touch() {
  n=$(grep -c verified "$1.out")
  kill -USR1 "$2"
  t0=$(now)
  until [ "$(grep -c verified "$1.out")" -gt "$n" ]; do
    if [ "$(awk "BEGIN{print ($(now) - $t0 >= 600)}")" = 1 ]; then
      echo "tier-touch $1 verified: not after $(elapsed "$t0") s; saw: $(tail -c 300 "$1.out")" >>waits.txt
      echo "tier-touch $1 did not verify in 600 s" >&2
      exit 1
    fi
    sleep 0.5
  done
  echo "$1 $(elapsed "$t0")" >>verify.txt
}
# finish NAME PID: verify, then stop tier-touch NAME.
finish() {
  check_touch "$1" "$2"
  kill -TERM "$2"
  wait "$2"
}
# demoted PID ADDR MIN: at least MIN pages of the VMA on the CXL node.
demoted() {
  on=$(pages_on "$1" "$2" "$N")
  echo "$on pages on node $N"
  [ "$on" -ge "$3" ]
}
# node_memory WANT: tierd's status reports node N with (WANT=some) or
# without (WANT=none) memory, and counts a topology change.
node_memory() {
  s=$(status)
  entry=$(echo "$s" | grep -o "{\"id\":$N,[^}]*}")
  changes=$(echo "$s" | grep -o '"topology_changes":[0-9]*' | cut -d: -f2)
  echo "node entry ${entry:-none}; topology_changes ${changes:-none}"
  [ "${changes:-0}" -ge 1 ] || return 1
  if [ "$1" = none ]; then
    [ -z "$entry" ] || echo "$entry" | grep -q '"total_bytes":0,'
  else
    echo "$entry" | grep -q '"total_bytes":[1-9]'
  fi
}
# snapshot NAME: tierd's status and topology, its pid and log length.
snapshot() {
  status >"$1.status.json"
  tierctl --socket $SOCK status >"$1.status.txt" 2>&1
  tierctl topo --json >"$1.topo.json" 2>"$1.topo.err"
  echo "$T $(kill -0 "$T" 2>/dev/null && echo alive || echo gone)" >"$1.tierd"
  wc -l <tierd.log >"$1.loglines"
  cat "$NODE/meminfo" >"$1.meminfo" 2>/dev/null || echo "no $NODE" >"$1.meminfo"
  ls /sys/devices/system/node/ >"$1.nodes"
}

cat >tierd.toml <<TOML
[daemon]
log_level = "debug"
[policy]
name = "balanced"
[placement]
kernel_tiering = "own"
heat_source = "off"
TOML
start_tierd tierd.toml $SOCK
echo "tierd pid $T" >tierd.pid
# The CXL node is emulated MMIO under TCG: code fetched from it runs at
# device speed (run 3 and 4 of this scenario never finished a verification
# once tierd had demoted tier-touch's own text there with the rest of it).
# A second tier-touch, never registered, maps the same program text, and
# move_pages(2) does not move pages mapped by more than one process.
start_touch keeper --size 4K --node 0
PK=$P

# --- before: A demoted to the CXL node ----------------------------------------
start_touch a --size 32M --node 0 --write-while
PA=$P A=${RANGE%-*}
tierctl --socket $SOCK workloads register --pid "$PA" --name touch-a --quota 4M \
  >register.a 2>&1
wait_for "A demoted to node $N" 180 demoted "$PA" "$A" $((24 * MIB / 4096))
check_touch a "$PA"
snapshot before

# --- gone: offline every block, unbind the dax device -------------------------
echo "start $(now)" >offline.txt
for b in $BLOCKS; do
  t0=$(now)
  err=$(timeout 120 sh -c "echo offline >$NODE/$b/state" 2>&1)
  rc=$?
  echo "$b rc $rc time $(elapsed "$t0") state $(cat "/sys/devices/system/memory/$b/state" 2>/dev/null) error ${err:-none}" >>offline.txt
done
cp "/proc/$PA/numa_maps" a.numa_maps.offline
t0=$(now)
err=$(write "$DAX" /sys/bus/dax/drivers/kmem/unbind)
echo "unbind rc $? time $(elapsed "$t0") error ${err:-none}" \
  "driver $(basename "$(readlink "/sys/bus/dax/devices/$DAX/driver" 2>/dev/null)" 2>/dev/null)" \
  "node_dir $([ -d "$NODE" ] && echo present || echo absent)" >unbind.txt
dmesg | grep -i -E "offline|hotremove|kmem|dax|memory" | tail -30 >dmesg.gone
wait_for "tierd reports node $N without memory" 120 node_memory none
snapshot gone
# The offline put A's pages on a slower node (the kernel's demotion target),
# so a new workload over its quota shows where tierd demotes now: C (16 MiB
# on node 0, 4 MiB quota) must go to the other slower nodes only.
start_touch c --size 16M --node 0
PC=$P C=${RANGE%-*}
tierctl --socket $SOCK workloads register --pid "$PC" --name touch-c --quota 4M \
  >register.c 2>&1
# slow_pages PID ADDR MIN: at least MIN pages of the VMA on nodes 2 and 3.
slow_pages() {
  on=$(($(pages_on "$1" "$2" 2) + $(pages_on "$1" "$2" 3)))
  echo "$on pages on nodes 2-3, $(pages_on "$1" "$2" "$N") on node $N"
  [ "$on" -ge "$3" ]
}
wait_for "C demoted to nodes 2-3" 180 slow_pages "$PC" "$C" $((12 * MIB / 4096))
sleep 5  # a few more policy ticks over a node that is gone
finish c "$PC"
PC=
check_touch a "$PA"
cp "/proc/$PA/numa_maps" a.numa_maps.away
snapshot away

# --- back: bind again (or online the blocks again) ----------------------------
t0=$(now)
if [ -e "/sys/bus/dax/devices/$DAX/driver" ]; then
  # the unbind was refused: the blocks are still there to online
  for b in $BLOCKS; do
    err=$(write online_movable "/sys/devices/system/memory/$b/state") ||
      err=$(write online "/sys/devices/system/memory/$b/state")
    echo "online $b rc $? error ${err:-none}" >>back.txt
  done
else
  err=$(write "$DAX" /sys/bus/dax/drivers/kmem/bind)
  echo "bind rc $? error ${err:-none}" >>back.txt
fi
node_has_memory() {
  m=$(grep MemTotal "$NODE/meminfo" 2>/dev/null)
  echo "${m:-no $NODE}"
  echo "$m" | grep -q "MemTotal: *[1-9]"
}
wait_for "node $N has memory again" 120 node_has_memory
echo "back after $(elapsed "$t0") s" >>back.txt
for b in $(cd "$NODE" 2>/dev/null && ls -d memory[0-9]*); do
  echo "$b state $(cat "$NODE/$b/state")" >>back.txt
done
wait_for "tierd reports node $N with memory" 120 node_memory some
snapshot back
start_touch b --size 32M --node 0
PB=$P B=${RANGE%-*}
tierctl --socket $SOCK workloads register --pid "$PB" --name touch-b --quota 4M \
  >register.b 2>&1
wait_for "B demoted to node $N" 180 demoted "$PB" "$B" $((24 * MIB / 4096))
finish b "$PB"
PB=
finish a "$PA"
PA=
kill -TERM "$PK"
wait "$PK"
PK=
snapshot after
kill -TERM "$T"
wait "$T"
echo "tierd exit $?" >tierd.exit
T=
echo "cxl node $N: $(wc -l <waits.txt) waits; offline: $(tr '\n' ';' <offline.txt)"
