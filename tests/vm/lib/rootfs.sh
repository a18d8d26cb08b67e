# shellcheck shell=bash
# The Debian root filesystem of the systemd mode: debootstrap from the mirror
# this machine already uses (read from /etc/apt by lib/apt_sources.py, never
# written in the repository), made into an ext4 image with "mke2fs -d" (no
# loop mount, so no privileges beyond writing files). The image is cached in
# $VMB/rootfs and rebuilt only when its recipe below changes; QEMU opens it
# with snapshot=on, so no run ever writes to the cache. What changes between
# runs (the project's binaries, the scenarios, the test unit) is not in the
# image: the initramfs carries it and guest/switchroot.sh copies it in at
# boot, in the guest's throwaway snapshot.
#
# Needs: VMB, VM_DIR, common.sh, fetch.sh (APT_CODENAME).

# The recipe: any change here rebuilds the image. minbase lacks /bin/kill,
# which procps brings; kmod gives systemd modprobe for its own module loads.
readonly ROOTFS_VARIANT=minbase
readonly ROOTFS_INCLUDE=systemd,systemd-sysv,udev,kmod,procps
# Room for the run's payload and results next to ~270 MB of Debian; the
# file is sparse, so unused space costs nothing on the host.
readonly ROOTFS_SIZE=1G

# rootfs_image: the cached image's path (valid once fetch_rootfs has run).
rootfs_image() { printf '%s\n' "$VMB/rootfs/root.ext4"; }

# fetch_rootfs KIND: make $(rootfs_image) exist for the current recipe.
# KIND is a mode's MODE_ROOTFS; "debian" is the only kind there is.
fetch_rootfs() {
  local dir="$VMB/rootfs" recipe source mirror keyring start
  [[ $1 == debian ]] || die "unknown MODE_ROOTFS '$1' (only 'debian')"
  recipe="$APT_CODENAME variant=$ROOTFS_VARIANT include=$ROOTFS_INCLUDE size=$ROOTFS_SIZE"
  [[ -f $dir/.ready && $(cat "$dir/.ready") == "$recipe" ]] && return 0
  command -v debootstrap >/dev/null ||
    die "the systemd mode needs debootstrap on the host (scripts/install-deps.sh)"
  source=$("$PY" "$VM_DIR/lib/apt_sources.py" "$APT_CODENAME" "$APT_CODENAME") ||
    die "no Debian mirror configured in /etc/apt"
  mirror=$(sed -n 's/^URIs: //p' <<<"$source")
  keyring=$(sed -n 's/^Signed-By: //p' <<<"$source")
  log "rootfs: debootstrap $APT_CODENAME ($ROOTFS_VARIANT + $ROOTFS_INCLUDE), 1-3 minutes"
  start=$(now)
  rm -rf "$dir"; mkdir -p "$dir"
  run_logged "$dir/debootstrap.log" debootstrap --variant="$ROOTFS_VARIANT" \
    --include="$ROOTFS_INCLUDE" --keyring="$keyring" \
    "$APT_CODENAME" "$dir/tree" "$mirror"
  # The downloaded packages would only make the image bigger.
  rm -f "$dir"/tree/var/cache/apt/archives/*.deb
  run_logged "$dir/mke2fs.log" mke2fs -q -t ext4 -L vmroot -d "$dir/tree" \
    "$dir/root.ext4" "$ROOTFS_SIZE"
  rm -rf "$dir/tree"
  printf '%s\n' "$recipe" >"$dir/.ready"
  log "rootfs: built $(rootfs_image) in $(elapsed "$start")s"
}
