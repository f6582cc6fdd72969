// CPU reference for the 4-bit GEMV; see gemv4_ref.h.
#include "kernels/ref/gemv4_ref.h"

#include <cmath>
#include <vector>

#include "kernels/gs_device.h"

namespace gs {
namespace {

// Round a float to the GEMV's type and back (identity for f32).
float to_type(gemv_type t, float v) {
  switch (t) {
    case gemv_type::bf16: return gs_bf16_to_f32(gs_f32_to_bf16(v));
    case gemv_type::f16: return gs_f16_to_f32(gs_f32_to_f16(v));
    case gemv_type::f32: return v;
  }
  return v;
}

float load_a(gemv_type t, const void* A, size_t k) {
  switch (t) {
    case gemv_type::bf16: return gs_bf16_to_f32(static_cast<const uint16_t*>(A)[k]);
    case gemv_type::f16: return gs_f16_to_f32(static_cast<const uint16_t*>(A)[k]);
    case gemv_type::f32: return static_cast<const float*>(A)[k];
  }
  return 0;
}

}  // namespace

const char* gemv_type_name(gemv_type t) {
  return t == gemv_type::f32 ? "f32" : t == gemv_type::bf16 ? "bf16" : "f16";
}

std::string gemv4_shape_error(long long N, long long K, long long blocksize) {
  if (N < 1) return "N must be at least 1";
  if (K < 32 || K % 32 != 0) return "K must be a positive multiple of 32";
  if (!quant4_blocksize_valid(blocksize)) return "blocksize must be one of 32, 64, ..., 4096";
  if (N > (1LL << 31) / K) return "N * K must stay below 2^31";
  return {};
}

float gemv4_ref_row_sum(gemv_type t, quant4_kind k, const void* A, std::span<const uint8_t> packed,
                        std::span<const float> absmax, int row, int K, int blocksize, int warp_size) {
  const std::array<float, 16>& table = quant4_table(k);
  const size_t row_base = size_t(row) * size_t(K);
  std::vector<float> lane_sum(size_t(warp_size), 0.0f);
  const int chunks = K / 32;
  for (int lane = 0; lane < warp_size; ++lane) {
    float acc = 0.0f;
    for (int c = lane; c < chunks; c += warp_size) {
      const size_t k0 = size_t(c) * 32;
      // One absmax per chunk: the chunk never crosses a block boundary (blocksize >= 32).
      const float am = to_type(t, absmax[(row_base + k0) / size_t(blocksize)]);
      for (size_t j = 0; j < 32; ++j) {
        const size_t e = row_base + k0 + j;
        const float w = to_type(t, to_type(t, table[quant4_nibble(packed, e)]) * am);
        const float a = load_a(t, A, k0 + j);
        if (t == gemv_type::f32) acc = std::fma(a, w, acc);
        else acc += to_type(t, a * w);  // a*w is exact in float for bf16/fp16 inputs; one rounding to T
      }
    }
    lane_sum[size_t(lane)] = acc;
  }
  // Butterfly: after the step with offset o every lane holds v[l] + v[l ^ o].
  for (int o = 1; o < warp_size; o *= 2) {
    std::vector<float> next(lane_sum.size());
    for (size_t l = 0; l < lane_sum.size(); ++l) next[l] = lane_sum[l] + lane_sum[l ^ size_t(o)];
    lane_sum.swap(next);
  }
  return lane_sum[0];
}

void gemv4_ref(gemv_type t, quant4_kind k, const void* A, std::span<const uint8_t> packed,
               std::span<const float> absmax, int N, int K, int blocksize, int warp_size, void* out) {
  for (int n = 0; n < N; ++n) {
    const float s = gemv4_ref_row_sum(t, k, A, packed, absmax, n, K, blocksize, warp_size);
    switch (t) {
      case gemv_type::bf16: static_cast<uint16_t*>(out)[n] = gs_f32_to_bf16(s); break;
      case gemv_type::f16: static_cast<uint16_t*>(out)[n] = gs_f32_to_f16(s); break;
      case gemv_type::f32: static_cast<float*>(out)[n] = s; break;
    }
  }
}

}  // namespace gs
