// The error-text matcher on real error strings, copied from upstream issue threads (each row
// names its source), as a failing step would hand them over: a finding id per family, and
// nothing for texts that only look alike.
#include <gtest/gtest.h>

#include <algorithm>

#include "probes/python_probes.h"
#include "rules/knowledge_base.h"

namespace gs {
namespace {

/// Facts that decide nothing (pasted-text coverage with nothing read): each row tests what the
/// error text alone names, since a rule's `when` only gates its text.
machine_facts any_machine() {
  machine_facts f;
  f.coverage.partial = true;
  return f;
}

std::vector<std::string> ids_for(const std::string& detail, const std::string& tail) {
  probe_result r;
  r.outcome = status::fail;
  r.detail = detail;
  r.data["output_tail"] = tail;
  return match_result_findings(r, any_machine());
}

struct real_error {
  const char* source;
  const char* text;
  const char* id;
};

const real_error kReal[] = {
    {"triton-lang/triton#9815",
     "'tt.load' op operation destroyed but still has uses\nLLVM ERROR: operation destroyed but still has uses", "GS-TRITON-001"},
    {"triton-lang/triton-windows#24",
     "C:\\ComfyUI\\venv\\Lib\\site-packages\\sageattention\\attn_qk_int8_per_block.py:17:26: error: 'tt.load' op "
     "operation destroyed but still has uses\n        k_scale = tl.load(K_scale_ptr)\nRuntimeError: PassManager::run failed",
     "GS-TRITON-001"},
    {"ROCm/tensorflow-upstream#1800", "\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"",
     "GS-ROCM-003"},
    {"ROCm/tensorflow-upstream#1106",
     "hip_code_object.cpp:92: guarantee(false && \"hipErrorNoBinaryForGpu: Coudn't find binary for current devices!\")",
     "GS-ROCM-003"},
    {"ademakdogan/nails_segmentation#8",
     "    self.num_batches_tracked.add_(1)  # type: ignore[has-type]\nRuntimeError: CUDA error: no kernel image is "
     "available for execution on the device",
     "GS-CUDA-004"},
    {"OpenBMB/cpm_kernels#6", "      CUDA Error: no kernel image is available for execution on the device", "GS-CUDA-004"},
    {"SAI990323/TALLRec#27",
     "UserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers, 8-bit "
     "multiplication, and GPU quantization are unavailable.\n  warn(\"The installed version of bitsandbytes was "
     "compiled without GPU support. \"",
     "GS-BNB-005"},
    {"nvidia-cosmos/cosmos-predict1#35",
     "[WARNING | bitsandbytes.cextension]: The installed version of bitsandbytes was compiled without GPU support. "
     "8-bit optimizers, 8-bit multiplication, and GPU quantization are unavailable.",
     "GS-BNB-005"},
    {"bitsandbytes 0.46+ cextension.py (logged error, then the mock's RuntimeError)",
     "bitsandbytes library load error: No compatible ROCm binary found at "
     "/venv/lib/python3.12/site-packages/bitsandbytes/libbitsandbytes_rocm72.so\nRuntimeError: Attempted to use "
     "bitsandbytes native library functionality but it's not available.",
     "GS-BNB-005"},
    {"bitsandbytes-foundation/bitsandbytes#789 (python -m bitsandbytes)",
     "cextension.py:127: UserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit "
     "optimizers and GPU quantization are unavailable.",
     "GS-BNB-005"},
    {"torch.utils.cpp_extension (a source build with no CUDA toolkit; GS-PKG-002 only with causal-conv1d in the text)",
     "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.", "GS-EXT-004"},
    {"torch.utils.cpp_extension",
     "RuntimeError: The detected CUDA version (12.4) mismatches the version that was used to compile PyTorch (13.0). "
     "Please make sure to use the same CUDA versions.",
     "GS-CUDA-003"},
};

TEST(ErrorText, OutOfMemoryWithoutItsBreakdownIsThePlainOutOfMemoryFinding) {
  // Once look-alikes (nothing named them); the field corpus showed they are GS-MEM-022's family.
  for (const char* t : {"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
                        "hipErrorOutOfMemory: out of memory"}) {
    std::vector<std::string> ids = ids_for("step failed", t);
    EXPECT_NE(std::find(ids.begin(), ids.end(), "GS-MEM-022"), ids.end()) << t << " " << nlohmann::json(ids).dump();
  }
}

TEST(ErrorText, RealUpstreamErrorStringsNameTheirFinding) {
  for (const real_error& e : kReal) {
    SCOPED_TRACE(e.source);
    std::vector<std::string> ids = ids_for("step failed", e.text);
    EXPECT_TRUE(std::find(ids.begin(), ids.end(), e.id) != ids.end())
        << "wanted " << e.id << ", got " << nlohmann::json(ids).dump();
  }
}

TEST(ErrorText, NoDriverNamesTheDriverOnlyWhereTheFactsShowTheCard) {
  // googlecolab/colabtools#5136: torch says this on any machine without a loaded driver; on one
  // whose facts show an NVIDIA GPU it is GS-HOST-005 (load the driver), elsewhere it names nothing.
  const char* text = "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
                     "installed a driver from http://www.nvidia.com/Download/index.aspx";
  probe_result r;
  r.outcome = status::fail;
  r.detail = text;
  machine_facts with_card = any_machine();
  gpu_info g;
  g.vendor = "nvidia";
  g.arch = "sm_89";
  g.name = "NVIDIA GeForce RTX 4090";
  with_card.gpus.push_back(g);
  std::vector<std::string> ids = match_result_findings(r, with_card);
  EXPECT_NE(std::find(ids.begin(), ids.end(), "GS-HOST-005"), ids.end()) << nlohmann::json(ids).dump();
  ids = match_result_findings(r, any_machine());
  EXPECT_EQ(std::find(ids.begin(), ids.end(), "GS-HOST-005"), ids.end()) << nlohmann::json(ids).dump();
}

TEST(ErrorText, TheDetailAloneIsEnough) {
  // py.bnb.load's own detail when a >= 0.46 mock library says only "XPU/CPU can run without
  // native library." (torch saw no GPU, so bitsandbytes never looked for one).
  std::vector<std::string> ids =
      ids_for("bitsandbytes 0.48.2 fell back to the CPU (backend CPU, library None): XPU/CPU can run without native library.", "");
  EXPECT_EQ(ids, std::vector<std::string>{"GS-BNB-005"});
}

TEST(ErrorText, LookalikeTextsNameNothing) {
  for (const char* t :
       {"RuntimeError: CUDA error: an illegal memory access was encountered",
        "LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn.mfma",
        "bitsandbytes 0.50.0 loaded libbitsandbytes_cuda130.so (CUDA); NF4 round trip mean |err| 0.073",
        "NVIDIA driver 580.159.04 found", "ModuleNotFoundError: No module named 'bitsandbytes'",
        // googlecolab/colabtools#5136 as posted: a runtime with no GPU attached says this too, so
        // "load the driver" would be wrong without a card in sight.
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
        "driver from http://www.nvidia.com/Download/index.aspx"}) {
    SCOPED_TRACE(t);
    EXPECT_TRUE(ids_for("step failed", t).empty()) << nlohmann::json(ids_for("step failed", t)).dump();
  }
}

TEST(ErrorText, FindingsAreNamedOnceEvenWhenSeveralLinesMatch) {
  std::string twice = std::string(kReal[7].text) + "\n" + kReal[9].text;
  std::vector<std::string> ids = ids_for("bitsandbytes 0.44.1 fell back to the CPU", twice);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), "GS-BNB-005"), 1);
}

}  // namespace
}  // namespace gs
