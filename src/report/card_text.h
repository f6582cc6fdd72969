// The card's state (gpus[].card of the redacted report) as one line of prose, for the terminal
// view and the Markdown alike: "SM 1980 of 1980 MHz, memory 3201 of 3201 MHz, 72 of 700 W
// (default 700), 31 C, P0, not held back, VRAM 0.5 of 140 GiB used, 0 compute processes, ECC on, 0 uncorrected".
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace gs {

/// "" when the GPU has no card object.
std::string card_summary(const nlohmann::json& gpu);

/// Firmware and VBIOS: "VBIOS 113-..., mes 0x00000080, smc 0x00554a00"; "" when none known.
std::string card_firmware_summary(const nlohmann::json& gpu);

}  // namespace gs
