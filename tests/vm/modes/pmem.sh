# shellcheck shell=bash disable=SC2034
# pmem: the 4-node machine on bookworm's 6.1 kernel, with the memory of the
# CPU-less nodes 2-3 (guest physical 4-5 GiB and 5-6 GiB) declared legacy
# persistent memory (memmap=nn!ss) and brought back as system RAM through
# devdax + kmem. kmem-onlined memory gets the default dax abstract distance,
# which on 6.1 is the only way to see a lower kernel memory tier.
MODE_KERNEL=6.1
MODE_QEMU=system
MODE_TOPOLOGY=numa4
MODE_CMDLINE="memmap=1G!4G memmap=1G!5G"
MODE_MODULES="nd_e820 nd_pmem dax_pmem device_dax kmem"
MODE_TOOLS="ndctl daxctl"
