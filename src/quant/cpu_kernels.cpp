// cpu backend implementations of kernels/quant4.cu and kernels/int8.cu; see cpu_kernels.h.
#include "quant/cpu_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/gs_device.h"
#include "kernels/ref/double_quant_ref.h"
#include "kernels/ref/gemv4_ref.h"
#include "kernels/ref/int8_ref.h"
#include "kernels/ref/quant4_ref.h"

namespace gs {
namespace {

runtime_status bad_arg(const char* kernel, const std::string& why) { return runtime_status::failure(kernel, 1, why); }

bool check_kind(int kind) { return kind == 0 || kind == 1; }
quant4_kind kind_of(int kind) { return kind == 0 ? quant4_kind::nf4 : quant4_kind::fp4; }

enum class elem { f32, bf16, f16 };
size_t elem_bytes(elem e) { return e == elem::f32 ? 4 : 2; }

std::vector<float> widen(elem e, const void* p, size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    if (e == elem::f32) v[i] = static_cast<const float*>(p)[i];
    else if (e == elem::bf16) v[i] = gs_bf16_to_f32(static_cast<const uint16_t*>(p)[i]);
    else v[i] = gs_f16_to_f32(static_cast<const uint16_t*>(p)[i]);
  }
  return v;
}

// ---- quant4.cu: quantize v1 (one thread per block) --------------------------------------------

runtime_status run_quantize(const char* name, elem in, const cpu_launch& l, void** args) {
  const void* x = launch_arg<const void*>(args, 0);
  auto packed = launch_arg<unsigned char*>(args, 1);
  auto absmax = launch_arg<float*>(args, 2);
  const uint64_t n = launch_arg<unsigned long long>(args, 3);
  const int bs = launch_arg<int>(args, 4), kind = launch_arg<int>(args, 5);
  if (!quant4_blocksize_valid(bs) || !check_kind(kind)) return bad_arg(name, "blocksize must be 32..4096 (a power of 2) and kind 0 or 1");
  const uint64_t blocks = std::min<uint64_t>((n + uint64_t(bs) - 1) / uint64_t(bs), l.threads_x());
  const uint64_t covered = std::min<uint64_t>(n, blocks * uint64_t(bs));
  if (covered == 0) return runtime_status::success();
  if (!l.valid_range(x, covered * elem_bytes(in))) return illegal_address(name, "input");
  if (!l.valid_range(packed, (covered + 1) / 2) || !l.valid_range(absmax, blocks * 4)) return illegal_address(name, "output");
  const std::vector<float> v = widen(in, x, covered);
  const quant4_packed q = quant4_quantize_ref(kind_of(kind), v, bs);
  std::memcpy(packed, q.packed.data(), q.packed.size());
  std::memcpy(absmax, q.absmax.data(), q.absmax.size() * 4);
  return runtime_status::success();
}
runtime_status run_quantize_f32(const cpu_launch& l, void** a) { return run_quantize("quant4_quantize_f32_v1", elem::f32, l, a); }
runtime_status run_quantize_bf16(const cpu_launch& l, void** a) { return run_quantize("quant4_quantize_bf16_v1", elem::bf16, l, a); }
runtime_status run_quantize_f16(const cpu_launch& l, void** a) { return run_quantize("quant4_quantize_f16_v1", elem::f16, l, a); }

// ---- quant4.cu: dequantize v1 / v2 / v3 --------------------------------------------------------

enum class dq_version { v1, v2, v3 };

runtime_status run_dequant(const char* name, elem out_t, dq_version ver, const cpu_launch& l, void** args) {
  auto packed = launch_arg<const unsigned char*>(args, 0);
  auto absmax = launch_arg<const float*>(args, 1);
  void* out = launch_arg<void*>(args, 2);
  const uint64_t n = launch_arg<unsigned long long>(args, 3);
  const int bs = launch_arg<int>(args, 4), kind = launch_arg<int>(args, 5);
  if (!quant4_blocksize_valid(bs) || !check_kind(kind)) return bad_arg(name, "blocksize must be 32..4096 (a power of 2) and kind 0 or 1");
  uint64_t covered = 0;
  switch (ver) {
    case dq_version::v1: covered = std::min<uint64_t>(n, 2 * l.threads_x()); break;   // a byte per thread
    case dq_version::v2: covered = std::min<uint64_t>(n, 32 * l.threads_x()); break;  // 32 elements per thread
    case dq_version::v3: {
      // 4 * W units of 8 elements per warp; the kernel splits threads into warps by index.
      if (l.dims.block[0] % unsigned(l.wave_size) != 0)
        return bad_arg(name, "blockDim.x must be a multiple of the wave size");
      covered = std::min<uint64_t>(n, (l.threads_x() / uint64_t(l.wave_size)) * 4 * uint64_t(l.wave_size) * 8);
      break;
    }
  }
  if (ver != dq_version::v1 && l.dims.block[0] < 16) return bad_arg(name, "blockDim.x must be at least 16 (the table load)");
  if (covered == 0) return runtime_status::success();
  const uint64_t blocks = (covered + uint64_t(bs) - 1) / uint64_t(bs);
  if (!l.valid_range(packed, (covered + 1) / 2) || !l.valid_range(absmax, blocks * 4)) return illegal_address(name, "input");
  if (!l.valid_range(out, covered * elem_bytes(out_t))) return illegal_address(name, "output");
  if (ver == dq_version::v2 && (reinterpret_cast<uintptr_t>(packed) % 16 || reinterpret_cast<uintptr_t>(out) % 16))
    return runtime_status::failure(name, 716, "v2 needs 16-byte aligned codes and output (misaligned address)");
  if (ver == dq_version::v3 && (reinterpret_cast<uintptr_t>(packed) % 4 || reinterpret_cast<uintptr_t>(out) % 16))
    return runtime_status::failure(name, 716, "v3 needs 4-byte aligned codes and a 16-byte aligned output (misaligned address)");
  const std::span<const uint8_t> p(packed, (covered + 1) / 2);
  const std::span<const float> a(absmax, blocks);
  if (out_t == elem::f32) quant4_dequant_ref_f32(kind_of(kind), p, a, covered, bs, static_cast<float*>(out));
  else if (out_t == elem::bf16) quant4_dequant_ref_bf16(kind_of(kind), p, a, covered, bs, static_cast<uint16_t*>(out));
  else quant4_dequant_ref_f16(kind_of(kind), p, a, covered, bs, static_cast<uint16_t*>(out));
  return runtime_status::success();
}
#define GS_DQ(fn, kname, t, v) \
  runtime_status fn(const cpu_launch& l, void** a) { return run_dequant(kname, t, v, l, a); }
GS_DQ(run_dq_f32_v1, "quant4_dequant_f32_v1", elem::f32, dq_version::v1)
GS_DQ(run_dq_bf16_v1, "quant4_dequant_bf16_v1", elem::bf16, dq_version::v1)
GS_DQ(run_dq_f16_v1, "quant4_dequant_f16_v1", elem::f16, dq_version::v1)
GS_DQ(run_dq_f32_v2, "quant4_dequant_f32_v2", elem::f32, dq_version::v2)
GS_DQ(run_dq_bf16_v2, "quant4_dequant_bf16_v2", elem::bf16, dq_version::v2)
GS_DQ(run_dq_f16_v2, "quant4_dequant_f16_v2", elem::f16, dq_version::v2)
GS_DQ(run_dq_f32_v3, "quant4_dequant_f32_v3", elem::f32, dq_version::v3)
GS_DQ(run_dq_bf16_v3, "quant4_dequant_bf16_v3", elem::bf16, dq_version::v3)
GS_DQ(run_dq_f16_v3, "quant4_dequant_f16_v3", elem::f16, dq_version::v3)
#undef GS_DQ

// ---- quant4.cu: GEMV ---------------------------------------------------------------------------

runtime_status run_gemv(const char* name, gemv_type t, const cpu_launch& l, void** args) {
  const void* A = launch_arg<const void*>(args, 0);
  auto B = launch_arg<const unsigned char*>(args, 1);
  auto absmax = launch_arg<const float*>(args, 2);
  void* out = launch_arg<void*>(args, 3);
  const int N = launch_arg<int>(args, 4), K = launch_arg<int>(args, 5), bs = launch_arg<int>(args, 6), kind = launch_arg<int>(args, 7);
  if (std::string why = gemv4_shape_error(N, K, bs); !why.empty()) return bad_arg(name, why);
  if (!check_kind(kind)) return bad_arg(name, "kind must be 0 (nf4) or 1 (fp4)");
  const unsigned W = unsigned(l.wave_size);
  if (l.dims.block[0] % W != 0 || l.dims.block[0] < 16) return bad_arg(name, "blockDim.x must be a multiple of the wave size");
  const int rows = int(std::min<uint64_t>(uint64_t(N), uint64_t(l.dims.grid[0]) * (l.dims.block[0] / W)));
  const size_t elem = t == gemv_type::f32 ? 4 : 2;
  const uint64_t nk = uint64_t(N) * uint64_t(K), blocks = (nk + uint64_t(bs) - 1) / uint64_t(bs);
  if (!l.valid_range(A, size_t(K) * elem) || !l.valid_range(B, nk / 2) || !l.valid_range(absmax, blocks * 4))
    return illegal_address(name, "input");
  if (rows > 0 && !l.valid_range(out, size_t(rows) * elem)) return illegal_address(name, "output");
  if (reinterpret_cast<uintptr_t>(A) % 16 || reinterpret_cast<uintptr_t>(B) % 16)
    return runtime_status::failure(name, 716, "the GEMV needs 16-byte aligned A and B (misaligned address)");
  const std::span<const uint8_t> p(B, nk / 2);
  const std::span<const float> a(absmax, blocks);
  for (int r = 0; r < rows; ++r) {
    const float s = gemv4_ref_row_sum(t, kind_of(kind), A, p, a, r, K, bs, l.wave_size);
    if (t == gemv_type::f32) static_cast<float*>(out)[r] = s;
    else if (t == gemv_type::bf16) static_cast<uint16_t*>(out)[r] = gs_f32_to_bf16(s);
    else static_cast<uint16_t*>(out)[r] = gs_f32_to_f16(s);
  }
  return runtime_status::success();
}
runtime_status run_gemv_f32(const cpu_launch& l, void** a) { return run_gemv("quant4_gemv_f32_v1", gemv_type::f32, l, a); }
runtime_status run_gemv_bf16(const cpu_launch& l, void** a) { return run_gemv("quant4_gemv_bf16_v1", gemv_type::bf16, l, a); }
runtime_status run_gemv_f16(const cpu_launch& l, void** a) { return run_gemv("quant4_gemv_f16_v1", gemv_type::f16, l, a); }

// ---- quant4.cu: double quantization --------------------------------------------------------------

runtime_status run_dq8_quantize(const cpu_launch& l, void** args) {
  const char* name = "dq8_quantize_absmax_v1";
  auto absmax = launch_arg<const float*>(args, 0);
  const float offset = launch_arg<float>(args, 1);
  auto code = launch_arg<const float*>(args, 2);
  auto q = launch_arg<unsigned char*>(args, 3);
  auto absmax2 = launch_arg<float*>(args, 4);
  const uint64_t n = launch_arg<unsigned long long>(args, 5);
  const int bs = launch_arg<int>(args, 6);
  if (bs < 1) return bad_arg(name, "blocksize must be positive");
  const uint64_t blocks = std::min<uint64_t>((n + uint64_t(bs) - 1) / uint64_t(bs), l.threads_x());
  const uint64_t covered = std::min<uint64_t>(n, blocks * uint64_t(bs));
  if (covered == 0) return runtime_status::success();
  if (!l.valid_range(absmax, covered * 4) || !l.valid_range(code, 256 * 4)) return illegal_address(name, "input");
  if (!l.valid_range(q, covered) || !l.valid_range(absmax2, blocks * 4)) return illegal_address(name, "output");
  std::vector<float> y(covered);
  for (size_t i = 0; i < covered; ++i) y[i] = absmax[i] - offset;
  const blockwise8_result r = quantize_blockwise8_ref(y, std::span<const float, 256>(code, 256), bs);
  std::memcpy(q, r.q.data(), r.q.size());
  std::memcpy(absmax2, r.absmax.data(), r.absmax.size() * 4);
  return runtime_status::success();
}

runtime_status run_dq8_dequant(const cpu_launch& l, void** args) {
  const char* name = "dq8_absmax_dequant_v1";
  auto q = launch_arg<const unsigned char*>(args, 0);
  auto absmax2 = launch_arg<const float*>(args, 1);
  auto code = launch_arg<const float*>(args, 2);
  const float offset = launch_arg<float>(args, 3);
  auto out = launch_arg<float*>(args, 4);
  const uint64_t n = launch_arg<unsigned long long>(args, 5);
  const int bs = launch_arg<int>(args, 6);
  if (bs < 1) return bad_arg(name, "blocksize must be positive");
  const uint64_t covered = std::min<uint64_t>(n, l.threads_x());
  if (covered == 0) return runtime_status::success();
  const uint64_t blocks = (covered + uint64_t(bs) - 1) / uint64_t(bs);
  if (!l.valid_range(q, covered) || !l.valid_range(absmax2, blocks * 4) || !l.valid_range(code, 256 * 4))
    return illegal_address(name, "input");
  if (!l.valid_range(out, covered * 4)) return illegal_address(name, "output");
  const std::vector<float> r = nested_absmax_dequant_ref(std::span<const uint8_t>(q, covered), std::span<const float>(absmax2, blocks),
                                                         std::span<const float, 256>(code, 256), offset, bs);
  std::memcpy(out, r.data(), r.size() * 4);
  return runtime_status::success();
}

// ---- int8.cu -------------------------------------------------------------------------------------

runtime_status run_outlier_cols(const cpu_launch& l, void** args) {
  const char* name = "int8_outlier_cols_v1";
  auto A = launch_arg<const uint16_t*>(args, 0);
  auto flags = launch_arg<unsigned char*>(args, 1);
  const int rows = launch_arg<int>(args, 2), cols = launch_arg<int>(args, 3);
  const float threshold = launch_arg<float>(args, 4);
  if (rows < 0 || cols < 0) return bad_arg(name, "negative matrix dimension");
  const int covered = int(std::min<uint64_t>(uint64_t(cols), l.threads_x()));
  if (covered == 0) return runtime_status::success();
  if (rows && !l.valid_range(A, size_t(rows) * cols * 2)) return illegal_address(name, "input");
  if (!l.valid_range(flags, size_t(covered))) return illegal_address(name, "output");
  const float t16 = gs_f16_to_f32(gs_f32_to_f16(threshold));
  for (int c = 0; c < covered; ++c) {
    unsigned char f = 0;
    if (threshold > 0.0f)
      for (int r = 0; r < rows; ++r) f |= std::fabs(gs_f16_to_f32(A[size_t(r) * cols + c])) >= t16;
    flags[c] = f;
  }
  return runtime_status::success();
}

runtime_status run_row_quant(const cpu_launch& l, void** args) {
  const char* name = "int8_row_quant_v1";
  auto A = launch_arg<const uint16_t*>(args, 0);
  auto flags = launch_arg<const unsigned char*>(args, 1);
  auto q = launch_arg<signed char*>(args, 2);
  auto stats = launch_arg<float*>(args, 3);
  const int rows = launch_arg<int>(args, 4), cols = launch_arg<int>(args, 5);
  const float threshold = launch_arg<float>(args, 6);
  if (rows < 0 || cols < 0) return bad_arg(name, "negative matrix dimension");
  if (l.dims.block[0] % unsigned(l.wave_size) != 0 || l.dims.block[0] > 1024)
    return bad_arg(name, "blockDim.x must be a multiple of the wave size, at most 1024");
  const int covered = int(std::min<uint64_t>(uint64_t(rows), l.dims.grid[0]));
  if (covered == 0) return runtime_status::success();
  if (!l.valid_range(A, size_t(covered) * cols * 2) || (threshold > 0.0f && !l.valid_range(flags, size_t(cols))))
    return illegal_address(name, "input");
  if (!l.valid_range(q, size_t(covered) * cols) || !l.valid_range(stats, size_t(covered) * 4)) return illegal_address(name, "output");
  const std::vector<uint8_t> f = threshold > 0.0f ? std::vector<uint8_t>(flags, flags + cols) : std::vector<uint8_t>(size_t(cols), 0);
  for (int r = 0; r < covered; ++r) {
    const std::vector<float> row = widen(elem::f16, A + size_t(r) * cols, size_t(cols));
    stats[r] = int8_quant_row_ref(row, threshold, f, std::span<int8_t>(reinterpret_cast<int8_t*>(q) + size_t(r) * cols, size_t(cols)));
  }
  return runtime_status::success();
}

runtime_status run_gemm_i32(const cpu_launch& l, void** args) {
  const char* name = "int8_gemm_i32_v1";
  auto A = launch_arg<const signed char*>(args, 0);
  auto B = launch_arg<const signed char*>(args, 1);
  auto C = launch_arg<int*>(args, 2);
  const int M = launch_arg<int>(args, 3), N = launch_arg<int>(args, 4), K = launch_arg<int>(args, 5);
  if (M < 0 || N < 0 || K < 0) return bad_arg(name, "negative matrix dimension");
  const int rows = int(std::min<uint64_t>(uint64_t(M), uint64_t(l.dims.grid[1]) * l.dims.block[1]));
  const int cols = int(std::min<uint64_t>(uint64_t(N), uint64_t(l.dims.grid[0]) * l.dims.block[0]));
  if (rows == 0 || cols == 0) return runtime_status::success();
  if ((K && !l.valid_range(A, size_t(M) * K)) || (K && !l.valid_range(B, size_t(N) * K))) return illegal_address(name, "input");
  if (!l.valid_range(C, (size_t(rows - 1) * N + cols) * 4)) return illegal_address(name, "output");
  const std::span<const int8_t> a(reinterpret_cast<const int8_t*>(A), size_t(M) * K), b(reinterpret_cast<const int8_t*>(B), size_t(N) * K);
  const std::vector<int32_t> full = int8_gemm_i32_ref(a.first(size_t(rows) * K), b.first(size_t(cols) * K), rows, cols, K);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) C[size_t(i) * N + j] = full[size_t(i) * cols + j];
  return runtime_status::success();
}

