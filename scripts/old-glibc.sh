#!/usr/bin/env bash
# Fetch an older glibc to run the wheel's binary on: Debian 11's libc6 (glibc 2.31, the oldest that
# deb.debian.org still serves; buster's 2.28 has moved to archive.debian.org) and libgcc-s1, unpacked
# (no install) into a cache directory. Prints the directory that holds its ld.so and libraries:
#   L=$(scripts/old-glibc.sh) && "$L/ld-linux-x86-64.so.2" --library-path "$L" build-wheel/gpustack --version
# glibc 2.31 is below the 2.34 that merged libdl/libpthread into libc and the 2.32/2.33 symbols that
# wheel/native/glibc_floor.cpp redirects, so the run proves those redirections on a real loader.
# Exit 3 when the mirror cannot be reached (the caller says so and skips). About 3.5 MB, once.
set -euo pipefail
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${GPUSTACK_OLD_GLIBC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpustack/glibc-2.31}
lib=$cache/root/lib/x86_64-linux-gnu
if [ ! -x "$lib/ld-linux-x86-64.so.2" ]; then
  mkdir -p "$cache"
  index=$(curl -fsS --max-time 60 "$mirror/dists/bullseye/main/binary-amd64/Packages.xz" | xz -dc) || exit 3
  for pkg in libc6 libgcc-s1; do
    file=$(awk -v p="$pkg" '$1 == "Package:" {hit = ($2 == p)} hit && $1 == "Filename:" {print $2; exit}' <<<"$index")
    [ -n "$file" ] || { echo "old-glibc: $pkg not in bullseye's index" >&2; exit 3; }
    curl -fsS --max-time 120 -o "$cache/$pkg.deb" "$mirror/$file" || exit 3
    dpkg-deb -x "$cache/$pkg.deb" "$cache/root"
  done
fi
echo "$lib"
