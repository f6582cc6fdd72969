// docs/architecture.md's "Layers" order held against every #include of src/ and probes/: a
// module includes only modules before it, or one of the upward arrows the doc explains. The
// order is read from the doc itself, so the doc and the tree cannot drift apart silently.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "support/files.h"

namespace gs {
namespace {

namespace fs = std::filesystem;

/// The module of a path under the source root: "src/rules/x.cpp" -> "rules", "probes/x.h" ->
/// "probes", "src/main.cpp" -> "main".
std::string module_of(const std::string& rel) {
  if (rel.starts_with("probes/")) return "probes";
  std::string rest = rel.substr(4);  // after "src/"
  size_t slash = rest.find('/');
  return slash == std::string::npos ? "main" : rest.substr(0, slash);
}

/// Rank of each module in the doc's fenced order: "a -> b, c -> d <-> e" ranks b and c equal,
/// and d and e equal.
std::map<std::string, int> doc_ranks() {
  std::string doc = gs::test::read_file(std::string(GPUSTACK_SOURCE_DIR) + "/docs/architecture.md");
  size_t at = doc.find("## Layers");
  size_t open = doc.find("```\n", at), close = doc.find("```", open + 4);
  if (at == std::string::npos || open == std::string::npos || close == std::string::npos) return {};
  std::string order = doc.substr(open + 4, close - open - 4);
  std::map<std::string, int> rank;
  int r = 0;
  std::regex token(R"(<->|->|,|[a-z_]+)");
  for (auto it = std::sregex_iterator(order.begin(), order.end(), token); it != std::sregex_iterator(); ++it) {
    std::string t = it->str();
    if (t == "->") ++r;
    else if (t != "<->" && t != ",") rank[t] = r;
  }
  return rank;
}

TEST(Layers, EveryIncludeGoesDownTheDocumentedOrder) {
  std::map<std::string, int> rank = doc_ranks();
  ASSERT_GE(rank.size(), 15u) << "docs/architecture.md has no readable Layers order";
  // The arrows that go up, each explained in the Layers section: file -> included header.
  const std::set<std::pair<std::string, std::string>> explained = {
      {"src/runtime/runtime_cpu_kernels.cpp", "fla/gdn_cpu_kernel.h"},
      {"src/runtime/runtime_cpu_kernels.cpp", "quant/cpu_kernels.h"},
      {"src/python/script_runner.h", "probes/probe.h"},
      {"src/python/script_runner.cpp", "watch/watch.h"},
      {"src/python/script_io.cpp", "watch/watch.h"},
      {"src/python/python_worker.h", "probes/probe.h"},
      {"src/python/python_worker.cpp", "watch/watch.h"},
      {"src/watch/probe_child.h", "probes/probe.h"},
      {"src/watch/probe_runner.h", "probes/probe.h"},
      {"src/watch/probe_display.h", "probes/probe.h"},
      {"src/watch/probe_display.cpp", "probes/probe_options.h"},
  };
  const fs::path root = GPUSTACK_SOURCE_DIR;
  const std::regex include(R"re(#include "([a-z_]+)/[^"]+")re");
  int files = 0;
  for (const char* top : {"src", "probes"}) {
    for (const auto& e : fs::recursive_directory_iterator(root / top)) {
      std::string ext = e.path().extension();
      if (ext != ".h" && ext != ".cpp") continue;
      std::string rel = fs::relative(e.path(), root).string();
      std::string from = module_of(rel);
      ASSERT_TRUE(rank.count(from)) << rel << ": module '" << from << "' is not in the Layers order";
      ++files;
      std::string text = gs::test::read_file(e.path());
      for (auto it = std::sregex_iterator(text.begin(), text.end(), include); it != std::sregex_iterator(); ++it) {
        std::string to = (*it)[1];
        if (to == "kernels" || to == from || !rank.count(to)) continue;  // kernels/ref: anyone
        std::string header = it->str().substr(10, it->str().size() - 11);
        if (rank[to] > rank[from] && !explained.count({rel, header}))
          ADD_FAILURE() << rel << " includes " << header << ": " << to << " is above " << from
                        << " in docs/architecture.md's Layers (move the shared part down, or say there why it goes up)";
      }
    }
  }
  EXPECT_GT(files, 300);
}

}  // namespace
}  // namespace gs
