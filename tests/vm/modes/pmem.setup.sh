#!/bin/sh
# pmem mode, in the guest: the kernel found two legacy pmem ranges
# (memmap=1G!4G, memmap=1G!5G: the memory of nodes 2 and 3) as raw
# namespaces. Turn each into a devdax namespace, then hand the dax devices
# to kmem as system RAM, onlined movable (daxctl's default), so nodes 2-3
# come back as CPU-less memory nodes that the kernel tiers as slow memory.
set -eu
for ns in /sys/bus/nd/devices/namespace*.*; do
  ndctl create-namespace --force --reconfig="${ns##*/}" --mode=devdax
done
daxctl reconfigure-device --mode=system-ram all
daxctl list
