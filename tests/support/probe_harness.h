// What the tests of probes share: an environment variable set for one scope (the Python
// scripts read stand-in packages and replay files from it), a progress sink that records the
// phases a probe reported; and (from sample_facts.h) facts_for(), a machine whose only part
// that matters is its Python.
#pragma once
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/probe.h"
#include "support/files.h"
#include "support/sample_facts.h"  // facts_for()

namespace gs::test {

/// Sets an environment variable for the scope of a test (children inherit it), then puts back
/// what was there before.
class scoped_env {
 public:
  scoped_env(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~scoped_env() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

/// A phase_sink that keeps what the probe said.
struct recording_sink : phase_sink {
  void phase(std::string_view p) override { phases.emplace_back(p); }
  void heartbeat() override { ++heartbeats; }
  std::vector<std::string> phases;
  int heartbeats = 0;
};

/// tests/fixtures/python_fakes/ (stand-in torch, bitsandbytes, triton packages), with its '/'.
inline std::string python_fakes_dir() { return fixture_dir("python_fakes"); }

}  // namespace gs::test
