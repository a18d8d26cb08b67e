# shellcheck shell=bash
# Downloads for the test machine: guest kernels and QEMU 10, both as stock
# Debian packages from the mirror this machine already uses, through a
# private apt configuration under $VMB/apt (the host's apt state is never
# touched). Everything is unpacked once and cached; a stamp file marks a
# finished unpack, so a second run downloads nothing and does not even run
# "apt-get update".
#
# Needs: VMB (cache root), VM_DIR (tests/vm), common.sh.

# The suites the kernels come from. Suite names only: the mirror host is read
# from /etc/apt at run time (lib/apt_sources.py).
readonly APT_CODENAME=bookworm
# 7.3: the newest kernel the mirror offers (trixie-backports, the newest
# mode); its packages split the kernel image and modules out of linux-image.
declare -A KERNEL_SUITE=([6.12]=bookworm-backports [6.1]=bookworm [7.3]=trixie-backports)

# apt_priv TOOL ARGS... : run apt-get/apt-cache against the private config.
apt_priv() {
  local tool=$1; shift
  "$tool" \
    -o Dir::Etc::SourceList=/dev/null \
    -o Dir::Etc::SourceParts="$VMB/apt/sources.list.d" \
    -o Dir::State::Lists="$VMB/apt/lists" \
    -o Dir::Cache="$VMB/apt/cache" \
    -o APT::Sandbox::User=root \
    "$@"
}

# apt_init: write the private sources and refresh their package lists, at
# most once per run and only when something must really be downloaded. The
# stamp holds the runner's PID ($$ is the same in the per-mode subshells).
apt_init() {
  [[ $(cat "$VMB/apt/updated-by" 2>/dev/null) == "$$" ]] && return 0
  mkdir -p "$VMB/apt/sources.list.d" "$VMB/apt/lists/partial" \
           "$VMB/apt/cache/archives/partial"
  "$PY" "$VM_DIR/lib/apt_sources.py" "$APT_CODENAME" \
      "$APT_CODENAME" "$APT_CODENAME-backports" trixie-backports \
      >"$VMB/apt/sources.list.d/tier-vm.sources"
  log "apt: refreshing private package lists ($APT_CODENAME, $APT_CODENAME-backports, trixie-backports)"
  run_logged "$VMB/apt/apt.log" apt_priv apt-get -q update
  echo "$$" >"$VMB/apt/updated-by"
}

# apt_download_to DIR PKG... : download .debs (no dependency resolution) into DIR.
apt_download_to() {
  local dir=$1; shift
  mkdir -p "$dir"
  (cd "$dir" && run_logged "$VMB/apt/apt.log" apt_priv apt-get -q download "$@")
}

# resolve_kernel_package KVER -> the versioned linux-image package name that
# the suite's linux-image-amd64 metapackage currently points at.
resolve_kernel_package() {
  local kver=$1 suite=${KERNEL_SUITE[$1]} tmp dep
  tmp=$(mktemp -d "$VMB/tmp.XXXXXX")
  apt_download_to "$tmp" "linux-image-amd64/$suite"
  # "linux-image-6.12.95+deb12-amd64 (= 6.12.95-1~bpo12+1)" -> package name
  # (7.x: "linux-base-amd64 (= ...), linux-image-7.3.4+deb13-amd64 (= ...), ...")
  dep=$(dpkg-deb -f "$tmp"/linux-image-amd64_*.deb Depends | tr ',' '\n' |
        grep -o 'linux-image-[0-9][^ ]*' | head -n1)
  rm -rf "$tmp"
  [[ $dep == linux-image-"$kver".* ]] ||
    die "linux-image-amd64 in $suite points at '$dep', not a $kver kernel"
  printf '%s\n' "$dep"
}

# fetch_kernel KVER: make $VMB/kernel-KVER/{vmlinuz,release,root/lib/modules}
# exist, with modules.dep generated (the package ships none: depmod runs at
# install time on a real system).
fetch_kernel() {
  local kver=$1 dir="$VMB/kernel-$1" pkg tmp release
  [[ -n ${KERNEL_SUITE[$kver]:-} ]] || die "unknown kernel '$kver' (${!KERNEL_SUITE[*]})"
  [[ -f $dir/.ready ]] && return 0
  apt_init
  pkg=$(resolve_kernel_package "$kver")
  log "kernel $kver: downloading $pkg"
  rm -rf "$dir"; mkdir -p "$dir"
  tmp=$(mktemp -d "$VMB/tmp.XXXXXX")
  apt_download_to "$tmp" "$pkg/${KERNEL_SUITE[$kver]}"
  release=${pkg#linux-image-}
  # Since 7.x linux-image is a metapackage: the kernel is in linux-binary,
  # the modules in linux-modules, the config and modules.builtin in
  # linux-base (all under usr/lib/modules/RELEASE).
  local part
  for part in linux-binary linux-modules linux-base; do
    if dpkg-deb -f "$tmp"/"$pkg"_*.deb Depends | grep -q "$part-$release"; then
      apt_download_to "$tmp" "$part-$release/${KERNEL_SUITE[$kver]}"
    fi
  done
  local deb
  for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$dir/root"; done
  rm -rf "$tmp"
  if [[ ! -d $dir/root/lib/modules/$release && -d $dir/root/usr/lib/modules/$release ]]; then
    mkdir -p "$dir/root/lib/modules"
    mv "$dir/root/usr/lib/modules/$release" "$dir/root/lib/modules/"
  fi
  if [[ ! -f $dir/root/boot/vmlinuz-$release ]]; then
    mkdir -p "$dir/root/boot"
    mv "$dir/root/lib/modules/$release/vmlinuz" "$dir/root/boot/vmlinuz-$release"
    mv "$dir/root/lib/modules/$release/config" "$dir/root/boot/config-$release"
  fi
  cp "$dir/root/boot/vmlinuz-$release" "$dir/vmlinuz"
  depmod -b "$dir/root" "$release"
  printf '%s\n' "$release" >"$dir/release"
  printf '%s\n' "$pkg" >"$dir/.ready"
}

# fetch_qemu10: unpack QEMU 10 from backports into $VMB/qemu10/root without
# installing it (installing would upgrade mesa/libdrm on the host). Its
# libraries are the same sonames as the host's QEMU 7.2 uses.
fetch_qemu10() {
  local dir="$VMB/qemu10" tmp deb missing
  if [[ ! -f $dir/.ready ]]; then
    apt_init
    log "qemu 10: downloading from $APT_CODENAME-backports"
    rm -rf "$dir"; mkdir -p "$dir"
    tmp=$(mktemp -d "$VMB/tmp.XXXXXX")
    apt_download_to "$tmp" qemu-system-x86/"$APT_CODENAME"-backports \
      qemu-system-common/"$APT_CODENAME"-backports \
      qemu-system-data/"$APT_CODENAME"-backports \
      seabios/"$APT_CODENAME"-backports
    for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$dir/root"; done
    rm -rf "$tmp"
    touch "$dir/.ready"
  fi
  missing=$(ldd "$dir/root/usr/bin/qemu-system-x86_64" | awk '/not found/ { print $1 }')
  [[ -z $missing ]] ||
    die "qemu 10 needs host libraries: $missing (install qemu-system-x86 7.2 for them)"
}
