#!/bin/sh
# vmtest-modes: numa model
# vmtest-explicit: yes
# vmtest-timeout: 600
# Head-to-head, workload C (scripts/bench-placement.sh; not in make vmtest):
# an online hotset (512 MiB first-touched on node 2, a 128 MiB Zipf(0.99)
# hot set, one thread on CPU 0) and an offline one that grows on node 0
# (first-touch, MPOL_PREFERRED for the touch) at 32 MiB/s up to 1 GiB,
# more than node 0 holds, accessed uniformly over what exists so far by one
# thread on CPU 1; both start together and run 60 s under the contender
# named by H2H_CONTENDER. The offline one runs as /tmp/hotset-offline, a
# copy, so that tierd's "hotset" rule (class online) does not match it;
# tierd contenders register it with `tierctl workloads register --class
# offline`. h2h_c.check.py: both ran and verified, censuses, figures.
# Under all-fast the online job goes to the DRAM node with room and runs on
# its first CPU, the offline one to the other DRAM node (guest/h2h.sh).
. /vm/h2h.sh
trap h2h_cleanup EXIT
h2h_kdamonds_at_boot
c=${H2H_CONTENDER:-none}
secs=${H2H_SECONDS:-60}
rm -f "$H2H_GO"
echo "$secs" >c_online.seconds
echo "$secs" >c_offline.seconds
cp /opt/tier/bin/hotset /tmp/hotset-offline
h2h_placing
h2h_hotset c_online hotset --size 512M --hot 128M --dist zipf:0.99 --node "$(h2h_node 2)" \
  --policy first-touch --cpus "$(h2h_cpus 0)" --threads 1 --fast-nodes "$(h2h_fast 0)" \
  --duration "$secs" || exit 1
online=$HS_PID
h2h_hotset c_offline /tmp/hotset-offline --size 1G --node "$(h2h_other 0)" --policy first-touch \
  --grow-mbps 32 --cpus 1 --threads 1 --fast-nodes 0 --duration "$secs" || exit 1
offline=$HS_PID
cp /proc/vmstat c_online.vmstat.before
cp /proc/vmstat c_offline.vmstat.before
# shellcheck disable=SC2034 # R is read by h2h_contender_start
R=c_online
h2h_contender_start "$c" || exit 1
cp c_online.contender c_offline.contender
case $c in
  tierd-*)
    tierctl --socket "$H2H_SOCK" workloads register --pid "$offline" --class offline --json \
      >c_offline.tierd.register.json 2>>c_offline.tierd.register.err
    echo $? >c_offline.tierd.register.rc ;;
esac
h2h_go
h2h_wait_final c_online $((secs + 120))
h2h_wait_final c_offline $((secs + 120))
cp /proc/vmstat c_online.vmstat.after
cp /proc/vmstat c_offline.vmstat.after
h2h_contender_stop "$c"
h2h_wait_exit "$online" c_online
h2h_wait_exit "$offline" c_offline
echo "contender $c: online exit $(cat c_online.rc), offline exit $(cat c_offline.rc)"
