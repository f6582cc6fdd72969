// The fleet path of docs/fleet.md end to end on a real Slurm: a private single-node slurmctld and
// slurmd with munge (scripts/slurm-local.sh, Debian's slurm-wlm), `srun --ntasks=3` running
// `gpustack check` in three tasks that stand for three nodes (two on one captured machine, one on
// another), each writing its report, then `gpustack matrix fleet` over them. Skipped only where
// Slurm is not installed or the test is not root (slurmd must be); CI installs it and runs as root.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "support/files.h"
#include "support/run_binary.h"
#include "support/shell.h"

namespace gs {
namespace {

TEST(SlurmFleet, SrunTasksWriteReportsAndTheFleetViewNamesTheOddNode) {
  if (!std::filesystem::exists("/usr/sbin/slurmctld") || !std::filesystem::exists("/usr/sbin/munged"))
    GTEST_SKIP() << "no Slurm here (apt-get install slurm-wlm munge)";
  if (::geteuid() != 0) GTEST_SKIP() << "slurmd runs as root; this test is not root";
  gs::test::temp_dir dir;
  const std::string src = GPUSTACK_SOURCE_DIR, slurm = dir.path + "/slurm", fleet = dir.path + "/fleet";
  std::filesystem::create_directories(fleet);
  std::string out;
  ASSERT_EQ(gs::test::shell("bash '" + src + "/scripts/slurm-local.sh' start '" + slurm + "' 2>&1", &out), 0) << out;
  // Task 2 stands for the node that drifted: another machine's capture. The task is a script
  // file, so its $SLURM_PROCID is the task's, not this shell's.
  const std::string machines = src + "/tests/fixtures/machines/";
  gs::test::write_file(dir.path + "/task.sh",
                       "m=h200\n[ \"$SLURM_PROCID\" = 2 ] && m=r9700-rocm72\n"
                       "exec '" GPUSTACK_BINARY "' check --sysroot '" + machines + "'$m --json -o '" + fleet +
                           "'/node$SLURM_PROCID.json\n");
  std::string srun_out;
  // --overcommit: three tasks on a node that may have two CPUs (each task is a second of work).
  int srun_rc = gs::test::shell("SLURM_CONF='" + slurm + "/slurm.conf' timeout 120 srun --overcommit --ntasks=3 bash '" +
                                    dir.path + "/task.sh' 2>&1",
                                &srun_out);
  std::string stop_out;
  gs::test::shell("bash '" + src + "/scripts/slurm-local.sh' stop '" + slurm + "' 2>&1", &stop_out);
  // A task's exit code is its check's: the drifted node's capture has failing findings (1).
  ASSERT_TRUE(srun_rc == 0 || srun_rc == 1) << srun_out;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(std::filesystem::exists(fleet + "/node" + std::to_string(i) + ".json")) << srun_out;

  auto r = gs::testing::run_gpustack("matrix fleet --json '" + fleet + "'/node*.json");
  EXPECT_EQ(r.rc, 1) << r.err;  // one node differs
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["stacks"], 2);
  EXPECT_EQ(j["majority_nodes"], 2);
  ASSERT_EQ(j["nodes"].size(), 3u);
  EXPECT_EQ(j["nodes"][2]["label"], "node2");
  EXPECT_FALSE(j["nodes"][2]["on_majority"].get<bool>());
  EXPECT_TRUE(j["nodes"][0]["on_majority"].get<bool>());
}

}  // namespace
}  // namespace gs
