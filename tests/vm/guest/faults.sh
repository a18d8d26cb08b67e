# Helpers for the kill fault scenarios (faults_kill, faults_kill_systemd):
# the configuration that keeps tierd moving pages, the seeded kill schedule,
# the tier-touch workloads and what a restarted tierd reports.
# Sourced: `. /vm/faults.sh` (after /vm/touch.sh). Works in busybox sh and
# Debian's dash.
# shellcheck shell=sh disable=SC2034  # LISTED, NB_ORIG, ... are for the sourcing scenario

FAULTS_NB=/proc/sys/kernel/numa_balancing
FAULTS_DEM=/sys/kernel/mm/numa/demotion_enabled
FAULTS_PAGES=16384  # 64 MiB of 4 KiB pages per workload

knobs() { echo "$(cat $FAULTS_NB) $(cat $FAULTS_DEM)"; }
# restore_knobs "NB DEM": writes back what knobs() read, where it differs
# (tierd restores them itself, which the checks assert; this only makes the
# guest end as it booted if it did not).
restore_knobs() {
  set -- $1
  [ "$(cat $FAULTS_NB)" = "$1" ] || echo "$1" >$FAULTS_NB
  [ "$(cat $FAULTS_DEM)" = "$2" ] || echo "$2" >$FAULTS_DEM
}
uptime_s() { cut -d' ' -f1 /proc/uptime; }
migrated() { sed -n 's/^pgmigrate_success //p' /proc/vmstat; }
# elapsed T0 T1: seconds between two uptime_s readings, 2 decimals.
elapsed() { echo "$1 $2" | awk '{printf "%.2f", $2 - $1}'; }

# faults_config FILE A|B [DAEMON_LINES]: tierd's configuration, replaced
# whole (a tierd reading it never sees half a file). What keeps tierd moving
# pages: heat_source "off" (every resident 2 MiB chunk at heat 0: no
# sampling warm-up after a restart), kernel_tiering "own" (numa_balancing 0,
# demotion_enabled false: knobs to restore), the workloads' fast-tier quota
# (given at registration) and two tier layouts: A, the machine's (nodes 0-1
# fast), and B (tier_override: nodes 2-3 fast). In either, the workloads'
# pages on the fast tier are over the quota and demoted to the other pair,
# at 64 MB/s (budget_mbps, burst_s 1): ~3 s of moves after each flip.
# min_residency_s 0 and bounce_limit 0: the same pages may move back.
faults_config() {
  if [ "$2" = B ]; then
    over='tier_override = { "0" = 1, "1" = 1, "2" = 0, "3" = 0 }'
  else
    over='tier_override = {}'
  fi
  cat >"$1.new" <<TOML
[daemon]
epoch_ms = 500
${3:-}
[policy]
name = "balanced"
tick_ms = 500
params = { budget_mbps = 64, burst_s = 1, min_residency_s = 0, bounce_limit = 0 }
[placement]
kernel_tiering = "own"
heat_source = "off"
[topology]
$over
TOML
  mv "$1.new" "$1"
  LAYOUT=$2
}

# faults_schedule SEED CYCLES KINDS: schedule.txt, one "CYCLE KIND DELAY"
# line per cycle, from awk's srand(SEED) (the same seed gives the same
# schedule with the same awk). KINDS: "move reload state start" or a subset;
# the shares are 45/20/25/10 % of the kinds given.
#   move    kill 0-1.5 s after the moves a configuration flip causes began
#           (faults_wait_moving): mid-move_pages;
#   reload  kill 0-0.3 s after the SIGHUP of a flip: mid-reload;
#   state   kill 0-0.3 s after a register/unregister: mid state write;
#   start   kill 0-1.5 s after tierd was started: mid start-up.
faults_schedule() {
  awk -v seed="$1" -v n="$2" -v kinds="$3" 'BEGIN {
    srand(seed)
    w["move"] = 45; w["reload"] = 20; w["state"] = 25; w["start"] = 10
    k = split(kinds, names, " ")
    for (j = 1; j <= k; j++) total += w[names[j]]
    for (i = 1; i <= n; i++) {
      r = rand() * total
      for (j = 1; j < k && r >= w[names[j]]; j++) r -= w[names[j]]
      kind = names[j]
      if (kind == "move" || kind == "start") d = 1.5 * rand()
      else d = 0.3 * rand()
      printf "%d %s %.2f\n", i, kind, d
    }
  }' >schedule.txt
}

