// CPU reference for bitsandbytes' 4-bit blockwise quantization (NF4 and FP4), written to match
// its CUDA kernels bit for bit (research/kernel-specs.md §1): kQuantizeBlockwise's absmax,
// 1/absmax, the strict-'>' comparison trees, NaN -> code 0, an all-zero block -> bytes 0x00,
// element 2i in the high nibble of byte i; kDequantizeBlockwise's lut[code] * absmax with one
// rounding to the output type. The GPU versions are kernels/quant4.cu.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gs {

enum class quant4_kind { nf4, fp4 };

/// "nf4" / "fp4".
const char* quant4_kind_name(quant4_kind k);

/// The 16 values a code dequantizes to (before * absmax), indexed by the 4-bit code.
/// NF4: csrc/kernels.cu nf4_dequantization_lut. FP4: fp4_dequantization_lut[c & 7], negated
/// when bit 3 is set (code 8 is -0.0).
const std::array<float, 16>& quant4_table(quant4_kind k);

/// The 15 NF4 decision thresholds (midpoints of adjacent table values), ascending.
const std::array<float, 15>& nf4_thresholds();

/// dQuantizeNF4: the code of a normalised value. Strict '>', so a tie takes the lower code;
/// NaN fails every comparison and gives 0.
uint8_t nf4_code(float xn);
/// dQuantizeFP4: sign bit 8 when xn < 0 (so -0.0 and NaN have none), tree on |xn|.
uint8_t fp4_code(float xn);
uint8_t quant4_code(quant4_kind k, float xn);

/// Blocksizes quantize_4bit accepts: 32, 64, ..., 4096.
bool quant4_blocksize_valid(long long blocksize);
inline constexpr int quant4_blocksizes[] = {32, 64, 128, 256, 512, 1024, 2048, 4096};

/// Packed codes and the float32 absmax of each block, as quantize_4bit returns them.
struct quant4_packed {
  std::vector<uint8_t> packed;  ///< (n + 1) / 2 bytes
  std::vector<float> absmax;    ///< ceil(n / blocksize)
};

/// absmax of one block as kQuantizeBlockwise computes it: fmaxf over |x| starting at -FLT_MAX
/// (fmaxf drops NaNs, so a block of only NaNs keeps -FLT_MAX; a block of zeros gives 0).
float quant4_block_absmax(std::span<const float> block);

/// The normalised value the quantizer compares: x * (1.0f / absmax), a reciprocal then a multiply
/// (IEEE here; bitsandbytes' CUDA build uses the fast-math reciprocal, see quant4_code_tolerated).
float quant4_scaled(float x, float absmax);

/// Quantize n = x.size() values (already widened to float) in blocks of `blocksize` over the
/// flattened input. The last block is padded with zeros; for odd n the last low nibble is the
/// code of that padding. `blocksize` must be valid (quant4_blocksize_valid).
quant4_packed quant4_quantize_ref(quant4_kind k, std::span<const float> x, int blocksize);

/// Code of element i of a packed stream (high nibble for even i).
inline uint8_t quant4_nibble(std::span<const uint8_t> packed, size_t i) {
  uint8_t b = packed[i / 2];
  return (i % 2 == 0) ? uint8_t(b >> 4) : uint8_t(b & 0x0f);
}

/// One dequantized value in float32: table[code] * absmax (one IEEE multiply).
inline float quant4_dequant_value(quant4_kind k, uint8_t code, float absmax) {
  return quant4_table(k)[code & 0x0f] * absmax;
}

/// Dequantize n elements to float32 / bf16 / fp16 (raw 16-bit patterns, one RNE rounding of the
/// float product). absmax[i / blocksize] scales element i.
void quant4_dequant_ref_f32(quant4_kind k, std::span<const uint8_t> packed, std::span<const float> absmax,
                            size_t n, int blocksize, float* out);
void quant4_dequant_ref_bf16(quant4_kind k, std::span<const uint8_t> packed, std::span<const float> absmax,
                             size_t n, int blocksize, uint16_t* out);
void quant4_dequant_ref_f16(quant4_kind k, std::span<const uint8_t> packed, std::span<const float> absmax,
                            size_t n, int blocksize, uint16_t* out);

/// Whether `got` is the code bitsandbytes' CUDA build can give for x in a block with this absmax
/// although the IEEE reference gives another: its 1.0f/absmax is the fast-math approximate
/// reciprocal (--use_fast_math), within `ulps` ulp of the IEEE one, which moves x * inv across a
/// threshold only when it lies within about that many ulp of it. True when some reciprocal within
/// `ulps` ulp of the IEEE one yields `got`.
bool quant4_code_tolerated(quant4_kind k, float x, float absmax, uint8_t got, int ulps = 2);

}  // namespace gs
