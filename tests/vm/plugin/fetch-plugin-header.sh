#!/usr/bin/env bash
# Fetch QEMU's TCG plugin API header (include/qemu/qemu-plugin.h) from
# Debian's own qemu source package, for the QEMU the modelled mode runs:
# bookworm-backports' QEMU 10 (tests/vm/lib/fetch.sh unpacks its binaries
# from the same suite). The mirror is the one this machine's apt already uses
# (lib/apt_sources.py); the host's apt state is never touched: a private
# configuration under OUT/apt, as the test machine's downloads do.
#
# usage: fetch-plugin-header.sh OUT   -> OUT/include/qemu-plugin.h, OUT/version
# Only the upstream tarball is downloaded (the header is upstream's; Debian's
# patches do not touch it), checked against the Sources index's SHA256, and
# only the header is extracted from it.
set -euo pipefail

OUT=${1:?usage: fetch-plugin-header.sh OUT}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SUITE=bookworm-backports
APT="$OUT/apt"

[[ -s $OUT/include/qemu-plugin.h && -s $OUT/version ]] && exit 0

apt_priv() {
  apt-get -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$APT/sources.list.d" \
    -o Dir::State::Lists="$APT/lists" -o Dir::Cache="$APT/cache" \
    -o APT::Sandbox::User=root "$@"
}

rm -rf "$APT" "$OUT/include"
mkdir -p "$APT/sources.list.d" "$APT/lists/partial" "$APT/cache/archives/partial" "$OUT/include"
/usr/bin/python3 "$HERE/../lib/apt_sources.py" --types deb-src bookworm "$SUITE" \
  >"$APT/sources.list.d/qemu-src.sources"
if ! apt_priv -q update >"$APT/update.log" 2>&1; then
  echo "fetch-plugin-header: apt-get update of the $SUITE sources failed:" >&2
  tail -n 5 "$APT/update.log" >&2
  exit 1
fi
# 'URI' NAME SIZE SHA256:HASH, one line per file of the source package.
line=$(apt_priv -q --print-uris source "qemu/$SUITE" 2>"$APT/source.log" |
  awk '$2 ~ /\.orig\.tar\.(xz|gz|bz2)$/ { print; exit }')
if [[ -z $line ]]; then
  echo "fetch-plugin-header: no upstream tarball for qemu/$SUITE:" >&2
  tail -n 5 "$APT/source.log" >&2
  exit 1
fi
read -r uri name _ hash <<<"$line"
uri=${uri//\'/}
tarball="$APT/$name"
if ! /usr/lib/apt/apt-helper download-file "$uri" "$tarball" "$hash" >"$APT/download.log" 2>&1; then
  echo "fetch-plugin-header: downloading $uri failed:" >&2
  tail -n 5 "$APT/download.log" >&2
  exit 1
fi
member='*/include/qemu/qemu-plugin.h'
if ! tar -xOf "$tarball" --wildcards "$member" >"$OUT/include/qemu-plugin.h.tmp" ||
   [[ ! -s $OUT/include/qemu-plugin.h.tmp ]]; then
  echo "fetch-plugin-header: $name has no include/qemu/qemu-plugin.h" >&2
  exit 1
fi
mv "$OUT/include/qemu-plugin.h.tmp" "$OUT/include/qemu-plugin.h"
version=${name#qemu_}
printf '%s (%s, %s)\n' "${version%.orig.tar.*}" "$SUITE" "include/qemu/qemu-plugin.h" >"$OUT/version"
rm -f "$tarball"
