#include "support/container_cases.h"

#include <algorithm>
#include <filesystem>

#include <toml++/toml.h>

namespace gs::testing {

const std::vector<container_case>& container_cases() {
  static const std::vector<container_case> all = [] {
    std::vector<container_case> out;
    for (const auto& e : std::filesystem::directory_iterator(std::string(GPUSTACK_SOURCE_DIR) + "/tests/fixtures/container")) {
      if (e.path().extension() != ".toml") continue;
      toml::table t = toml::parse_file(e.path().string());
      container_case c;
      c.path = e.path().filename().string();
      c.kind = t["kind"].value_or("");
      c.text = t["text"].value_or("");
      c.gpu = t["gpu"].value_or("");
      c.driver = t["driver"].value_or("");
      c.miss = t["miss"].value_or("");
      c.negative = t["negative"].value_or(false);
      if (const toml::array* a = t["expect"].as_array())
        for (const auto& x : *a) c.expect.push_back(x.value_or(""));
      out.push_back(std::move(c));
    }
    std::sort(out.begin(), out.end(), [](const container_case& a, const container_case& b) { return a.path < b.path; });
    return out;
  }();
  return all;
}

std::vector<std::string> container_case_ids() {
  std::vector<std::string> ids;
  for (const container_case& c : container_cases()) ids.insert(ids.end(), c.expect.begin(), c.expect.end());
  return ids;
}

}  // namespace gs::testing
