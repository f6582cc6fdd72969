// The native probes (device.visible, tensor.*, memory.bandwidth, gemm.*) end to end on the cpu
// backend: they pass on correct kernels, and a test double that corrupts one element, a guard
// byte or a launch makes them fail; a device that cannot be opened makes them skip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "probes/bandwidth_probe.h"
#include "probes/device_probes.h"
#include "probes/gemm_probes.h"
#include "probes/gpu_session.h"
#include "probes/probe.h"
#include "probes/tensor_probes.h"
#include "runtime/runtime_cpu.h"
#include "support/forwarding_runtime.h"
#include "support/probe_harness.h"

namespace {

using gs::test::recording_sink;


gs::probe_context cpu_context(recording_sink& sink) {
  gs::probe_context ctx;
  ctx.progress = &sink;
  ctx.device = "cpu";
  return ctx;
}

// The cpu runtime with one fault switched on.
enum class fault { none, flip_output, smash_guard, fail_launch, fail_compile, short_grid };

class faulty_runtime : public gs::test::forwarding_runtime {
 public:
  faulty_runtime(fault f) : fault_(f) {}
  gs::runtime_status compile(const gs::compile_request& r, gs::compiled_code& c) override {
    if (fault_ == fault::fail_compile) return gs::runtime_status::failure("nvrtcCompileProgram", 6, "error: identifier \"x\" is undefined");
    return inner_->compile(r, c);
  }
  gs::runtime_status alloc(size_t b, gs::buffer& x) override {
    gs::runtime_status st = inner_->alloc(b, x);
    if (st.ok) sizes_[static_cast<char*>(x.ptr)] = b;
    return st;
  }
  gs::runtime_status copy_to_host(void* d, gs::buffer s, size_t b) override {
    gs::runtime_status st = inner_->copy_to_host(d, s, b);
    // A guarded_buffer's guards are the first and the last guard_bytes of its allocation.
    bool guard = false;
    auto p = static_cast<char*>(s.ptr);
    for (const auto& [base, size] : sizes_)
      guard = guard || (p == base && b == gs::guarded_buffer::guard_bytes) || (p + b == base + size && b == gs::guarded_buffer::guard_bytes);
    if (st.ok && fault_ == fault::flip_output && !guard && b >= 4) static_cast<unsigned char*>(d)[b / 2] ^= 0x40;
    if (st.ok && fault_ == fault::smash_guard && guard) static_cast<unsigned char*>(d)[0] ^= 0xff;
    return st;
  }
  gs::runtime_status launch(gs::kernel_handle k, const gs::launch_dims& d, void** a) override {
    if (fault_ == fault::fail_launch) return gs::runtime_status::failure("cuLaunchKernel", 1, "CUDA_ERROR_INVALID_VALUE");
    gs::launch_dims shorter = d;
    if (fault_ == fault::short_grid && shorter.grid[0] > 1) --shorter.grid[0];
    return inner_->launch(k, shorter, a);
  }

