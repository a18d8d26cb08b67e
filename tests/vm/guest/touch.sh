# Helpers for scenarios that run tier-touch (workloads/tier-touch.cpp), the
# process with a verifiable buffer. Sourced by scenarios: `. /vm/touch.sh`.
# OUT names the files: OUT.out (tier-touch's JSON lines), OUT.err.
# shellcheck shell=sh disable=SC2034  # P and RANGE are for the sourcing scenario

# start_touch OUT ARGS...: start tier-touch, wait for its start line.
# Sets P (its pid) and RANGE (its buffer as START-END for --range).
start_touch() {
  out=$1; shift
  start_touch_cmd "$out" tier-touch "$@"
}

# start_touch_cmd OUT COMMAND...: as start_touch, for a COMMAND that execs
# tier-touch in the end (taskset, or a shell that joins a cgroup first).
start_touch_cmd() {
  out=$1; shift
  "$@" >"$out.out" 2>"$out.err" &
  P=$!
  st_tries=0
  until grep -q '"pid"' "$out.out" 2>/dev/null; do
    st_tries=$((st_tries + 1)); [ $st_tries -lt 600 ] || { echo "tier-touch $out did not start" >&2; cat "$out.err" >&2; exit 1; }
    kill -0 "$P" 2>/dev/null || { echo "tier-touch $out died" >&2; cat "$out.err" >&2; exit 1; }
    sleep 0.1
  done
  RANGE=$(sed -n '1s/.*"addr":"\([^"]*\)","end":"\([^"]*\)".*/\1-\2/p' "$out.out")
}

# verify_touch OUT [SECS]: ask tier-touch (pid P) to verify its data; waits
# (SECS, default 60) for the new "verified" line it appends to OUT.out.
# Its variables have names of their own: sh has no locals, and a caller's
# loop over n (guest/faults.sh) once counted touch.0, touch.1, touch.1 - the
# third verification waited on the wrong file and faults_kill failed.
verify_touch() {
  vt_before=$(grep -c verified "$1.out")
  kill -USR1 "$P"
  vt_tries=0
  until [ "$(grep -c verified "$1.out")" -gt "$vt_before" ]; do
    vt_tries=$((vt_tries + 1))
    [ $vt_tries -lt $((${2:-60} * 10)) ] ||
      { echo "tier-touch $1 did not verify within ${2:-60} s" >&2; exit 1; }
    sleep 0.1
  done
}

# finish_touch OUT: verify, then stop tier-touch.
finish_touch() {
  verify_touch "$1"
  kill -TERM "$P"
  wait "$P"
}

# migrate_touch SETTLE_SECONDS TOUCH_ARGS...: the body of the migrate
# scenarios. A tier-touch buffer (first touch per TOUCH_ARGS) is moved to
# node 0 by `tierctl migrate --range`, with the kernel's numa_maps before and
# after, `tierctl stats` after, and tier-touch's own verification; files for
# migrate.check.py: migrate.json/.rc, stats.json/.rc, numa_maps.before/.after,
# touch.out/.rc.
migrate_touch() {
  settle=$1; shift
  start_touch touch "$@"
  sleep "$settle"
  cp "/proc/$P/numa_maps" numa_maps.before
  tierctl migrate --pid "$P" --to 0 --range "$RANGE" --json >migrate.json 2>migrate.err
  echo $? >migrate.rc
  tierctl stats --pid "$P" --json >stats.json 2>stats.err
  echo $? >stats.rc
  cp "/proc/$P/numa_maps" numa_maps.after
  verify_touch touch
  kill -TERM "$P"
  wait "$P"
  echo $? >touch.rc
  echo "tierctl migrate --pid $P --to 0 --range $RANGE --json: exit $(cat migrate.rc)"
}
