# shellcheck shell=bash disable=SC2034
# numa: the 4-node HMAT machine (topology/numa4.json) on the bookworm-backports
# 6.12 kernel. 6.12 turns HMAT figures into abstract distances, so the kernel
# itself puts the slow CPU-less nodes 2-3 in a lower memory tier.
MODE_KERNEL=6.12
MODE_QEMU=system        # the host's QEMU 7.2 is enough without CXL
MODE_TOPOLOGY=numa4
# Single-threaded TCG: the heat scenarios attach eBPF programs to tracepoints
# on hot paths (page faults, sched_switch) while the workload runs, and the
# kernel patches those call sites with text_poke_bp. Under multi-threaded TCG
# (QEMU 7.2) the other vCPU then sometimes executes a stale int3 - "Oops:
# int3" in exc_page_fault or __schedule, a guest panic (2 of 3 runs). One
# TCG thread runs the vCPUs in turn, so no vCPU sees half-patched code. Real
# CPUs synchronise text_poke_bp correctly: this is the emulator's limit.
MODE_TCG_THREAD=single
