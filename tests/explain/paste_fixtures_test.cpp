// Extraction from real captured tool outputs (tests/fixtures/paste/*.txt, each citing the public
// thread or the gpustack hardware run it came from): tests/fixtures/paste/expected.toml says,
// per file, which input kinds must be recognised, which facts must be read and with what value,
// and which must not be read at all.
#include <gtest/gtest.h>
#include <toml++/toml.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "explain/paste.h"

#include "support/files.h"

namespace gs {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(GPUSTACK_TEST_FIXTURES) / "paste";


TEST(PasteFixtures, EveryCaptureReadsAsExpected) {
  toml::table expected;
  ASSERT_NO_THROW(expected = toml::parse_file((kDir / "expected.toml").string()));
  const toml::array* cases = expected["case"].as_array();
  ASSERT_TRUE(cases && !cases->empty());
  std::set<std::string> covered;
  for (const toml::node& n : *cases) {
    const toml::table& c = *n.as_table();
    std::string file = c["file"].value_or(std::string());
    SCOPED_TRACE(file);
    covered.insert(file);
    std::string text = gs::test::read_file(kDir / file);
    ASSERT_FALSE(text.empty());
    EXPECT_EQ(text.rfind("# source: ", 0), 0u) << "each capture names where it came from";
    paste_reading r = read_paste(text.substr(text.find('\n') + 1));  // the source line is not part of the paste
    std::multimap<std::string, std::string> got;
    for (const pasted_fact& f : r.facts_read) got.emplace(f.key, f.value);
    auto read = [&](const std::string& key, const std::string& want) {
      auto [b, e] = got.equal_range(key);
      std::string seen;
      for (auto it = b; it != e; ++it) {
        if (it->second == want) return;
        seen += (seen.empty() ? "" : ", ") + it->second;
      }
      ADD_FAILURE() << key << ": want " << want << ", read " << (seen.empty() ? "nothing" : seen);
    };
    if (const toml::array* kinds = c["kinds"].as_array()) {
      for (const toml::node& k : *kinds) {
        EXPECT_NE(std::find(r.kinds.begin(), r.kinds.end(), k.value_or(std::string())), r.kinds.end())
            << "input kind not recognised: " << k.value_or(std::string());
      }
    }
    if (const toml::table* facts = c["facts"].as_table()) {
      for (const auto& [key, v] : *facts) {
        if (const toml::array* several = v.as_array()) {
          for (const toml::node& one : *several) read(std::string(key.str()), one.value_or(std::string()));
        } else {
          read(std::string(key.str()), v.value_or(std::string()));
        }
      }
    }
    if (const toml::array* absent = c["absent"].as_array()) {
      for (const toml::node& k : *absent) {
        std::string key = k.value_or(std::string());
        auto it = got.find(key);
        EXPECT_TRUE(it == got.end()) << "read a fact the capture does not hold: " << key << " = " << it->second;
      }
    }
  }
  for (const auto& e : fs::directory_iterator(kDir))
    if (e.path().extension() == ".txt") {
      EXPECT_TRUE(covered.count(e.path().filename().string())) << e.path() << " has no case";
    }
}

}  // namespace
}  // namespace gs