 private:
  fault fault_;
  std::map<char*, size_t> sizes_;
};

using probe_fn = gs::probe_result (*)(const gs::probe_context&, std::unique_ptr<gs::runtime>);

struct named_probe {
  const char* id;
  probe_fn run;
};

gs::probe_result gemm_fp32(const gs::probe_context& c, std::unique_ptr<gs::runtime> rt) { return gs::run_gemm_with(c, gs::gemm_type::fp32, std::move(rt)); }
gs::probe_result gemm_bf16(const gs::probe_context& c, std::unique_ptr<gs::runtime> rt) { return gs::run_gemm_with(c, gs::gemm_type::bf16, std::move(rt)); }
gs::probe_result gemm_fp16(const gs::probe_context& c, std::unique_ptr<gs::runtime> rt) { return gs::run_gemm_with(c, gs::gemm_type::fp16, std::move(rt)); }

// The kernel probes (device.visible launches nothing, so it has its own tests).
const named_probe kernel_probes[] = {
    {"tensor.vector_add", gs::run_tensor_vector_add_with},
    {"tensor.reduce", gs::run_tensor_reduce_with},
    {"memory.bandwidth", gs::run_memory_bandwidth_with},
    {"gemm.fp32", gemm_fp32},
    {"gemm.bf16", gemm_bf16},
    {"gemm.fp16", gemm_fp16},
};

TEST(NativeProbes, EveryKernelProbePassesOnTheCpuBackend) {
  for (const named_probe& p : kernel_probes) {
    recording_sink sink;
    gs::probe_result r = p.run(cpu_context(sink), gs::open_cpu_runtime());
    EXPECT_EQ(r.outcome, gs::status::pass) << p.id << ": " << r.detail;
    EXPECT_EQ(r.id, p.id);
    EXPECT_EQ(r.phase, "verify") << p.id;
    EXPECT_EQ(sink.phases.front(), "compile") << p.id;  // runtime handed in: no "load"
    EXPECT_EQ(r.data["device"]["backend"], "cpu") << p.id;
    EXPECT_TRUE(r.data.contains("kernel_source")) << p.id;
  }
}

TEST(NativeProbes, ResultsCarryTheirFigures) {
  recording_sink sink;
  auto ctx = cpu_context(sink);
  gs::probe_result add = gs::run_tensor_vector_add_with(ctx, gs::open_cpu_runtime());
  EXPECT_EQ(add.data["check"]["elements_checked"], add.data["n"]);
  EXPECT_EQ(add.data["guards_intact"], true);
  gs::probe_result bw = gs::run_memory_bandwidth_with(ctx, gs::open_cpu_runtime());
  EXPECT_GT(bw.data["copy_v2_gbps"].get<double>(), 0.0);
  EXPECT_EQ(bw.data["expected_gbps"].get<double>(), 0.0);  // no expectation for arch "cpu"
  EXPECT_EQ(bw.data["copy_v2"]["elements_checked"].get<size_t>() * 4, bw.data["bytes_per_buffer"].get<size_t>());
  gs::probe_result gemm = gs::run_gemm_with(ctx, gs::gemm_type::bf16, gs::open_cpu_runtime());
  EXPECT_EQ(gemm.data["kernel"], "gemm_bf16_v2");
  EXPECT_EQ(gemm.data["correctness"]["elements_checked"], 301 * 259);
  EXPECT_GT(gemm.data["achieved_tflops"].get<double>(), 0.0);
  EXPECT_GT(sink.heartbeats, 0);  // long host-side checks keep the watchdog informed
}

TEST(NativeProbes, ReduceRunsOnAWave64Device) {
  recording_sink sink;
  gs::probe_result r = gs::run_tensor_reduce_with(cpu_context(sink), gs::open_cpu_runtime(64));
  EXPECT_EQ(r.outcome, gs::status::pass) << r.detail;
  EXPECT_EQ(r.data["wave_size"], 64);
}

TEST(NativeProbes, NaiveGemmIsSelectable) {
  recording_sink sink;
  auto ctx = cpu_context(sink);
  ctx.options["kernel"] = "v1";
  ctx.options["size"] = "48";
  gs::probe_result r = gs::run_gemm_with(ctx, gs::gemm_type::fp16, gs::open_cpu_runtime());
  EXPECT_EQ(r.outcome, gs::status::pass) << r.detail;
  EXPECT_EQ(r.data["kernel"], "gemm_f16_v1");
  EXPECT_EQ(r.data["rate_run"]["shape"][0], 48);
}

TEST(NativeProbes, AWrongElementFailsEveryKernelProbe) {
  for (const named_probe& p : kernel_probes) {
    recording_sink sink;
    gs::probe_result r = p.run(cpu_context(sink), std::make_unique<faulty_runtime>(fault::flip_output));
    EXPECT_EQ(r.outcome, gs::status::fail) << p.id << ": " << r.detail;
    EXPECT_EQ(r.phase, "verify") << p.id;
  }
}

TEST(NativeProbes, AStrayWriteIntoAGuardFailsEveryKernelProbe) {
  for (const named_probe& p : kernel_probes) {
    recording_sink sink;
    gs::probe_result r = p.run(cpu_context(sink), std::make_unique<faulty_runtime>(fault::smash_guard));
    EXPECT_EQ(r.outcome, gs::status::fail) << p.id;
    EXPECT_NE(r.detail.find("guard"), std::string::npos) << p.id << ": " << r.detail;
  }
}

TEST(NativeProbes, ElementsLeftUnwrittenFail) {
  // One block fewer than asked for: the last block's elements (copy_v1's, the reduce's last
  // partial, gemm's last column tile) are never written.
  for (const named_probe& p : kernel_probes) {
    recording_sink sink;
    gs::probe_result r = p.run(cpu_context(sink), std::make_unique<faulty_runtime>(fault::short_grid));
    EXPECT_EQ(r.outcome, gs::status::fail) << p.id << ": " << r.detail;
    EXPECT_NE(r.detail.find("never written"), std::string::npos) << p.id << ": " << r.detail;
  }
}

TEST(NativeProbes, RuntimeFailuresBecomeFailWithTheVendorWords) {
  for (fault f : {fault::fail_launch, fault::fail_compile}) {
    for (const named_probe& p : kernel_probes) {
      recording_sink sink;
      gs::probe_result r = p.run(cpu_context(sink), std::make_unique<faulty_runtime>(f));
      EXPECT_EQ(r.outcome, gs::status::fail) << p.id;
      EXPECT_EQ(r.phase, f == fault::fail_launch ? "launch" : "compile") << p.id;
      EXPECT_TRUE(r.data.contains("runtime_error")) << p.id;
      EXPECT_NE(r.detail.find(f == fault::fail_launch ? "cuLaunchKernel" : "nvrtcCompileProgram"), std::string::npos) << r.detail;
    }
  }
}

TEST(NativeProbes, DeviceVisibleOnTheCpuBackend) {
  recording_sink sink;
  gs::probe_result r = gs::run_device_visible_with(cpu_context(sink), gs::open_cpu_runtime());
  EXPECT_EQ(r.outcome, gs::status::pass) << r.detail;
  EXPECT_EQ(r.data["properties"]["arch"], "cpu");
  EXPECT_EQ(r.data["properties"]["wave_size"], 32);
}

// A runtime whose properties can be set: the device.visible checks, fired and not fired.
class props_runtime : public faulty_runtime {
 public:
  explicit props_runtime(gs::device_props p) : faulty_runtime(fault::none), p_(std::move(p)) {}
  const gs::device_props& props() const override { return p_; }

