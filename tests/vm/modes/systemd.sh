# shellcheck shell=bash disable=SC2034,SC2054
# systemd: the numa mode's machine (4 nodes, HMAT, the 6.12 kernel) booting a
# real Debian userspace with systemd as PID 1, for what only a systemd host
# can show: tierd as a service, sd_notify, restarts, tierctl doctor's
# systemd check. The root filesystem is a cached debootstrap image
# (lib/rootfs.sh) on a virtio disk; the initramfs loads the disk's modules,
# copies the run's binaries and scenarios in and switches to systemd
# (guest/switchroot.sh), whose test unit runs the same steps as the busybox
# guest (guest/steps.sh).
MODE_KERNEL=6.12
MODE_QEMU=system
MODE_TOPOLOGY=numa4
MODE_ROOTFS=debian
# The root disk: virtio-blk and ext4 with its checksum (metadata_csum asks
# the crypto API for crc32c, which no module dependency pulls in).
MODE_MODULES="virtio_blk ext4 crc32c_generic"
MODE_CMDLINE="vmtest.root=/dev/vda"
# One TCG thread, as the numa mode (see modes/numa.sh): `tierctl doctor`
# attaches and detaches BPF/perf probes, the kernel re-patches the static
# keys behind them (perf_sched_delayed, text_poke_bp) and multi-threaded TCG
# once ran a stale int3 in __schedule here ("Oops: int3", a guest panic, in
# one CI rehearsal of six).
MODE_TCG_THREAD=single
# snapshot=on: the guest's writes go to a temporary overlay, never to the
# cached image. QEMU reads a doubled comma as a literal one in a file name.
_rootfs=$(rootfs_image)
MODE_QEMU_ARGS=(
  -drive "if=none,id=root,format=raw,snapshot=on,file=${_rootfs//,/,,}"
  -device virtio-blk-pci,drive=root
)
unset _rootfs
