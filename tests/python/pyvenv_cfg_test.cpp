// pyvenv.cfg as uv, the stdlib venv and virtualenv write it.
#include <gtest/gtest.h>

#include "python/pyvenv_cfg.h"

namespace gs {
namespace {

TEST(PyvenvCfg, UvVenv) {
  auto c = parse_pyvenv_cfg(
      "home = /home/u/.local/share/uv/python/cpython-3.12.12-linux-x86_64-gnu/bin\nimplementation = CPython\n"
      "uv = 0.9.7\nversion_info = 3.12.12\ninclude-system-site-packages = false\nprompt = qlora\n");
  EXPECT_EQ(c.uv_version(), "0.9.7");
  EXPECT_EQ(c.python_version(), "3.12.12");
  EXPECT_EQ(c.home(), "/home/u/.local/share/uv/python/cpython-3.12.12-linux-x86_64-gnu/bin");
  EXPECT_FALSE(c.include_system_site_packages());
}

TEST(PyvenvCfg, StdlibVenvWithSystemSitePackages) {
  auto c = parse_pyvenv_cfg(
      "home = /usr/bin\r\nInclude-System-Site-Packages = True\r\nversion = 3.11.2\r\n"
      "executable = /usr/bin/python3.11\r\ncommand = /usr/bin/python3 -m venv /opt/env\r\n");
  EXPECT_EQ(c.uv_version(), "");
  EXPECT_EQ(c.python_version(), "3.11.2");
  EXPECT_TRUE(c.include_system_site_packages());
  EXPECT_EQ(c.values.at("command"), "/usr/bin/python3 -m venv /opt/env");  // split at the first '='
}

TEST(PyvenvCfg, VersionInfoPreferredAndJunkIgnored) {
  auto c = parse_pyvenv_cfg("no equals here\n= value without key\nversion = 3.10\nversion_info = 3.10.14.final.0\n");
  EXPECT_EQ(c.python_version(), "3.10.14.final.0");
  EXPECT_EQ(c.values.size(), 2u);
  EXPECT_EQ(parse_pyvenv_cfg("").python_version(), "");
  std::string junk(300, '\0');
  EXPECT_TRUE(parse_pyvenv_cfg(junk).values.empty());
}

}  // namespace
}  // namespace gs
