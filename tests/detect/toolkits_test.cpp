// ROCm installs, CUDA toolkit and the library inventory over the shared machine fixtures
// (tests/fixtures/machines), plus the version-file parsers on real and malformed text.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>

#include "detect/detect.h"
#include "detect/lib_inventory.h"
#include "detect/toolkits.h"
#include "detect/machine_fixtures.h"
#include "support/sample_facts.h"

namespace gs {
namespace {

namespace fs = std::filesystem;


machine_facts toolkits_and_python(const std::string& name) {
  sysroot sys = gs::testing::machine(name);
  machine_facts f;
  detect_toolkits(sys, f);
  detect_python(sys, {}, f);
  return f;
}

const library_info* find_lib(const machine_facts& f, const std::string& name, const std::string& origin = "") {
  for (const library_info& l : f.stack.libraries)
    if (l.name == name && (origin.empty() || l.origin == origin)) return &l;
  return nullptr;
}

using gs::test::issues_text;

TEST(ToolkitParsers, RocmVersionFile) {
  EXPECT_EQ(parse_rocm_version_text("7.2.0-43\n"), "7.2.0");
  EXPECT_EQ(parse_rocm_version_text("6.4.1.60401-83~24.04"), "6.4.1");
  EXPECT_EQ(parse_rocm_version_text("6.2.0\n"), "6.2.0");
  EXPECT_EQ(parse_rocm_version_text("6.2"), "");
  EXPECT_EQ(parse_rocm_version_text("v6.2.0"), "");
  EXPECT_EQ(parse_rocm_version_text(""), "");
  EXPECT_EQ(parse_rocm_version_text("1234567890123.1.1"), "");  // absurdly long parts are not a version
}

TEST(ToolkitParsers, CudaVersionJsonAndTxt) {
  EXPECT_EQ(parse_cuda_version_json(R"({"cuda": {"name": "CUDA SDK", "version": "12.4.1"},
                                        "cuda_nvcc": {"version": "12.4.131"}})"),
            "12.4.1");
  EXPECT_EQ(parse_cuda_version_json(R"({"cuda_nvcc": {"version": "13.0.88"}})"), "13.0.88");
  EXPECT_EQ(parse_cuda_version_json(R"({"cuda": {"version": 12}})"), "");
  EXPECT_EQ(parse_cuda_version_json(R"({"cuda": "12.4"})"), "");
  EXPECT_EQ(parse_cuda_version_json("{not json"), "");
  EXPECT_EQ(parse_cuda_version_json(""), "");
  EXPECT_EQ(parse_cuda_version_txt("CUDA Version 11.8.89\n"), "11.8.89");
  EXPECT_EQ(parse_cuda_version_txt("nothing"), "");
}

TEST(ToolkitParsers, LdSoConf) {
  auto dirs = parse_ld_so_conf("# rocm\n/opt/rocm/lib  # trailing\ninclude /etc/ld.so.conf.d/*.conf\n\n"
                               "  /opt/rocm/lib64\r\nrelative/dir\n");
  EXPECT_EQ(dirs, (std::vector<std::string>{"/opt/rocm/lib", "/opt/rocm/lib64"}));
}

TEST(LibraryNames, VersionFromTheRealFileName) {
  EXPECT_EQ(library_version_from_filename("libamdhip64", "libamdhip64.so.6.2.60200"), "6.2.60200");
  EXPECT_EQ(library_version_from_filename("libcuda", "libcuda.so.580.159.04"), "580.159.04");
  EXPECT_EQ(library_version_from_filename("libcuda", "libcuda.so.1"), "");  // an ABI number, not a version
  EXPECT_EQ(library_version_from_filename("libamdhip64", "libamdhip64.so"), "");
  EXPECT_EQ(library_version_from_filename("libamdhip64", "libamdhip64.so.7.bak"), "");
  EXPECT_TRUE(library_name_matches("libnvrtc", "libnvrtc.so.13"));
  EXPECT_FALSE(library_name_matches("libnvrtc", "libnvrtc-builtins.so.13.0"));
  EXPECT_FALSE(library_name_matches("libamd_smi", "libamd_smi64.so.1"));
  EXPECT_FALSE(library_name_matches("libcuda", "libcudart.so.13"));
  EXPECT_FALSE(library_name_matches("libcuda", "libcuda.so."));
}

TEST(Toolkits, R9700SideBySideRocmAndTorchBundledHip) {
  machine_facts f = toolkits_and_python("r9700-rocm72");
  ASSERT_EQ(f.stack.rocm_installs.size(), 2u) << issues_text(f);
  EXPECT_EQ(f.stack.rocm_installs[0].path, "/opt/rocm-6.4.1");
  EXPECT_EQ(f.stack.rocm_installs[0].version, "6.4.1");
  EXPECT_FALSE(f.stack.rocm_installs[0].active);
  EXPECT_EQ(f.stack.rocm_installs[1].path, "/opt/rocm-7.2.0");
  EXPECT_EQ(f.stack.rocm_installs[1].version, "7.2.0");
  EXPECT_TRUE(f.stack.rocm_installs[1].active);
  EXPECT_EQ(f.stack.rocm_version, "7.2.0");
  const library_info* hip = find_lib(f, "libamdhip64", "rocm");
  ASSERT_NE(hip, nullptr);
  EXPECT_EQ(hip->path, "/opt/rocm-7.2.0/lib/libamdhip64.so.7.2.26015");
  EXPECT_EQ(hip->version, "7.2.26015");
  EXPECT_EQ(hip->soname, "");  // fixture libraries are not ELF: SONAME unknown, no crash
  for (const char* stem : {"libhsa-runtime64", "libamd_comgr", "libhiprtc", "librocm_smi64", "libamd_smi", "librocm-core"})
    EXPECT_NE(find_lib(f, stem, "rocm"), nullptr) << stem;
  EXPECT_EQ(find_lib(f, "libamd_comgr")->version, "3.0.70200");
  // Only the active install's libraries are inventoried.
  for (const library_info& l : f.stack.libraries) EXPECT_EQ(l.path.find("/opt/rocm-6.4.1"), std::string::npos) << l.path;
  // The venv from VIRTUAL_ENV, with the packages the QLoRA stack needs.
  ASSERT_TRUE(f.python.found);
  EXPECT_EQ(f.python.env_kind, "uv");
  EXPECT_EQ(f.python.packages.at("torch").version, "2.11.0+rocm7.2");
  EXPECT_EQ(f.python.torch_hip, "7.2.26015-fc0010cf6a");
  EXPECT_EQ(f.python.packages.at("pytorch-triton-rocm").version, "3.6.0");
  EXPECT_EQ(f.python.packages.at("flash-linear-attention").version, "0.5.0");
  EXPECT_EQ(f.python.packages.at("causal-conv1d").version, "1.6.2.post1");
  // torch bundles libamdhip64, so that copy (not /opt/rocm's) is what runs.
  EXPECT_EQ(f.stack.hip_runtime_source,
            "/home/user/qlora/.venv/lib/python3.12/site-packages/torch/lib/libamdhip64.so");
  EXPECT_NE(find_lib(f, "libamdhip64", "torch"), nullptr);
  EXPECT_TRUE(f.issues.empty()) << issues_text(f);
}

TEST(Toolkits, Mi300xAlternativesLinksAndUnbundledTorch) {
  machine_facts f = toolkits_and_python("mi300x");
  ASSERT_EQ(f.stack.rocm_installs.size(), 1u) << issues_text(f);
  EXPECT_EQ(f.stack.rocm_installs[0].path, "/opt/rocm-6.4.1");  // through /etc/alternatives
  EXPECT_TRUE(f.stack.rocm_installs[0].active);
  EXPECT_EQ(f.stack.rocm_version, "6.4.1");
  EXPECT_EQ(f.python.torch_hip, "6.4.43484-123456789");
  EXPECT_EQ(f.stack.hip_runtime_source, "/opt/rocm-6.4.1/lib/libamdhip64.so.6.4.43484");
  EXPECT_EQ(find_lib(f, "libamdhip64")->origin, "rocm");
  EXPECT_EQ(f.stack.cuda_toolkit_path, "");
  EXPECT_TRUE(f.issues.empty()) << issues_text(f);
}

TEST(Toolkits, H200CudaToolkitDriverLibsAndVenvFromPath) {
  machine_facts f = toolkits_and_python("h200");
  EXPECT_TRUE(f.stack.rocm_installs.empty());
  EXPECT_EQ(f.stack.cuda_toolkit_path, "/usr/local/cuda-13.0");
  EXPECT_EQ(f.stack.cuda_toolkit_version, "13.0.88");
  const library_info* cuda = find_lib(f, "libcuda");
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->path, "/usr/local/nvidia/lib64/libcuda.so.580.159.04");  // LD_LIBRARY_PATH first
  EXPECT_EQ(cuda->version, "580.159.04");
  EXPECT_EQ(cuda->origin, "ld_library_path");
  EXPECT_NE(find_lib(f, "libnvidia-ml"), nullptr);
  int libcuda_copies = 0;
  for (const library_info& l : f.stack.libraries) libcuda_copies += l.name == "libcuda";
  EXPECT_EQ(libcuda_copies, 2);  // /usr/local/nvidia/lib64 and /lib, as ldconfig -p showed
  const library_info* nvrtc = find_lib(f, "libnvrtc", "cuda");
  ASSERT_NE(nvrtc, nullptr);
  EXPECT_EQ(nvrtc->version, "13.0.88");
  EXPECT_NE(find_lib(f, "libnvrtc", "pip-nvidia"), nullptr);
  EXPECT_EQ(f.stack.hip_runtime_source, "");
  ASSERT_TRUE(f.python.found);
  EXPECT_EQ(f.python.how_found, "PATH");
  EXPECT_EQ(f.python.prefix, "/opt/torch/.venv");
  EXPECT_EQ(f.python.version, "3.12.3");
  EXPECT_EQ(f.python.packages.at("torch").version, "2.11.0+cu130");
  EXPECT_EQ(f.python.torch_cuda, "13.0");
  EXPECT_EQ(f.python.packages.at("triton").version, "3.6.0");
  EXPECT_EQ(f.python.packages.at("peft").version, "0.21.0");
  EXPECT_TRUE(f.issues.empty()) << issues_text(f);
}

