// torch/version.py as text: both generated forms, None, and files that are not version.py.
#include <gtest/gtest.h>

#include "python/torch_version.h"

namespace gs {
namespace {

TEST(TorchVersionPy, AnnotatedForm) {
  auto v = parse_torch_version_py(
      "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']\n"
      "__version__ = '2.11.0+rocm7.2'\ndebug = False\ncuda: Optional[str] = None\n"
      "git_version = '55e93013'\nhip: Optional[str] = '7.2.26015-fc0010cf6a'\nxpu: Optional[str] = None\n");
  EXPECT_TRUE(v.any);
  EXPECT_EQ(v.version, "2.11.0+rocm7.2");
  EXPECT_EQ(v.cuda, "");
  EXPECT_EQ(v.hip, "7.2.26015-fc0010cf6a");
  EXPECT_EQ(v.git_version, "55e93013");
}

TEST(TorchVersionPy, PlainFormAndDoubleQuotes) {
  auto v = parse_torch_version_py("__version__ = \"2.5.1+cu121\"\r\ncuda = '12.1'  # built with\r\nhip = None\r\n");
  EXPECT_EQ(v.version, "2.5.1+cu121");
  EXPECT_EQ(v.cuda, "12.1");
  EXPECT_EQ(v.hip, "");
}

TEST(TorchVersionPy, NoneAndExpressionsAreAbsent) {
  auto v = parse_torch_version_py("cuda = None\nhip = '6.0' + suffix\n    hip = '9.9'\nif x:\nhip == '1'\n");
  EXPECT_TRUE(v.any);
  EXPECT_EQ(v.cuda, "");
  EXPECT_EQ(v.hip, "");  // an expression is not evaluated; an indented line is not top level
}

TEST(TorchVersionPy, LastAssignmentWins) {
  auto v = parse_torch_version_py("hip = None\nhip = '6.4.43484-123'\n");
  EXPECT_EQ(v.hip, "6.4.43484-123");
}

TEST(TorchVersionPy, GarbageGivesNothing) {
  EXPECT_FALSE(parse_torch_version_py("").any);
  EXPECT_FALSE(parse_torch_version_py("# truncated\n").any);
  std::string junk;
  for (int i = 0; i < 512; ++i) junk.push_back(static_cast<char>((i * 37) & 0xff));
  auto v = parse_torch_version_py(junk);
  EXPECT_EQ(v.hip, "");
  auto unterminated = parse_torch_version_py("hip = '7.2");
  EXPECT_TRUE(unterminated.any);
  EXPECT_EQ(unterminated.hip, "");
}

}  // namespace
}  // namespace gs
