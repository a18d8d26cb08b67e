#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 120
# Kernel tiering detection against the real 6.12 knobs: `tierctl doctor
# --json` before (boot values), after turning the kernel's own tiering on
# (numa_balancing=2, a promote rate limit, a debugfs hot threshold and scan
# size, demotion_enabled, a node 2 interleave weight, and a kdamond with a
# migrate_cold -> node 2 scheme on a sleeping process), and after restoring
# every knob. kernel_tiering.check.py compares each report with what was
# written (knobs.saved holds the boot values). The scheme's access pattern is
# left at the kernel's all-zero bounds, which match no region, and 6.12's
# vaddr operations do not apply migrate actions anyway: nothing moves.
# Files: doctor.{before,set,restored}.json, sleeper.pid, knobs.saved/.restored.
. /vm/heat.sh
trap heat_cleanup EXIT
if ! tierctl doctor --help 2>&1 | grep -q 'kernel tiering'; then
  echo "tierctl doctor has no kernel tiering section: not built yet" >&2
  exit 127
fi

WI=/sys/kernel/mm/mempolicy/weighted_interleave

tierctl doctor --json >doctor.before.json 2>doctor.before.err || exit 1

knob_set /proc/sys/kernel/numa_balancing 2
knob_set /proc/sys/kernel/numa_balancing_promote_rate_limit_MBps 4321
knob_set "$NB/hot_threshold_ms" 1500
knob_set "$NB/scan_size_mb" 512
knob_set /sys/kernel/mm/numa/demotion_enabled true
knob_set "$WI/node2" 3

sleep 600 &
S=$!
echo "$S" >sleeper.pid
knob_set "$DAMON/nr_kdamonds" 1
echo 1 >"$DAMON/0/contexts/nr_contexts"
ctx="$DAMON/0/contexts/0"
echo vaddr >"$ctx/operations"
echo 1 >"$ctx/targets/nr_targets"
echo "$S" >"$ctx/targets/0/pid_target"
echo 1 >"$ctx/schemes/nr_schemes"
echo migrate_cold >"$ctx/schemes/0/action"
echo 2 >"$ctx/schemes/0/target_nid"
echo on >"$DAMON/0/state" || { echo "kdamond did not start" >&2; exit 1; }

tierctl doctor --json >doctor.set.json 2>doctor.set.err || exit 1
tierctl doctor >doctor.set.txt 2>&1

heat_cleanup
tierctl doctor --json >doctor.restored.json 2>doctor.restored.err || exit 1
echo "kernel tiering reported before, set and restored"