TEST(Toolkits, NoGpuMachineHasNoToolkits) {
  machine_facts f = toolkits_and_python("no-gpu");
  EXPECT_TRUE(f.stack.rocm_installs.empty());
  EXPECT_EQ(f.stack.cuda_toolkit_path, "");
  EXPECT_TRUE(f.stack.libraries.empty());
  ASSERT_TRUE(f.python.found);
  EXPECT_EQ(f.python.env_kind, "system");
  EXPECT_EQ(f.python.packages.size(), 1u);
  EXPECT_EQ(f.python.packages.at("numpy").version, "1.24.2");
}

TEST(Toolkits, RocmPathWinsAndBadOnesAreIssues) {
  sysroot sys = gs::testing::machine("r9700-rocm72");
  sys.set_environment({{"ROCM_PATH", "/opt/rocm-6.4.1"}});
  machine_facts f;
  detect_toolkits(sys, f);
  EXPECT_EQ(f.stack.rocm_version, "6.4.1");
  EXPECT_EQ(f.stack.hip_runtime_source, "/opt/rocm-7.2.0/lib/libamdhip64.so.7.2.26015");  // ld.so.conf wins for the loader
  sys.set_environment({{"ROCM_PATH", "/opt/rocm-9.9.9"}, {"CUDA_HOME", "/usr/local/cuda-99"}});
  machine_facts g;
  detect_toolkits(sys, g);
  EXPECT_EQ(g.stack.rocm_version, "7.2.0");  // falls back to /opt/rocm
  EXPECT_EQ(g.issues.size(), 2u) << issues_text(g);
}

