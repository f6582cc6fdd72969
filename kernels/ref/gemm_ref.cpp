// CPU reference for kernels/gemm.cu and kernels/gemm_mma.cu: written to be read, not to be fast (a 512^3 product takes
// about a tenth of a second; the probes check large products on sampled rows).
// NVCC and HIP-Clang contract `acc += a * b` into one fused multiply-add by default, so the
// reference uses std::fma too; the probes still compare with a tolerance, because nothing obliges
// a compiler to contract.
#include "kernels/ref/gemm_ref.h"

#include <algorithm>
#include <cmath>

#include "kernels/gs_device.h"
#include "kernels/gs_fp8.h"

namespace gs {

float gemm_ref_element(const float* A, const float* B, int N, int K, int row, int col) {
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc = std::fma(A[size_t(row) * K + k], B[size_t(k) * N + col], acc);
  return acc;
}

float gemm_nt_ref_element(const float* A, const float* Bt, int K, int row, int col) {
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc = std::fma(A[size_t(row) * K + k], Bt[size_t(col) * K + k], acc);
  return acc;
}

void gemm_ref_row(const float* a_row, const float* B, int N, int K, bool b_transposed, float* out, double* abs_sum) {
  if (b_transposed) {
    for (int col = 0; col < N; ++col) {
      out[col] = gemm_nt_ref_element(a_row, B, K, 0, col);
      if (abs_sum) {
        double s = 0;
        for (int k = 0; k < K; ++k) s += std::fabs(double(a_row[k]) * B[size_t(col) * K + k]);
        abs_sum[col] = s;
      }
    }
    return;
  }
  std::fill(out, out + N, 0.0f);
  if (abs_sum) std::fill(abs_sum, abs_sum + N, 0.0);
  for (int k = 0; k < K; ++k) {
    const float a = a_row[k];
    const float* b = B + size_t(k) * N;
    for (int col = 0; col < N; ++col) out[col] = std::fma(a, b[col], out[col]);
    if (abs_sum)
      for (int col = 0; col < N; ++col) abs_sum[col] += std::fabs(double(a) * b[col]);
  }
}

void gemm_ref(const float* A, const float* B, float* C, int M, int N, int K) {
  for (int row = 0; row < M; ++row)
    for (int col = 0; col < N; ++col) C[size_t(row) * N + col] = gemm_ref_element(A, B, N, K, row, col);
}

std::vector<float> widen_bf16(const uint16_t* p, size_t n) {
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = gs_bf16_to_f32(p[i]);
  return out;
}

std::vector<float> widen_f16(const uint16_t* p, size_t n) {
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = gs_f16_to_f32(p[i]);
  return out;
}

std::vector<float> widen_fp8(const uint8_t* p, size_t n, bool fnuz) {
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = gs_fp8_e4m3_to_f32(p[i], fnuz);
  return out;
}

}  // namespace gs
