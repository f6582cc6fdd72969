// collective_plan: the sizes, operations and injected faults `probe collective` accepts, and what
// it refuses before anything runs; collective_result: the launcher's output turned into the step's
// status and figures (recorded lines in the protocol, as python/script_runner reads them).
#include "collective/collective_plan.h"

#include <gtest/gtest.h>

#include "collective/collective_step.h"

namespace gs {
namespace {

TEST(CollectivePlan, ByteCountsReadAsNcclTestsReadsThem) {
  std::string why;
  EXPECT_EQ(parse_byte_count("4K", &why), 4096u);
  EXPECT_EQ(parse_byte_count("4KiB", &why), 4096u);
  EXPECT_EQ(parse_byte_count("64m", &why), 64ull << 20);
  EXPECT_EQ(parse_byte_count("1G", &why), 1ull << 30);
  EXPECT_EQ(parse_byte_count(" 1048576 ", &why), 1ull << 20);
  for (const char* bad : {"", "K", "4T", "-4K", "1.5G", "0", "17G", "4 K B"}) {
    EXPECT_FALSE(parse_byte_count(bad, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

TEST(CollectivePlan, SizesGoUpFourTimesAndEndAtTheLargest) {
  EXPECT_EQ(size_ladder(4096, 1ull << 30),
            (std::vector<uint64_t>{4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864, 268435456,
                                   1ull << 30}));
  EXPECT_EQ(size_ladder(4096, 50000), (std::vector<uint64_t>{4096, 16384, 50000}));
  EXPECT_EQ(size_ladder(4096, 4096), (std::vector<uint64_t>{4096}));
}

TEST(CollectivePlan, OperationsInRunOrderWhateverTheOrderAsked) {
  std::string why;
  EXPECT_EQ(*parse_collective_ops("broadcast,all-reduce", &why), (std::vector<std::string>{"all_reduce", "broadcast"}));
  EXPECT_EQ(parse_collective_ops("all", &why)->size(), 5u);
  EXPECT_FALSE(parse_collective_ops("all_to_all", &why));
  EXPECT_NE(why.find("all_to_all"), std::string::npos);
  EXPECT_FALSE(parse_collective_ops("", &why));
}

TEST(CollectivePlan, FaultsAreARankAndACollective) {
  std::string why;
  EXPECT_EQ(*parse_collective_fault("hang:1:all_reduce", &why), R"({"kind":"hang","op":"all_reduce","rank":1})");
  EXPECT_TRUE(parse_collective_fault("crash:0:any", &why));
  for (const char* bad : {"hang:1", "sleep:1:all_reduce", "hang:x:all_reduce", "hang:1:p2p", "hang:1:gather"})
    EXPECT_FALSE(parse_collective_fault(bad, &why)) << bad;
}

python_probe_outcome launcher_said(const std::string& result_json) {
  return outcome_from_output("@gs phase import\n@gs phase launch\n@gs phase run\n@gs result " + result_json + "\n", "",
                             0, 0);
}

TEST(CollectiveResult, BusBandwidthOnEverySizeAndTheLargestInTheDetail) {
  probe_result r = collective_result(
      "all_reduce", launcher_said(R"({"status":"pass","detail":"all_reduce over 4 nccl ranks: exact at every size",)"
                                  R"("data":{"world_size":4,"sizes":[{"bytes":4096,"time_us":20,"exact":true},)"
                                  R"({"bytes":1073741824,"time_us":10000,"exact":true}]}})"));
  EXPECT_EQ(r.outcome, status::pass);
  EXPECT_NEAR(r.data["sizes"][1]["algbw_gbps"].get<double>(), 107.374, 1e-3);
  EXPECT_NEAR(r.data["sizes"][1]["busbw_gbps"].get<double>(), 107.374 * 1.5, 1e-3);  // 2(n-1)/n, n = 4
  EXPECT_NE(r.detail.find("bus bandwidth 161.06 GB/s at 1 GiB"), std::string::npos) << r.detail;
}

TEST(CollectiveResult, TheLaunchersHangAndCrashBecomeThoseStatuses) {
  probe_result hang = collective_result(
      "all_gather", launcher_said(R"({"status":"fail","detail":"all_gather hung on all_gather of 4 KiB",)"
                                  R"("data":{"outcome":"hang","inside":[0],"missing":[1],"reaped":true}})"));
  EXPECT_EQ(hang.outcome, status::hang);
  EXPECT_EQ(hang.id, "collective.all_gather");
  probe_result crash = collective_result(
      "broadcast", launcher_said(R"({"status":"fail","detail":"rank 1 died of signal 11","data":{"outcome":"crash"}})"));
  EXPECT_EQ(crash.outcome, status::crash);
  // A plain failure (wrong results, a rank that raised) stays a failure.
  probe_result wrong = collective_result(
      "broadcast", launcher_said(R"({"status":"fail","detail":"wrong results","data":{"world_size":2}})"));
  EXPECT_EQ(wrong.outcome, status::fail);
}

}  // namespace
}  // namespace gs