# faults_wait_moving SECS: until pgmigrate_success rises (tierd's moves
# began; nothing else migrates: the kernel's balancing and demotion are
# off), polled every 0.1 s for SECS at most. BEGAN is yes or no.
faults_wait_moving() {
  m0=$(migrated)
  j=0
  BEGAN=no
  while [ $j -lt $(($1 * 10)) ]; do
    [ "$(migrated)" -gt "$m0" ] && { BEGAN=yes; return 0; }
    j=$((j + 1))
    sleep 0.1
  done
}

# faults_touches: three tier-touch workloads (64 MiB each, first touched on
# node 2), children of the scenario: tierd's kills never touch them. One
# rewrites its pages all the time (a page moved mid-write), two hold still:
# a writer spins on a vCPU, and the guest's vCPUs share one TCG thread (two
# writers made 100 cycles take 900 s, a restart up to 20 s). TOUCH_PIDS.
faults_touches() {
  TOUCH_PIDS=
  n=0
  while [ $n -lt 3 ]; do
    if [ $n -lt 1 ]; then w=--write-while; else w=; fi
    start_touch "touch.$n" --size 64M --node 2 $w
    TOUCH_PIDS="$TOUCH_PIDS $P"
    n=$((n + 1))
  done
}

# faults_register SOCK: the workloads registered online with the quota.
faults_register() {
  for p in $TOUCH_PIDS; do
    tierctl --socket "$1" workloads register --pid "$p" --class online --quota 8M \
      >/dev/null 2>>register.err || { echo "register $p failed" >&2; exit 1; }
  done
}

# faults_recovered SOCK: what a (re)started tierd reports: LISTED (how many
# of TOUCH_PIDS it lists), NB_ORIG and DEM_ORIG (the originals of the knobs
# it owns, "-" when it owns none), FOUND (status.state_file.found).
faults_recovered() {
  tierctl --socket "$1" status --json 2>/dev/null | tr -d ' \n' >status.now
  tierctl --socket "$1" workloads list --json 2>/dev/null | tr -d ' \n' >list.now
  LISTED=0
  for p in $TOUCH_PIDS; do
    grep -q "\"pid\":$p[,}]" list.now && LISTED=$((LISTED + 1))
  done
  NB_ORIG=$(grep -o '"numa_balancing":{"original":"[^"]*"' status.now | sed 's/.*:"//; s/"$//')
  DEM_ORIG=$(grep -o '"demotion_enabled":{"original":"[^"]*"' status.now | sed 's/.*:"//; s/"$//')
  FOUND=$(grep -o '"state_file":{[^}]*}' status.now | grep -o '"found":"[^"]*"' | sed 's/.*:"//; s/"$//')
  RECOVERED="listed $LISTED nb_original ${NB_ORIG:--} dem_original ${DEM_ORIG:--} state_found ${FOUND:--} knobs_up $(knobs | tr ' ' /)"
}

# faults_verify: every tier-touch verifies all its pages (SIGUSR1; the
# verified line is appended to touch.N.out), then stops.
faults_verify() {
  n=0
  for p in $TOUCH_PIDS; do
    P=$p
    # A loaded guest took over 60 s for a writer's 16384 pages.
    verify_touch "touch.$n" 300
    n=$((n + 1))
  done
  for p in $TOUCH_PIDS; do kill -TERM "$p"; done
  for p in $TOUCH_PIDS; do wait "$p"; done
  TOUCH_PIDS=
}
