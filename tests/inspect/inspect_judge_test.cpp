// The "can this GPU run it" rules and the pieces around them: target parsing, the generic
// target table (data, with its errors), unit-level verdicts, bundle ids, RECORD parsing.
#include <gtest/gtest.h>

#include "core/assets.h"
#include "inspect/code_judge.h"
#include "inspect/gpu_libraries.h"
#include "inspect/offload_bundle.h"

namespace gs {
namespace {

bool runs(const char* gpu, const char* code, bool* jit = nullptr) { return code_runs(parse_gpu_target(gpu), code, jit); }

TEST(InspectJudge, NvidiaBinaryCompatibility) {
  EXPECT_TRUE(runs("sm_90", "sm_90"));
  EXPECT_TRUE(runs("sm_86", "sm_80"));
  EXPECT_FALSE(runs("sm_80", "sm_86")) << "SASS never runs on an older minor";
  EXPECT_FALSE(runs("sm_100", "sm_90")) << "SASS never crosses a major";
  EXPECT_TRUE(runs("sm_90", "sm_90a"));
  EXPECT_FALSE(runs("sm_100", "sm_90a"));
  EXPECT_TRUE(runs("sm_103", "sm_100f"));
  EXPECT_FALSE(runs("sm_120", "sm_100f"));
  bool jit = false;
  EXPECT_TRUE(runs("sm_120", "compute_90", &jit));
  EXPECT_TRUE(jit);
  EXPECT_FALSE(runs("sm_86", "compute_90")) << "PTX JITs only upwards";
  EXPECT_FALSE(runs("sm_100", "compute_90a"));
  EXPECT_FALSE(runs("gfx90a", "sm_90"));
  EXPECT_TRUE(runs("9.0", "sm_90")) << "a compute capability works as --gpu";
}

TEST(InspectJudge, AmdTargetsFeaturesAndGenerics) {
  EXPECT_TRUE(runs("gfx1201", "gfx1201"));
  EXPECT_FALSE(runs("gfx1201", "gfx1200"));
  EXPECT_FALSE(runs("gfx1201", "gfx1100")) << "no gfx11 code on gfx12 (the HSA_OVERRIDE trap)";
  EXPECT_TRUE(runs("gfx1201", "gfx12-generic"));
  EXPECT_TRUE(runs("gfx1101", "gfx11-generic"));
  EXPECT_FALSE(runs("gfx1201", "gfx11-generic"));
  EXPECT_TRUE(runs("gfx942", "gfx9-4-generic"));
  EXPECT_TRUE(runs("gfx90a", "gfx90a:xnack+")) << "device setting unknown: matches";
  EXPECT_TRUE(runs("gfx90a:xnack+", "gfx90a:xnack+"));
  EXPECT_FALSE(runs("gfx90a:xnack-", "gfx90a:xnack+"));
  EXPECT_TRUE(runs("gfx90a:xnack-", "gfx90a")) << "code without the feature runs either way";
  EXPECT_FALSE(runs("sm_90", "gfx90a"));
}

TEST(InspectJudge, ParseGpuTarget) {
  EXPECT_EQ(parse_gpu_target("sm_90").sm, 90);
  EXPECT_EQ(parse_gpu_target("sm_90a").sm, 90);
  EXPECT_EQ(parse_gpu_target("12.0").sm, 120);
  EXPECT_EQ(parse_gpu_target("gfx942:sramecc+:xnack-").features.at("sramecc"), '+');
  EXPECT_EQ(parse_gpu_target("gfx942:sramecc+:xnack-").features.at("xnack"), '-');
  EXPECT_EQ(parse_gpu_target("nonsense").vendor, "");
  EXPECT_EQ(parse_gpu_target("sm_").vendor, "");
  EXPECT_EQ(parse_gpu_target("gfx").vendor, "");
}

TEST(InspectJudge, BuiltinTableLoadsClean) {
  auto text = find_asset("matrix/hardware/code_compat.toml");
  ASSERT_TRUE(text);
  std::vector<table_error> errors;
  code_compat_table t = parse_code_compat("matrix/hardware/code_compat.toml", *text, errors);
  for (const table_error& e : errors) ADD_FAILURE() << e.to_string();
  EXPECT_EQ(t.amd_generic.at("gfx12-generic"), (std::vector<std::string>{"gfx1200", "gfx1201"}));
  EXPECT_EQ(builtin_code_compat().amd_generic.size(), t.amd_generic.size());
  ASSERT_NE(t.unjudged_reason("libcufft.so.12"), nullptr);
  EXPECT_NE(t.unjudged_reason("libcufftw.so.12"), nullptr);
  EXPECT_EQ(t.unjudged_reason("libcublas.so.13"), nullptr);
}

TEST(InspectJudge, TableErrorsCiteLineAndColumn) {
  std::vector<table_error> errors;
  parse_code_compat("t.toml", "schema = 1\n[[amd_generic]]\ntarget = \"gfx12\"\nmembers = []\n", errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].to_string().rfind("t.toml:2:", 0), 0u) << errors[0].to_string();
  errors.clear();
  parse_code_compat("t.toml", "schema = 1\nbogus = 3\n", errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].to_string().find("t.toml:2:"), std::string::npos);
  errors.clear();
  parse_code_compat("t.toml", "schema = [\n", errors);
  EXPECT_EQ(errors.size(), 1u);
}

