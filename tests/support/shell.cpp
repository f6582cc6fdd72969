#include "support/shell.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace gs::test {

int shell(const std::string& cmd, std::string* output) {
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  std::string out;
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = ::pclose(p);
  if (output) *output = out;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool python_has_torch(const std::string& python) { return shell("'" + python + "' -c 'import torch'") == 0; }

std::vector<int> processes_with_env(const std::string& entry) {
  std::vector<int> found;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos || std::stoi(name) == ::getpid()) continue;
    std::ifstream in(e.path() / "environ", std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string env = ss.str();
    std::replace(env.begin(), env.end(), '\0', '\n');
    if (("\n" + env).find("\n" + entry + "\n") != std::string::npos) found.push_back(std::stoi(name));
  }
  return found;
}

namespace {

/// The venvs torchless() made, removed when the test process exits.
struct torchless_venvs {
  std::string root;
  std::map<std::string, std::string> made;
  ~torchless_venvs() {
    if (!root.empty()) shell("rm -rf '" + root + "'");
  }
};

}  // namespace

std::string torchless(const std::string& python) {
  static torchless_venvs venvs;
  if (auto it = venvs.made.find(python); it != venvs.made.end()) return it->second;
  std::string result = python;
  if (python_has_torch(python)) {
    if (venvs.root.empty()) {
      const char* t = std::getenv("TMPDIR");
      venvs.root = std::string(t && *t ? t : "/tmp") + "/gpustack-torchless-" + std::to_string(::getpid());
    }
    std::string dir = venvs.root + "/venv" + std::to_string(venvs.made.size() + 1);
    if (shell("'" + python + "' -m venv --without-pip '" + dir + "'") == 0) result = dir + "/bin/python3";
  }
  venvs.made[python] = result;
  return result;
}

std::vector<std::string> real_pythons() {
  std::vector<std::string> out;
  std::stringstream ss(std::getenv("PATH") ? std::getenv("PATH") : "");
  std::string dir;
  while (std::getline(ss, dir, ':'))
    if (!dir.empty() && ::access((dir + "/python3").c_str(), X_OK) == 0) {
      out.push_back(dir + "/python3");
      break;
    }
  if (::access("/usr/bin/python3", X_OK) == 0 && std::find(out.begin(), out.end(), "/usr/bin/python3") == out.end())
    out.push_back("/usr/bin/python3");
  for (std::string& py : out) py = torchless(py);
  return out;
}

}  // namespace gs::test
