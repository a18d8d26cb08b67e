#!/bin/sh
# vmtest-modes: systemd
# vmtest-timeout: 90
# A real systemd host: who PID 1 is, whether the boot finished, which
# nodes the kernel shows and what tierctl doctor says about systemd. The
# raw observations go to files; systemd_boot.check.py judges them.

cat /proc/1/comm >pid1.comm
readlink /proc/1/exe >pid1.exe
# --wait: until the boot has finished. The test unit is Type=exec, so its
# own run does not hold the boot up (see guest/switchroot.sh).
timeout 60 systemctl is-system-running --wait >system.state 2>&1
echo $? >system.state.rc
# Every failed unit, to name them if the state is "degraded".
systemctl list-units --state=failed --no-legend --plain >failed.units 2>&1
# Where the boot's time went (reported, not judged: TCG on a shared host).
systemd-analyze time >analyze.time 2>&1
systemd-analyze blame --no-pager >analyze.blame 2>&1
cat /sys/devices/system/node/online >nodes.online
tierctl doctor --json >doctor.json