runtime_status run_mm_dequant(const cpu_launch& l, void** args) {
  const char* name = "int8_mm_dequant_v1";
  auto C = launch_arg<const int*>(args, 0);
  auto rs = launch_arg<const float*>(args, 1);
  auto cs = launch_arg<const float*>(args, 2);
  auto bias = launch_arg<const uint16_t*>(args, 3);
  auto out = launch_arg<uint16_t*>(args, 4);
  const int M = launch_arg<int>(args, 5), N = launch_arg<int>(args, 6);
  if (M < 0 || N < 0) return bad_arg(name, "negative matrix dimension");
  const uint64_t covered = std::min<uint64_t>(uint64_t(M) * uint64_t(N), l.threads_x());
  if (covered == 0) return runtime_status::success();
  if (!l.valid_range(C, covered * 4) || !l.valid_range(rs, size_t(M) * 4) || !l.valid_range(cs, size_t(N) * 4) ||
      (bias && !l.valid_range(bias, size_t(N) * 2)))
    return illegal_address(name, "input");
  if (!l.valid_range(out, covered * 2)) return illegal_address(name, "output");
  for (uint64_t idx = 0; idx < covered; ++idx) {
    const size_t i = size_t(idx / uint64_t(N)), j = size_t(idx % uint64_t(N));
    out[idx] = int8_dequant_element(C[idx], rs[i], cs[j], bias ? gs_f16_to_f32(bias[j]) : 0.0f);
  }
  return runtime_status::success();
}

