// `gpustack inspect` end to end on real nvcc objects, and `check`'s path: a site-packages whose
// torch RECORD lists a real nvcc object -> facts.device_code -> GS-BIN-001 on a GPU it cannot serve.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "inspect/device_code_facts.h"
#include "inspect/gpu_libraries.h"
#include "rules/knowledge_base.h"
#include "support/inspect_data.h"
#include "support/run_binary.h"

namespace gs {
namespace {

using cli_result = gs::testing::run_output;

cli_result cli(const std::string& args) { return gs::testing::run_gpustack(args); }

TEST(InspectCli, JsonVerdictAndExitCodes) {
  const auto& n = test::nvcc_built();
  if (!n) GTEST_SKIP() << "nvcc not here";
  cli_result ok = cli("inspect --json --gpu sm_90 " + n->multi);
  EXPECT_EQ(ok.rc, 0) << ok.out;
  auto doc = nlohmann::json::parse(ok.out);
  EXPECT_EQ(doc["command"], "inspect");
  ASSERT_EQ(doc["libraries"].size(), 1u);
  EXPECT_EQ(doc["libraries"][0]["codes"], nlohmann::json({"sm_80", "sm_90", "compute_90"}));
  EXPECT_EQ(doc["libraries"][0]["verdicts"]["sm_90"]["verdict"], "runs");
  EXPECT_EQ(doc["libraries"][0]["nvidia"]["compressed_entries"], 1);
  cli_result old = cli("inspect --json --gpu sm_75 " + n->multi);
  EXPECT_EQ(old.rc, 1) << "no code for sm_75";
  EXPECT_EQ(nlohmann::json::parse(old.out)["libraries"][0]["verdicts"]["sm_75"]["verdict"], "none");
  cli_result human = cli("inspect --gpu sm_120 " + n->multi + " " + n->sm90a);
  EXPECT_EQ(human.rc, 1) << human.out;
  EXPECT_NE(human.out.find("jit"), std::string::npos) << human.out;
  EXPECT_NE(human.out.find("nothing for sm_120 (has sm_90a)"), std::string::npos) << human.out;
  EXPECT_EQ(cli("inspect --gpu banana " + n->multi).rc, 2);
  EXPECT_EQ(cli("inspect --gpu sm_90 /nonexistent/libx.so").rc, 2);
}

TEST(InspectCli, DirectoryArgumentScansItsLibraries) {
  const auto& n = test::nvcc_built();
  if (!n) GTEST_SKIP();
  std::string dir = test::scratch_dir() + "/libdir";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(n->multi, dir + "/libk.so", std::filesystem::copy_options::overwrite_existing);
  test::write_file(dir + "/notes.txt", "not a library");
  cli_result r = cli("inspect --json --gpu sm_90 " + dir);
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)["libraries"].size(), 1u);
}

TEST(InspectCheck, SitePackagesRecordToFinding) {
  const auto& n = test::nvcc_built();
  if (!n) GTEST_SKIP();
  std::string sp = test::scratch_dir() + "/site-packages";
  std::filesystem::create_directories(sp + "/torch/lib");
  std::filesystem::create_directories(sp + "/torch-2.11.0.dist-info");
  std::filesystem::create_directories(sp + "/numpy-2.0.0.dist-info");
  std::filesystem::copy_file(n->multi, sp + "/torch/lib/libtorch_cuda.so", std::filesystem::copy_options::overwrite_existing);
  test::write_file(sp + "/torch/lib/libgone_placeholder.txt", "");
  test::write_file(sp + "/torch-2.11.0.dist-info/RECORD",
                   "torch/__init__.py,,\ntorch/lib/libtorch_cuda.so,sha256=x,1\ntorch/lib/libmissing.so,,\n");
  test::write_file(sp + "/numpy-2.0.0.dist-info/RECORD", "numpy/core/_multiarray_umath.so,,\n");
  machine_facts f;
  f.python.found = true;
  f.python.site_packages = {sp};
  auto refs = find_gpu_libraries(sysroot::live(), f);
  ASSERT_EQ(refs.size(), 2u) << "torch's two .so entries, not numpy's";
  EXPECT_EQ(refs[0].package, "torch");
  detect_device_code(sysroot::live(), f);
  ASSERT_EQ(f.device_code.size(), 1u) << "the missing file is skipped";
  EXPECT_EQ(f.device_code[0].package, "torch");

  gpu_info g;
  g.vendor = "nvidia";
  g.arch = "sm_75";
  g.name = "Tesla T4";
  f.gpus = {g};
  std::vector<kb_error> errors;
  knowledge_base kb = knowledge_base::load_builtin(errors);
  ASSERT_TRUE(errors.empty());
  bool fired = false;
  for (const finding& x : kb.evaluate(f))
    if (x.id == "GS-BIN-001") {
      fired = true;
      EXPECT_NE(x.evidence.find("libtorch_cuda.so (torch)"), std::string::npos) << x.evidence;
    }
  EXPECT_TRUE(fired);
  f.gpus[0].arch = "sm_90";
  for (const finding& x : kb.evaluate(f)) EXPECT_NE(x.id.rfind("GS-BIN", 0), 0u) << x.evidence;
}

}  // namespace
}  // namespace gs
