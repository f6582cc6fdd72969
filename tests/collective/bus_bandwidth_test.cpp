// bus_bandwidth: nccl-tests' factors and the figures they give, against hand-worked numbers.
#include "collective/bus_bandwidth.h"

#include <gtest/gtest.h>

namespace gs {
namespace {

TEST(BusBandwidth, FactorsAreNcclTestsRingFactors) {
  EXPECT_DOUBLE_EQ(*bus_factor("all_reduce", 8), 14.0 / 8);
  EXPECT_DOUBLE_EQ(*bus_factor("all_reduce", 2), 1.0);
  EXPECT_DOUBLE_EQ(*bus_factor("all_gather", 4), 0.75);
  EXPECT_DOUBLE_EQ(*bus_factor("reduce_scatter", 4), 0.75);
  EXPECT_DOUBLE_EQ(*bus_factor("broadcast", 8), 1.0);
  EXPECT_DOUBLE_EQ(*bus_factor("all_reduce", 1), 0.0);  // one rank moves nothing over a link
  EXPECT_FALSE(bus_factor("all_to_all", 8));
  EXPECT_FALSE(bus_factor("all_reduce", 0));
}

TEST(BusBandwidth, OneGibibyteAllReduceOverEightRanksInTenMilliseconds) {
  auto b = bandwidth_of("all_reduce", 8, double(1ull << 30), 10000);
  ASSERT_TRUE(b);
  EXPECT_NEAR(b->algbw_gbps, 107.374, 1e-3);         // 2^30 B / 0.01 s
  EXPECT_NEAR(b->busbw_gbps, 107.374 * 1.75, 2e-3);  // x 2(n-1)/n
}

TEST(BusBandwidth, NoFigureWithoutATime) {
  EXPECT_FALSE(bandwidth_of("broadcast", 2, 4096, 0));
  EXPECT_FALSE(bandwidth_of("broadcast", 2, 4096, -1));
  EXPECT_FALSE(bandwidth_of("gather", 2, 4096, 10));
}

}  // namespace
}  // namespace gs
