# shellcheck shell=bash
# Small helpers shared by the tests/vm host scripts. Sourced, never run.

# The system Python (stdlib only): not whatever python3 a developer's PATH has.
# shellcheck disable=SC2034 # used by the scripts that source this
PY=/usr/bin/python3
# The checks import lib/vmcheck.py: keep __pycache__ out of the source tree.
export PYTHONDONTWRITEBYTECODE=1

# Messages go to stderr so that stdout stays the PASS/FAIL report.
log() { printf 'vmtest: %s\n' "$*" >&2; }
die() { printf 'vmtest: error: %s\n' "$*" >&2; exit 2; }

# Seconds since the epoch with millisecond resolution, for timings in logs.
now() { date +%s.%3N; }

# elapsed START -> "12.3" seconds since START (a value from now()).
elapsed() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.1f", e - s }'; }

# Run a command with its output sent to a log file; show the log's tail if
# it fails, since a bare "apt-get failed" helps nobody.
run_logged() {
  local logfile=$1; shift
  if ! "$@" >>"$logfile" 2>&1; then
    log "command failed: $*"
    tail -n 20 "$logfile" >&2
    return 1
  fi
}
