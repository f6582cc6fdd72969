// CPU reference for bitsandbytes' double quantization ("compress_statistics", nested absmax;
// research/kernel-specs.md §1.7): the float32 absmax of a 4-bit state, minus its mean (the
// offset), quantized in blocks of 256 against the signed 8-bit dynamic map with dQuantize<0>
// (7-step binary search from pivot 127, then a midpoint test), and its reconstruction
// absmax = fl32(fl32(code2[q] * absmax2[i / 256]) + offset). GPU versions: kernels/quant4.cu.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gs {

/// create_dynamic_map(signed=True) as torch's AVX2 CPU kernels build it (the usual x86 case).
/// torch.linspace's last bits depend on the CPU dispatch level (12 entries differ with the scalar
/// path), so a state's own nested_quant_map (code2) is what a bit-exact comparison uses.
const std::array<float, 256>& dynamic_map_avx2();

/// dQuantize<0>: the code of x in a sorted 256-entry map. Ties go towards the last probed entry.
uint8_t dynamic_code(std::span<const float, 256> code, float x);

/// 8-bit blockwise quantization (kQuantizeBlockwise, General8bit) of y: per block, absmax2 =
/// fmaxf over |y| from -FLT_MAX, then dynamic_code(code, y * (1.0f / absmax2)).
struct blockwise8_result {
  std::vector<uint8_t> q;
  std::vector<float> absmax;
};
blockwise8_result quantize_blockwise8_ref(std::span<const float> y, std::span<const float, 256> code, int blocksize);

/// The nested pieces of a 4-bit state (QuantState.offset and state2).
struct nested_absmax {
  std::vector<uint8_t> q;        ///< absmax_u8, one per 4-bit block
  float offset = 0;              ///< mean of the float32 absmax
  std::vector<float> absmax2;    ///< one per blocksize2 codes
  std::array<float, 256> code2{};///< the dynamic map used
  int blocksize2 = 256;
};

/// absmax.mean() in float32. torch reduces in a device-specific order; this sums in double and
/// rounds once, so it can differ from a state's offset in the last bit: comparisons take the
/// state's offset.
float absmax_mean(std::span<const float> absmax);

/// Double-quantize a float32 absmax: y = fl32(absmax - offset), then quantize_blockwise8_ref.
nested_absmax double_quant_ref(std::span<const float> absmax, std::span<const float, 256> code2, float offset,
                               int blocksize2 = 256);

/// Reconstruct the float32 absmax: fl32(fl32(code2[q[i]] * absmax2[i / blocksize2]) + offset),
/// the product rounded before the add (two separate operations in bitsandbytes, never an FMA).
std::vector<float> nested_absmax_dequant_ref(std::span<const uint8_t> q, std::span<const float> absmax2,
                                             std::span<const float, 256> code2, float offset, int blocksize2 = 256);

/// As quant4_code_tolerated, for dynamic_code under bitsandbytes' fast-math reciprocal.
bool dynamic_code_tolerated(std::span<const float, 256> code, float y, float absmax2, uint8_t got, int ulps = 2);

}  // namespace gs
