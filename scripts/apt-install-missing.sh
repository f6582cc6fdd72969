# Sourced by scripts/install-deps.sh and scripts/install-deps-aarch64.sh: the one "install what is
# missing" step. install_missing PKG... runs apt-get (as root) only for the packages dpkg does not
# list as installed; a caller that must prepare apt first (the arm64 dpkg architecture) defines
# before_apt_update. Exit 2 when something is missing and this is not root.
install_missing() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "gpustack: installing ${missing[*]}" >&2
  if [ "$(id -u)" -ne 0 ]; then echo "gpustack: run as root to install packages" >&2; exit 2; fi
  export DEBIAN_FRONTEND=noninteractive
  if declare -F before_apt_update >/dev/null; then before_apt_update; fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
