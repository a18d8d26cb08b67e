#!/bin/sh
# vmtest-modes: all
# vmtest-timeout: 30
# The emulated machine itself: the harness has already gathered the sysfs
# facts (guest/facts.sh); machine.check.py holds them against the expected
# results, so a wrong QEMU topology is reported as such, not as a tier bug.
# Here: the memory of every node must really be usable.
for n in /sys/devices/system/node/node[0-9]*; do
  echo "${n##*/} $(grep -o 'MemFree: *[0-9]* kB' "$n/meminfo")"
done
