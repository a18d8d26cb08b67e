# The machine's own processes, nobody registering them (issue 20, item 4):
# helpers of the scenarios discover_default (tierd started by hand on no
# configuration file) and discover_systemd (the shipped unit). Sourced:
# `. /vm/discover.sh`; dash and busybox sh.
#
# start_mix RUN: one plain shell loop starts 50 processes, none registered,
# no tierctl:
#   small0..small44  tier-touch, 4-15 MiB on nodes 0-3 (by i), asleep: under
#                    the 64 MiB discovery threshold, so never workloads;
#   cold0            tier-touch, 192 MiB on node 0, asleep;
#   fill0            tier-touch on node 0 until 48 MiB of it is free, asleep;
#   hot0..hot2       hotset, 160 MiB first-touched on node 2 (then unbound),
#                    a 48 MiB hot set written by CPU 0 or 1 (node 0's), with
#                    a census of its own hot set's residency every second:
#                    144 MiB of hot sets that fit on node 0 only once cold
#                    data leaves it.
# Every tier-touch is started with --rebind default: no memory policy of its
# own after the fill, so where its pages go is tierd's choice (a bound
# process must not be moved). Small ones start first and node 0's filler
# after them (a bound fill into a node already at its floor would reclaim),
# the hotsets last (started before the filler, their hot sets were promoted
# into the room it then took, and nothing needed demoting). LAUNCH is how
# each process starts: launch_direct (a child of this shell, as a script
# would) or launch_unit (a transient systemd service, its own cgroup, as
# the services of a systemd machine are); mix.pids gets "NAME PID" per
# process once its start line is out.
#
# settle_mix SOCK SECS: polls tierd's status every 3 s, up to SECS, until the
# three hot sets' census share on the fast nodes is >= 0.9 each and tierd has
# demoted something; wait.txt says how long and the trail.
# collect_mix SOCK: status and workloads (JSON), then every tier-touch is
# verified (SIGUSR1: its pages checked, its nodes asked from move_pages) and
# every hotset stopped (it verifies its pages at exit).
# shellcheck shell=sh

MIX_SMALL=45

# launch_direct NAME PROGRAM ARGS...: PID = the child's pid.
launch_direct() {
  name=$1
  shift
  "$@" >"$name.out" 2>"$name.err" &
  PID=$!
}

# launch_unit NAME PROGRAM ARGS...: the program as transient service
# mix-NAME.service (collected when it ends), in this directory, its output
# in NAME.out/err; PID = the service's main pid.
launch_unit() {
  name=$1
  bin=$(command -v "$2")
  shift 2
  systemd-run --quiet --collect --unit="mix-$name" -p WorkingDirectory="$PWD" \
    -p StandardOutput="file:$PWD/$name.out" -p StandardError="file:$PWD/$name.err" \
    "$bin" "$@"
  PID=$(systemctl show -P MainPID "mix-$name.service")
}

# mix_ready NAME PID: waits up to 300 s for NAME's start line (tier-touch's
# first stdout line, hotset's ready file); dies with what it waited for.
# (Its own counter: sh has one namespace, and start_mix counts in i.)
mix_ready() {
  tries=0
  until [ -e "$1.ready" ] || { [ "${1#hot}" = "$1" ] && [ -s "$1.out" ]; }; do
    tries=$((tries + 1))
    [ $tries -lt 3000 ] || { echo "$1 (pid $2) did not start within 300 s: $(cat "$1.err")" >&2; exit 1; }
    kill -0 "$2" 2>/dev/null || { echo "$1 (pid $2) died: $(cat "$1.err")" >&2; exit 1; }
    sleep 0.1
  done
  echo "$1 $2" >>mix.pids
}

