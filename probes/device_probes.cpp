// device.visible: open the runtime, read the device properties, check them for sense and against
// the detected facts. No kernel runs here; tensor.* is the first probe that compiles one.
#include "probes/device_probes.h"

#include <fmt/format.h>

#include "probes/gpu_session.h"

namespace gs {
namespace {

// The GPU `check` detected for this runtime device: the ordinal-th GPU of the backend's vendor.
const gpu_info* detected_gpu(const machine_facts* facts, const device_props& p) {
  if (!facts) return nullptr;
  std::string vendor = p.backend == "cuda" ? "nvidia" : p.backend == "hip" ? "amd" : "";
  int seen = 0;
  for (const gpu_info& g : facts->gpus) {
    if (g.vendor != vendor) continue;
    if (seen++ == p.ordinal) return &g;
  }
  return nullptr;
}

}  // namespace

probe_result run_device_visible_with(const probe_context& ctx, std::unique_ptr<runtime> rt) {
  probe_result r;
  r.id = "device.visible";
  gpu_session s(ctx, r);
  if (rt) s.adopt(std::move(rt));
  else if (!s.open()) return r;

  s.phase("verify");
  const device_props& p = s.props();
  r.data["properties"] = {{"backend", p.backend},         {"ordinal", p.ordinal},
                          {"name", p.name},               {"arch", p.arch},
                          {"wave_size", p.wave_size},     {"compute_units", p.compute_units},
                          {"total_memory_bytes", p.total_memory}, {"clock_khz", p.clock_khz},
                          {"driver_version", p.driver_version},   {"compiler", p.compiler}};

  // Properties a kernel launch depends on: without them the probes below would misfire.
  std::vector<std::string> broken;
  if (p.arch.empty()) broken.push_back("no arch (the JIT cannot pick a target)");
  if (p.wave_size != 32 && p.wave_size != 64) broken.push_back(fmt::format("wave size {} (expected 32 or 64)", p.wave_size));
  if (p.total_memory == 0) broken.push_back("0 bytes of memory reported");
  if (!broken.empty()) {
    s.finish(status::fail, fmt::format("{} opened but reports {}", p.name, fmt::join(broken, "; ")));
    return r;
  }

  std::string summary = fmt::format("{} ({}, {}, wave {}, {} CUs, {:.1f} GiB)", p.name, p.backend, p.arch, p.wave_size,
                                    p.compute_units, double(p.total_memory) / (1ull << 30));
  if (const gpu_info* g = detected_gpu(ctx.facts, p)) {
    r.data["detected"] = {{"arch", g->arch}, {"wave_size", g->wave_size}, {"source", g->source}};
    std::vector<std::string> differ;
    if (!g->arch.empty() && g->arch != p.arch)
      differ.push_back(fmt::format("the runtime reports {} but the kernel driver ({}) says {}", p.arch, g->source, g->arch));
    if (g->wave_size != 0 && g->wave_size != p.wave_size)
      differ.push_back(fmt::format("wave size {} from the runtime, {} from the kernel driver", p.wave_size, g->wave_size));
    if (!differ.empty()) {
      // On AMD this is the signature of HSA_OVERRIDE_GFX_VERSION (the runtime believes the
      // override, KFD reports the silicon); kernels built for the wrong ISA hang or fault.
      s.finish(status::warn, summary + ": " + fmt::format("{}", fmt::join(differ, "; ")) +
                                 " (an HSA_OVERRIDE_GFX_VERSION or a --device pointing at another GPU?)");
      return r;
    }
  }
  s.finish(status::pass, summary);
  return r;
}

namespace {
probe_result run_device_visible(const probe_context& ctx) { return run_device_visible_with(ctx, nullptr); }
}  // namespace

const probe_spec device_visible_probe = {
    "device.visible", "the runtime opens the device; name, arch, wave size and memory make sense", {}, true, true,
    run_device_visible};

}  // namespace gs