 private:
  gs::device_props p_;
};

gs::device_props hip_props(std::string arch, int wave) {
  gs::device_props p;
  p.backend = "hip", p.name = "AMD Radeon AI PRO R9700", p.arch = std::move(arch), p.wave_size = wave;
  p.total_memory = 32ull << 30, p.compute_units = 64;
  return p;
}

TEST(NativeProbes, DeviceVisibleWarnsWhenTheRuntimeDisagreesWithTheKernelDriver) {
  gs::machine_facts facts;
  gs::gpu_info g;
  g.vendor = "amd", g.arch = "gfx1201", g.wave_size = 32, g.source = "kfd";
  facts.gpus.push_back(g);
  recording_sink sink;
  auto ctx = cpu_context(sink);
  ctx.facts = &facts;
  gs::probe_result same = gs::run_device_visible_with(ctx, std::make_unique<props_runtime>(hip_props("gfx1201", 32)));
  EXPECT_EQ(same.outcome, gs::status::pass) << same.detail;
  gs::probe_result overridden = gs::run_device_visible_with(ctx, std::make_unique<props_runtime>(hip_props("gfx1100", 32)));
  EXPECT_EQ(overridden.outcome, gs::status::warn);
  EXPECT_NE(overridden.detail.find("gfx1100"), std::string::npos);
  EXPECT_NE(overridden.detail.find("HSA_OVERRIDE_GFX_VERSION"), std::string::npos);
}

TEST(NativeProbes, DeviceVisibleFailsOnNonsenseProperties) {
  recording_sink sink;
  gs::probe_result r = gs::run_device_visible_with(cpu_context(sink), std::make_unique<props_runtime>(hip_props("", 48)));
  EXPECT_EQ(r.outcome, gs::status::fail);
  EXPECT_NE(r.detail.find("wave size 48"), std::string::npos);
}

// Through the table's run(), as the runner calls it: "cpu" opens the cpu backend (phase load
// first); a device that does not exist is skip with the reason, for every native probe.
const gs::probe_spec* const native_specs[] = {&gs::device_visible_probe, &gs::tensor_vector_add_probe,
                                              &gs::tensor_reduce_probe,  &gs::memory_bandwidth_probe,
                                              &gs::gemm_fp32_probe,      &gs::gemm_bf16_probe,
                                              &gs::gemm_fp16_probe};

TEST(NativeProbes, SpecsRunOnDeviceCpu) {
  for (const gs::probe_spec* spec : native_specs) {
    recording_sink sink;
    gs::probe_result r = spec->run(cpu_context(sink));
    EXPECT_EQ(r.outcome, gs::status::pass) << spec->id << ": " << r.detail;
    EXPECT_EQ(sink.phases.front(), "load") << spec->id;
    EXPECT_TRUE(spec->isolated && spec->uses_gpu) << spec->id;
  }
}

TEST(NativeProbes, MissingDeviceIsSkipNeverPass) {
  for (const char* device : {"cuda:97", "hip:97", "97", "tpu:0"}) {
    for (const gs::probe_spec* spec : native_specs) {
      recording_sink sink;
      gs::probe_context ctx;
      ctx.progress = &sink;
      ctx.device = device;
      gs::probe_result r = spec->run(ctx);
      EXPECT_EQ(r.outcome, gs::status::skip) << spec->id << " on " << device << ": " << r.detail;
      EXPECT_NE(r.detail.find(device), std::string::npos) << r.detail;
      EXPECT_EQ(r.phase, "load");
    }
  }
}

// "auto" either opens a real GPU or skips: a GPU probe never passes on the CPU references by
// accident (on a machine without a GPU, as in CI, this is the skip branch).
TEST(NativeProbes, AutoNeverPassesOnTheCpuBackend) {
  recording_sink sink;
  gs::probe_context ctx;
  ctx.progress = &sink;
  ctx.device = "auto";
  gs::probe_result r = gs::device_visible_probe.run(ctx);
  if (r.outcome == gs::status::skip) {
    EXPECT_NE(r.detail.find("--device cpu"), std::string::npos) << r.detail;
  } else {
    EXPECT_NE(r.data["device"]["backend"], "cpu") << r.detail;
  }
}

TEST(NativeProbes, AreInTheRegistryWithDependenciesFirst) {
  std::vector<std::string> seen;
  for (const gs::probe_spec* p : gs::all_probes()) {
    for (const char* dep : p->depends_on)
      EXPECT_NE(std::find(seen.begin(), seen.end(), dep), seen.end()) << p->id << " runs before " << dep;
    seen.push_back(p->id);
  }
  for (const gs::probe_spec* spec : native_specs) EXPECT_EQ(gs::find_probe(spec->id), spec) << spec->id;
}

}  // namespace
