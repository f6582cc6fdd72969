// CPU reference for LLM.int8(); see int8_ref.h.
#include "kernels/ref/int8_ref.h"

#include <cmath>

#include "kernels/gs_device.h"

namespace gs {
namespace {

// __float2int_rn: round to nearest, ties to even; NaN gives 0 (cvt.rni.s32.f32), and the kernel
// stores the int into an int8 (|x * scale| <= 127 up to rounding, so nothing wraps).
int round_even(float v) {
  if (std::isnan(v)) return 0;
  if (v >= 2147483520.0f) return 2147483647;
  if (v <= -2147483648.0f) return -2147483647 - 1;
  return int(std::nearbyint(v));  // the default rounding mode is to nearest, ties to even
}

float fp16_round(float v) { return gs_f16_to_f32(gs_f32_to_f16(v)); }

}  // namespace

int8_t int8_code(float x, float absmax) {
  const float scale = 127.0f / absmax;
  return int8_t(round_even(x * scale));
}

bool int8_code_tolerated(float x, float absmax, int got, int ulps) {
  const float scale = 127.0f / absmax;
  if (!std::isfinite(scale) || scale == 0.0f) return round_even(x * scale) == got;
  float lo = scale, hi = scale;
  for (int s = 0; s <= ulps; ++s) {
    if (round_even(x * lo) == got || round_even(x * hi) == got) return true;
    lo = std::nextafter(lo, -INFINITY);
    hi = std::nextafter(hi, INFINITY);
  }
  return false;
}

float int8_quant_row_ref(std::span<const float> row, float threshold, std::span<const uint8_t> outlier_flags,
                         std::span<int8_t> q) {
  const bool sparse = threshold > 0.0f;
  // The kernel compares fp16 values with T(threshold), the threshold rounded to fp16.
  const float t16 = fp16_round(threshold);
  // fmaxf drops NaNs; outlier values do not count, the rest of an outlier column does.
  float m = 0.0f;
  for (float v : row) {
    const float a = std::fabs(v);
    if (!sparse || a < t16) m = std::fmax(m, a);
  }
  for (size_t c = 0; c < row.size(); ++c) {
    const bool zero = sparse && (outlier_flags[c] != 0 || !(std::fabs(row[c]) < threshold));
    q[c] = zero ? int8_t(0) : int8_code(row[c], m);
  }
  return m;
}

int8_quant int8_vectorwise_quant_ref(std::span<const float> A, int rows, int cols, float threshold) {
  int8_quant r;
  r.q.assign(size_t(rows) * size_t(cols), 0);
  r.stats.assign(size_t(rows), 0.0f);
  std::vector<uint8_t> outlier(size_t(cols), 0);
  if (threshold > 0.0f) {
    const float t16 = fp16_round(threshold);
    for (int i = 0; i < rows; ++i)
      for (int c = 0; c < cols; ++c)
        if (std::fabs(A[size_t(i) * cols + c]) >= t16) outlier[size_t(c)] = 1;
  }
  for (int c = 0; c < cols; ++c)
    if (outlier[size_t(c)]) r.outlier_cols.push_back(c);
  for (int i = 0; i < rows; ++i)
    r.stats[size_t(i)] = int8_quant_row_ref(A.subspan(size_t(i) * cols, size_t(cols)), threshold, outlier,
                                            std::span<int8_t>(r.q).subspan(size_t(i) * cols, size_t(cols)));
  return r;
}

std::vector<int32_t> int8_gemm_i32_ref(std::span<const int8_t> A, std::span<const int8_t> B, int M, int N, int K) {
  std::vector<int32_t> C(size_t(M) * size_t(N));
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      int64_t acc = 0;  // exact; |acc| <= 127 * 127 * K fits int32 for K < 133143
      for (int k = 0; k < K; ++k) acc += int32_t(A[size_t(i) * K + k]) * int32_t(B[size_t(j) * K + k]);
      C[size_t(i) * N + j] = int32_t(uint32_t(uint64_t(acc)));  // int32 wrap-around like the GPU
    }
  return C;
}

uint16_t int8_dequant_element(int32_t c, float row_stat, float col_stat, float bias) {
  // ((float)C * row) * col, then one fmaf with the constant and the bias, then __float2half.
  const float scaled = (float(c) * row_stat) * col_stat;
  return gs_f32_to_f16(std::fma(scaled, int8_mm_dequant_const, bias));
}

std::vector<uint16_t> int8_mm_dequant_ref(std::span<const int32_t> C, std::span<const float> row_stats,
                                          std::span<const float> col_stats, std::span<const float> bias, int M, int N) {
  std::vector<uint16_t> out(size_t(M) * size_t(N));
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      out[size_t(i) * N + j] = int8_dequant_element(C[size_t(i) * N + j], row_stats[size_t(i)], col_stats[size_t(j)],
                                                    bias.empty() ? 0.0f : bias[size_t(j)]);
  return out;
}

uint16_t int8_weight_dequant_f16(int8_t q, float scb) {
  // int8 tensor * float32 stats -> float32, * Python float -> float32 (torch opmath for float is
  // float), then .to(float16).
  const float a = float(q) * scb;
  return gs_f32_to_f16(a * int8_inv127);
}

uint16_t int8_outlier_addmm_element(float prev, std::span<const float> a_row, std::span<const int8_t> cw_row, float scw,
                                    std::span<const int> cols) {
  float s = prev;
  for (int c : cols) s = std::fma(a_row[size_t(c)], gs_f16_to_f32(int8_weight_dequant_f16(cw_row[size_t(c)], scw)), s);
  return gs_f32_to_f16(s);
}

std::vector<uint16_t> linear8bitlt_forward_ref(std::span<const float> A, std::span<const int8_t> CW,
                                               std::span<const float> SCW, std::span<const float> bias, int M,
                                               int N, int K, float threshold) {
  const int8_quant qa = int8_vectorwise_quant_ref(A, M, K, threshold);
  const std::vector<int32_t> acc = int8_gemm_i32_ref(qa.q, CW, M, N, K);
  std::vector<uint16_t> out = int8_mm_dequant_ref(acc, qa.stats, SCW, bias, M, N);
  if (qa.outlier_cols.empty()) return out;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      uint16_t& o = out[size_t(i) * N + j];
      o = int8_outlier_addmm_element(gs_f16_to_f32(o), A.subspan(size_t(i) * K, size_t(K)),
                                     CW.subspan(size_t(j) * K, size_t(K)), SCW[size_t(j)], qa.outlier_cols);
    }
  return out;
}

}  // namespace gs
