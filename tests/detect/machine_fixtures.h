// Test helpers for the detector suites: the captured machine trees under
// tests/fixtures/machines/ and a scratch tree for cases no fixture carries.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/facts.h"
#include "sys/sysroot.h"

namespace gs::testing {

inline std::string machine_dir(const std::string& name) {
  return std::string(GPUSTACK_TEST_FIXTURES) + "/machines/" + name;
}

inline sysroot machine(const std::string& name) { return sysroot::captured(machine_dir(name)); }

/// Issues whose source is `source` and whose message contains `needle`.
inline int count_issues(const machine_facts& f, const std::string& source, const std::string& needle) {
  int n = 0;
  for (const detection_issue& i : f.issues)
    if ((source.empty() || i.source == source) && i.message.find(needle) != std::string::npos) ++n;
  return n;
}

inline const device_access* find_access(const machine_facts& f, const std::string& path) {
  for (const device_access& a : f.access)
    if (a.path == path) return &a;
  return nullptr;
}

/// A throwaway directory tree; removed on destruction.
class scratch_tree {
 public:
  scratch_tree() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "gs-detect-XXXXXX").string();
    root_ = ::mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~scratch_tree() {
    std::error_code ec;
    if (!root_.empty()) std::filesystem::remove_all(root_, ec);
  }
  scratch_tree(const scratch_tree&) = delete;
  scratch_tree& operator=(const scratch_tree&) = delete;

  const std::string& root() const { return root_; }
  void write(const std::string& path, const std::string& text) const {
    std::filesystem::path p = root_ + path;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
  }
  sysroot sys() const { return sysroot::captured(root_); }

 private:
  std::string root_;
};

}  // namespace gs::testing
