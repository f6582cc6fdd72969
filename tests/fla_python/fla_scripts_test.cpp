// The Python backends of `gpustack probe fla` (probes/python/fla_triton.py, fla_fla.py and their
// helpers) on this machine's torch-less Pythons, through the real run_python_script path: clean
// skips with their reasons, bad arguments failing by name, stand-in torch/triton packages for
// "no GPU" and "no flash-linear-attention", and every script compiling (py_compile), so a syntax
// error fails CI rather than the first H200 run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "core/assets.h"
#include "python/script_runner.h"
#include "support/probe_harness.h"
#include "support/shell.h"

namespace gs {
namespace {

namespace fs = std::filesystem;
using test::real_pythons;
using test::recording_sink;
using test::scoped_env;

// What fla-native's orchestrator places beside each script (src/fla/fla_probes.cpp), spelled out
// here so the test fails if a script starts importing a helper that is not embedded.
python_probe_request request(const std::string& backend, nlohmann::json args) {
  python_probe_request req;
  req.script = "probes/python/fla_" + backend + ".py";
  if (backend == "triton")
    req.extra_assets = {"kernels/triton/gdn_chunk.py", "kernels/triton/gdn_ref.py", "probes/python/fla_args.py"};
  else
    req.extra_assets = {"kernels/triton/gdn_ref.py", "probes/python/fla_args.py",
                        "probes/python/gpustack_triton_stages.py"};
  req.args = std::move(args);
  req.timeout_s = 60;
  return req;
}

nlohmann::json case_args(int stage) {
  return {{"stage", stage}, {"B", 2},     {"T", 4096},        {"H", 16},          {"HV", 16},     {"K", 128},
          {"V", 128},       {"chunk", 64}, {"dtype", "bf16"}, {"seed", 20261202}, {"backward", true}, {"spin", false}};
}

struct run_out {
  python_probe_outcome outcome;
  probe_result result;
  std::vector<std::string> phases;
};

run_out run(const std::string& python, const std::string& backend, nlohmann::json args) {
  machine_facts f;
  f.python.found = true;
  f.python.interpreter = python;
  recording_sink sink;
  probe_context ctx;
  ctx.facts = &f;
  ctx.progress = &sink;
  run_out r;
  r.outcome = run_python_script(ctx, request(backend, std::move(args)));
  r.result = to_probe_result("fla." + backend, r.outcome);
  r.phases = sink.phases;
  return r;
}

TEST(FlaPythonScripts, EveryScriptAndHelperIsEmbedded) {
  for (const char* a : {"probes/python/fla_triton.py", "probes/python/fla_fla.py", "probes/python/fla_args.py",
                        "probes/python/gpustack_triton_stages.py", "kernels/triton/gdn_chunk.py",
                        "kernels/triton/gdn_ref.py"})
    EXPECT_TRUE(find_asset(a)) << a;
  for (const char* s : {"probes/python/fla_triton.py", "probes/python/fla_fla.py"}) {
    std::string_view text = *find_asset(s);
    EXPECT_NE(text.find("import gs_protocol as gs"), std::string_view::npos) << s;
    EXPECT_NE(text.find("gs.run(main)"), std::string_view::npos) << s;
    for (const char* phase : {"\"import\"", "\"compile\"", "\"run\"", "\"verify\""})
      EXPECT_NE(text.find(std::string("gs.phase(") + phase), std::string_view::npos) << s << " " << phase;
  }
}

TEST(FlaPythonScripts, WithoutTorchBothBackendsSkipSayingSoOnEachRealPython) {
  std::vector<std::string> pys = real_pythons();
  ASSERT_FALSE(pys.empty()) << "no python3 on this machine";
  for (const std::string& py : pys) {
    for (const char* backend : {"triton", "fla"}) {
      SCOPED_TRACE(py + " " + backend);
      run_out r = run(py, backend, case_args(2));
      ASSERT_TRUE(r.outcome.result) << r.outcome.error << "\n" << ::testing::PrintToString(r.outcome.log_tail);
      EXPECT_EQ(r.result.outcome, status::skip) << r.result.detail;
      EXPECT_NE(r.result.detail.find("torch is not installed in "), std::string::npos) << r.result.detail;
      EXPECT_EQ(r.result.data["num_stages"], 2);
      EXPECT_EQ(r.result.data["case"]["T"], 4096);
      EXPECT_EQ(r.phases.front(), "import");
    }
  }
}

TEST(FlaPythonScripts, BadArgumentsFailNamingTheArgument) {
  std::string py = real_pythons().front();
  run_out r = run(py, "triton", {{"stage", 0}});
  EXPECT_EQ(r.result.outcome, status::fail) << r.result.detail;
  EXPECT_NE(r.result.detail.find("stage=0 must be between 1 and 16"), std::string::npos) << r.result.detail;
  // The fla backend accepts 0 (FLA as shipped, nothing forced), but not a grouping that does not divide.
  r = run(py, "fla", {{"stage", 0}, {"H", 16}, {"HV", 24}});
  EXPECT_EQ(r.result.outcome, status::fail) << r.result.detail;
  EXPECT_NE(r.result.detail.find("HV=24 is not a multiple of H=16"), std::string::npos) << r.result.detail;
  r = run(py, "triton", {{"dtype", "fp8"}});
  EXPECT_EQ(r.result.outcome, status::fail);
  EXPECT_NE(r.result.detail.find("dtype 'fp8'"), std::string::npos) << r.result.detail;
}

TEST(FlaPythonScripts, TorchWithoutTritonSkipsBothBackends) {
  scoped_env pp("PYTHONPATH", test::python_fakes_dir() + "nodriver");
  for (const char* backend : {"triton", "fla"}) {
    run_out r = run("/usr/bin/python3", backend, case_args(3));
    EXPECT_EQ(r.result.outcome, status::skip) << backend << ": " << r.result.detail;
    EXPECT_NE(r.result.detail.find("triton is not installed in /usr/bin/python3"), std::string::npos)
        << r.result.detail;
  }
}

TEST(FlaPythonScripts, NoGpuSkipsTheTritonBackendAndNoFlaSkipsTheFlaBackend) {
  scoped_env pp("PYTHONPATH", test::python_fakes_dir() + "nodriver:" + test::python_fakes_dir() + "triton36");
  run_out t = run("/usr/bin/python3", "triton", case_args(1));
  EXPECT_EQ(t.result.outcome, status::skip) << t.result.detail << "\n" << t.result.data.dump();
  EXPECT_NE(t.result.detail.find("torch sees no GPU"), std::string::npos) << t.result.detail;
  EXPECT_EQ(t.result.data["versions"]["triton"], "3.6.0");
  EXPECT_EQ(t.result.data["versions"]["torch"], "2.11.0+cu130");

  run_out f = run("/usr/bin/python3", "fla", case_args(1));
  EXPECT_EQ(f.result.outcome, status::skip) << f.result.detail;
  EXPECT_NE(f.result.detail.find("flash-linear-attention is not installed in /usr/bin/python3"), std::string::npos)
      << f.result.detail;
  EXPECT_EQ(f.result.data["versions"]["triton"], "3.6.0");
}

TEST(FlaPythonScripts, EveryPythonFileCompiles) {
  std::string py = real_pythons().front();
  fs::path dir = fs::temp_directory_path() / ("gs-flapy-compile-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string cmd = "cd '" + dir.string() + "' && PYTHONPYCACHEPREFIX='" + (dir / "pyc").string() + "' '" + py +
                    "' -m py_compile";
  int n = 0;
  for (const char* path : {"probes/python/fla_triton.py", "probes/python/fla_fla.py", "probes/python/fla_args.py",
                           "probes/python/gpustack_triton_stages.py", "kernels/triton/gdn_chunk.py",
                           "kernels/triton/gdn_ref.py"}) {
    std::string p = path;
    std::string name = p.substr(p.rfind('/') + 1);
    std::ofstream(dir / name, std::ios::binary) << *find_asset(p);
    cmd += " " + name;
    ++n;
  }
  EXPECT_EQ(n, 6);
  EXPECT_EQ(std::system((cmd + " 2>&1").c_str()), 0) << cmd;
  // The check can fail: a file with a syntax error does.
  std::ofstream(dir / "broken.py") << "def f(:\n    pass\n";
  std::string bad = "cd '" + dir.string() + "' && PYTHONPYCACHEPREFIX='" + (dir / "pyc").string() + "' '" + py +
                    "' -m py_compile broken.py >/dev/null 2>&1";
  EXPECT_NE(std::system(bad.c_str()), 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gs
