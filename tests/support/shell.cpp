#include "support/shell.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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
  return out;
}

}  // namespace gs::test
