// Speed of the quantization CPU references (kernels/ref/): what the cpu backend and `gpustack
// selftest` cost. They are written to be read, not to be fast; the figures say how large an
// input the probes and the comparer can afford (e.g. quant.nf4 checks its 8192 x 8192 timed
// matrix against quant4_dequant_ref_bf16 and gemv4_ref on the host).
// Run: build/bench/gpustack_bench --benchmark_filter=Quant
#include <benchmark/benchmark.h>

#include <fstream>
#include <random>
#include <sstream>

#include "kernels/gs_device.h"
#include "kernels/ref/double_quant_ref.h"
#include "kernels/ref/gemv4_ref.h"
#include "kernels/ref/int8_ref.h"
#include "kernels/ref/quant4_ref.h"
#include "quant/golden.h"

namespace {

std::vector<float> normal_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

void BM_QuantNf4Quantize(benchmark::State& state) {
  const std::vector<float> x = normal_values(size_t(state.range(0)), 1);
  for (auto _ : state) benchmark::DoNotOptimize(gs::quant4_quantize_ref(gs::quant4_kind::nf4, x, 64));
  state.SetItemsProcessed(int64_t(state.iterations()) * state.range(0));
}
BENCHMARK(BM_QuantNf4Quantize)->Arg(1 << 20);

void BM_QuantNf4DequantBf16(benchmark::State& state) {
  const size_t n = size_t(state.range(0));
  const gs::quant4_packed q = gs::quant4_quantize_ref(gs::quant4_kind::nf4, normal_values(n, 2), 64);
  std::vector<uint16_t> out(n);
  for (auto _ : state) {
    gs::quant4_dequant_ref_bf16(gs::quant4_kind::nf4, q.packed, q.absmax, n, 64, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * state.range(0));
}
BENCHMARK(BM_QuantNf4DequantBf16)->Arg(1 << 20);

void BM_QuantDoubleQuant(benchmark::State& state) {
  std::vector<float> absmax = normal_values(size_t(state.range(0)), 3);
  for (float& a : absmax) a = std::fabs(a) + 0.1f;
  const float offset = gs::absmax_mean(absmax);
  for (auto _ : state) benchmark::DoNotOptimize(gs::double_quant_ref(absmax, gs::dynamic_map_avx2(), offset));
  state.SetItemsProcessed(int64_t(state.iterations()) * state.range(0));
}
BENCHMARK(BM_QuantDoubleQuant)->Arg(1 << 16);

void BM_QuantGemvBf16(benchmark::State& state) {
  const int N = int(state.range(0)), K = 4096;
  const gs::quant4_packed q = gs::quant4_quantize_ref(gs::quant4_kind::nf4, normal_values(size_t(N) * K, 4), 64);
  std::vector<uint16_t> a(static_cast<size_t>(K)), out(static_cast<size_t>(N));
  for (size_t i = 0; i < a.size(); ++i) a[i] = gs_f32_to_bf16(float(i % 7) - 3.0f);
  for (auto _ : state) {
    gs::gemv4_ref(gs::gemv_type::bf16, gs::quant4_kind::nf4, a.data(), q.packed, q.absmax, N, K, 64, 32, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * N * K);
}
BENCHMARK(BM_QuantGemvBf16)->Arg(256);

void BM_QuantInt8RowQuant(benchmark::State& state) {
  const int rows = int(state.range(0)), cols = 4096;
  std::vector<float> a = normal_values(size_t(rows) * cols, 5);
  for (float& v : a) v = gs_f16_to_f32(gs_f32_to_f16(v * 2.0f));
  for (auto _ : state) benchmark::DoNotOptimize(gs::int8_vectorwise_quant_ref(a, rows, cols, 6.0f));
  state.SetItemsProcessed(int64_t(state.iterations()) * rows * cols);
}
BENCHMARK(BM_QuantInt8RowQuant)->Arg(256);

void BM_QuantInt8Gemm(benchmark::State& state) {
  const int M = int(state.range(0)), N = M, K = 4096;
  std::vector<int8_t> a(size_t(M) * K), b(size_t(N) * K);
  for (size_t i = 0; i < a.size(); ++i) a[i] = int8_t(int(i * 37 % 255) - 127), b[i] = int8_t(int(i * 91 % 255) - 127);
  for (auto _ : state) benchmark::DoNotOptimize(gs::int8_gemm_i32_ref(a, b, M, N, K));
  state.SetItemsProcessed(int64_t(state.iterations()) * M * N * K);
}
BENCHMARK(BM_QuantInt8Gemm)->Arg(64);

void BM_QuantGoldenCompare(benchmark::State& state) {
  std::ifstream f(GPUSTACK_TEST_FIXTURES "/golden/bitsandbytes-vectors.json");
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  for (auto _ : state) benchmark::DoNotOptimize(gs::compare_golden(text));
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(text.size()));
}
BENCHMARK(BM_QuantGoldenCompare);

}  // namespace
