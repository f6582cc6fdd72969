// `gpustack matrix fleet`: reports of a captured machine as four nodes, one with a setting that
// changes its stack (HSA_OVERRIDE_GFX_VERSION), folded through the command: the majority, the node
// that differs and how, the three renderings, the exit codes, an unreadable report; and the
// Kubernetes Job of docs/fleet.md through gpustack's own container lint.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "matrix/fleet.h"
#include "support/files.h"
#include "support/run_binary.h"

namespace gs {
namespace {

using gs::testing::run_gpustack;
namespace fs = std::filesystem;

nlohmann::json captured_report() {
  auto r = run_gpustack("check --json --sysroot '" + std::string(GPUSTACK_SOURCE_DIR) + "/tests/fixtures/machines/r9700-rocm72'");
  return nlohmann::json::parse(r.out);
}

TEST(Fleet, TheNodeOffTheMajorityStackIsNamedWithItsDifference) {
  gs::test::temp_dir dir;
  nlohmann::json base = captured_report();
  base["findings"] = nlohmann::json::array();  // the captured machine's own findings are not this test's subject
  for (const char* node : {"gpu01", "gpu02", "gpu04"}) gs::test::write_file(dir.path + "/" + node + ".json", base.dump());
  nlohmann::json odd = base;
  odd["env"]["HSA_OVERRIDE_GFX_VERSION"] = "12.0.1";  // the capture has 11.0.0
  gs::test::write_file(dir.path + "/gpu03.json", odd.dump());

  auto human = run_gpustack("matrix fleet --no-color '" + dir.path + "'/gpu0*.json");
  EXPECT_EQ(human.rc, 1) << human.err;  // a node differs
  EXPECT_NE(human.out.find("fleet: 4 nodes, 2 stacks"), std::string::npos) << human.out;
  EXPECT_NE(human.out.find("on 3 of 4"), std::string::npos) << human.out;
  EXPECT_TRUE(std::regex_search(human.out, std::regex("gpu03 +DIFFERS"))) << human.out;
  EXPECT_NE(human.out.find("env:HSA_OVERRIDE_GFX_VERSION 11.0.0 -> 12.0.1"), std::string::npos) << human.out;

  auto json = run_gpustack("matrix fleet --json '" + dir.path + "'/gpu0*.json");
  nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["stacks"], 2);
  EXPECT_EQ(j["majority_nodes"], 3);
  EXPECT_EQ(j["majority_reference"], "gpu01");
  ASSERT_EQ(j["nodes"].size(), 4u);
  EXPECT_FALSE(j["nodes"][2]["on_majority"].get<bool>());
  EXPECT_TRUE(j["nodes"][2].contains("against_majority"));
  EXPECT_FALSE(j["nodes"][0].contains("against_majority"));

  auto md = run_gpustack("matrix fleet --markdown '" + dir.path + "'/gpu0*.json");
  EXPECT_NE(md.out.find("| `gpu03` |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("**differs**"), std::string::npos) << md.out;

  // Alike: exit 0. One unreadable report: named, the rest still folded, exit 2.
  auto alike = run_gpustack("matrix fleet '" + dir.path + "/gpu01.json' '" + dir.path + "/gpu02.json'");
  EXPECT_EQ(alike.rc, 0) << alike.out << alike.err;
  EXPECT_NE(alike.out.find("1 stack"), std::string::npos) << alike.out;
  gs::test::write_file(dir.path + "/broken.json", "{\"not\": \"a report\"}");
  auto broken = run_gpustack("matrix fleet '" + dir.path + "/gpu01.json' '" + dir.path + "/broken.json'");
  EXPECT_EQ(broken.rc, 2);
  EXPECT_NE(broken.err.find("broken.json"), std::string::npos) << broken.err;
  EXPECT_NE(broken.out.find("gpu01"), std::string::npos);
}

TEST(Fleet, LabelsAreFileNamesAndATieSaysSo) {
  EXPECT_EQ(fleet_label("fleet/node03.json"), "node03");
  EXPECT_EQ(fleet_label("node03.md"), "node03");
  EXPECT_EQ(fleet_label("/a/b/c"), "c");
  nlohmann::json a = {{"schema_version", 1}, {"env", {{"HSA_OVERRIDE_GFX_VERSION", "11.0.0"}}}};
  nlohmann::json b = {{"schema_version", 1}, {"env", nlohmann::json::object()}};
  fleet_view v = fold_fleet({{"n2", a}, {"n1", b}});
  EXPECT_TRUE(v.tie);
  EXPECT_EQ(v.stacks, 2u);
  ASSERT_EQ(v.nodes.size(), 2u);
  EXPECT_EQ(v.nodes[0].label, "n1");  // label order
  EXPECT_FALSE(v.all_alike());
}

TEST(Fleet, TheDocsKubernetesJobPassesTheContainerLint) {
  std::string doc = gs::test::read_file(std::string(GPUSTACK_SOURCE_DIR) + "/docs/fleet.md");
  size_t start = doc.find("```yaml\n");
  ASSERT_NE(start, std::string::npos);
  start += 8;
  std::string yaml = doc.substr(start, doc.find("```", start) - start);
  gs::test::temp_dir dir;
  gs::test::write_file(dir.path + "/gpustack-fleet.yaml", yaml);
  auto r = run_gpustack("check --container '" + dir.path + "/gpustack-fleet.yaml' --gpu 'NVIDIA H100' --json");
  ASSERT_NE(r.out.find("\"schema_version\""), std::string::npos) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["container"]["kind"], "kubernetes");
  for (const auto& f : j["findings"]) EXPECT_NE(f["severity"], "fail") << f.dump();
}

}  // namespace
}  // namespace gs
