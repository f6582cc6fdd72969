// Where the probe sampler (watch/card_sampler.h) reads the probed card from: NVML on NVIDIA, the
// amdgpu sysfs files on AMD. An interface so the sampler's tests use a fake (GUIDE habit 4).
#pragma once
#include <memory>
#include <optional>
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

/// The position, among the vendor's GPUs in PCI order (facts.gpus), of the GPU the runtime calls
/// `ordinal`; nullopt when that cannot be told. The runtime numbers only the GPUs its visibility
/// variable lets through (CUDA_VISIBLE_DEVICES; HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES on AMD),
/// in the order listed; CUDA also orders fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID. Watching
/// the wrong card would put another GPU's clocks beside a step's figure, so with several GPUs any
/// list that is not plain indices (UUIDs, MIG), or CUDA's own order between different models, means
/// no samples rather than a guess.
std::optional<size_t> pci_position(const machine_facts& facts, const std::string& vendor, size_t ordinal);

/// The GPU a run with `device` (--device: auto, N, cuda:N, hip:N, cpu) probes, by the runtime's
/// order: cuda -> the Nth NVIDIA GPU, hip -> the Nth AMD one, auto/N -> NVIDIA first, as
/// runtime/runtime_open.cpp tries CUDA first, mapped to a detected GPU by pci_position; the
/// source's name carries the PCI address so the report says which card it watched. Null with
/// *why for cpu, no such GPU, a GPU that cannot be told for certain, or no way to read it.
std::unique_ptr<card_sample_source> open_card_source(const sysroot& sys, const machine_facts& facts,
                                                     const std::string& device, std::string* why);

}  // namespace gs
