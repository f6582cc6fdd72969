#!/usr/bin/env bash
# Installs the Debian 12 packages gpustack needs. Idempotent: apt-get runs only when something is
# missing. Run as root (CI and the README commands do).
#   install-deps.sh          what building the gpustack binary needs (scripts/check.sh)
#   install-deps.sh --test   that, plus what the test suite needs (scripts/test.sh)
set -euo pipefail
PKGS=(
  build-essential cmake ninja-build pkg-config
  libtomlplusplus-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libelf-dev libzstd-dev zlib1g-dev
  libyaml-cpp-dev  # compose files and Kubernetes manifests (check --container)
)
if [ "${1:-}" = "--test" ]; then
  PKGS+=(
    clang libclang-rt-14-dev   # the ASan+UBSan+libFuzzer build
    clang-19                   # gfx11/gfx12 WMMA and gfx90a MFMA code of kernels/gdn_chunk_v2.cu (Debian's comgr knows no gfx11/12)
    llvm-19                    # llvm-mc-19, llvm-objdump-19, llvm-readelf-19: every kernel's gfx1201/gfx1100/gfx942/gfx90a code read back (tests/runtime/clang_gfx_compile_test.cpp)
    libgtest-dev libgmock-dev libbenchmark-dev
    python3 python3-jsonschema python3-yaml  # python3-yaml: action.yml read as the runner reads it (tests/cli/action_test.cpp)
    python3-torch python3-venv  # real torch imports in the warm-worker tests (CPU torch 1.13, 70 MB); a torch-less venv beside it
    libamd-comgr-dev libamdhip64-dev librocm-smi-dev libhsa-runtime-dev rocm-device-libs  # HIP compile tests, no GPU
    libdrm-amdgpu1  # the card tests load the real libdrm_amdgpu with no AMD device (librocm-smi-dev brings librocm_smi64)
    chromium  # headless screenshot test of `gpustack matrix show --html` (tests/matrix/matrix_screenshot_test.cpp)
    curl xz-utils  # Debian 11's glibc fetched to run the wheel binary on an older loader (scripts/old-glibc.sh)
    slurm-wlm munge  # a private single-node Slurm runs the fleet path end to end (scripts/slurm-local.sh, tests/cli/slurm_fleet_test.cpp)
  )
fi
. "$(dirname "$0")/apt-install-missing.sh"
install_missing "${PKGS[@]}"