runtime_status run_outlier_addmm(const cpu_launch& l, void** args) {
  const char* name = "int8_outlier_addmm_v1";
  auto A = launch_arg<const uint16_t*>(args, 0);
  auto CW = launch_arg<const signed char*>(args, 1);
  auto SCW = launch_arg<const float*>(args, 2);
  auto ocols = launch_arg<const int*>(args, 3);
  const int n_ocols = launch_arg<int>(args, 4);
  auto out = launch_arg<uint16_t*>(args, 5);
  const int M = launch_arg<int>(args, 6), N = launch_arg<int>(args, 7), K = launch_arg<int>(args, 8);
  if (M < 0 || N < 0 || K < 0 || n_ocols < 0) return bad_arg(name, "negative dimension");
  const uint64_t covered = std::min<uint64_t>(uint64_t(M) * uint64_t(N), l.threads_x());
  if (covered == 0) return runtime_status::success();
  if (!l.valid_range(A, size_t(M) * K * 2) || !l.valid_range(CW, size_t(N) * K) || !l.valid_range(SCW, size_t(N) * 4) ||
      (n_ocols && !l.valid_range(ocols, size_t(n_ocols) * 4)))
    return illegal_address(name, "input");
  if (!l.valid_range(out, covered * 2)) return illegal_address(name, "output");
  const std::vector<int> cols(ocols, ocols + n_ocols);
  for (int c : cols)
    if (c < 0 || c >= K) return illegal_address(name, "outlier column");
  const std::vector<float> a = widen(elem::f16, A, size_t(M) * K);
  for (uint64_t idx = 0; idx < covered; ++idx) {
    const size_t i = size_t(idx / uint64_t(N)), j = size_t(idx % uint64_t(N));
    out[idx] = int8_outlier_addmm_element(gs_f16_to_f32(out[idx]), std::span<const float>(a).subspan(i * K, size_t(K)),
                                          std::span<const int8_t>(reinterpret_cast<const int8_t*>(CW) + j * K, size_t(K)),
                                          SCW[j], cols);
  }
  return runtime_status::success();
}

