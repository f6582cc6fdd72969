#!/usr/bin/env bash
# Issue 4 hardware run on the lent H200 (CUDA 13, driver 580, torch 2.11+cu130): the quant.*
# probes, `gpustack selftest` on the golden vectors, and NF4 dequantize (8192 x 8192 -> bf16) and
# 4-bit GEMV timed with gpustack's kernels and with bitsandbytes' own, side by side in one table.
#
# Before (here, on the build machine):
#   cmake --build build-quant --target gpustack && scripts/pack-for-device.sh build-quant  # -> .carry/
#   .whl/bitsandbytes-0.50.2-py3-none-manylinux_2_24_x86_64.whl, produced by
#     echo /.whl/ >> .git/info/exclude
#     python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#       --platform manylinux_2_24_x86_64 --platform manylinux_2_28_x86_64 -d .whl bitsandbytes
#   then stripped with Python's zipfile to bitsandbytes/libbitsandbytes_cuda130.so (the library
#   bitsandbytes loads under torch's CUDA 13.0) and libbitsandbytes_cpu.so, the other 15 native
#   libraries dropped and their RECORD lines removed (43 MB -> 3.6 MB; still a valid wheel).
# On the device (repo root, carry .carry and .whl):  bash scripts/h200-quant.sh
# Writes under $OUT: h200-quant.log, quant-probes.json, selftest.json, quant-nf4-rate.json,
# bnb-bench.json, quant-table.txt (the table also goes to stdout).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/h200-quant}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=".carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GPUSTACK_CACHE_DIR=/tmp/gs-jit-quant
GS=.carry/bin/gpustack
VECTORS=tests/fixtures/golden/bitsandbytes-vectors.json
SIZE=${SIZE:-8192}
ITERS=${ITERS:-200}
log="$OUT/h200-quant.log"

{
  echo "== $(date -u +%FT%TZ) $(uname -r)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv || true
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' || true
  "$GS" --version
} 2>&1 | tee "$log"

echo "== gpustack probe quant.nf4 quant.fp4 quant.int8" | tee -a "$log"
"$GS" probe quant.nf4 quant.fp4 quant.int8 --json -o "$OUT/quant-probes.json" 2>&1 | tee -a "$log"
echo "rc=${PIPESTATUS[0]}" | tee -a "$log"

echo "== gpustack selftest --vectors $VECTORS" | tee -a "$log"
"$GS" selftest --vectors "$VECTORS" 2>&1 | tee -a "$log"
"$GS" selftest --vectors "$VECTORS" --json > "$OUT/selftest.json"
echo "rc=$?" | tee -a "$log"

echo "== gpustack timed NF4 ($SIZE x $SIZE, blocksize 64, $ITERS launches)" | tee -a "$log"
"$GS" probe quant.nf4 --set size="$SIZE" --set iters="$ITERS" --set blocksize=64 --json \
  -o "$OUT/quant-nf4-rate.json" 2>&1 | tee -a "$log"

echo "== bitsandbytes (unpacked from .whl into /tmp/site)" | tee -a "$log"
rm -rf /tmp/site && mkdir -p /tmp/site
python3 -c 'import glob, sys, zipfile; zipfile.ZipFile(sorted(glob.glob(".whl/bitsandbytes-*.whl"))[-1]).extractall("/tmp/site")' \
  2>&1 | tee -a "$log"
PYTHONPATH=/tmp/site OUT="$OUT" SIZE="$SIZE" ITERS="$ITERS" python3 - <<'PY' 2>&1 | tee -a "$log"
import json, os, statistics, sys
out_dir, S, iters = os.environ["OUT"], int(os.environ["SIZE"]), int(os.environ["ITERS"])
res = {"size": S, "iters": iters}
try:
    import torch
    import bitsandbytes as bnb
    import bitsandbytes.functional as F
    res["bitsandbytes"] = bnb.__version__
    res["torch"] = torch.__version__
    res["gpu"] = torch.cuda.get_device_name(0)
except Exception as e:  # report and still print gpustack's half of the table
    res["error"] = f"import failed: {e!r}"
    print(res["error"])
    json.dump(res, open(f"{out_dir}/bnb-bench.json", "w"), indent=2)
    sys.exit(0)

