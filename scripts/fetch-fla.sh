#!/usr/bin/env bash
# Recreates .fla/ (git-ignored): flash-linear-attention 0.5.0 for the lent H200, whose Python
# (/opt/torch/.venv: torch 2.11.0+cu130, triton 3.6.0, transformers 5.17.0, packaging) lacks it
# and has no network. flash-linear-attention 0.5.0 is pure Python and needs, beyond that image:
#   fla-core 0.5.0   the kernels (fla/ops, fla/modules, fla/utils.py); requires torch>=2.7, einops
#   einops           imported by fla.ops at import time
# (transformers and torch are already there; tilelang, causal-conv1d are optional extras.)
# The wheels are unpacked side by side into .fla/ (both FLA wheels fill the one `fla` package),
# so `PYTHONPATH=$PWD/.fla` makes them importable with nothing installed, and gpustack's
# detection reads their dist-info through PYTHONPATH. About 5 MB; carry it as ".fla".
# Used by scripts/h200-fla.sh and scripts/h200-fla-python.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" \
  flash-linear-attention==0.5.0 fla-core==0.5.0 einops==0.8.2
rm -rf .fla
mkdir -p .fla
for w in "$tmp"/*.whl; do
  "$py" -m zipfile -e "$w" .fla/
done
echo "wrote .fla/ ($(du -sh .fla | cut -f1)): $(ls "$tmp" | tr '\n' ' ')"