start_mix() {
  launch=$1
  : >mix.pids
  i=0
  while [ $i -lt 50 ]; do
    if [ $i -lt $MIX_SMALL ]; then
      $launch small$i tier-touch --size $((4 + i % 12))M --node $((i % 4)) --rebind default
    elif [ $i -eq $MIX_SMALL ]; then
      $launch cold0 tier-touch --size 192M --node 0 --rebind default
    elif [ $i -eq $((MIX_SMALL + 1)) ]; then
      $launch fill0 tier-touch --size 1G --node 0 --leave-free 48M --rebind default
    else
      name=hot$((i - MIX_SMALL - 2))
      $launch $name hotset --size 160M --hot 48M --dist uniform --node 2 --policy first-touch \
        --cpus $((i % 2)) --threads 1 --mix write --duration 900 --ready-file $name.ready \
        --census $name.census --census-ms 1000 --fast-nodes 0-1
    fi
    mix_ready "$name" "$PID"
    i=$((i + 1))
  done
}

# cpu_mark start|end PID: uptime and the process's utime + stime ticks
# (USER_HZ, 100 on x86) appended to cpu.txt.
cpu_mark() {
  echo "$1 $(cut -d' ' -f1 /proc/uptime) $(cut -d' ' -f14,15 "/proc/$2/stat" |
    awk '{ print $1 + $2 }') 100" >>cpu.txt
}

# mix_knobs FILE: the kernel's two tiering knobs as "name value" lines.
mix_knobs() {
  {
    echo "numa_balancing $(cat /proc/sys/kernel/numa_balancing)"
    echo "demotion_enabled $(cat /sys/kernel/mm/numa/demotion_enabled)"
  } >"$1"
}

# run_mix LAUNCH SOCK PID: with tierd (PID) serving on SOCK: the knobs
# (knobs.during), the 50 processes (start_mix LAUNCH), settle_mix, then
# DISCOVER_HOLD_S seconds more (from /etc/vmtest.env: `run.sh --env`; a
# benchmark window, 0 in make test), tierd's CPU over it all (cpu.txt),
# vmstat.after, collect_mix.
run_mix() {
  mix_knobs knobs.during
  cpu_mark start "$3"
  start_mix "$1"
  settle_mix "$2" 240
  sleep "${DISCOVER_HOLD_S:-0}"
  cpu_mark end "$3"
  cp /proc/vmstat vmstat.after
  collect_mix "$2"
}

# hot_share NAME: the last census share of hotset NAME (0 before the first).
hot_share() {
  tail -n 1 "$1.census" 2>/dev/null | grep -o '"share":[0-9.e-]*' | cut -d: -f2
}

settle_mix() {
  sock=$1 limit=$2 waited=0 trail=''
  while :; do
    done_hot=0
    for h in hot0 hot1 hot2; do
      s=$(hot_share $h)
      awk -v s="${s:-0}" 'BEGIN { exit !(s >= 0.9) }' && done_hot=$((done_hot + 1))
    done
    demoted=$(tierctl --socket "$sock" status --json 2>/dev/null |
      grep -o '"demoted_bytes": *[0-9]*' | grep -o '[0-9]*$' | awk '{ s += $1 } END { print s + 0 }')
    [ $((waited % 15)) -ne 0 ] ||
      trail="$trail ${waited}s:hot=$done_hot/3,demoted=$demoted"
    { [ $done_hot -eq 3 ] && [ "$demoted" -gt 0 ]; } && break
    [ $waited -lt "$limit" ] || break
    sleep 3
    waited=$((waited + 3))
  done
  echo "waited_s $waited of $limit; hot sets at >= 0.9: $done_hot/3; demoted $demoted; trail$trail" \
    >wait.txt
}

collect_mix() {
  tierctl --socket "$1" status --json >status.json 2>status.err
  tierctl --socket "$1" status >status.txt 2>&1
  tierctl --socket "$1" workloads --json >workloads.json 2>workloads.err
  while read -r name pid; do
    case $name in
      hot*) kill -TERM "$pid" ;;
      *) kill -USR1 "$pid" ;;
    esac
  done <mix.pids
  # Each tier-touch prints its verify line; each hotset its exit line.
  while read -r name pid; do
    tries=0
    until [ "$(grep -c verified "$name.out" 2>/dev/null)" -gt 0 ]; do
      tries=$((tries + 1))
      [ $tries -lt 1200 ] || { echo "$name (pid $pid) did not verify within 120 s" >&2; break; }
      sleep 0.1
    done
  done <mix.pids
  while read -r name pid; do
    kill -TERM "$pid" 2>/dev/null
  done <mix.pids
}
