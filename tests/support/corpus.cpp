#include "support/corpus.h"

#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>

namespace gs::testing {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> strings(const toml::table& t, const char* key) {
  std::vector<std::string> out;
  if (const toml::array* a = t[key].as_array())
    for (const toml::node& n : *a)
      if (auto s = n.value<std::string>()) out.push_back(*s);
  return out;
}

}  // namespace

const std::vector<corpus_case>& corpus_cases() {
  static const std::vector<corpus_case> cases = [] {
    std::vector<corpus_case> out;
    fs::path root = fs::path(GPUSTACK_TEST_FIXTURES).parent_path() / "corpus" / "cases";
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(root, ec))
      if (e.path().extension() == ".toml") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& p : files) {
      corpus_case c;
      c.path = fs::relative(p, root).string();
      try {
        toml::table t = toml::parse_file(p.string());
        c.source = t["source"].value_or(std::string());
        c.title = t["title"].value_or(std::string());
        c.cause = t["cause"].value_or(std::string());
        c.text = t["text"].value_or(std::string());
        c.expect = strings(t, "expect");
        c.expect_not = strings(t, "expect_not");
        if (!t["expect"].as_array()) c.error = "no `expect` array ([] for a negative case)";
      } catch (const toml::parse_error& e) {
        c.error = "does not parse: " + std::string(e.description());
      }
      out.push_back(std::move(c));
    }
    return out;
  }();
  return cases;
}

}  // namespace gs::testing
