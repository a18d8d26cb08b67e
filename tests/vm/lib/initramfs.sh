# shellcheck shell=bash
# Build the guest's initramfs: static busybox, the PID 1 script, the mode's
# setup and the scenarios, the project's binaries with their shared
# libraries, host tools a mode asks for, and the mode's kernel modules
# (decompressed, with a load list in dependency order). Rebuilt on every run:
# it takes about a second and the project's binaries change between runs.
#
# Needs: VMB, VM_DIR, BUILD, common.sh.

# copy_with_libs ROOT FILE DEST: copy an ELF file to ROOT/DEST plus every
# shared library ldd resolves for it and the dynamic loader, at their host
# paths, so it runs unchanged in the guest.
copy_with_libs() {
  local root=$1 file=$2 dest=$3 out lib src
  # Static programs make ldd fail with "not a dynamic executable": fine.
  if ! out=$(ldd "$file" 2>&1) && [[ $out != *"not a dynamic executable"* ]]; then
    die "ldd $file failed (being rebuilt?): $out"
  fi
  [[ $out != *"not found"* ]] ||
    die "$file: missing shared libraries: $(grep 'not found' <<<"$out" | tr -s ' \t\n' ' ')"
  install -D -m 0755 "$file" "$root/$dest"
  # "libx.so.1 => /lib/.../libx.so.1 (0x..)" and "/lib64/ld-linux-x86-64.so.2 (0x..)"
  while read -r src; do
    lib=$src
    case $lib in
      /lib/* | /lib64/* | /usr/lib/*) ;;
      # The project's own libraries (libtier.so from the build tree): their
      # host path may be hidden in the guest (it mounts a tmpfs on /tmp, and
      # CI builds under /tmp), so they go where the loader always looks.
      *) lib=/lib/x86_64-linux-gnu/${lib##*/} ;;
    esac
    [[ -e $root/$lib ]] || install -D -m 0755 "$(readlink -f "$src")" "$root/$lib"
  done < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 }
                $1 ~ /^\// && $2 ~ /^\(0x/ { print $1 }' <<<"$out")
}

# add_modules ROOT KDIR NAME...: decompress the named modules and their
# dependencies into ROOT/lib/modules and list them in load order.
add_modules() {
  local root=$1 kdir=$2; shift 2
  local moddir ko name list
  moddir="$kdir/root/lib/modules/$(cat "$kdir/release")"
  mkdir -p "$root/lib/modules"
  : >"$root/lib/modules/load.list"
  [[ $# -gt 0 ]] || return 0
  list=$("$PY" "$VM_DIR/lib/moddeps.py" "$moddir" "$@") ||
    die "kernel $(cat "$kdir/release") lacks modules this mode needs ($*)"
  while read -r ko; do
    name=$(basename "$ko"); name=${name%%.ko*}.ko
    case $ko in
      *.ko.xz)  xz -dc "$moddir/$ko" >"$root/lib/modules/$name" ;;
      *.ko.zst) zstd -qdc "$moddir/$ko" >"$root/lib/modules/$name" ;;
      *.ko)     cp "$moddir/$ko" "$root/lib/modules/$name" ;;
      *)        die "unexpected module file $ko" ;;
    esac
    printf '%s\n' "$name" >>"$root/lib/modules/load.list"
  done <<<"$list"
}

