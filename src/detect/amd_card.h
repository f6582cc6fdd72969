// The amdgpu driver's own view of an AMD card, from sysfs (no library): clocks as DPM levels,
// board power and its cap, temperature, the forced performance level, utilisation, VRAM used,
// RAS error counts, the compute partition and the VBIOS. Cheap reads (a few small files), so
// `check` and the probe sampler (card/card_source.cpp) share them.
#pragma once
#include <string>

#include "core/facts.h"
#include "sys/sysroot.h"

namespace gs {

/// The figures that move while a kernel runs: clocks, power, temperature, utilisation (the
/// sampler reads only these, about ten times a second). `dev` is "/sys/bus/pci/devices/ADDR".
void read_amd_card_live(const sysroot& sys, const std::string& dev, card_state& c);

/// All of it: the live figures plus limits, performance level, VRAM used, RAS, partition, VBIOS.
/// Sets c.source to "sysfs" when anything was read.
void read_amd_card(const sysroot& sys, const std::string& dev, card_state& c);

/// "0: 500Mhz\n1: 1800Mhz *\n2: 2350Mhz\n" (pp_dpm_sclk / pp_dpm_mclk): the starred level's MHz
/// into *now and the highest level into *max; false when the text has no levels.
bool parse_dpm_levels(std::string_view text, double* now, double* max);

/// The amdgpu cards of `facts` (vendor "amd" with a PCI address): read_amd_card each.
void detect_amd_cards(const sysroot& sys, machine_facts& facts);

}  // namespace gs
