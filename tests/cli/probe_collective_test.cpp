// `gpustack probe collective` end to end on the CPU: torchrun from Debian's python3-torch (1.13,
// gloo), ranks as real processes, a rank that hangs and one that crashes, every rank reaped.
// Skipped only where that Python has no torch.distributed (CI installs it: scripts/install-deps.sh).
#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>

#include "support/run_binary.h"
#include "support/shell.h"

namespace gs {
namespace {

using gs::testing::run_gpustack;

const char* kPython = "/usr/bin/python3";

bool has_torch_distributed() {
  return gs::test::shell(std::string("'") + kPython + "' -c 'import torch.distributed as d; assert d.is_gloo_available()' "
                         ">/dev/null 2>&1") == 0;
}

#define NEED_TORCH_DISTRIBUTED()                                                                   \
  if (!has_torch_distributed())                                                                   \
  GTEST_SKIP() << kPython << " has no torch.distributed with gloo (apt-get install python3-torch)"

const nlohmann::json* probe(const nlohmann::json& report, const std::string& id) {
  for (const auto& p : report["probes"])
    if (p["id"] == id) return &p;
  return nullptr;
}

bool every_pid_gone(const nlohmann::json& pids) {
  for (const auto& p : pids)
    if (::kill(p.get<int>(), 0) == 0) return false;
  return true;
}

TEST(ProbeCollective, TwoGlooRanksEveryOperationExactWithBusBandwidth) {
  NEED_TORCH_DISTRIBUTED();
  auto r = run_gpustack(std::string("probe collective --backend gloo --nproc 2 --max-size 64K --no-matrix --json --python ") +
                        kPython);
  ASSERT_EQ(r.rc, 0) << r.err << r.out.substr(0, 2000);
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tool"]["command"], "probe collective");
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "broadcast"}) {
    const nlohmann::json* p = probe(j, std::string("collective.") + op);
    ASSERT_TRUE(p) << op;
    if (std::string(op) == "reduce_scatter" && (*p)["status"] == "skip") {
      // torch 1.13's gloo has no reduce_scatter (Debian 12's python3-torch): said as a skip that
      // names the backend and torch's own words, never a pass without figures.
      EXPECT_NE((*p)["detail"].get<std::string>().find("gloo backend"), std::string::npos) << p->dump();
      continue;
    }
    ASSERT_EQ((*p)["status"], "pass") << p->dump();
    const auto& sizes = (*p)["data"]["sizes"];
    ASSERT_EQ(sizes.size(), 3u) << p->dump();  // 4 KiB, 16 KiB, 64 KiB
    for (const auto& s : sizes) {
      EXPECT_TRUE(s["exact"].get<bool>());
      EXPECT_GT(s["busbw_gbps"].get<double>(), 0);
    }
    EXPECT_EQ((*p)["data"]["world_size"], 2);
  }
  const nlohmann::json* p2p = probe(j, "collective.p2p");
  ASSERT_TRUE(p2p);
  EXPECT_EQ((*p2p)["status"], "skip");  // no GPU here: said, never passed
  EXPECT_NE(r.err.find("[5/5] collective.p2p ... skip"), std::string::npos) << r.err;
}

TEST(ProbeCollective, AHangingRankIsNamedEveryRankReapedAndTheNextOperationRuns) {
  NEED_TORCH_DISTRIBUTED();
  auto r = run_gpustack(std::string("probe collective --backend gloo --nproc 4 --max-size 16K --ops all_reduce,broadcast "
                                    "--timeout 4 --selftest-fault hang:2:all_reduce --no-matrix --json --python ") +
                        kPython);
  EXPECT_EQ(r.rc, 3) << r.err;  // a hang exits 3
  nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json* hung = probe(j, "collective.all_reduce");
  ASSERT_TRUE(hung);
  EXPECT_EQ((*hung)["status"], "hang");
  EXPECT_EQ((*hung)["data"]["inside"], nlohmann::json({0, 1, 3}));
  EXPECT_EQ((*hung)["data"]["missing"], nlohmann::json({2}));
  EXPECT_NE((*hung)["detail"].get<std::string>().find("rank 2 never reached it"), std::string::npos) << hung->dump();
  EXPECT_TRUE((*hung)["data"]["reaped"].get<bool>());
  ASSERT_EQ((*hung)["data"]["pids"].size(), 4u);
  EXPECT_TRUE(every_pid_gone((*hung)["data"]["pids"]));
  const nlohmann::json* next = probe(j, "collective.broadcast");
  ASSERT_TRUE(next);
  EXPECT_EQ((*next)["status"], "pass") << next->dump();
  EXPECT_EQ((*next)["data"]["world_size"], 4);
}

TEST(ProbeCollective, ASlowTeardownAfterEveryRankFinishedIsNoHang) {
  // Rank 1 finishes, then takes 5 s to go; the operation's timeout is 2 s. Before the teardown had
  // its own allowance this was reported as a hang (seen in a full test run on a loaded machine).
  NEED_TORCH_DISTRIBUTED();
  auto r = run_gpustack(std::string("probe collective --backend gloo --nproc 2 --max-size 4K --ops all_reduce "
                                    "--timeout 2 --selftest-fault linger:1:all_reduce --no-matrix --json --python ") +
                        kPython);
  nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json* p = probe(j, "collective.all_reduce");
  ASSERT_TRUE(p);
  EXPECT_EQ((*p)["status"], "pass") << p->dump();
}

TEST(ProbeCollective, ACrashingRankIsNamedWithItsSignalNotThePeerThatLostIt) {
  NEED_TORCH_DISTRIBUTED();
  auto r = run_gpustack(std::string("probe collective --backend gloo --nproc 2 --max-size 4K --ops all_gather "
                                    "--selftest-fault crash:1:all_gather --no-matrix --json --python ") +
                        kPython);
  EXPECT_EQ(r.rc, 1) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json* p = probe(j, "collective.all_gather");
  ASSERT_TRUE(p);
  EXPECT_EQ((*p)["status"], "crash") << p->dump();
  EXPECT_EQ((*p)["data"]["rank"], 1);
  EXPECT_EQ((*p)["data"]["exit_code"], -11);
  EXPECT_NE((*p)["detail"].get<std::string>().find("SIGSEGV"), std::string::npos);
  EXPECT_TRUE(every_pid_gone((*p)["data"]["pids"]));
}

TEST(ProbeCollective, BadOptionsAreUsageErrorsBeforeAnythingRuns) {
  for (const char* args : {"--ops all_to_all", "--min-size 1G --max-size 4K", "--max-size 4T", "--nproc 0",
                           "--backend mpi", "--timeout 0", "--selftest-fault hang:x:all_reduce"}) {
    auto r = run_gpustack(std::string("probe collective --no-matrix ") + args);
    EXPECT_EQ(r.rc, 2) << args << ": " << r.err;
    EXPECT_FALSE(r.err.empty()) << args;
  }
}

}  // namespace
}  // namespace gs
