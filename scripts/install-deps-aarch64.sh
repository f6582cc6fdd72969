#!/usr/bin/env bash
# Installs, on a Debian 12 x86_64 host, what cross-building the aarch64 pip wheel needs
# (scripts/build-wheel-aarch64.sh) and what runs the result here: GCC 12 for aarch64-linux-gnu, the
# arm64 static libraries the portable build links (libelf, zstd, zlib installed as :arm64 packages;
# the header-only nlohmann-json, CLI11, fmt and toml++ come from the host's /usr/include through
# scripts/install-deps.sh), and qemu-user with Debian's arm64 glibc to run the binary. Idempotent:
# apt-get runs only when something is missing. Run as root. Not part of CI (scripts/test.sh, .ci/run).
#
# libyaml-cpp-dev is not Multi-Arch: same in Debian 12, so installing libyaml-cpp-dev:arm64 would
# REMOVE the host's libyaml-cpp-dev (and break the native build): its arm64 .deb is downloaded and
# unpacked into $GPUSTACK_AARCH64_PREFIX (default /opt/gpustack-aarch64) instead, where
# cmake/aarch64-linux-gnu.cmake finds libyaml-cpp.a (the headers are the host's, the same version).
set -euo pipefail
bash "$(dirname "$0")/install-deps.sh"
PKGS=(
  g++-aarch64-linux-gnu binutils-aarch64-linux-gnu
  libelf-dev:arm64 libzstd-dev:arm64 zlib1g-dev:arm64
  libfmt-dev:arm64 libtomlplusplus-dev:arm64  # Multi-Arch: same; their CMake packages for the aarch64 configure
  libc6:arm64
  qemu-user-static
)
# arm64 packages need the architecture known to dpkg before apt reads the indexes
before_apt_update() {
  dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
}
. "$(dirname "$0")/apt-install-missing.sh"
install_missing "${PKGS[@]}"
prefix=${GPUSTACK_AARCH64_PREFIX:-/opt/gpustack-aarch64}
if [ ! -f "$prefix/usr/lib/aarch64-linux-gnu/libyaml-cpp.a" ] || [ ! -e "$prefix/usr/lib/aarch64-linux-gnu/libyaml-cpp.so.0.7" ]; then
  if [ "$(id -u)" -ne 0 ] && [ ! -w "$(dirname "$prefix")" ]; then
    echo "gpustack: run as root to unpack libyaml-cpp-dev:arm64 into $prefix" >&2; exit 2
  fi
  echo "gpustack: unpacking libyaml-cpp-dev:arm64 into $prefix" >&2
  tmp=$(mktemp -d)
  chmod 755 "$tmp"  # apt-get download writes as _apt
  # the shared library too: the CMake package the -dev one ships names it
  (cd "$tmp" && apt-get download -qq libyaml-cpp-dev:arm64 libyaml-cpp0.7:arm64)
  mkdir -p "$prefix"
  for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$prefix"; done
  rm -rf "$tmp"
fi
