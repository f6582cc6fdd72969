// detect_access on the fixtures: which device nodes are checked, their open result, owning
// group (from the manifest's [owners], since device nodes are plain files in a fixture) and
// whether the process is in it.
#include <gtest/gtest.h>

#include "detect/detect.h"
#include "detect/machine_fixtures.h"

namespace gs {
namespace {

using testing::find_access;
using testing::machine;

machine_facts gpu_and_access(const sysroot& sys) {
  machine_facts f;
  detect_amd(sys, f);
  detect_nvidia(sys, f);
  detect_access(sys, f);
  return f;
}

TEST(DetectAccess, R9700UserInRender) {
  machine_facts f = gpu_and_access(machine("r9700-rocm72"));
  ASSERT_EQ(f.access.size(), 2u);
  for (const char* p : {"/dev/kfd", "/dev/dri/renderD128"}) {
    const device_access* a = find_access(f, p);
    ASSERT_NE(a, nullptr) << p;
    EXPECT_TRUE(a->exists);
    EXPECT_TRUE(a->ok);
    EXPECT_EQ(a->error, "");
    EXPECT_EQ(a->group, "render");
    EXPECT_TRUE(a->user_in_group);
  }
}

TEST(DetectAccess, Mi300xEveryRenderNode) {
  machine_facts f = gpu_and_access(machine("mi300x"));
  ASSERT_EQ(f.access.size(), 3u);
  EXPECT_NE(find_access(f, "/dev/dri/renderD128"), nullptr);
  EXPECT_NE(find_access(f, "/dev/dri/renderD129"), nullptr);
  for (const device_access& a : f.access) {
    EXPECT_TRUE(a.ok) << a.path;
    EXPECT_EQ(a.group, "render") << a.path;
  }
}

TEST(DetectAccess, ContainerKfdEaccesUnnamedGid) {
  machine_facts f = gpu_and_access(machine("container-eperm"));
  ASSERT_EQ(f.access.size(), 1u);  // the hidden GPU has no render minor to check
  const device_access* a = find_access(f, "/dev/kfd");
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(a->exists);
  EXPECT_FALSE(a->ok);
  EXPECT_EQ(a->error, "EACCES");
  EXPECT_EQ(a->group, "992");  // the host's render gid has no name in the container
  EXPECT_FALSE(a->user_in_group);
}

TEST(DetectAccess, H200NvidiaNodes) {
  machine_facts f = gpu_and_access(machine("h200"));
  std::vector<std::string> paths;
  for (const device_access& a : f.access) paths.push_back(a.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia-uvm"}));
  for (const device_access& a : f.access) {
    EXPECT_TRUE(a.ok) << a.path;
    EXPECT_EQ(a.group, "root") << a.path;
    EXPECT_TRUE(a.user_in_group) << a.path;
  }
}

TEST(DetectAccess, NoGpuChecksNothing) {
  machine_facts f = gpu_and_access(machine("no-gpu"));
  EXPECT_TRUE(f.access.empty());
}

TEST(DetectAccess, BrokenMissingNodesAreEnoent) {
  machine_facts f = gpu_and_access(machine("broken"));
  // The AMD GPU lost its render minor with the truncation; /dev/kfd is absent although a KFD
  // GPU exists; the NVIDIA GPU's minor is "banana", so only the control and UVM nodes.
  const device_access* kfd = find_access(f, "/dev/kfd");
  ASSERT_NE(kfd, nullptr);
  EXPECT_FALSE(kfd->exists);
  EXPECT_FALSE(kfd->ok);
  EXPECT_EQ(kfd->error, "ENOENT");
  EXPECT_EQ(kfd->group, "");
  const device_access* ctl = find_access(f, "/dev/nvidiactl");
  ASSERT_NE(ctl, nullptr);
  EXPECT_TRUE(ctl->exists);
  EXPECT_TRUE(ctl->ok);  // no [devices] entry: a present node opens
  const device_access* uvm = find_access(f, "/dev/nvidia-uvm");
  ASSERT_NE(uvm, nullptr);
  EXPECT_FALSE(uvm->exists);
  EXPECT_EQ(uvm->error, "ENOENT");
  EXPECT_EQ(f.access.size(), 3u);
}

TEST(DetectAccess, InjectedErrorsOnTheLiveShape) {
  testing::scratch_tree t;
  t.write("/dev/kfd", "");
  t.write("/dev/dri/renderD130", "");
  sysroot sys = t.sys();
  sys.inject_device("/dev/kfd", EPERM);
  sys.inject_owner("/dev/kfd", 0, 44, 0660);
  sys.inject_owner("/dev/dri/renderD130", 0, 45, 0660);
  sys.set_groups({{44, "video"}, {1000, "me"}});
  machine_facts f;
  gpu_info g;
  g.vendor = "amd";
  g.source = "kfd";
  g.render_minor = 130;
  f.gpus.push_back(g);
  detect_access(sys, f);
  ASSERT_EQ(f.access.size(), 2u);
  EXPECT_EQ(f.access[0].error, "EPERM");
  EXPECT_EQ(f.access[0].group, "video");
  EXPECT_TRUE(f.access[0].user_in_group);
  EXPECT_TRUE(f.access[1].ok);
  EXPECT_EQ(f.access[1].group, "45");
  EXPECT_FALSE(f.access[1].user_in_group);
}

TEST(DetectAccess, AManifestNumberThatIsNotAnIntegerIsIgnored) {
  // snapshot_manifest_fuzz: "gid = 9e92" made toml++ convert an out-of-range float to an integer,
  // undefined behaviour; only integers are read, anything else counts as absent (0).
  testing::scratch_tree t;
  t.write("/dev/kfd", "");
  t.write(std::string("/") + std::string(sysroot::kManifest),
          "[owners]\n\"/dev/kfd\" = { uid = 0, gid = 9e92, mode = 0o660 }\n"
          "[process]\ngroups = [{ gid = 1.5e300, name = \"huge\" }, { gid = 44, name = \"video\" }]\n");
  sysroot sys = t.sys();
  EXPECT_EQ(sys.stat("/dev/kfd").gid, 0u);
  EXPECT_EQ(sys.stat("/dev/kfd").mode & 07777, 0660u);
  EXPECT_EQ(sys.group_name(44), "video");
}

}  // namespace
}  // namespace gs