def timed(fn, warmup=20):
    """(median of per-call event times, mean over `iters` back-to-back calls) in us. For the
    second, torch.cuda._sleep holds the GPU ~50 ms while Python queues every call, so the events
    time the kernels back to back on the GPU, not Python's per-call overhead."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    per = []
    for _ in range(iters):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); e.synchronize()
        per.append(s.elapsed_time(e) * 1000.0)
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(100_000_000)
    s.record()
    for _ in range(iters):
        fn()
    e.record(); e.synchronize()
    return statistics.median(per), s.elapsed_time(e) * 1000.0 / iters

torch.manual_seed(0)
n, bs = S * S, 64
W = torch.randn(S, S, device="cuda", dtype=torch.bfloat16)
qW, st = F.quantize_4bit(W, blocksize=bs, quant_type="nf4", compress_statistics=False)
dq_bytes = n / 2 + (n // bs) * 4 + n * 2
gemv_bytes = n / 2 + (n // bs) * 4 + S * 4

# The reference formula, bit for bit at this size: bf16(lut[code] * absmax), high nibble first.
codes = torch.stack([(qW.view(-1) >> 4), (qW.view(-1) & 15)], dim=1).view(-1).long()
lut = st.code.float()
want = (lut[codes] * st.absmax.float().repeat_interleave(bs)).to(torch.bfloat16).view(S, S)
got = F.dequantize_4bit(qW, st)
res["dequant_bit_exact_vs_formula"] = bool(torch.equal(got.view(torch.int16), want.view(torch.int16)))
del codes, want

out = torch.empty(S, S, device="cuda", dtype=torch.bfloat16)
med, bulk = timed(lambda: F.dequantize_4bit(qW, st, out=out))
res["bnb_dequant_bf16"] = {"median_us": med, "bulk_us": bulk, "gbps": dq_bytes / (bulk * 1e-6) / 1e9}

A = torch.randn(1, S, device="cuda", dtype=torch.bfloat16)
med, bulk = timed(lambda: F.gemv_4bit(A, qW.t(), state=st))
res["bnb_gemv_bf16"] = {"median_us": med, "bulk_us": bulk, "gbps": gemv_bytes / (bulk * 1e-6) / 1e9}
y = F.gemv_4bit(A, qW.t(), state=st).float().view(-1)
y64 = (F.dequantize_4bit(qW, st).double() @ A.double().view(-1))
res["bnb_gemv_max_rel_err_vs_fp64"] = float(((y.double() - y64).abs() / y64.abs().clamp_min(1e-3)).max())
try:
    med, bulk = timed(lambda: bnb.matmul_4bit(A, qW.t(), quant_state=st))
    res["bnb_matmul_4bit_1tok"] = {"median_us": med, "bulk_us": bulk, "gbps": gemv_bytes / (bulk * 1e-6) / 1e9}
except Exception as e:
    res["bnb_matmul_4bit_1tok"] = {"error": repr(e)}

src = torch.empty(n, device="cuda", dtype=torch.bfloat16)
dst = torch.empty_like(src)
med, bulk = timed(lambda: dst.copy_(src))
res["torch_copy_bf16"] = {"median_us": med, "bulk_us": bulk, "gbps": 2 * n * 2 / (bulk * 1e-6) / 1e9}
json.dump(res, open(f"{out_dir}/bnb-bench.json", "w"), indent=2)
print(json.dumps(res, indent=2))
PY

echo "== table" | tee -a "$log"
OUT="$OUT" python3 - <<'PY' 2>&1 | tee "$OUT/quant-table.txt" | tee -a "$log"
import json, os
d = os.environ["OUT"]
def load(name):
    try:
        return json.load(open(os.path.join(d, name)))
    except Exception as e:
        return {"error": repr(e)}
bnb = load("bnb-bench.json")
rep = load("quant-nf4-rate.json")
rate = {}
for p in rep.get("probes", []):
    if p.get("id") == "quant.nf4":
        rate = p.get("data", {}).get("rate", {})
        print(f"quant.nf4 status: {p.get('status')} - {p.get('detail')}")
rows = []
def row(name, us, gbps, note=""):
    rows.append((name, us, gbps, note))
c = bnb.get("torch_copy_bf16", {})
row("torch copy (bf16, read+write)", c.get("bulk_us"), c.get("gbps"), "device copy reference")
b = bnb.get("bnb_dequant_bf16", {})
row(f"bitsandbytes {bnb.get('bitsandbytes', '?')} dequantize_4bit nf4->bf16", b.get("bulk_us"), b.get("gbps"),
    f"median per call {b.get('median_us', 0):.1f} us")
for v in ("v1", "v2", "v3"):
    g = rate.get("dequant_bf16", {}).get(v, {})
    row(f"gpustack quant4_dequant_bf16_{v}", g.get("us"), g.get("gbps"), "bit-exact vs reference")
b = bnb.get("bnb_gemv_bf16", {})
row("bitsandbytes gemv_4bit bf16 (1 x K)", b.get("bulk_us"), b.get("gbps"), f"median per call {b.get('median_us', 0):.1f} us")
b = bnb.get("bnb_matmul_4bit_1tok", {})
row("bitsandbytes matmul_4bit (1 token)", b.get("bulk_us"), b.get("gbps"), b.get("error", ""))
g = rate.get("gemv_bf16", {})
row("gpustack quant4_gemv_bf16_v1", g.get("us"), g.get("gbps"), "bit-exact vs reference")
S = rate.get("size", bnb.get("size"))
print(f"\nNF4 {S} x {S}, blocksize 64, bf16; us = mean of {rate.get('iters', bnb.get('iters'))} back-to-back launches timed with events;"
      " GB/s counts codes + absmax + output (+ A for the GEMV)")
print(f"{'kernel':<52} {'us':>9} {'GB/s':>9}  note")
for name, us, gbps, note in rows:
    f = lambda x: f"{x:9.1f}" if isinstance(x, (int, float)) else f"{'-':>9}"
    print(f"{name:<52} {f(us)} {f(gbps)}  {note}")
print(f"\nbitsandbytes dequant equals bf16(lut[code] * absmax) bit for bit: {bnb.get('dequant_bit_exact_vs_formula')}")
print(f"bitsandbytes gemv max rel err vs fp64: {bnb.get('bnb_gemv_max_rel_err_vs_fp64')}")
if "error" in bnb: print("bitsandbytes:", bnb["error"])
PY
ls -la "$OUT" | tee -a "$log"
