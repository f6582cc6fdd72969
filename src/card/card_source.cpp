// The sampler's sources (card_source.h): NVML and amdgpu sysfs, reading only the fast subset.
#include "card/card_source.h"

#include <cctype>
#include <optional>
#include <vector>

#include "card/nvml_card.h"
#include "detect/amd_card.h"

namespace gs {
namespace {

class nvml_source : public card_sample_source {
 public:
  nvml_source(std::unique_ptr<nvml_session> s, vendor::nvmlDevice_t dev, std::string address)
      : s_(std::move(s)), dev_(dev), address_(std::move(address)) {}
  bool read(card_state& out) override {
    read_nvml_card_live(*s_, dev_, out, nullptr);
    return out.clock_sm_mhz || out.power_w || out.temp_c || out.busy_percent;
  }
  std::string name() const override { return "nvml " + address_; }

 private:
  std::unique_ptr<nvml_session> s_;
  vendor::nvmlDevice_t dev_;
  std::string address_;
};

class sysfs_source : public card_sample_source {
 public:
  sysfs_source(sysroot sys, std::string address) : sys_(std::move(sys)), address_(std::move(address)) {}
  bool read(card_state& out) override {
    read_amd_card_live(sys_, "/sys/bus/pci/devices/" + address_, out);
    return out.clock_sm_mhz || out.power_w || out.temp_c || out.busy_percent;
  }
  std::string name() const override { return "sysfs " + address_; }

 private:
  sysroot sys_;
  std::string address_;
};

/// The vendor ("nvidia", "amd", "" for either, NVIDIA first) and ordinal a --device names.
bool parse_target(const std::string& device, std::string* vendor, size_t* ordinal) {
  std::string backend = device, index;
  if (size_t colon = device.find(':'); colon != std::string::npos) {
    backend = device.substr(0, colon);
    index = device.substr(colon + 1);
  }
  auto digits = [](const std::string& s) {
    if (s.empty() || s.size() > 6) return false;
    for (char c : s)
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
  };
  *ordinal = 0;
  if (digits(backend) && index.empty()) {
    *ordinal = std::stoul(backend);
    vendor->clear();
    return true;
  }
  if (!index.empty()) {
    if (!digits(index)) return false;
    *ordinal = std::stoul(index);
  }
  if (backend == "cuda") *vendor = "nvidia";
  else if (backend == "hip") *vendor = "amd";
  else if (backend == "auto") vendor->clear();
  else return false;  // cpu, or malformed (the runtime says why)
  return true;
}

}  // namespace

std::optional<size_t> pci_position(const machine_facts& facts, const std::string& vendor, size_t ordinal) {
  std::vector<const gpu_info*> gpus;
  for (const gpu_info& g : facts.gpus)
    if (g.vendor == vendor && !g.pci_address.empty()) gpus.push_back(&g);
  auto env = [&](const char* k) -> const std::string* {
    auto it = facts.env.find(k);
    return it == facts.env.end() ? nullptr : &it->second;
  };
  std::vector<size_t> order(gpus.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (const char* var : vendor == "nvidia" ? std::vector<const char*>{"CUDA_VISIBLE_DEVICES"}
                                            : std::vector<const char*>{"ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"}) {
    const std::string* mask = env(var);
    if (!mask) continue;
    std::vector<std::string> items;
    for (size_t at = 0;;) {
      size_t comma = mask->find(',', at);
      items.push_back(mask->substr(at, comma == std::string::npos ? std::string::npos : comma - at));
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    std::vector<size_t> listed;
    bool indices = true;
    for (const std::string& item : items) {
      indices = indices && !item.empty() && item.size() <= 4 && item.find_first_not_of("0123456789") == std::string::npos;
      if (indices && std::stoul(item) < order.size()) listed.push_back(order[std::stoul(item)]);
    }
    if (mask->empty()) listed.clear();  // set but empty: no GPU at all
    else if (!indices && gpus.size() > 1) return std::nullopt;  // UUIDs, MIG names: not mapped here
    else if (!indices) continue;  // one GPU: it is the one a UUID can name
    order = listed;  // HIP_VISIBLE_DEVICES numbers what ROCR_VISIBLE_DEVICES left
  }
  if (vendor == "nvidia" && order.size() > 1) {
    const std::string* device_order = env("CUDA_DEVICE_ORDER");
    bool same_model = true;
    for (size_t i : order) same_model = same_model && gpus[i]->name == gpus[order[0]]->name;
    if (!(device_order && *device_order == "PCI_BUS_ID") && !same_model) return std::nullopt;
  }
  if (ordinal >= order.size()) return std::nullopt;
  return order[ordinal];
}

std::unique_ptr<card_sample_source> open_card_source(const sysroot& sys, const machine_facts& facts,
                                                     const std::string& device, std::string* why) {
  std::string vendor;
  size_t ordinal = 0;
  if (!parse_target(device, &vendor, &ordinal)) {
    *why = "no GPU is probed with --device " + device;
    return nullptr;
  }
  const gpu_info* target = nullptr;
  for (const char* v : {"nvidia", "amd"}) {
    if (!vendor.empty() && vendor != v) continue;
    std::optional<size_t> at = pci_position(facts, v, ordinal);
    size_t n = 0;
    for (const gpu_info& g : facts.gpus)
      if (g.vendor == v && !g.pci_address.empty() && at && n++ == *at) target = &g;
    if (target) break;
  }
  if (!target) {
    *why = "GPU " + std::to_string(ordinal) + (vendor.empty() ? "" : " of vendor " + vendor) +
           " is not one the detected GPUs and the visibility variables (CUDA_VISIBLE_DEVICES, HIP/ROCR_VISIBLE_DEVICES, "
           "CUDA_DEVICE_ORDER) name for certain";
    return nullptr;
  }
  if (target->vendor == "amd") return std::make_unique<sysfs_source>(sys, target->pci_address);
  std::unique_ptr<nvml_session> s = nvml_session::open(why);
  if (!s) return nullptr;
  vendor::nvmlDevice_t dev = s->device(target->pci_address, why);
  if (!dev) return nullptr;
  return std::make_unique<nvml_source>(std::move(s), dev, target->pci_address);
}

}  // namespace gs
