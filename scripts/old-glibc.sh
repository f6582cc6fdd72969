#!/usr/bin/env bash
# Fetch an older glibc to run the wheel's binary on: Debian 11's libc6 (glibc 2.31, the oldest that
# deb.debian.org still serves; buster's 2.28 has moved to archive.debian.org) and libgcc-s1, unpacked
# (no install) into a cache directory. Prints the directory that holds its ld.so and libraries:
#   L=$(scripts/old-glibc.sh) && "$L/ld-linux-x86-64.so.2" --library-path "$L" build-wheel/gpustack --version
# With aarch64, Debian 11's arm64 packages for the cross-built wheel (scripts/build-wheel-aarch64.sh),
# run under qemu-user on an x86_64 host:
#   L=$(scripts/old-glibc.sh aarch64) && qemu-aarch64-static "$L/ld-linux-aarch64.so.1" --library-path "$L" \
#     build-wheel-aarch64/gpustack --version
# glibc 2.31 is below the 2.34 that merged libdl/libpthread into libc and the 2.32/2.33 symbols that
# wheel/native/glibc_floor.cpp redirects, so the run proves those redirections on a real loader.
# Exit 3 when the mirror cannot be reached (the caller says so and skips). About 3.5 MB, once.
set -euo pipefail
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
case "${1:-x86_64}" in
  x86_64) debarch=amd64 ld=ld-linux-x86-64.so.2 suffix= ;;
  aarch64) debarch=arm64 ld=ld-linux-aarch64.so.1 suffix=-aarch64 ;;
  *) echo "old-glibc: x86_64 or aarch64, not $1" >&2; exit 2 ;;
esac
cache=${GPUSTACK_OLD_GLIBC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpustack/glibc-2.31$suffix}
lib=$cache/root/lib/${1:-x86_64}-linux-gnu
if [ ! -x "$lib/$ld" ]; then
  mkdir -p "$cache"
  index=$(curl -fsS --max-time 60 "$mirror/dists/bullseye/main/binary-$debarch/Packages.xz" | xz -dc) || exit 3
  for pkg in libc6 libgcc-s1; do
    file=$(awk -v p="$pkg" '$1 == "Package:" {hit = ($2 == p)} hit && $1 == "Filename:" {print $2; exit}' <<<"$index")
    [ -n "$file" ] || { echo "old-glibc: $pkg not in bullseye's index" >&2; exit 3; }
    curl -fsS --max-time 120 -o "$cache/$pkg.deb" "$mirror/$file" || exit 3
    dpkg-deb -x "$cache/$pkg.deb" "$cache/root"
  done
fi
echo "$lib"
