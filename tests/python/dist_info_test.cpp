// METADATA / PKG-INFO header parsing, PEP 503 names, dist-info directory names, INSTALLER and
// direct_url.json: real shapes, malformed and binary input.
#include <gtest/gtest.h>

#include "python/dist_info.h"
#include "python/pep503.h"

namespace gs {
namespace {

TEST(Pep503, NormalisesRunsOfSeparatorsAndCase) {
  EXPECT_EQ(pep503_normalize("Flash_Linear.Attention"), "flash-linear-attention");
  EXPECT_EQ(pep503_normalize("PyYAML"), "pyyaml");
  EXPECT_EQ(pep503_normalize("pytorch_triton__rocm"), "pytorch-triton-rocm");
  EXPECT_EQ(pep503_normalize("a-_.-b"), "a-b");
  EXPECT_EQ(pep503_normalize("causal_conv1d"), "causal-conv1d");
  EXPECT_EQ(pep503_normalize(""), "");
}

TEST(Pep503, ValidProjectNames) {
  EXPECT_TRUE(is_valid_project_name("torch"));
  EXPECT_TRUE(is_valid_project_name("fla-core"));
  EXPECT_TRUE(is_valid_project_name("A.b_c-9"));
  EXPECT_FALSE(is_valid_project_name(""));
  EXPECT_FALSE(is_valid_project_name("-torch"));
  EXPECT_FALSE(is_valid_project_name("torch-"));
  EXPECT_FALSE(is_valid_project_name("to rch"));
  EXPECT_FALSE(is_valid_project_name("t\xc3\xb6rch"));
}

TEST(DistMetadata, ReadsNameAndVersionAndStopsAtBody) {
  dist_metadata md;
  std::string err;
  ASSERT_TRUE(parse_dist_metadata("Metadata-Version: 2.1\nName: torch\nVersion: 2.11.0+rocm7.2\n"
                                  "Summary: Tensors\nRequires-Dist: filelock\n\nName: not-this\nVersion: 0\n",
                                  md, err))
      << err;
  EXPECT_EQ(md.metadata_version, "2.1");
  EXPECT_EQ(md.name, "torch");
  EXPECT_EQ(md.version, "2.11.0+rocm7.2");
}

TEST(DistMetadata, CrlfBomContinuationAndCaseInsensitiveKeys) {
  dist_metadata md;
  std::string err;
  ASSERT_TRUE(parse_dist_metadata("\xEF\xBB\xBFmetadata-version: 2.4\r\nLicense: a\r\n  continued: Name: x\r\n"
                                  "NAME:  causal_conv1d \r\nversion: 1.6.2.post1\r\n\r\n",
                                  md, err))
      << err;
  EXPECT_EQ(md.name, "causal_conv1d");
  EXPECT_EQ(md.version, "1.6.2.post1");
}

TEST(DistMetadata, FirstHeaderWins) {
  dist_metadata md;
  std::string err;
  ASSERT_TRUE(parse_dist_metadata("Name: first\nVersion: 1\nName: second\nVersion: 2\n", md, err));
  EXPECT_EQ(md.name, "first");
  EXPECT_EQ(md.version, "1");
}

TEST(DistMetadata, NoTrailingNewlineStillParses) {
  dist_metadata md;
  std::string err;
  ASSERT_TRUE(parse_dist_metadata("Name: six\nVersion: 1.16.0", md, err));
  EXPECT_EQ(md.version, "1.16.0");
}

TEST(DistMetadata, RejectsMissingFieldsAndJunk) {
  dist_metadata md;
  std::string err;
  EXPECT_FALSE(parse_dist_metadata("", md, err));
  EXPECT_EQ(err, "no Name header");
  EXPECT_FALSE(parse_dist_metadata("Metadata-Version: 2.1\nName: x\n", md, err));
  EXPECT_EQ(err, "no Version header");
  EXPECT_FALSE(parse_dist_metadata("Version: 1\n", md, err));
  EXPECT_FALSE(parse_dist_metadata("Name: -bad name-\nVersion: 1.0\n", md, err));
  EXPECT_NE(err.find("valid project name"), std::string::npos);
  EXPECT_FALSE(parse_dist_metadata("Name: ok\nVersion: 1 .0\n", md, err));
  EXPECT_FALSE(parse_dist_metadata("Name: ok\nVersion:\n", md, err));
  // The body starts before any header: headers are over, nothing found.
  EXPECT_FALSE(parse_dist_metadata("\nName: x\nVersion: 1\n", md, err));
}

TEST(DistMetadata, BinaryJunkIsRejectedNotCrashed) {
  dist_metadata md;
  std::string err;
  std::string elf("\x7f" "ELF\x02\x01\x01\x00\x00\xff\xfe", 11);
  EXPECT_FALSE(parse_dist_metadata(elf, md, err));
  std::string nul_in_header("Name: torch\nVersion: 2\0\0\n", 24);
  EXPECT_FALSE(parse_dist_metadata(nul_in_header, md, err));
  EXPECT_EQ(err, "binary data in the metadata headers");
  // Every byte value, in a header-like line: no crash, a clean answer.
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  EXPECT_FALSE(parse_dist_metadata("Name: " + all + "\nVersion: 1\n", md, err));
  EXPECT_FALSE(parse_dist_metadata(all, md, err));
}

TEST(DistDirName, SplitsNameAndVersion) {
  auto d = split_dist_dir_name("flash_linear_attention-0.5.0.dist-info");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "flash_linear_attention");
  EXPECT_EQ(d->version, "0.5.0");
  EXPECT_FALSE(d->egg_info);
  auto e = split_dist_dir_name("numpy-1.24.2.egg-info");
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->egg_info);
  EXPECT_EQ(e->version, "1.24.2");
  auto py = split_dist_dir_name("foo-1.0-py3.12.egg-info");
  ASSERT_TRUE(py);
  EXPECT_EQ(py->version, "1.0");
  auto dev = split_dist_dir_name("mylib.egg-info");
  ASSERT_TRUE(dev);
  EXPECT_EQ(dev->name, "mylib");
  EXPECT_EQ(dev->version, "");
  EXPECT_FALSE(split_dist_dir_name("torch"));
  EXPECT_FALSE(split_dist_dir_name(".dist-info"));
  EXPECT_FALSE(split_dist_dir_name("-1.0.dist-info"));
}

TEST(Installer, FirstLineTrimmed) {
  EXPECT_EQ(parse_installer("uv\n"), "uv");
  EXPECT_EQ(parse_installer("pip\r\nextra\n"), "pip");
  EXPECT_EQ(parse_installer(""), "");
  EXPECT_EQ(parse_installer(std::string("p\0ip", 4)), "");
}

TEST(DirectUrl, EditableOnlyWhenSaidSo) {
  EXPECT_TRUE(direct_url_is_editable(R"({"url": "file:///src/x", "dir_info": {"editable": true}})"));
  EXPECT_FALSE(direct_url_is_editable(R"({"url": "file:///src/x", "dir_info": {}})"));
  EXPECT_FALSE(direct_url_is_editable(R"({"url": "https://x/y.whl", "archive_info": {}})"));
  EXPECT_FALSE(direct_url_is_editable(R"({"dir_info": {"editable": "yes"}})"));
  EXPECT_FALSE(direct_url_is_editable(R"({"dir_info": [true]})"));
  EXPECT_FALSE(direct_url_is_editable("[1,2"));
  EXPECT_FALSE(direct_url_is_editable(""));
  EXPECT_FALSE(direct_url_is_editable("true"));
}

}  // namespace
}  // namespace gs