TEST(InspectJudge, UnitVerdicts) {
  device_code_library lib;
  lib.units = {{{"sm_90a"}, 10}, {{"sm_100a"}, 2}};
  code_judgement j = judge_library(lib, parse_gpu_target("sm_90"));
  EXPECT_EQ(j.verdict, code_verdict::partial);
  EXPECT_EQ(j.units, 12);
  EXPECT_EQ(j.units_native, 10);
  EXPECT_NE(j.detail.find("2 of 12"), std::string::npos) << j.detail;
  EXPECT_EQ(judge_library(lib, parse_gpu_target("sm_120")).verdict, code_verdict::none);
  lib.units = {{{"sm_80", "compute_80"}, 1}, {{"sm_90"}, 1}};
  EXPECT_EQ(judge_library(lib, parse_gpu_target("sm_90")).verdict, code_verdict::jit);
  EXPECT_EQ(judge_library(device_code_library{}, parse_gpu_target("sm_90")).verdict, code_verdict::no_gpu_code);
  device_code_library broken;
  broken.error = "cannot read: EACCES";
  EXPECT_EQ(judge_library(broken, parse_gpu_target("sm_90")).verdict, code_verdict::error);
  EXPECT_EQ(judge_library(lib, gpu_target{}).verdict, code_verdict::unknown);
}

TEST(InspectJudge, BundleIds) {
  std::string kind, target;
  split_bundle_id("hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", kind, target);
  EXPECT_EQ(kind, "hipv4");
  EXPECT_EQ(target, "gfx942:sramecc+:xnack-");
  split_bundle_id("hipv4-amdgcn-amd-amdhsa--gfx12-generic", kind, target);
  EXPECT_EQ(target, "gfx12-generic");
  split_bundle_id("hip-amdgcn-amd-amdhsa-gfx906", kind, target);
  EXPECT_EQ(target, "gfx906");
  split_bundle_id("host-x86_64-unknown-linux-gnu-", kind, target);
  EXPECT_EQ(kind, "host");
  EXPECT_EQ(target, "");
  split_bundle_id("", kind, target);
  EXPECT_EQ(target, "");
}

TEST(InspectJudge, RecordSharedObjects) {
  std::string record =
      "torch/__init__.py,sha256=abc,100\n"
      "torch/lib/libtorch_cuda.so,sha256=def,1000000\r\n"
      "torch/lib/libc10.so.1,sha256=x,1\n"
      "\"odd,name/libx.so\",sha256=y,2\n"
      "../../bin/evil.so,,\n"
      "/abs/lib.so,,\n"
      "torch-2.11.0.dist-info/RECORD,,\n";
  EXPECT_EQ(record_shared_objects(record),
            (std::vector<std::string>{"torch/lib/libtorch_cuda.so", "torch/lib/libc10.so.1", "odd,name/libx.so"}));
  EXPECT_TRUE(is_gpu_package("nvidia-cublas"));
  EXPECT_TRUE(is_gpu_package("flash-attn"));
  EXPECT_FALSE(is_gpu_package("numpy"));
}

}  // namespace
}  // namespace gs
