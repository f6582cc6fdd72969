// Logical package names and aliases over facts.python.packages.
#include <gtest/gtest.h>

#include "python/packages.h"
#include "python/pep503.h"

namespace gs {
namespace {

python_info with(std::initializer_list<std::pair<const char*, const char*>> pkgs) {
  python_info py;
  for (auto& [name, version] : pkgs) {
    python_package p;
    p.name = name;
    p.version = version;
    py.packages[pep503_normalize(name)] = p;
  }
  return py;
}

TEST(Packages, TritonAliases) {
  auto rocm = with({{"pytorch-triton-rocm", "3.6.0"}});
  const python_package* t = find_package(rocm, "triton");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->name, "pytorch-triton-rocm");
  auto cuda = with({{"triton", "3.6.0"}});
  ASSERT_NE(find_package(cuda, "triton"), nullptr);
  EXPECT_EQ(find_package(cuda, "triton")->version, "3.6.0");
  EXPECT_EQ(find_package(with({{"torch", "2"}}), "triton"), nullptr);
}

TEST(Packages, ConflictListsEveryProvider) {
  auto both = with({{"triton", "3.5.0"}, {"pytorch-triton-rocm", "3.5.1"}});
  auto all = find_all_packages(both, "triton");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0]->name, "pytorch-triton-rocm");  // the vendor build is preferred
  EXPECT_EQ(all[1]->name, "triton");
}

TEST(Packages, FlaAliasAndPlainNames) {
  auto py = with({{"fla-core", "0.5.0"}, {"Flash_Attn", "2.8.3"}, {"causal_conv1d", "1.6.2.post1"}});
  ASSERT_NE(find_package(py, "fla"), nullptr);
  EXPECT_EQ(find_package(py, "fla")->name, "fla-core");
  ASSERT_NE(find_package(py, "flash_attn"), nullptr);
  ASSERT_NE(find_package(py, "Causal-Conv1d"), nullptr);
  ASSERT_EQ(find_package(py, "not-there"), nullptr);
  // Names outside the table are looked up as themselves.
  auto other = with({{"PyYAML", "6.0"}});
  ASSERT_NE(find_package(other, "pyyaml"), nullptr);
}

TEST(Packages, NvidiaPrefix) {
  auto py = with({{"nvidia-cublas", "13.1.0.3"}, {"nvidia-cuda-nvrtc", "13.0.88"}, {"numpy", "2"}, {"nvidiax", "1"}});
  auto nv = find_packages_with_prefix(py, "nvidia-");
  ASSERT_EQ(nv.size(), 2u);
  EXPECT_EQ(nv[0]->name, "nvidia-cublas");
}

TEST(Packages, TableIsDocumented) {
  for (const package_interest& p : packages_of_interest()) {
    EXPECT_FALSE(p.names.empty()) << p.logical;
    EXPECT_FALSE(p.why.empty()) << p.logical;
  }
}

}  // namespace
}  // namespace gs
