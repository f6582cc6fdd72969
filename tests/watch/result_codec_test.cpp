// probe_result over the watchdog pipe: round trip, and nonsense from a broken child is an
// error with a reason, never an exception.
#include <gtest/gtest.h>

#include "watch/result_codec.h"

namespace gs {
namespace {

TEST(ResultCodec, RoundTrip) {
  probe_result r;
  r.id = "gemm.bf16";
  r.outcome = status::warn;
  r.phase = "verify";
  r.duration_ms = 12.5;
  r.detail = "max rel err 3.1e-3\nsecond line";
  r.data = {{"tflops", 612.0}, {"nested", {{"a", 1}}}};
  r.finding_ids = {"GS-PERF-001"};
  r.kernel_log = {"[ 1.0] amdgpu: GPU reset begin!"};
  std::string why;
  auto back = decode_probe_result(encode_probe_result(r), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->id, r.id);
  EXPECT_EQ(back->outcome, status::warn);
  EXPECT_EQ(back->phase, "verify");
  EXPECT_DOUBLE_EQ(back->duration_ms, 12.5);
  EXPECT_EQ(back->detail, r.detail);
  EXPECT_EQ(back->data, r.data);
  EXPECT_EQ(back->finding_ids, r.finding_ids);
  EXPECT_EQ(back->kernel_log, r.kernel_log);
}

TEST(ResultCodec, InvalidUtf8IsReplacedNotThrown) {
  probe_result r;
  r.outcome = status::fail;
  r.detail = std::string("vendor said \xff\xfe");
  std::string text = encode_probe_result(r);
  auto back = decode_probe_result(text, nullptr);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->outcome, status::fail);
}

TEST(ResultCodec, MalformedIsRejectedWithAReason) {
  const char* bad[] = {
      "", "nul", "[1,2]", "{\"status\": \"great\"}", "{\"status\": 3}", "{\"id\": 5}",
      "{\"status\": \"pass\", \"data\": []}", "{\"status\": \"pass\", \"duration_ms\": \"x\"}",
      "{\"status\": \"pass\", \"kernel_log\": [1]}", "{\"status\": \"pass\", \"finding_ids\": {}}",
      "{\"status\": \"pa",
  };
  for (const char* text : bad) {
    std::string why;
    EXPECT_FALSE(decode_probe_result(text, &why)) << text;
    EXPECT_FALSE(why.empty()) << text;
  }
}

TEST(ResultCodec, MissingFieldsTakeDefaults) {
  auto r = decode_probe_result("{\"status\": \"pass\"}", nullptr);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->outcome, status::pass);
  EXPECT_TRUE(r->data.is_object());
}

}  // namespace
}  // namespace gs
