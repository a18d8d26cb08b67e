# shellcheck shell=bash disable=SC2034
# model: the 4-node HMAT machine of the numa mode (topology/numa4.json, the
# 6.12 kernel) whose slow memory is really slow. The tiermodel TCG plugin
# (tests/vm/plugin, docs/testing.md "The latency model") charges every guest
# miss the HMAT latency or bandwidth of (the vCPU's node -> the line's node)
# and queues demand above a node's bandwidth; the setup calibrates it.
# QEMU 10 (bookworm-backports): its plugin API gives the true guest-physical
# address (7.2's is a RAMBlock offset), and its multi-threaded TCG runs one
# host thread per vCPU, so a stalled vCPU stalls only itself. Scenarios that
# attach eBPF to hot tracepoints run in numa (single-threaded QEMU 7.2, see
# modes/numa.sh); QEMU 10 passed them multi-threaded (environment guide),
# but none is needed here.
MODE_KERNEL=6.12
MODE_QEMU=qemu10
MODE_TOPOLOGY=numa4
MODE_TCG_THREAD=multi
MODE_PLUGIN=tiermodel
# The head-to-head's key-value workload (scenarios/h2h_kv.sh) serves from
# Debian's redis-server (scripts/install-deps.sh installs it).
MODE_TOOLS="redis-server"
# nohz=off: a periodic tick on every vCPU. Under multi-threaded TCG one boot
# in about a dozen lost vCPU 3 in idle from the 5th second on (its timer
# never fired: "rcu_preempt kthread starved ... ->cpu=3", the CPU halted but
# answering NMIs), which left its threads stuck; with a periodic tick a lost
# wake-up is followed by the next tick's.
MODE_CMDLINE="nohz=off"
