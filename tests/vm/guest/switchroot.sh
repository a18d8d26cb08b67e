#!/bin/sh
# systemd mode, still in the initramfs (busybox, PID 1 through exec): mount
# the Debian root disk named by vmtest.root= (QEMU opens it snapshot=on, so
# whatever happens here vanishes with the run and the cached image stays
# pristine), copy this run's payload into it, enable the test unit, and hand
# PID 1 to systemd.
#
# The payload is what lib/initramfs.sh put in this initramfs, so both kinds
# of guest run the same binaries and scenarios: /vm (steps, setup, facts,
# scenarios, helpers), /opt/tier/bin, /etc/vmtest.env, the kernel config in
# /boot, the module load log in /out, and the shared libraries the programs
# need, which go where the loader looks. Debian's own copy of a library wins
# (no clobbering): the image, fresh from the mirror, is normally at least
# as new as the build machine's bookworm, and replacing its libc under
# systemd would be asking for trouble.
# Any failure ends PID 1: the kernel panics (panic=-1, QEMU -no-reboot), QEMU
# exits, and the host reports the boot failed with the console's last lines,
# which is sooner and clearer than a half-prepared systemd boot.
set -eu

dev=""
read -r cmdline </proc/cmdline
for w in $cmdline; do
  case $w in vmtest.root=*) dev=${w#vmtest.root=} ;; esac
done
# virtio_blk probes the disk as it loads, but give udev-less devtmpfs a
# moment anyway rather than fail on a race.
i=0
while [ ! -b "$dev" ]; do
  i=$((i + 1))
  [ $i -le 50 ] || { echo "switchroot: no block device $dev"; ls /dev; exit 1; }
  sleep 0.1
done
N=/newroot
mkdir -p $N
mount -t ext4 "$dev" $N

cp -a /vm /out $N/
mkdir -p $N/opt $N/boot
cp -a /opt/tier $N/opt/
cp /etc/vmtest.env $N/etc/
cp /boot/config-* $N/boot/
for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64; do
  [ -d "$d" ] || continue
  mkdir -p "$N$d"
  # Each entry by name: given "$d/.", busybox's -n skips the whole folder.
  cp -an "$d"/* "$N$d/"
done

S=$N/etc/systemd/system
mkdir -p $S/multi-user.target.wants
# The test unit runs the same steps as the busybox guest, once the system
# is up, then powers the machine off whatever they returned: the host waits
# for QEMU to exit. Type=exec, not oneshot: a oneshot's start job lasts
# until it exits, so the boot would never finish while the scenarios run
# and "systemctl is-system-running" would say "starting" to those that ask.
# Its output reaches the console log on the host, as in busybox mode.
cat >$S/vmtest.service <<UNIT
[Unit]
Description=tier vmtest: mode setup, sysfs facts and scenarios
After=multi-user.target
SuccessAction=poweroff
FailureAction=poweroff

[Service]
Type=exec
ExecStart=/bin/sh /vm/steps.sh
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
UNIT
ln -sf ../vmtest.service $S/multi-user.target.wants/vmtest.service
# No logins: a getty on the console would only add prompts to the console
# log. getty-static starts gettys on tty2-6 when logind is missing (it is, in
# minbase) and would fail on the masked ones, leaving the system "degraded".
# The apt timers and the e2scrub reaper are host housekeeping with no place
# in a throwaway guest.
for u in getty@.service serial-getty@.service console-getty.service getty-static.service \
         apt-daily.timer apt-daily-upgrade.timer e2scrub_reap.service \
         e2scrub_all.timer; do
  ln -sf /dev/null "$S/$u"
done
# A machine id makes this an ordinary boot: with an empty one systemd takes
# it for the first boot of the image and runs its first-boot units.
[ -s $N/etc/machine-id ] || tr -d '-' </proc/sys/kernel/random/uuid >$N/etc/machine-id
echo vmtest >$N/etc/hostname

# systemd finds these already mounted, as after any initramfs.
for m in /dev /proc /sys; do
  mkdir -p "$N$m"
  mount --move "$m" "$N$m"
done
exec switch_root $N /sbin/init
