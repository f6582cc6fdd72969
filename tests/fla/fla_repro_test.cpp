// --emit-repro and --sanitize of `gpustack probe fla`: the standalone reproducer of a failing step
// (built from the H200 run's recorded triton step: syntax, every name it uses defined, the case
// and launch options it must carry, a clean exit 3 where torch or triton is missing), the reading
// of compute-sanitizer's output, and the follow-up that writes the files and runs a sanitizer
// (a stand-in script on PATH here; the real one ran on the H200, docs/hardware-runs.md).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "fla/fla_follow_up.h"
#include "fla/fla_repro.h"
#include "fla/fla_sanitize.h"
#include "report/redact.h"
#include "support/files.h"
#include "support/report_probes.h"
#include "support/run_binary.h"
#include "support/shell.h"

namespace gs {
namespace {

namespace fs = std::filesystem;

probe_result h200_step(const std::string& id) {
  nlohmann::json report = nlohmann::json::parse(test::read_file(test::fixture_dir("fla") + "h200_probe_fla_2026-12-03.json"));
  for (probe_result& r : test::probes_of_report(report))
    if (r.id == id) return r;
  ADD_FAILURE() << id << " not in the fixture";
  return {};
}

/// Python's own verdict on a script: compiles, and every name the repro's main uses is defined
/// at the top level of the file (the parts are concatenated: a renamed helper would break it).
int python_check(const fs::path& file, const std::string& names) {
  std::string code =
      "import ast,sys\n"
      "t=ast.parse(open(sys.argv[1]).read())\n"
      "top={n.name for n in t.body if isinstance(n,(ast.FunctionDef,ast.ClassDef))}\n"
      "top|={x.id for n in t.body if isinstance(n,ast.Assign) for x in n.targets if isinstance(x,ast.Name)}\n"
      "missing=[n for n in sys.argv[2].split(',') if n not in top]\n"
      "print('missing',missing) if missing else None\n"
      "sys.exit(1 if missing else 0)\n";
  test::write_file(file.string() + ".check.py", code);
  return test::shell("/usr/bin/python3 '" + file.string() + ".check.py' '" + file.string() + "' '" + names + "'");
}

TEST(FlaRepro, TheH200TritonFailureBecomesAStandaloneScript) {
  probe_result step = h200_step("fla.triton.stages1");
  std::string why;
  std::optional<fla_repro> r = fla_repro_for(step, redactor(), &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->file_name, "repro_fla_triton_stages1.py");
  const std::string& t = r->text;
  for (const char* must : {"\"num_stages\":1", "\"num_warps\":4", "\"T\":4096", "\"HV\":16", "\"seed\":20261202",
                           "\"dtype\":\"bf16\"", "def gdn_out_kernel", "class Launch", "def recurrent_ref",
                           "illegal memory access", "GPU arch sm_90", "triton 3.6.0", "compute-sanitizer --tool memcheck",
                           "sys.exit(_reproduce(CASE))"})
    EXPECT_NE(t.find(must), std::string::npos) << must;
  EXPECT_EQ(t.find("gs_protocol"), std::string::npos) << "nothing of gpustack may be imported";
  EXPECT_EQ(t.find("import gdn_"), std::string::npos) << "the modules are inlined, not imported";
  test::temp_dir dir;
  fs::path f = fs::path(dir.path) / r->file_name;
  test::write_file(f, t);
  EXPECT_EQ(python_check(f, "Launch,make_inputs,recurrent_ref,compare,check_forward,forward_verdict,torch_dtype,TOLERANCE,CASE,_reproduce"), 0);
  EXPECT_NE(python_check(f, "Launch,no_such_helper"), 0) << "the check can fail";
  // No triton here (CI's Python has none, or no torch either): the script says so and exits 3,
  // which is neither "reproduced" (1) nor "passed" (0).
  std::string out;
  int rc = test::shell("cd '" + dir.path + "' && /usr/bin/python3 " + r->file_name, &out);
  EXPECT_NE(out.find("cannot run: No module named"), std::string::npos) << out;
  EXPECT_EQ(rc, 3) << out;
}

TEST(FlaRepro, TheFlaBackendForcesTheDepthAndRepeatsHeadsForOldFla) {
  probe_result step;
  step.id = "fla.fla.stages3";
  step.outcome = status::crash;
  step.phase = "compile";
  step.detail = "Segmentation fault in /home/alice/venv/lib/python3.12/site-packages/triton/compiler.py";
  step.data = {{"backend", "fla"}, {"stage", 3}, {"arch", "gfx1201"}, {"gva", "q/k repeated"},
               {"case", {{"B", 1}, {"T", 512}, {"H", 4}, {"HV", 8}, {"K", 64}, {"V", 64}, {"seed", 7}, {"dtype", "bf16"}}}};
  redaction_identity id;
  id.home = "/home/alice";
  id.user = "alice";
  std::string why;
  std::optional<fla_repro> r = fla_repro_for(step, redactor(id), &why);
  ASSERT_TRUE(r) << why;
  for (const char* must : {"\"num_stages\":3", "\"repeat_qk\":true", "def activate", "chunk_gated_delta_rule",
                           "mode=\"force\"", "import fla", "GPU arch gfx1201"})
    EXPECT_NE(r->text.find(must), std::string::npos) << must;
  EXPECT_EQ(r->text.find("alice"), std::string::npos) << "a home path in the quoted error is redacted";
  test::temp_dir dir;
  fs::path f = fs::path(dir.path) / r->file_name;
  test::write_file(f, r->text);
  EXPECT_EQ(python_check(f, "activate,seen,make_inputs,recurrent_ref,compare,check_forward,forward_verdict,TOLERANCE,CASE,_reproduce"), 0);
}

TEST(FlaRepro, StepsWithoutAStandaloneFormSayWhy) {
  std::string why;
  EXPECT_FALSE(fla_repro_for(h200_step("fla.native.stages1"), redactor(), &why));
  EXPECT_NE(why.find("native backend"), std::string::npos) << why;
  probe_result early;
  early.id = "fla.triton.stages2";
  early.outcome = status::fail;
  early.phase = "import";
  early.data = {{"backend", "triton"}, {"stage", 2}};
  EXPECT_FALSE(fla_repro_for(early, redactor(), &why));
  EXPECT_NE(why.find("phase import"), std::string::npos) << why;
}

// compute-sanitizer's memcheck output, in the shape it prints (the H200 fault hunt found 228
// "Invalid __shared__ read of size 1024 bytes" in gdn_out_kernel: research h200-2026-12-03).
constexpr const char* kMemcheck =
    "========= COMPUTE-SANITIZER\n"
    "torch 2.11.0+cu130, triton 3.6.0, NVIDIA H200\n"
    "ok      gdn_prep_kernel (num_stages=1, num_warps=4)\n"
    "ok      gdn_state_kernel (num_stages=1, num_warps=4)\n"
    "========= Invalid __shared__ read of size 1024 bytes\n"
    "=========     at gdn_out_kernel+0x1c30 in repro_fla_triton_stages1.py:160\n"
    "=========     by thread (32,0,0) in block (0,3,1)\n"
    "=========     Address 0x10400 is out of bounds\n"
    "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
    "=========         Host Frame: [0x2f1a3] in libcuda.so.1\n"
    "========= \n"
    "========= Invalid __shared__ read of size 1024 bytes\n"
    "=========     at gdn_out_kernel+0x1c30 in repro_fla_triton_stages1.py:160\n"
    "=========     by thread (64,0,0) in block (0,3,1)\n"
    "========= Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified launch failure\" on CUDA API call to cuStreamSynchronize.\n"
    "=========     Saved host backtrace up to driver entry point at error\n"
    "FAILED  gdn_out_kernel (num_stages=1, num_warps=4): AcceleratorError: CUDA error: unspecified launch failure\n"
    "========= Target application returned an error\n"
    "========= ERROR SUMMARY: 228 errors\n";

TEST(FlaSanitize, ReadsWhatAndWhereOncePerKernel) {
  sanitizer_report r = parse_compute_sanitizer(kMemcheck);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].what, "Invalid __shared__ read of size 1024 bytes");
  EXPECT_EQ(r.errors[0].kernel, "gdn_out_kernel");
  ASSERT_TRUE(r.error_count);
  EXPECT_EQ(*r.error_count, 228);
  EXPECT_EQ(r.summary(), "Invalid __shared__ read of size 1024 bytes in gdn_out_kernel (228 errors)");
  sanitizer_report clean = parse_compute_sanitizer("========= COMPUTE-SANITIZER\nok\n========= ERROR SUMMARY: 0 errors\n");
  EXPECT_TRUE(clean.errors.empty());
  EXPECT_EQ(clean.summary(), "no errors");
}

