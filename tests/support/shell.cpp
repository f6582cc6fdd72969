#include "support/shell.h"

#include <sys/wait.h>

#include <cstdio>

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

}  // namespace gs::test
