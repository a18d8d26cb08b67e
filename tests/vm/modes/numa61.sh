# shellcheck shell=bash disable=SC2034
# numa61: the same 4-node HMAT machine on bookworm's 6.1 kernel, which puts
# every node in one memory tier whatever HMAT says: tier must rank the
# nodes from HMAT itself.
MODE_KERNEL=6.1
MODE_QEMU=system
MODE_TOPOLOGY=numa4
