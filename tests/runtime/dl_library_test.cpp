// dl_library: a missing library or symbol is a runtime_status, never a crash; optional symbols
// stay null; the check macro records the call, the code and the place.
#include "vendor/dl_library.h"

#include <gtest/gtest.h>
#include <stdlib.h>

namespace gs::vendor {
namespace {

TEST(DlLibrary, MissingLibraryIsAStatusNamingEveryCandidate) {
  dl_library lib;
  runtime_status st = lib.open({"libgpustack_no_such_library.so.9", "/nonexistent/libx.so"});
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.call, "dlopen");
  EXPECT_NE(st.message.find("libgpustack_no_such_library.so.9"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("/nonexistent/libx.so"), std::string::npos) << st.message;
  EXPECT_FALSE(lib.is_open());
  EXPECT_FALSE(lib.open({}).ok);
}

TEST(DlLibrary, FirstLoadableCandidateWinsAndOptionalSymbolsMayBeMissing) {
  dl_library lib;
  ASSERT_TRUE(lib.open({"libgpustack_no_such_library.so.9", "libz.so.1"}).ok);
  EXPECT_NE(lib.path().find("libz.so.1"), std::string::npos) << lib.path();
  const char* (*zlibVersion)() = nullptr;
  void (*absent)() = nullptr;
  runtime_status st = lib.resolve({dl_req("zlibVersion", zlibVersion), dl_opt("gs_absent_symbol", absent)});
  ASSERT_TRUE(st.ok) << st.message;
  ASSERT_NE(zlibVersion, nullptr);
  EXPECT_STREQ(zlibVersion(), zlibVersion());  // callable through the table
  EXPECT_EQ(absent, nullptr);
  ASSERT_EQ(lib.missing_optional().size(), 1u);
  EXPECT_EQ(lib.missing_optional()[0], "gs_absent_symbol");
}

TEST(DlLibrary, MissingRequiredSymbolsAreAllListed) {
  dl_library lib;
  ASSERT_TRUE(lib.open({"libz.so.1"}).ok);
  void (*a)() = nullptr;
  void (*b)() = nullptr;
  const char* (*v)() = nullptr;
  runtime_status st = lib.resolve({dl_req("gs_missing_one", a), dl_req("zlibVersion", v), dl_req("gs_missing_two", b)});
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.call, "dlsym");
  EXPECT_NE(st.message.find("gs_missing_one, gs_missing_two"), std::string::npos) << st.message;
}

TEST(DlLibrary, EnvironmentOverrideReplacesTheSearch) {
  setenv("GPUSTACK_TEST_LIB_OVERRIDE", "/opt/x/libfoo.so.1", 1);
  auto c = library_candidates("GPUSTACK_TEST_LIB_OVERRIDE", {"libfoo.so.2", "libfoo.so.1"}, {"/d"});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0], "/opt/x/libfoo.so.1");
  setenv("GPUSTACK_TEST_LIB_OVERRIDE", "", 1);
  c = library_candidates("GPUSTACK_TEST_LIB_OVERRIDE", {"libfoo.so.2", "libfoo.so.1"}, {"/d", "/e/"});
  std::vector<std::string> want = {"libfoo.so.2", "libfoo.so.1", "/d/libfoo.so.2", "/d/libfoo.so.1",
                                   "/e/libfoo.so.2", "/e/libfoo.so.1"};
  EXPECT_EQ(c, want);
  unsetenv("GPUSTACK_TEST_LIB_OVERRIDE");
  EXPECT_EQ(library_dir("/usr/lib/libz.so.1"), "/usr/lib");
  EXPECT_EQ(library_dir("libz.so.1"), "");
}

TEST(DlLibrary, CallNameIsTheFunctionOfTheStatement) {
  EXPECT_EQ(call_name("api_.cuMemAlloc_v2(&p, bytes)"), "cuMemAlloc_v2");
  EXPECT_EQ(call_name("cuInit(0)"), "cuInit");
  EXPECT_EQ(call_name("no_parens"), "no_parens");
  EXPECT_EQ(call_name(""), "");
  EXPECT_EQ(call_name(nullptr), "");
}

runtime_status to_status(int code, const char* statement, const std::string& where) {
  return runtime_status::failure(call_name(statement), code, where);
}
int fails_with(int v) { return v; }
runtime_status checked(int rc) {
  GS_VENDOR_CHECK(fails_with(rc), 0, to_status);
  return runtime_status::success();
}

TEST(DlLibrary, CheckMacroReturnsTheCallCodeAndPlace) {
  EXPECT_TRUE(checked(0).ok);
  runtime_status st = checked(700);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.call, "fails_with");
  EXPECT_EQ(st.code, 700);
  EXPECT_NE(st.message.find("checked"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("dl_library_test.cpp:"), std::string::npos) << st.message;
}

}  // namespace
}  // namespace gs::vendor
