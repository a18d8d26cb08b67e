#!/bin/sh
# Gather the guest's topology facts as a partial copy of its /sys and /proc
# under $OUT (same paths, symlinks kept as symlinks). The host reads this as
# the ground truth of the boot, and the copy doubles as a fixture tree for
# tier's sysfs root seam. Only named files are read: a whole-/sys copy would
# be slow, and could trip on write-only attributes.
#
# Under TCG every fork costs milliseconds, so the paths are collected with
# shell globs first and copied by one awk process.

FILES=""
LINKS=""

# want PATH...: queue existing regular files / symlinks for copying.
want() {
  for p in "$@"; do
    if [ -L "$p" ]; then
      LINKS="$LINKS $p"
    elif [ -f "$p" ]; then
      FILES="$FILES $p"
    fi
  done
}

# want_device LINK: a /sys/bus/*/devices entry: the link, its driver link,
# and every plain attribute one level down in the device directory.
want_device() {
  want "$1" "$1/driver"
  for f in "$1"/*; do
    [ -L "$f" ] || want "$f"
  done
}

want /proc/cmdline /proc/version /proc/meminfo /proc/iomem /proc/zoneinfo \
     /proc/sys/kernel/numa_balancing /sys/kernel/mm/numa/demotion_enabled

# NUMA nodes, SLIT distances, HMAT access classes.
N=/sys/devices/system/node
want $N/online $N/possible $N/has_cpu $N/has_memory $N/has_normal_memory \
     $N/has_generic_initiator
for n in "$N"/node[0-9]*; do
  want "$n/cpulist" "$n/distance" "$n/meminfo" "$n"/cpu[0-9]*
  for a in "$n"/access[0-9]*; do
    want "$a"/initiators/read_latency "$a"/initiators/write_latency \
         "$a"/initiators/read_bandwidth "$a"/initiators/write_bandwidth \
         "$a"/initiators/node[0-9]* "$a"/targets/node[0-9]*
  done
  for c in "$n"/memory_side_cache/index[0-9]*; do
    want "$c"/size "$c"/line_size "$c"/indexing "$c"/write_policy
  done
done
want /sys/devices/system/memory/block_size_bytes \
     /sys/devices/system/memory/auto_online_blocks \
     /sys/devices/system/cpu/online /sys/devices/system/cpu/possible

# The kernel's memory tiers.
for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
  want "$t/nodelist"
done

# Where CPU-less memory comes from: nvdimm (pmem), dax, CXL. The device
# entries are links into /sys/devices; their attributes are read through
# the link but stored at the link's target path, as in a real tree.
for d in /sys/bus/nd/devices/* /sys/bus/dax/devices/* /sys/bus/cxl/devices/*; do
  [ -e "$d" ] && want_device "$d"
done
# PCI: only what locates a device (a full copy would include config space).
for d in /sys/bus/pci/devices/*; do
  [ -e "$d" ] && want "$d" "$d/driver" "$d/class" "$d/vendor" "$d/device" \
                      "$d/numa_node" "$d/local_cpulist"
done

# Store every path at its link-free location, so that /sys/bus/x/devices/d
# stays a link and the attributes land under /sys/devices/... . realpath of
# the directory (one fork for all) gives those locations.
# shellcheck disable=SC2086 # word lists by design; sysfs paths have no spaces
{
  for f in $FILES; do echo "F $f"; done
  for l in $LINKS; do echo "L $l"; done
} >/tmp/facts.list
awk '{ print $2 }' /tmp/facts.list | sed 's,/[^/]*$,,' | sort -u | xargs realpath \
  >/tmp/facts.dirs
awk '{ print $2 }' /tmp/facts.list | sed 's,/[^/]*$,,' | sort -u >/tmp/facts.dirnames

# One awk: map each dir to its real path, mkdir them (one command), copy the
# files, and print the links for the shell to recreate.
awk -v out="$OUT" '
  FILENAME == "/tmp/facts.dirnames" { name[FNR] = $0; next }
  FILENAME == "/tmp/facts.dirs"     { real[name[FNR]] = $0; next }
  {
    dir = $2; sub(/\/[^\/]*$/, "", dir)
    base = $2; sub(/.*\//, "", base)
    n++; kind[n] = $1; src[n] = $2; dst[n] = out real[dir] "/" base
    if (!(real[dir] in made)) { made[real[dir]] = 1; dirs = dirs " \"" out real[dir] "\"" }
  }
  END {
    system("mkdir -p" dirs)
    for (i = 1; i <= n; i++) {
      if (kind[i] == "F") {
        while ((getline line < src[i]) > 0) print line > dst[i]
        close(src[i]); close(dst[i])
      } else {
        print src[i] "\t" dst[i]
      }
    }
  }' /tmp/facts.dirnames /tmp/facts.dirs /tmp/facts.list >/tmp/facts.links

# Symlinks keep their relative targets, which stay valid inside the copy.
while IFS="$(printf '\t')" read -r src dst; do
  ln -s "$(readlink "$src")" "$dst"
done </tmp/facts.links

# Raw ACPI tables (binary: cp, not awk), for parsers that read
# HMAT/SRAT/SLIT/CEDT themselves.
mkdir -p "$OUT/sys/firmware/acpi/tables"
for t in HMAT SRAT SLIT CEDT; do
  if [ -f /sys/firmware/acpi/tables/$t ]; then
    cp /sys/firmware/acpi/tables/$t "$OUT/sys/firmware/acpi/tables/"
  fi
done
