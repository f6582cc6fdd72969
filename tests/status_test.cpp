#include <gtest/gtest.h>

#include "core/status.h"

namespace gs {

TEST(Status, NamesRoundTrip) {
  for (status s : {status::pass, status::warn, status::fail, status::skip, status::hang, status::crash,
                   status::error})
    EXPECT_EQ(parse_status(to_string(s)), s);
  EXPECT_FALSE(parse_status("passed").has_value());
  for (severity s : {severity::info, severity::warn, severity::fail}) EXPECT_EQ(parse_severity(to_string(s)), s);
}

TEST(Status, OnlyFailCrashErrorAreFailures) {
  EXPECT_TRUE(is_failure(status::fail));
  EXPECT_TRUE(is_failure(status::crash));
  EXPECT_TRUE(is_failure(status::error));
  EXPECT_FALSE(is_failure(status::skip));
  EXPECT_FALSE(is_failure(status::warn));
  EXPECT_FALSE(is_failure(status::hang));  // hang has its own exit code, 3
}

}  // namespace gs
