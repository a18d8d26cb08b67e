#!/bin/sh
# cxl mode, in the guest: build a volatile RAM region over the CXL type-3
# device and let kmem online it as a new CPU-less node. Bookworm's
# "cxl create-region -t ram" answers "not supported yet", so this is the
# sysfs sequence that tool performs for a one-device, one-way region.
set -eu
C=/sys/bus/cxl/devices

# The root decoder is the CXL fixed memory window (CFMWS) that accepts RAM;
# the endpoint decoder belongs to the memory device's endpoint port.
root=""
for d in "$C"/decoder*; do
  if [ -f "$d/create_ram_region" ] && [ "$(cat "$d/cap_ram")" = 1 ]; then
    root=${d##*/}; break
  fi
done
set -- "$C"/endpoint*/decoder*.0
ep=${1##*/}
if [ -z "$root" ] || [ ! -e "$C/$ep" ]; then
  echo "no CXL root/endpoint decoder"; ls -l "$C"; exit 1
fi
# One memory device in this machine: mem0.
size=$(( $(cat "$C/mem0/ram/size") ))
echo "root decoder $root, endpoint decoder $ep, ram size $size"

region=$(cat "$C/$root/create_ram_region")
echo "$region" >"$C/$root/create_ram_region"
echo 256 >"$C/$region/interleave_granularity"
echo 1 >"$C/$region/interleave_ways"
echo ram >"$C/$ep/mode"
echo "$size" >"$C/$ep/dpa_size"
echo "$size" >"$C/$region/size"
echo "$ep" >"$C/$region/target0"
echo 1 >"$C/$region/commit"
[ -e "$C/$region/driver" ] || echo "$region" >/sys/bus/cxl/drivers/cxl_region/bind
echo "committed $region: $(cat "$C/$region/resource") size $(cat "$C/$region/size")"

# kmem onlines the region's dax device by itself (6.12 onlines hotplugged
# memory by default); wait until its node has memory.
i=0
while :; do
  for dax in /sys/bus/dax/devices/dax*; do
    [ -e "$dax/target_node" ] || continue
    node=$(cat "$dax/target_node")
    if [ -e "/sys/devices/system/node/node$node" ] &&
       grep -q "MemTotal: *[1-9]" "/sys/devices/system/node/node$node/meminfo"; then
      echo "${dax##*/} (driver $(basename "$(readlink "$dax/driver")")) online as node $node"
      grep MemTotal "/sys/devices/system/node/node$node/meminfo"
      exit 0
    fi
  done
  i=$((i + 1))
  [ $i -lt 60 ] || { echo "CXL memory never came online"; ls -l /sys/bus/dax/devices/; exit 1; }
  sleep 0.5
done
