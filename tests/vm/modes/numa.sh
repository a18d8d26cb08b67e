# shellcheck shell=bash disable=SC2034
# numa: the 4-node HMAT machine (topology/numa4.json) on the bookworm-backports
# 6.12 kernel. 6.12 turns HMAT figures into abstract distances, so the kernel
# itself puts the slow CPU-less nodes 2-3 in a lower memory tier.
MODE_KERNEL=6.12
MODE_QEMU=system        # the host's QEMU 7.2 is enough without CXL
MODE_TOPOLOGY=numa4