TEST(Toolkits, UnreadableVersionFileIsAnIssue) {
  sysroot sys = gs::testing::machine("r9700-rocm72");
  sys.inject_error("/opt/rocm-7.2.0/.info/version", EACCES);
  sys.inject_error("/opt/rocm-7.2.0/lib", EACCES);
  machine_facts f;
  detect_toolkits(sys, f);
  EXPECT_EQ(f.stack.rocm_version, "7.2.0");  // from the directory name
  bool version_issue = false, dir_issue = false;
  for (auto& i : f.issues) {
    version_issue |= i.source == "/opt/rocm-7.2.0/.info/version" && i.message == "cannot read: EACCES";
    dir_issue |= i.source == "/opt/rocm-7.2.0/lib" && i.message == "cannot list library directory: EACCES";
  }
  EXPECT_TRUE(version_issue) << issues_text(f);
  EXPECT_TRUE(dir_issue) << issues_text(f);
}

class InventoryTempTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("gs_inventory_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "usr/lib/x86_64-linux-gnu");
    fs::create_symlink("libcuda.so.550.54.14", root_ / "usr/lib/x86_64-linux-gnu/libcuda.so.1");  // driver removed
    fs::create_directories(root_ / "usr/local/cuda-12.4/bin");
    std::ofstream(root_ / "usr/local/cuda-12.4/bin/nvcc") << "fake\n";
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(InventoryTempTree, DanglingDriverLinkAndToolkitWithoutVersionJson) {
  sysroot sys = sysroot::captured(root_.string());
  machine_facts f;
  detect_toolkits(sys, f);
  EXPECT_TRUE(f.stack.libraries.empty());
  EXPECT_EQ(f.stack.cuda_toolkit_path, "/usr/local/cuda-12.4");
  EXPECT_EQ(f.stack.cuda_toolkit_version, "12.4");
  bool dangling = false, no_json = false;
  for (auto& i : f.issues) {
    dangling |= i.message.find("dangling symlink") != std::string::npos;
    no_json |= i.message.find("no version.json") != std::string::npos;
  }
  EXPECT_TRUE(dangling) << issues_text(f);
  EXPECT_TRUE(no_json) << issues_text(f);
}

}  // namespace
}  // namespace gs
