#!/usr/bin/env bash
# Recreate .whl/ (git-ignored): the Python packages the lent H200 lacks, carried there by the
# device runs (scripts/h200-suite.sh, h200-quant.sh, h200-train.sh). No dependencies resolved:
# the H200's venv has torch 2.11, transformers, peft, accelerate; these fill the gaps.
#   bitsandbytes 0.50.2  stripped to the CUDA 13.0 library (torch 2.11+cu130 loads that one) and
#                        the CPU one: 43 MB -> ~4 MB, still a valid wheel (RECORD lines dropped)
#   trl 1.16.0 and what its import pulls in that the venv lacks: datasets 5.2.0, dill,
#                        multiprocess, xxhash (pure Python but xxhash; ~2 MB together)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .whl
dl() {
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_24_x86_64 --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 \
    --platform any -d .whl "$@"
}
dl bitsandbytes==0.50.2 trl==1.16.0 datasets==5.2.0 dill multiprocess xxhash
python3 - <<'EOF'
# Keep libbitsandbytes_cuda130.so and libbitsandbytes_cpu.so; drop the other native libraries.
import glob, os, zipfile
for path in glob.glob(".whl/bitsandbytes-*.whl"):
    src = zipfile.ZipFile(path)
    names = src.namelist()
    drop = {n for n in names if n.startswith("bitsandbytes/libbitsandbytes_") and n.endswith(".so")
            and not n.endswith(("_cuda130.so", "_cpu.so"))}
    if not drop:
        continue
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for n in names:
            if n in drop:
                continue
            data = src.read(n)
            if n.endswith(".dist-info/RECORD"):
                data = b"".join(l + b"\n" for l in data.splitlines() if l.split(b",")[0].decode() not in drop)
            dst.writestr(src.getinfo(n), data)
    os.replace(tmp, path)
    print("stripped", path, "to", os.path.getsize(path) // 1024, "KiB")
EOF
du -sh .whl
