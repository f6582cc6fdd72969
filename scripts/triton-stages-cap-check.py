#!/usr/bin/env python3
# Does `gpustack fix triton-stages` reach real Triton? On a machine with no GPU: an autotuned
# kernel whose configs ask for num_stages 2, 3 and 4 is launched through Triton's real
# JITFunction.run and Autotuner (the path every FLA launch takes) with a stand-in CUDA driver that
# reports an sm_90 target and launches nothing, so Triton really compiles each config; then the
# num_stages of every compiled kernel is printed. Expected: 2, 3, 4 with the cap off; only 1 under
# `--max 1`; 2 and 3 under GPUSTACK_TRITON_STAGES_CAP=3.
#   gpustack fix triton-stages --max 1 --venv VENV          (VENV has torch and triton)
#   for c in off 1 3; do GPUSTACK_TRITON_STAGES_CAP=$c VENV/bin/python scripts/triton-stages-cap-check.py; done
import os
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="gs-cap-cache-"))
import torch  # noqa: E402  (Triton's launcher wants torch tensors for pointer arguments)
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.backends.nvidia.driver import CudaDriver  # noqa: E402


class NoGpuDriver(CudaDriver):
    """Just enough of a driver for JITFunction.run to compile for sm_90; launches are no-ops."""

    def __init__(self):  # CudaDriver's own would load libcuda
        self.get_current_device = lambda: 0
        self.get_current_stream = lambda device=None: 0
        self.set_current_device = lambda d: None

    @classmethod
    def is_active(cls):
        return True

    def get_current_target(self):
        return GPUTarget("cuda", 90, 32)

    def get_active_torch_device(self):
        return torch.device("cpu")

    def get_benchmarker(self):
        # Call the kernel once (so the autotuner compiles every config), report a flat time.
        return lambda fn, quantiles=None, **kw: (fn(), [1.0, 1.0, 1.0] if quantiles else 1.0)[1]

    def get_device_interface(self):
        return torch.cpu

    def get_empty_cache_for_benchmark(self):
        return torch.empty(1)

    def clear_cache(self, cache):
        pass

    class launcher_cls:
        def __init__(self, src, metadata):
            self.metadata = metadata

        def __call__(self, *a, **k):
            pass

    class utils:
        @staticmethod
        def load_binary(name, kernel, shared, device):
            return (0, 0, 0, 0, 1 << 30)

        @staticmethod
        def get_device_properties(device):
            return {"max_shared_mem": 232448, "multiprocessor_count": 132, "max_num_regs": 65536,
                    "warpSize": 32, "sm_clock_rate": 1980000, "mem_clock_rate": 3200000, "mem_bus_width": 6144}


triton.runtime.driver.set_active(NoGpuDriver())


@triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_stages=s, num_warps=4) for s in (2, 3, 4)], key=["n"])
@triton.jit
def strided_sum(x, y, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for j in range(0, n, BLOCK):  # a loop for the pipeliner to act on
        acc += tl.load(x + j + i, mask=j + i < n, other=0.0)
    tl.store(y + i, acc, mask=i < n)


strided_sum[(1,)](torch.zeros(4096), torch.zeros(4096), 4096)
compiled = sorted(k.metadata.num_stages for cache in strided_sum.fn.device_caches.values() for k in cache[0].values())
try:
    import gpustack_triton_stages as cap
    state = "cap %s (%s)" % (cap._state["limit"], cap._state["mode"])
except ImportError:
    state = "no gpustack cap installed"
print("triton %s, GPUSTACK_TRITON_STAGES_CAP=%s, %s: configs asked num_stages [2, 3, 4], compiled %s"
      % (triton.__version__, os.environ.get("GPUSTACK_TRITON_STAGES_CAP", "unset"), state, compiled))
