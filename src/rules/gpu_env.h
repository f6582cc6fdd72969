// How the GPU runtimes read the environment variables the rules care about, reimplemented so
// a rule can ask what the runtime will do: libhsakmt's HSA_OVERRIDE_GFX_VERSION parse, and the
// ROCR/HIP/CUDA visible-device masks (research/detection.md 1.10, 2.5).
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace gs {

/// The gfx target libhsakmt makes of an HSA_OVERRIDE_GFX_VERSION value: "12.0.1" -> "gfx1201",
/// "9.0.10" -> "gfx90a" (stepping printed in hex), "11.0.0" -> "gfx1100". nullopt when
/// libhsakmt rejects the value (sscanf "%u.%u.%u%c" must give exactly three fields, major <= 63,
/// minor and stepping <= 255), in which case hsa_init fails outright.
std::optional<std::string> hsa_override_gfx(std::string_view value);

/// "gfx" + major (decimal) + minor and stepping (hex), as rocm_agent_enumerator prints it.
std::string gfx_name(unsigned major, unsigned minor, unsigned stepping);

/// The effect of one *_VISIBLE_DEVICES mask on `available` devices.
struct mask_effect {
  int visible = 0;        ///< devices left
  bool truncated = false; ///< an entry was invalid or out of range, and it and all after it were dropped
  std::string dropped;    ///< the first dropped entry ("5", "-1", "abc")
};

/// CUDA semantics, which ROCR and HIP follow: comma-separated indices or UUIDs ("GPU-..."),
/// read left to right; the first invalid, negative, repeated or out-of-range entry ends the
/// list. "" leaves no device (CUDA); callers treat "" as unset for the AMD runtimes, whose
/// flag parsers take an empty value as the default.
mask_effect apply_visible_mask(std::string_view value, int available);

}  // namespace gs