const cpu_kernel quant_table[] = {
    {"quant4.cu", "quant4_quantize_f32_v1", run_quantize_f32},
    {"quant4.cu", "quant4_quantize_bf16_v1", run_quantize_bf16},
    {"quant4.cu", "quant4_quantize_f16_v1", run_quantize_f16},
    {"quant4.cu", "quant4_dequant_f32_v1", run_dq_f32_v1},
    {"quant4.cu", "quant4_dequant_bf16_v1", run_dq_bf16_v1},
    {"quant4.cu", "quant4_dequant_f16_v1", run_dq_f16_v1},
    {"quant4.cu", "quant4_dequant_f32_v2", run_dq_f32_v2},
    {"quant4.cu", "quant4_dequant_bf16_v2", run_dq_bf16_v2},
    {"quant4.cu", "quant4_dequant_f16_v2", run_dq_f16_v2},
    {"quant4.cu", "quant4_dequant_f32_v3", run_dq_f32_v3},
    {"quant4.cu", "quant4_dequant_bf16_v3", run_dq_bf16_v3},
    {"quant4.cu", "quant4_dequant_f16_v3", run_dq_f16_v3},
    {"quant4.cu", "quant4_gemv_f32_v1", run_gemv_f32},
    {"quant4.cu", "quant4_gemv_bf16_v1", run_gemv_bf16},
    {"quant4.cu", "quant4_gemv_f16_v1", run_gemv_f16},
    {"quant4.cu", "dq8_quantize_absmax_v1", run_dq8_quantize},
    {"quant4.cu", "dq8_absmax_dequant_v1", run_dq8_dequant},
    {"int8.cu", "int8_outlier_cols_v1", run_outlier_cols},
    {"int8.cu", "int8_row_quant_v1", run_row_quant},
    {"int8.cu", "int8_gemm_i32_v1", run_gemm_i32},
    {"int8.cu", "int8_mm_dequant_v1", run_mm_dequant},
    {"int8.cu", "int8_outlier_addmm_v1", run_outlier_addmm},
};

}  // namespace

std::span<const cpu_kernel> cpu_quant_kernels() { return quant_table; }

}  // namespace gs
