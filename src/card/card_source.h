// Where the probe sampler (watch/card_sampler.h) reads the probed card from: NVML on NVIDIA, the
// amdgpu sysfs files on AMD. An interface so the sampler's tests use a fake (GUIDE habit 4).
#pragma once
#include <memory>
#include <string>

#include "core/facts.h"
#include "sys/sysroot.h"

namespace gs {

class card_sample_source {
 public:
  virtual ~card_sample_source() = default;
  /// The moving figures now (clocks, power, temperature, utilisation, throttle reasons) into a
  /// fresh card_state; false when nothing could be read this time.
  virtual bool read(card_state& out) = 0;
  /// "nvml 0000:18:00.0", "sysfs 0000:03:00.0": which card, read how (the report names it).
  virtual std::string name() const = 0;
};

/// The GPU a run with `device` (--device: auto, N, cuda:N, hip:N, cpu) probes, by the runtime's
/// order: cuda -> the Nth NVIDIA GPU, hip -> the Nth AMD one, auto/N -> NVIDIA first, as
/// runtime/runtime_open.cpp tries CUDA first. N counts the GPUs of `facts` in PCI order, which is
/// CUDA's and HIP's order unless a visibility mask or CUDA_DEVICE_ORDER=FASTEST_FIRST reorders
/// them; the source's name carries the PCI address so the report says which card it watched.
/// Null with *why for cpu, no such GPU, or no way to read it (NVML missing).
std::unique_ptr<card_sample_source> open_card_source(const sysroot& sys, const machine_facts& facts,
                                                     const std::string& device, std::string* why);

}  // namespace gs
