// py.matmul (issue 17): the GEMMs of a QLoRA step of a registry model (models/qlora_gemms.h, the
// one shape list) through the user's torch, judged here against gpustack's reference.
//
// How the two sides agree on the inputs without shipping them: every element of every operand is
// a hash of (seed, storage index) to an integer v in [-128, 127], the value v / 128. Such values
// are exact in bf16 and fp16 (8 significant bits), their products exact in fp32, so the GPU and
// the reference multiply the very same numbers; probes/python/matmul.py computes the same hash
// with the same integer operators on torch int64 tensors (a test runs both on the same indices).
// A 21504 x 5376 weight (gemma4-31b's gate_proj) would be 231 MB to hand over; a seed is 4 bytes.
//
// The script sends back, per (shape, dtype, BLAS backend): sampled elements of C (rows from
// gemm_sample_rows, 32 columns), NaN/Inf counts over the whole of C (filled with NaN before the
// call, so an element the BLAS never wrote is counted too), and the median time.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/probe_result.h"
#include "models/qlora_gemms.h"

namespace gs {

/// The integer behind operand element `index` (storage order) of an operand seeded `seed`:
/// v in [-128, 127]; the element is v / 128. Index must be below 2^31.
int py_matmul_hash(uint32_t seed, uint64_t index);
inline float py_matmul_value(uint32_t seed, uint64_t index) { return float(py_matmul_hash(seed, index)) / 128.0f; }

/// One GEMM as the script runs it: the shape, its operand seeds and the elements to send back.
struct py_matmul_case {
  qlora_gemm gemm;
  uint32_t seed_a = 0, seed_b = 0;
  std::vector<int> rows, cols;  ///< sampled elements of C: every (row, col) pair, row-major
};

/// Every GEMM of one QLoRA step of `model` at `tokens`, LoRA ranks 8/16/64 (the issue's), with
/// seeds and samples derived from `seed`.
std::vector<py_matmul_case> py_matmul_plan(const model_spec& model, int64_t tokens, uint32_t seed);

/// The script's arguments for the plan (the "shapes" list of GPUSTACK_ARGS).
nlohmann::json py_matmul_shapes_json(const std::vector<py_matmul_case>& plan);

/// What C[row][col] of a case must be: gpustack's reference (kernels/ref gemm_nt_ref_element, an
/// fp32 fma chain over the same inputs) for every sampled element, row-major over rows x cols, and
/// each element's bound: gemm_error_bound for the fp32 accumulation, plus one rounding of the
/// result to the output type (`out_unit_roundoff`: 2^-8 bf16, 2^-11 fp16).
struct py_matmul_expected {
  std::vector<float> ref;
  std::vector<double> bound;
};
py_matmul_expected py_matmul_reference(const py_matmul_case& c, double out_unit_roundoff);

/// Turns the script's result (data.cases, data.blas, data.arch, data.device) into the step's
/// verdict: fail on the first case outside its bound, with NaN/Inf/unwritten elements, or that
/// raised; warn on a shape far below its roofline band or a BLAS backend much slower than the
/// other; pass otherwise. The samples leave the report; each case keeps ok, errors, ms, TFLOP/s.
void judge_py_matmul(probe_result& r, const std::vector<py_matmul_case>& plan);

}  // namespace gs