# build_initramfs MODE KDIR OUT: needs the mode's variables (modes/MODE.sh)
# and SCENARIOS (names, already filtered for this mode).
build_initramfs() {
  local mode=$1 kdir=$2 out=$3
  local root="$VMB/initramfs/$mode" bin tool s
  rm -rf "$root"
  mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,out,etc,vm/scenarios,opt/tier/bin}

  ldd /bin/busybox >/dev/null 2>&1 && die "/bin/busybox is not static (install busybox-static)"
  install -m 0755 /bin/busybox "$root/bin/busybox"
  # /init's "#!/bin/sh" must resolve before init installs the other applets.
  ln -s busybox "$root/bin/sh"
  # The kernel opens /dev/console before /init runs; without the node, init
  # starts with no stdout (it also re-opens it after mounting devtmpfs).
  mknod -m 0600 "$root/dev/console" c 5 1 2>/dev/null || true

  install -m 0755 "$VM_DIR/guest/init" "$root/init"
  install -m 0755 "$VM_DIR/guest/facts.sh" "$root/vm/facts.sh"
  # The helpers scenarios source (touch.sh, heat.sh, ...): every guest/*.sh
  # but facts.sh, which runs on its own above.
  local helper
  for helper in "$VM_DIR"/guest/*.sh; do
    [[ $helper == */facts.sh ]] || install -m 0644 "$helper" "$root/vm/${helper##*/}"
  done
  if [[ -f $VM_DIR/modes/$mode.setup.sh ]]; then
    install -m 0755 "$VM_DIR/modes/$mode.setup.sh" "$root/vm/setup.sh"
  else
    printf '#!/bin/sh\n# mode %s needs no setup\n' "$mode" >"$root/vm/setup.sh"
  fi
  for s in "${SCENARIOS[@]}"; do
    install -m 0755 "$VM_DIR/scenarios/$s.sh" "$root/vm/scenarios/$s.sh"
  done
  # The kubepods-shaped tree builder the unit tests use too (pods_k8s).
  install -m 0755 "$VM_DIR/../fixtures/kubepods/make-tree.sh" "$root/vm/make-kubepods.sh"
  # The unit exactly as shipped: the systemd scenarios install it with only
  # ExecStart's path rewritten (guest/tierd_service.sh).
  install -m 0644 "$REPO/daemon/tierd.service" "$root/vm/tierd.service"

  # The project's programs named in programs.txt (globs under $BUILD/bin).
  local glob
  while read -r glob; do
    for bin in "$BUILD"/bin/$glob; do
      if [[ -f $bin && -x $bin ]]; then
        copy_with_libs "$root" "$bin" "opt/tier/bin/${bin##*/}"
      fi
    done
  done < <(grep -v '^\s*\(#\|$\)' "$VM_DIR/programs.txt")
  # libtierpreload.so is loaded with LD_PRELOAD, linked by no program: put it
  # where `tierctl run --preload` looks (<bindir>/../lib).
  if [[ -f $BUILD/lib/libtierpreload.so ]]; then
    copy_with_libs "$root" "$BUILD/lib/libtierpreload.so" "opt/tier/lib/libtierpreload.so"
  fi
  # Host tools the mode needs in the guest (e.g. ndctl).
  for tool in $MODE_TOOLS; do
    bin=$(command -v "$tool") || die "mode $mode needs '$tool' on the host"
    copy_with_libs "$root" "$bin" "usr/bin/$tool"
  done

  # shellcheck disable=SC2086 # MODE_MODULES is a word list
  add_modules "$root" "$kdir" $MODE_MODULES
  # Debian systems ship the kernel config in /boot; feature probes may read it.
  mkdir -p "$root/boot"
  cp "$kdir/root/boot/config-$(cat "$kdir/release")" "$root/boot/"

  cat >"$root/etc/vmtest.env" <<ENV
VMTEST_MODE=$mode
VMTEST_KERNEL=$MODE_KERNEL
VMTEST_SCENARIOS="${SCENARIOS[*]}"
VMTEST_SCENARIO_TIMEOUT=$SCENARIO_TIMEOUT
VMTEST_SETUP_TIMEOUT=$SETUP_TIMEOUT
ENV
  # run.sh --env KEY=VALUE (checked there: no blanks or quotes).
  if [[ ${#GUEST_ENV[@]} -gt 0 ]]; then printf '%s\n' "${GUEST_ENV[@]}" >>"$root/etc/vmtest.env"; fi

  # Uncompressed: QEMU loads it straight into guest memory, and unpacking a
  # compressed archive under TCG costs more than the copy saves.
  (cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$out"
}
