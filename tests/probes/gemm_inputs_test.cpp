// The seeded GEMM inputs (probes/gemm_inputs.cpp): chunked and filled on several cores, yet one
// function of (type, n, seed). Cost: ~3 M elements drawn, well under a second.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "core/parallel_for.h"
#include "kernels/gs_device.h"
#include "probes/gemm_inputs.h"

namespace gs {
namespace {

TEST(GemmInputs, AnInputOfOneChunkIsTheSingleSeededStream) {
  // What the tests' fixed-seed inputs were before the chunking: one mt19937(seed), uniform [-1, 1],
  // rounded to bf16.
  const size_t n = 4096;
  matrix_input m = random_matrix(gemm_type::bf16, n, 7);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (size_t i = 0; i < n; ++i) {
    uint16_t h = gs_f32_to_bf16(dist(rng)), got;
    std::memcpy(&got, &m.raw[i * 2], 2);
    ASSERT_EQ(got, h) << i;
    ASSERT_EQ(m.wide[i], gs_bf16_to_f32(h)) << i;
  }
}

TEST(GemmInputs, ALargeInputIsTheSameOnEveryCallAndItsChunksDiffer) {
  const size_t chunk = size_t(1) << 20, n = 3 * chunk + 5;  // three full chunks and a short one
  matrix_input a = random_matrix(gemm_type::fp16, n, 42), b = random_matrix(gemm_type::fp16, n, 42);
  EXPECT_EQ(a.raw, b.raw) << "threads must not change the values";
  EXPECT_EQ(a.wide, b.wide);
  // each chunk is its own stream: chunk 1 does not repeat chunk 0
  EXPECT_NE(std::memcmp(&a.raw[0], &a.raw[chunk * 2], 64), 0);
  // every element was written and is in range
  for (size_t i = 0; i < n; i += 9973) EXPECT_TRUE(a.wide[i] >= -1.0f && a.wide[i] <= 1.0f) << i;
  EXPECT_TRUE(a.wide[n - 1] >= -1.0f && a.wide[n - 1] <= 1.0f);
  matrix_input c = random_matrix(gemm_type::fp16, n, 43);
  EXPECT_NE(a.raw, c.raw) << "another seed, other values";
}

TEST(ParallelFor, EveryItemRunsOnce) {
  std::vector<int> hits(1000, 0);
  parallel_for(hits.size(), [&](size_t i) { ++hits[i]; });
  for (size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i], 1) << i;
  parallel_for(0, [&](size_t) { ADD_FAILURE() << "no items, no calls"; });
}

}  // namespace
}  // namespace gs