TEST(FlaSanitize, MemoryFaultsAreTheOnesASanitizerCanPlace) {
  EXPECT_TRUE(is_memory_fault(h200_step("fla.triton.stages1")));
  probe_result wrong;
  wrong.detail = "num_stages=2: output differs from the float64 recurrence (rel err 3.1e-01)";
  EXPECT_FALSE(is_memory_fault(wrong));
  probe_result amd;
  amd.detail = "crash: Memory access fault by GPU node-1 (Agent handle: 0x5b) on address 0x7f. Reason: Page not present";
  EXPECT_TRUE(is_memory_fault(amd));
}

/// A stand-in compute-sanitizer on PATH that prints kMemcheck, for the follow-up's own logic.
struct fake_sanitizer {
  test::temp_dir bin;
  std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  std::string old_home = std::getenv("CUDA_HOME") ? std::getenv("CUDA_HOME") : "";
  fake_sanitizer() {
    fs::path s = fs::path(bin.path) / "compute-sanitizer";
    test::write_file(fs::path(bin.path) / "out.txt", kMemcheck);
    test::write_file(s, "#!/bin/sh\necho \"$@\" > '" + bin.path + "/argv'\ncat '" + bin.path + "/out.txt'\nexit 1\n");
    ::chmod(s.c_str(), 0755);
    ::setenv("PATH", (bin.path + ":" + old_path).c_str(), 1);
    ::setenv("CUDA_HOME", (bin.path + "/cuda").c_str(), 1);  // first in the search: $CUDA_HOME/bin
    fs::create_directories(fs::path(bin.path) / "cuda" / "bin");
    fs::copy_file(s, fs::path(bin.path) / "cuda" / "bin" / "compute-sanitizer");
  }
  ~fake_sanitizer() {
    ::setenv("PATH", old_path.c_str(), 1);
    if (!old_home.empty()) ::setenv("CUDA_HOME", old_home.c_str(), 1);
    else ::unsetenv("CUDA_HOME");
  }
};

