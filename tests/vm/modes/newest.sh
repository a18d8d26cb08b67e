# shellcheck shell=bash disable=SC2034
# newest: the numa mode's 4-node HMAT machine on the newest kernel the mirror
# offers (7.3 from trixie-backports today), as a guest and as a contender:
# DAMON's auto-tuned tiering (DAMOS quota goals node_mem_used_bp and
# node_mem_free_bp, 6.16+), weighted interleave with automatic weights from
# HMAT (6.16+), PAGEMAP_SCAN. QEMU 10 (its newer machine and firmware);
# single-threaded TCG as numa, for the eBPF scenarios' sake.
MODE_KERNEL=7.3
MODE_QEMU=qemu10
MODE_TOPOLOGY=numa4
MODE_TCG_THREAD=single
