// Every probe script against the real Pythons of this machine (the pyenv python3 on PATH and
// /usr/bin/python3, neither with torch): clean skips with the reason, phases relayed. Then the
// failure paths through stand-in packages (tests/fixtures/python_fakes): a torch that fails
// inside its import, a CUDA torch without a driver (and the finding its error text names), a
// crash, a silent exit, a cut-off result, bitsandbytes on its CPU library, and a hung import
// that only the watchdog's group kill ends, leaving no Python behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/assets.h"
#include "probes/python_probes.h"
#include "python/script_runner.h"
#include "watch/probe_runner.h"

#include "support/probe_harness.h"
#include "support/shell.h"

namespace gs {
namespace {

namespace fs = std::filesystem;
using test::facts_for;
using test::real_pythons;
using test::recording_sink;
using test::scoped_env;

struct step {
  const char* id;
  const char* script;
};
const step kSteps[] = {
    {"py.torch", "probes/python/torch_basic.py"},   {"py.bnb.load", "probes/python/bnb_load.py"},
    {"py.bnb.int8", "probes/python/bnb_int8.py"},   {"py.bnb.nf4", "probes/python/bnb_nf4.py"},
    {"py.transformers.bnb", "probes/python/hf_bnb_config.py"}, {"py.peft.lora", "probes/python/peft_lora.py"},
    {"py.trl.config", "probes/python/trl_config.py"}, {"py.sdpa", "probes/python/sdpa.py"},
    {"py.triton", "probes/python/triton_smoke.py"}, {"py.matmul", "probes/python/matmul.py"},
};

probe_result run_step(const machine_facts& f, const step& s, recording_sink* sink = nullptr) {
  recording_sink local;
  probe_context ctx;
  ctx.facts = &f;
  ctx.progress = sink ? sink : &local;
  return run_python_step(ctx, s.id, s.script);
}

TEST(PythonScripts, EveryScriptIsEmbeddedAndSpeaksTheProtocol) {
  ASSERT_TRUE(find_asset("probes/python/gs_protocol.py"));
  for (const step& s : kSteps) {
    std::optional<std::string_view> text = find_asset(s.script);
    ASSERT_TRUE(text) << s.script;
    EXPECT_NE(text->find("import gs_protocol as gs"), std::string_view::npos) << s.script;
    EXPECT_NE(text->find("gs.run(main)"), std::string_view::npos) << s.script;
    EXPECT_NE(text->find("\"versions\""), std::string_view::npos) << s.script << " records no versions";
    ASSERT_TRUE(find_probe(s.id)) << s.id << " is not in the probe table";
  }
}

TEST(PythonScripts, EveryScriptSkipsCleanlyWithoutTorchOnEachRealPython) {
  std::vector<std::string> pys = real_pythons();
  ASSERT_FALSE(pys.empty()) << "no python3 on this machine";
  for (const std::string& py : pys) {
    if (test::python_has_torch(py)) {
      ADD_FAILURE() << py << " has torch: this test needs a torch-less Python";
      continue;
    }
    machine_facts f = facts_for(py);
    for (const step& s : kSteps) {
      SCOPED_TRACE(py + " " + s.id);
      recording_sink sink;
      probe_result r = run_step(f, s, &sink);
      EXPECT_EQ(r.outcome, status::skip) << r.detail << "\n" << r.data.dump();
      EXPECT_NE(r.detail.find("torch is not installed in "), std::string::npos) << r.detail;
      EXPECT_TRUE(std::find(sink.phases.begin(), sink.phases.end(), "import") != sink.phases.end());
      EXPECT_TRUE(r.finding_ids.empty());
      EXPECT_EQ(r.data["python"]["interpreter"], py);
    }
  }
}

TEST(PythonScripts, NoInterpreterIsASkipSayingWhere) {
  machine_facts none;
  probe_result r = run_step(none, kSteps[0]);
  EXPECT_EQ(r.outcome, status::skip);
  EXPECT_NE(r.detail.find("no Python environment found"), std::string::npos) << r.detail;
  machine_facts gone = facts_for("/nonexistent/bin/python3");
  r = run_step(gone, kSteps[0]);
  EXPECT_EQ(r.outcome, status::skip);
  EXPECT_NE(r.detail.find("/nonexistent/bin/python3 cannot be executed"), std::string::npos) << r.detail;
}

TEST(PythonScripts, TorchThatFailsInsideItsImportIsAFailWithTheTraceback) {
  scoped_env pp("PYTHONPATH", test::python_fakes_dir() + "broken");
  probe_result r = run_step(facts_for("/usr/bin/python3", true), kSteps[0]);
  EXPECT_EQ(r.outcome, status::fail) << r.detail;
  EXPECT_NE(r.detail.find("OSError: libcudart.so.13: cannot open shared object file"), std::string::npos) << r.detail;
  EXPECT_EQ(r.data["error"]["type"], "OSError");
  EXPECT_FALSE(r.data["error"]["traceback"].empty());
  EXPECT_NE(r.data.value("output_tail", std::string()).find("libcudart.so.13"), std::string::npos);
}

TEST(PythonScripts, CudaTorchWithoutADriverFailsAndNamesTheDriverFinding) {
  scoped_env pp("PYTHONPATH", test::python_fakes_dir() + "nodriver");
  probe_result r = run_step(facts_for("/usr/bin/python3", true), kSteps[0]);
  EXPECT_EQ(r.outcome, status::fail) << r.detail;
  EXPECT_NE(r.detail.find("torch 2.11.0+cu130 (CUDA 13.0) sees no GPU: Found no NVIDIA driver"), std::string::npos)
      << r.detail;
  EXPECT_EQ(r.data["versions"]["torch"], "2.11.0+cu130");
  EXPECT_EQ(r.data["versions"]["torch_cuda"], "13.0");
  EXPECT_TRUE(std::find(r.finding_ids.begin(), r.finding_ids.end(), "GS-HOST-005") != r.finding_ids.end())
      << nlohmann::json(r.finding_ids).dump();
  // The same torch where detection found no GPU at all: nothing to test, a skip.
  probe_result quiet = run_step(facts_for("/usr/bin/python3", false), kSteps[0]);
  EXPECT_EQ(quiet.outcome, status::skip) << quiet.detail;
  EXPECT_NE(quiet.detail.find("gpustack found none"), std::string::npos) << quiet.detail;
}

TEST(PythonScripts, BitsandbytesOnItsCpuLibraryFailsAndNamesTheFallbackFinding) {
  scoped_env pp("PYTHONPATH", test::python_fakes_dir() + "nodriver:" + test::python_fakes_dir() + "bnbcpu");
  probe_result r = run_step(facts_for("/usr/bin/python3", true), kSteps[1]);
  EXPECT_EQ(r.outcome, status::fail) << r.detail;
  EXPECT_NE(r.detail.find("bitsandbytes 0.44.1 fell back to the CPU"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("libbitsandbytes_cpu.so"), std::string::npos) << r.detail;
  EXPECT_EQ(r.data["versions"]["bitsandbytes"], "0.44.1");
  EXPECT_TRUE(std::find(r.finding_ids.begin(), r.finding_ids.end(), "GS-BNB-005") != r.finding_ids.end())
      << nlohmann::json(r.finding_ids).dump();
}

TEST(PythonScripts, AnInterpreterThatDiesIsACrashWithTheSignal) {
  scoped_env pp("PYTHONPATH", test::python_fakes_dir() + "segv");
  probe_result r = run_step(facts_for("/usr/bin/python3", true), kSteps[0]);
  EXPECT_EQ(r.outcome, status::crash) << r.detail;
  EXPECT_EQ(r.data["signal"], "SIGSEGV");
  EXPECT_NE(r.detail.find("Python died of SIGSEGV"), std::string::npos) << r.detail;
}

TEST(PythonScripts, ExitingWithoutAResultOrWithAGarbledOneIsAnError) {
  {
    scoped_env pp("PYTHONPATH", test::python_fakes_dir() + "silent");
    probe_result r = run_step(facts_for("/usr/bin/python3", true), kSteps[0]);
    EXPECT_EQ(r.outcome, status::error) << r.detail;
    EXPECT_NE(r.detail.find("exited with code 0 without sending a result"), std::string::npos) << r.detail;
  }
  {
    scoped_env pp("PYTHONPATH", test::python_fakes_dir() + "garbage");
    probe_result r = run_step(facts_for("/usr/bin/python3", true), kSteps[0]);
    EXPECT_EQ(r.outcome, status::error) << r.detail;
    EXPECT_NE(r.detail.find("unreadable result"), std::string::npos) << r.detail;
    EXPECT_EQ(r.data["exit_code"], 3);
  }
}

// torch 2.11+cu130 on the H200 has gcnArchName on CUDA devices too, holding the device name
// (seen in the H200 transcript of torch_basic.py): the arch comes from it on HIP builds only.
TEST(PythonScripts, DeviceArchIsSmOnCudaEvenWhenGcnArchNameIsSet) {
  fs::path dir = fs::temp_directory_path() / ("gs-devname-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "gs_protocol.py") << *find_asset("probes/python/gs_protocol.py");
  std::string snippet =
      "import types, gs_protocol as gs\n"
      "def fake(hip, props):\n"
      "    return types.SimpleNamespace(version=types.SimpleNamespace(hip=hip),\n"
      "        cuda=types.SimpleNamespace(get_device_properties=lambda i: types.SimpleNamespace(**props)))\n"
      "print(gs.device_name(fake(None, dict(name='NVIDIA H200', gcnArchName='NVIDIA H200', major=9, minor=0)), 0))\n"
      "print(gs.device_name(fake('7.2.26015', dict(name='AMD Radeon AI PRO R9700', gcnArchName='gfx1201:sramecc-:xnack-', major=12, minor=0)), 0))\n";
  std::ofstream(dir / "probe.py") << snippet;
  std::string out;
  test::shell("cd '" + dir.string() + "' && /usr/bin/python3 probe.py", &out);
  EXPECT_EQ(out, "('NVIDIA H200', 'sm_90')\n('AMD Radeon AI PRO R9700', 'gfx1201')\n");
  fs::remove_all(dir);
}

// event_times_ms must time the GPU, not Python's dispatch: with torch.cuda._sleep it holds the
// stream, queues every call between its events, and waits once at the end (a fake torch logs the
// order); without _sleep it times each call alone. Mutating the hold or the single wait fails this.
TEST(PythonScripts, EventTimingQueuesEveryCallBehindAHeldStream) {
  fs::path dir = fs::temp_directory_path() / ("gs-events-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "gs_protocol.py") << *find_asset("probes/python/gs_protocol.py");
  std::string snippet =
      "import types, gs_protocol as gs\n"
      "log = []\n"
      "class Event:\n"
      "    def __init__(self, enable_timing): self.t = None\n"
      "    def record(self): log.append('rec'); self.t = len(log)\n"
      "    def synchronize(self): log.append('wait')\n"
      "    def elapsed_time(self, end): return float(end.t - self.t)\n"
      "def fake(sleep):\n"
      "    cuda = types.SimpleNamespace(Event=Event, synchronize=lambda: log.append('sync'))\n"
      "    if sleep: cuda._sleep = lambda cycles: log.append('hold %d' % cycles)\n"
      "    return types.SimpleNamespace(cuda=cuda)\n"
      "for sleep in (True, False):\n"
      "    del log[:]\n"
      "    t = gs.event_times_ms(fake(sleep), lambda: log.append('fn'), 3, warmup=1, beat=False)\n"
      "    print(' '.join(log), t)\n";
  std::ofstream(dir / "probe.py") << snippet;
  std::string out;
  test::shell("cd '" + dir.string() + "' && /usr/bin/python3 probe.py", &out);
  EXPECT_EQ(out,
            "fn sync hold 600000 rec fn rec rec fn rec rec fn rec wait [2.0, 2.0, 2.0]\n"
            "fn sync rec fn rec wait rec fn rec wait rec fn rec wait wait [2.0, 2.0, 2.0]\n");
  fs::remove_all(dir);
}

TEST(PythonScripts, TranscriptDirKeepsTheRawStreamsOfEachRun) {
  fs::path dir = fs::temp_directory_path() / ("gs-transcripts-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  scoped_env keep("GPUSTACK_TRANSCRIPT_DIR", dir.string());
  scoped_env pp("PYTHONPATH", test::python_fakes_dir() + "garbage");
  probe_result r = run_step(facts_for("/usr/bin/python3", true), kSteps[0]);
  EXPECT_EQ(r.outcome, status::error) << r.detail;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path().filename());
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 3u);
  std::string stem = files[0].stem().string();
  EXPECT_EQ(stem.rfind("torch_basic-", 0), 0u) << stem;
  auto slurp = [&](const std::string& ext) {
    std::ifstream in(dir / (stem + ext), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  // Byte for byte what the script wrote, the cut-off line included.
  std::string out = slurp(".stdout");
  EXPECT_NE(out.find("@gs phase import\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\n@gs result {\"status\":\"pass\",\"detail\":\"cut off"), std::string::npos) << out;
  nlohmann::json meta = nlohmann::json::parse(slurp(".json"));
  EXPECT_EQ(meta["exit_code"], 3);
  EXPECT_EQ(meta["script"], "probes/python/torch_basic.py");
  EXPECT_EQ(meta["args"]["device"], "auto");
  fs::remove_all(dir);
}

TEST(PythonScripts, TheScriptTimeoutKillsTheInterpreter) {
  scoped_env pp("PYTHONPATH", test::python_fakes_dir() + "sleep");
  machine_facts f = facts_for("/usr/bin/python3");
  recording_sink sink;
  probe_context ctx;
  ctx.facts = &f;
  ctx.progress = &sink;
  python_probe_request req;
  req.script = "probes/python/torch_basic.py";
  req.timeout_s = 1;
  auto t0 = std::chrono::steady_clock::now();
  python_probe_outcome o = run_python_script(ctx, req);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 5);
  EXPECT_FALSE(o.result);
  EXPECT_EQ(o.signal, SIGKILL);
  EXPECT_NE(o.error.find("ran past its 1 s limit"), std::string::npos) << o.error;
  EXPECT_EQ(sink.phases, std::vector<std::string>{"import"});
}

TEST(PythonScripts, AHungImportIsKilledWithItsWholeGroupByTheWatchdog) {
  std::string marker = "GS_PYSUITE_TEST=" + std::to_string(::getpid());
  scoped_env m("GS_PYSUITE_TEST", std::to_string(::getpid()));
  scoped_env pp("PYTHONPATH", test::python_fakes_dir() + "sleep");
  machine_facts f = facts_for("/usr/bin/python3");
  runner_options o;
  o.facts = &f;
  o.limits.deadlines.override_all(1.5);
  auto t0 = std::chrono::steady_clock::now();
  probe_result r = run_probe(py_torch_probe, o);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.outcome, status::hang) << r.detail;
  EXPECT_EQ(r.phase, "import");
  EXPECT_LT(s, 10);
  EXPECT_TRUE(test::processes_with_env(marker).empty()) << "a Python outlived the group kill";
}

TEST(PythonScripts, StepArgumentsCarryDeviceGpusAndTheStepsOwnOptions) {
  machine_facts f = facts_for("/usr/bin/python3", true);
  probe_context ctx;
  ctx.facts = &f;
  ctx.device = "1";
  ctx.options = {{"py.sdpa.t", "2048"}, {"py.sdpa.dtype", "fp16"}, {"py.sdpa.scale", "0.5"},
                 {"py.sdpaextra", "no"}, {"py.torch.t", "7"}, {"n", "3"}};
  nlohmann::json a = python_step_args(ctx, "py.sdpa");
  EXPECT_EQ(a["device"], "1");
  EXPECT_EQ(a["expect_gpu"], true);
  EXPECT_EQ(a["gpu_vendors"], nlohmann::json::array({"nvidia"}));
  EXPECT_EQ(a["t"], 2048);
  EXPECT_EQ(a["dtype"], "fp16");
  EXPECT_DOUBLE_EQ(a["scale"].get<double>(), 0.5);
  EXPECT_FALSE(a.contains("n"));
  EXPECT_EQ(a.size(), 6u) << a.dump();
}

}  // namespace
}  // namespace gs
