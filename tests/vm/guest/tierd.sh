# shellcheck shell=sh
# tierd in a scenario: started in the background from a config file, with
# metrics off, its log in tierd.log and its state in state.json of the
# scenario's directory; stopped with SIGTERM (every setting restored).

T=

# start_tierd CONFIG SOCKET [METRICS]: T = tierd's pid once it answers
# `status`; METRICS is --metrics's ADDR:PORT (default off).
start_tierd() {
  tierd --foreground --config "$1" --socket "$2" --metrics "${3:-off}" --state state.json \
    >tierd.log 2>&1 &
  T=$!
  i=0
  until tierctl --socket "$2" status >/dev/null 2>&1; do
    i=$((i + 1)); [ $i -lt 300 ] || { echo "tierd did not answer" >&2; exit 1; }
    sleep 0.1
  done
}

# stop_tierd: SIGTERM and wait; nothing when it is not running.
stop_tierd() {
  [ -z "$T" ] || { kill -TERM "$T" 2>/dev/null; wait "$T" 2>/dev/null; T=; }
}
