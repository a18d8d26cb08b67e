#!/bin/sh
# The test run itself, shared by both kinds of guest: sourced by the busybox
# PID 1 (guest/init) and run by the systemd mode's test unit
# (guest/vmtest.service). Runs the mode's setup, gathers the sysfs facts,
# runs every scenario under a time limit, and streams each result folder to
# the host over the second serial port (ttyS1, kept apart from the kernel
# console on ttyS0 so no printk can interleave). Powering off is the
# caller's job. Works in busybox ash and in Debian's dash.
#
# Wire format on ttyS1 (parsed by tests/vm/lib/results.py):
#   @@VMTEST BEGIN <mode>
#   @@TAR <step>                 then the step's output folder as a base64
#   @@EOF                        tar.gz (symlinks kept), after each step
#   @@DONE <step> <exit status>  steps: _setup, _facts, then each scenario
#   @@VMTEST END
# base64 keeps the payload immune to tty newline translation.

export PATH=/opt/tier/bin:/usr/sbin:/usr/bin:/sbin:/bin

# shellcheck source=/dev/null # written by lib/initramfs.sh
. /etc/vmtest.env

RES=/dev/ttyS1
stty -F "$RES" raw -echo 115200 2>/dev/null

say() { echo "$*" >"$RES"; }

# emit_step DIR NAME: send DIR to the host as one base64 tar.gz: a few
# processes per step rather than several per file (each fork costs
# milliseconds under TCG), and gzip shrinks the tar's 1 KiB-per-file
# padding, since the serial line moves only tens of KB/s in some modes.
emit_step() {
  say "@@TAR $2"
  tar -C "$1" -czf - . | base64 >"$RES"
  say "@@EOF"
}

# run_step NAME TIMEOUT COMMAND...: run with output and exit status under
# /out/NAME, then send that folder to the host at once, so a later hang
# still leaves the earlier results on the host.
run_step() {
  name=$1 limit=$2; shift 2
  out=/out/$name
  mkdir -p "$out"
  start=$(cut -d' ' -f1 /proc/uptime)
  (cd "$out" && OUT=$out timeout "$limit" "$@" >"$out/stdout" 2>"$out/stderr")
  rc=$?
  end=$(cut -d' ' -f1 /proc/uptime)
  echo "$rc" >"$out/rc"
  echo "$start $end" >"$out/uptime"
  emit_step "$out" "$name"
  say "@@DONE $name $rc"
  echo "vmtest-guest: $name exit $rc, ran $start-${end}s, sent at $(cut -d' ' -f1 /proc/uptime)s"
}

say "@@VMTEST BEGIN $VMTEST_MODE"
echo "vmtest-guest: mode $VMTEST_MODE kernel $(uname -r) up $(cut -d' ' -f1 /proc/uptime)s"

run_step _setup "$VMTEST_SETUP_TIMEOUT" sh /vm/setup.sh
run_step _facts 60 sh /vm/facts.sh

for s in $VMTEST_SCENARIOS; do
  # A scenario may ask for its own limit with a "# vmtest-timeout: SECS" line.
  limit=$(sed -n 's/^# vmtest-timeout: *\([0-9]*\).*/\1/p' "/vm/scenarios/$s.sh")
  run_step "$s" "${limit:-$VMTEST_SCENARIO_TIMEOUT}" sh "/vm/scenarios/$s.sh"
done

say "@@VMTEST END"
echo "vmtest-guest: done, up $(cut -d' ' -f1 /proc/uptime)s"