TEST(FlaFollowUp, WritesReprosAndAttachesTheSanitizersFindings) {
  fake_sanitizer fake;
  ASSERT_EQ(find_compute_sanitizer(), fake.bin.path + "/cuda/bin/compute-sanitizer");
  std::vector<probe_result> rs = {h200_step("fla.native.stages1"), h200_step("fla.triton.stages1"),
                                  h200_step("fla.triton.stages2")};
  rs[0].outcome = status::fail;  // a native failure has no standalone form
  test::temp_dir out;
  fla_follow_up_options o;
  o.repro_dir = out.path + "/repros";
  o.python = "/usr/bin/python3";
  std::vector<std::string> lines = follow_up_fla_failures(rs, o, redactor());
  std::string all;
  for (const std::string& l : lines) all += l + "\n";
  EXPECT_TRUE(fs::exists(o.repro_dir + "/repro_fla_triton_stages1.py")) << all;
  EXPECT_FALSE(fs::exists(o.repro_dir + "/repro_fla_triton_stages2.py")) << "a passing step gets none";
  EXPECT_EQ(rs[1].data.value("repro", ""), o.repro_dir + "/repro_fla_triton_stages1.py");
  EXPECT_NE(all.find("fla.native.stages1: no standalone script"), std::string::npos) << all;
  EXPECT_NE(all.find("hint: fla.triton.stages1 failed with a memory fault: --sanitize"), std::string::npos) << all;
  EXPECT_FALSE(rs[1].data.contains("sanitizer")) << "not asked for";

  o.sanitize = true;
  lines = follow_up_fla_failures(rs, o, redactor());
  ASSERT_TRUE(rs[1].data.contains("sanitizer"));
  EXPECT_EQ(rs[1].data["sanitizer"]["errors"][0]["kernel"], "gdn_out_kernel");
  EXPECT_EQ(rs[1].data["sanitizer"]["error_count"], 228);
  EXPECT_NE(rs[1].detail.find("compute-sanitizer: Invalid __shared__ read of size 1024 bytes in gdn_out_kernel"),
            std::string::npos) << rs[1].detail;
  std::string argv = test::read_file(fake.bin.path + "/argv");
  EXPECT_NE(argv.find("--tool memcheck"), std::string::npos) << argv;
  EXPECT_NE(argv.find("/usr/bin/python3 " + o.repro_dir + "/repro_fla_triton_stages1.py --no-check"), std::string::npos) << argv;

  // On an AMD GPU no sanitizer sees Triton's code: said, not attempted.
  std::vector<probe_result> amd = {h200_step("fla.triton.stages1")};
  amd[0].data["arch"] = "gfx1201";
  amd[0].data.erase("sanitizer");
  lines = follow_up_fla_failures(amd, o, redactor());
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.back().find("ROCm has no memory checker"), std::string::npos) << lines.back();
  EXPECT_FALSE(amd[0].data.contains("sanitizer"));
}

TEST(FlaFollowUp, AnEmitReproPathThatIsAFileIsAUsageErrorBeforeAnythingRuns) {
  test::temp_dir d;
  test::write_file(d.path + "/file", "x");
  gs::testing::run_output r = gs::testing::run_gpustack("probe fla --backends native --device cpu --emit-repro '" + d.path + "/file'");
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--emit-repro"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("fla.native"), std::string::npos) << "nothing ran: " << r.err;
}

}  // namespace
}  // namespace gs
