// See gemm_inputs.h.
#include "probes/gemm_inputs.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "core/parallel_for.h"
#include "kernels/gs_device.h"
#include "kernels/gs_fp8.h"

namespace gs {

size_t gemm_elem_bytes(gemm_type t) { return t == gemm_type::fp32 ? 4 : gemm_type_is_fp8(t) ? 1 : 2; }

namespace {

// Elements per independently seeded chunk: chunk 0 is seeded with `seed` itself, so an input of up
// to 2^20 elements (the tests' inputs) is the single mt19937 stream it always was.
constexpr size_t kChunk = size_t(1) << 20;

void fill_chunk(gemm_type t, matrix_input& m, size_t begin, size_t end, uint32_t seed, size_t chunk) {
  std::seed_seq seq{seed, uint32_t(chunk)};
  std::mt19937 rng = chunk == 0 ? std::mt19937(seed) : std::mt19937(seq);
  if (gemm_type_is_fp8(t)) {
    const bool fnuz = t == gemm_type::fp8_e4m3fnuz;
    std::uniform_int_distribution<unsigned> code(0, 255);
    for (size_t i = begin; i < end; ++i) {
      float f;
      unsigned c;
      do f = gs_fp8_e4m3_to_f32(c = code(rng), fnuz);
      while (std::isnan(f));
      m.raw[i] = static_cast<unsigned char>(c);
      m.wide[i] = f;
    }
    return;
  }
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (size_t i = begin; i < end; ++i) {
    float f = dist(rng);
    if (t == gemm_type::fp32) {
      std::memcpy(&m.raw[i * 4], &f, 4);
      m.wide[i] = f;
    } else {
      uint16_t h = t == gemm_type::bf16 ? gs_f32_to_bf16(f) : gs_f32_to_f16(f);
      std::memcpy(&m.raw[i * 2], &h, 2);
      m.wide[i] = t == gemm_type::bf16 ? gs_bf16_to_f32(h) : gs_f16_to_f32(h);
    }
  }
}

}  // namespace

// Chunks of 2^20 elements, each its own seeded stream, filled on the host's cores: the same
// values whatever the core count. Why: a gemma4-31b QLoRA step's largest operand is 5376 x 21504
// = 116 M elements at ~4 ns each on one core (draw, round, two stores), ~0.5 s; its 107 GEMMs
// spent 25-47 s of blas.bf16's 33-60 s in "load" on the lent H100s (2026-12-05c/d runs).
matrix_input random_matrix(gemm_type t, size_t n, uint32_t seed) {
  matrix_input m;
  m.wide.resize(n);
  m.raw.resize(n * gemm_elem_bytes(t));
  parallel_for((n + kChunk - 1) / kChunk, [&](size_t c) { fill_chunk(t, m, c * kChunk, std::min(n, (c + 1) * kChunk), seed, c); });
  return m;
}

double gemm_error_bound(int K, double abs_sum) { return 2.0 * K * std::ldexp(1.0, -24) * abs_sum + 1e-30; }

double gemm_fp8_error_bound(const float* a, const float* bt, int K) {
  const int step = 32;  // k of one fp8 matrix instruction
  const double u = std::ldexp(1.0, -13);
  double prefix = 0, held = 0, abs_sum = 0;
  for (int k0 = 0; k0 < K; k0 += step) {
    double sum = 0, abs_step = 0;
    for (int k = k0; k < std::min(K, k0 + step); ++k) {
      const double p = double(a[k]) * bt[k];
      sum += p, abs_step += std::fabs(p);
    }
    held += std::fabs(prefix) + abs_step;
    prefix += sum, abs_sum += abs_step;
  }
  return 2.0 * u * held + gemm_error_bound(K, abs_sum);
}

std::vector<int> gemm_sample_rows(int M, uint32_t seed) {
  return {0, 1, M / 3, M / 2, 2 * M / 3, M - 2, M - 1, int(seed % unsigned(M))};
}

f32_check check_gemm_rows(std::span<const float> got, int M, int N, bool all_rows, uint32_t seed,
                          const std::function<float(int, int)>& want, const std::function<double(int, int)>& bound,
                          const std::function<void()>& each_row) {
  std::vector<int> rows;
  if (all_rows)
    for (int r = 0; r < M; ++r) rows.push_back(r);
  else
    rows = gemm_sample_rows(M, seed);
  std::vector<float> got_rows, want_rows;
  std::vector<double> bounds;
  for (int r : rows) {
    each_row();
    for (int c = 0; c < N; ++c) {
      got_rows.push_back(got[size_t(r) * N + c]);
      want_rows.push_back(want(r, c));
      bounds.push_back(bound(r, c));
    }
  }
  f32_check check = check_f32(got_rows, want_rows, bounds);
  if (!all_rows) add_unwritten(check, got);  // rows not compared still must have been written
  return check;
}

}  // namespace gs
