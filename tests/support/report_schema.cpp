// matches_report_schema: writes the report to a temp file and runs /usr/bin/python3 (Debian's,
// where python3-jsonschema lives; a pyenv `python3` on PATH would not have it) with the
// Draft 2020-12 validator; every error is printed with its JSON path.
#include "support/report_schema.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

namespace gs::testing {

::testing::AssertionResult matches_report_schema(const nlohmann::json& report) {
  char path[] = "/tmp/gpustack-report-XXXXXX";
  int fd = ::mkstemp(path);
  if (fd < 0) return ::testing::AssertionFailure() << "mkstemp failed";
  ::close(fd);
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << report.dump(2, ' ', false, nlohmann::json::error_handler_t::strict);
  }
  static const char* kScript =
      "import json, sys\n"
      "try:\n"
      "    import jsonschema\n"
      "except ImportError:\n"
      "    print('python3-jsonschema is missing: apt-get install python3-jsonschema (scripts/install-deps.sh)')\n"
      "    sys.exit(3)\n"
      "schema = json.load(open(sys.argv[1]))\n"
      "doc = json.load(open(sys.argv[2]))\n"
      "v = jsonschema.Draft202012Validator(schema)\n"
      "errs = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))\n"
      "for e in errs:\n"
      "    print('/'.join(str(p) for p in e.absolute_path) or '<root>', ':', e.message)\n"
      "sys.exit(1 if errs else 0)\n";
  std::string script_path = std::string(path) + ".py";
  {
    std::ofstream s(script_path, std::ios::binary | std::ios::trunc);
    s << kScript;
  }
  std::string cmd = std::string("/usr/bin/python3 ") + script_path + " '" + GPUSTACK_SCHEMA + "' " + path + " 2>&1";
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return ::testing::AssertionFailure() << "cannot run /usr/bin/python3";
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int rc = ::pclose(p);
  std::remove(path);
  std::remove(script_path.c_str());
  if (rc == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "report does not match " << GPUSTACK_SCHEMA << ":\n" << out;
}

}  // namespace gs::testing
