// CPU reference for NF4/FP4 blockwise quantization; see quant4_ref.h. Written to be read: one
// block at a time, one element at a time, in the order the CUDA kernels define.
#include "kernels/ref/quant4_ref.h"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>

#include "kernels/gs_device.h"

namespace gs {
namespace {

float from_bits(uint32_t u) { return std::bit_cast<float>(u); }

// NF4 values as float32 bit patterns (kernel-specs.md §1.2: every literal is exactly a float32).
const std::array<float, 16> nf4_table = {
    from_bits(0xbf800000), from_bits(0xbf3239b1), from_bits(0xbf066b30), from_bits(0xbeca32a0),
    from_bits(0xbe91a24d), from_bits(0xbe3d353f), from_bits(0xbdba7871), from_bits(0x00000000),
    from_bits(0x3da2faff), from_bits(0x3e24cae3), from_bits(0x3e7c04dd), from_bits(0x3ead033a),
    from_bits(0x3ee1a4b8), from_bits(0x3f1007ab), from_bits(0x3f3913b3), from_bits(0x3f800000)};

// The thresholds of dQuantizeNF4, ascending: t[i] separates code i from code i + 1 (§1.3),
// written as the kernel writes them: float literals, which C++ and CUDA compilers round from the
// decimal straight to float32. Each decimal is the double midpoint of two NF4 floats printed to
// 16-17 digits, so it lies within ~1e-16 of a float32 tie; four of them fall on the other side of
// the tie than round-half-to-even of the exact midpoint (kernel-specs.md's table, made in Python
// with float32(midpoint), has the tie-rounded bits): nvcc and NVRTC emit 0xbf591cd9, 0x3df64863,
// 0x3f006d03, 0x3f5c89d9 (tests check the PTX), so those are what bitsandbytes' CUDA binary
// really compares against, and what a value lying exactly on a threshold is judged by.
const std::array<float, 15> nf4_thr = {
    -0.8480964004993439f, -0.6106329262256622f, -0.4599952697753906f, -0.33967943489551544f,
    -0.23460740596055984f, -0.13791173323988914f, -0.045525018125772476f, 0.03979014977812767f,
    0.1202552504837513f, 0.2035212516784668f, 0.2920137718319893f, 0.3893125355243683f,
    0.5016634166240692f, 0.6427869200706482f, 0.8614784181118011f};

// fp4_dequantization_lut, indexed by code & 7, with the kernel's own float literals.
const float fp4_magnitude[8] = {0.0f, 0.005208333333f, 0.66666667f, 1.0f, 0.33333333f, 0.5f, 0.16666667f, 0.25f};

std::array<float, 16> make_fp4_table() {
  std::array<float, 16> t{};
  // dDequantizeFP4Tree: lut[val & 7] * (1 - 2 * ((val & 8) >> 3)); the int factor is -1 or 1,
  // so code 8 is 0.0f * -1 = -0.0f.
  for (int c = 0; c < 16; ++c) t[c] = fp4_magnitude[c & 7] * float(1 - 2 * ((c & 8) >> 3));
  return t;
}
const std::array<float, 16> fp4_table = make_fp4_table();

}  // namespace

const char* quant4_kind_name(quant4_kind k) { return k == quant4_kind::nf4 ? "nf4" : "fp4"; }

const std::array<float, 16>& quant4_table(quant4_kind k) { return k == quant4_kind::nf4 ? nf4_table : fp4_table; }

const std::array<float, 15>& nf4_thresholds() { return nf4_thr; }

uint8_t nf4_code(float x) {
  // The binary tree of dQuantizeNF4, node by node; every comparison is a strict '>'.
  const auto& t = nf4_thr;
  if (x > t[7]) {         // 7 | 8
    if (x > t[11]) {      // 11 | 12
      if (x > t[13]) return x > t[14] ? 15 : 14;
      return x > t[12] ? 13 : 12;
    }
    if (x > t[9]) return x > t[10] ? 11 : 10;
    return x > t[8] ? 9 : 8;
  }
  if (x > t[3]) {         // 3 | 4
    if (x > t[5]) return x > t[6] ? 7 : 6;
    return x > t[4] ? 5 : 4;
  }
  if (x > t[1]) return x > t[2] ? 3 : 2;
  return x > t[0] ? 1 : 0;
}

uint8_t fp4_code(float x) {
  // dQuantizeFP4: thresholds are the kernel's literals (already divided by 12).
  uint8_t sign = x < 0.0f ? 0b1000 : 0b0000;
  x = std::fabs(x);
  uint8_t m;
  if (x > 0.29166667f) {
    if (x > 0.583333f) m = x > 0.8333333f ? 0b011 : 0b010;
    else m = x > 0.4166667f ? 0b101 : 0b100;
  } else {
    if (x > 0.0859375f) m = x > 0.20833333f ? 0b111 : 0b110;
    else m = x > 0.00260417f ? 0b001 : 0b000;
  }
  return uint8_t(sign | m);
}

uint8_t quant4_code(quant4_kind k, float xn) { return k == quant4_kind::nf4 ? nf4_code(xn) : fp4_code(xn); }

bool quant4_blocksize_valid(long long bs) {
  for (int v : quant4_blocksizes)
    if (bs == v) return true;
  return false;
}

float quant4_block_absmax(std::span<const float> block) {
  float m = -FLT_MAX;
  for (float v : block) m = std::fmax(m, std::fabs(v));
  return m;
}

float quant4_scaled(float x, float absmax) {
  // An all-zero block: 1/0 = +inf and 0 * inf = NaN, so every element takes code 0 (bytes 0x00).
  float inv = 1.0f / absmax;
  return x * inv;
}

quant4_packed quant4_quantize_ref(quant4_kind k, std::span<const float> x, int blocksize) {
  const size_t n = x.size(), bs = size_t(blocksize);
  quant4_packed r;
  r.packed.assign((n + 1) / 2, 0);
  r.absmax.resize((n + bs - 1) / bs);
  for (size_t b = 0; b < r.absmax.size(); ++b) {
    const size_t begin = b * bs, end = std::min(n, begin + bs);
    const float absmax = quant4_block_absmax(x.subspan(begin, end - begin));
    r.absmax[b] = absmax;
    const float inv = 1.0f / absmax;
    // Blocks start at even indices (blocksize is even), so a block owns whole bytes; the padding
    // after the last element is a 0.0 that goes through the same arithmetic.
    for (size_t i = begin; i < end + (end % 2); ++i) {
      const float v = i < n ? x[i] : 0.0f;
      const uint8_t code = quant4_code(k, v * inv);
      r.packed[i / 2] |= (i % 2 == 0) ? uint8_t(code << 4) : code;
    }
  }
  return r;
}

void quant4_dequant_ref_f32(quant4_kind k, std::span<const uint8_t> packed, std::span<const float> absmax,
                            size_t n, int blocksize, float* out) {
  for (size_t i = 0; i < n; ++i) out[i] = quant4_dequant_value(k, quant4_nibble(packed, i), absmax[i / size_t(blocksize)]);
}

void quant4_dequant_ref_bf16(quant4_kind k, std::span<const uint8_t> packed, std::span<const float> absmax,
                             size_t n, int blocksize, uint16_t* out) {
  for (size_t i = 0; i < n; ++i)
    out[i] = gs_f32_to_bf16(quant4_dequant_value(k, quant4_nibble(packed, i), absmax[i / size_t(blocksize)]));
}

void quant4_dequant_ref_f16(quant4_kind k, std::span<const uint8_t> packed, std::span<const float> absmax,
                            size_t n, int blocksize, uint16_t* out) {
  for (size_t i = 0; i < n; ++i)
    out[i] = gs_f32_to_f16(quant4_dequant_value(k, quant4_nibble(packed, i), absmax[i / size_t(blocksize)]));
}

bool quant4_code_tolerated(quant4_kind k, float x, float absmax, uint8_t got, int ulps) {
  const float inv = 1.0f / absmax;
  if (!std::isfinite(inv) || inv == 0.0f) return quant4_code(k, x * inv) == got;
  float lo = inv, hi = inv;
  for (int s = 0; s <= ulps; ++s) {
    if (quant4_code(k, x * lo) == got || quant4_code(k, x * hi) == got) return true;
    lo = std::nextafter(lo, -INFINITY);
    hi = std::nextafter(hi, INFINITY);
  }
  return false;
}

}  // namespace gs
