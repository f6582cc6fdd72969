// detect_python over the fixture layouts in tests/fixtures/python (written by make_fixtures.py):
// uv venv, stdlib venv with system site-packages, conda env, Debian system Python, a messy venv
// and an unreadable one; plus --python, --venv, ./.venv and PATH discovery.
#include <gtest/gtest.h>

#include <algorithm>

#include "detect/detect.h"
#include "python/packages.h"
#include "support/sample_facts.h"

namespace gs {
namespace {

std::string fixture(const std::string& name) { return std::string(GPUSTACK_TEST_FIXTURES) + "/python/" + name; }

machine_facts run(const std::string& tree, detect_options opts = {}) {
  sysroot sys = sysroot::captured(fixture(tree));
  machine_facts f;
  detect_python(sys, opts, f);
  return f;
}

bool has_issue(const machine_facts& f, const std::string& needle) {
  return std::any_of(f.issues.begin(), f.issues.end(), [&](const detection_issue& i) {
    return i.message.find(needle) != std::string::npos || i.source.find(needle) != std::string::npos;
  });
}

using gs::test::issues_text;

TEST(PythonEnv, UvVenvFromVirtualEnv) {
  machine_facts f = run("uv-venv");
  const python_info& py = f.python;
  ASSERT_TRUE(py.found);
  EXPECT_EQ(py.how_found, "VIRTUAL_ENV");
  EXPECT_EQ(py.env_kind, "uv");
  EXPECT_EQ(py.version, "3.12.12");
  EXPECT_EQ(py.prefix, "/home/user/proj/.venv");
  EXPECT_EQ(py.interpreter, "/home/user/proj/.venv/bin/python3");
  // lib64 -> lib is one directory, listed once.
  ASSERT_EQ(py.site_packages.size(), 1u);
  EXPECT_EQ(py.site_packages[0], "/home/user/proj/.venv/lib/python3.12/site-packages");
  ASSERT_TRUE(py.packages.count("torch"));
  EXPECT_EQ(py.packages.at("torch").version, "2.9.1+rocm6.4");
  EXPECT_EQ(py.packages.at("torch").installer, "uv");
  EXPECT_EQ(py.torch_hip, "6.4.43484-123456789");
  EXPECT_EQ(py.torch_cuda, "");
  ASSERT_TRUE(py.packages.count("pyyaml"));
  EXPECT_EQ(py.packages.at("pyyaml").name, "PyYAML");
  EXPECT_EQ(py.packages.at("pyyaml").installer, "pip");
  ASSERT_NE(find_package(py, "flash-attn"), nullptr);
  EXPECT_EQ(py.packages.at("numpy").version, "2.3.5");  // METADATA, not the dir name's 9.9.9
  EXPECT_TRUE(py.packages.at("mylib").editable);
  EXPECT_FALSE(py.packages.at("torch").editable);
  // torch bundles its HIP runtime: that copy is the one torch loads.
  EXPECT_EQ(f.stack.hip_runtime_source, "/home/user/proj/.venv/lib/python3.12/site-packages/torch/lib/libamdhip64.so");
  EXPECT_TRUE(f.issues.empty()) << issues_text(f);
}

TEST(PythonEnv, StdlibVenvWithSystemSitePackagesShadowing) {
  machine_facts f = run("stdlib-venv");
  const python_info& py = f.python;
  ASSERT_TRUE(py.found);
  EXPECT_EQ(py.env_kind, "venv");
  EXPECT_EQ(py.version, "3.11.2");
  ASSERT_GE(py.site_packages.size(), 2u);
  EXPECT_EQ(py.site_packages[0], "/opt/env/lib/python3.11/site-packages");
  EXPECT_NE(std::find(py.site_packages.begin(), py.site_packages.end(), "/usr/lib/python3/dist-packages"),
            py.site_packages.end());
  EXPECT_EQ(py.packages.at("numpy").version, "2.1.0");   // the venv's copy is found first
  EXPECT_EQ(py.packages.at("six").version, "1.16.0");    // egg-info from the system dir
  EXPECT_TRUE(has_issue(f, "shadowed")) << issues_text(f);
  EXPECT_EQ(py.torch_cuda, "12.1");
  EXPECT_EQ(py.torch_hip, "");
  // The nvidia-cuda-nvrtc wheel's library is inventoried.
  auto it = std::find_if(f.stack.libraries.begin(), f.stack.libraries.end(),
                         [](const library_info& l) { return l.name == "libnvrtc"; });
  ASSERT_NE(it, f.stack.libraries.end());
  EXPECT_EQ(it->origin, "pip-nvidia");
  EXPECT_EQ(it->version, "12.1.105");
}

TEST(PythonEnv, CondaEnv) {
  machine_facts f = run("conda-env");
  const python_info& py = f.python;
  ASSERT_TRUE(py.found);
  EXPECT_EQ(py.how_found, "CONDA_PREFIX");
  EXPECT_EQ(py.env_kind, "conda");
  EXPECT_EQ(py.version, "3.11.9");  // from conda-meta/python-3.11.9-*.json, not python-dateutil
  EXPECT_EQ(py.interpreter, "/opt/conda/envs/ml/bin/python");
  EXPECT_EQ(py.packages.at("torch").installer, "conda");
  EXPECT_EQ(py.torch_cuda, "12.4");
  EXPECT_TRUE(f.issues.empty()) << issues_text(f);
}

TEST(PythonEnv, DebianSystemPythonFromPath) {
  machine_facts f = run("debian-system");
  const python_info& py = f.python;
  ASSERT_TRUE(py.found);
  EXPECT_EQ(py.how_found, "PATH");
  EXPECT_EQ(py.env_kind, "system");
  EXPECT_EQ(py.prefix, "/usr");
  EXPECT_EQ(py.version, "3.11");
  std::vector<std::string> want{"/home/user/.local/lib/python3.11/site-packages",
                                "/usr/local/lib/python3.11/dist-packages", "/usr/lib/python3/dist-packages"};
  EXPECT_EQ(py.site_packages, want);
  EXPECT_EQ(py.packages.at("numpy").version, "1.24.2");  // egg-info directory
  EXPECT_EQ(py.packages.at("six").version, "1.16.0");    // egg-info file
  EXPECT_EQ(py.packages.at("requests").location, "/usr/local/lib/python3.11/dist-packages");
  EXPECT_EQ(py.packages.at("transformers").location, "/home/user/.local/lib/python3.11/site-packages");
  EXPECT_TRUE(f.issues.empty()) << issues_text(f);
}

TEST(PythonEnv, MessyVenvReportsAndSkipsGarbage) {
  machine_facts f = run("messy-venv");
  const python_info& py = f.python;
  ASSERT_TRUE(py.found);
  EXPECT_TRUE(py.packages.count("good"));
  for (const char* bad : {"junk", "noversion", "badname", "empty", "nometadata"}) EXPECT_FALSE(py.packages.count(bad)) << bad;
  EXPECT_TRUE(has_issue(f, "junk-1.0.dist-info/METADATA")) << issues_text(f);
  EXPECT_TRUE(has_issue(f, "no Version header"));
  EXPECT_TRUE(has_issue(f, "valid project name"));
  EXPECT_TRUE(has_issue(f, "cannot read metadata of nometadata: ENOENT"));
  EXPECT_TRUE(has_issue(f, "second copy"));                        // two torch dist-infos
  EXPECT_EQ(py.packages.at("torch").version, "2.8.0+rocm6.3");    // the first in listing order
  EXPECT_TRUE(has_issue(f, "no __version__, cuda or hip"));        // truncated version.py
  EXPECT_TRUE(has_issue(f, "several distributions install the triton module"));
  EXPECT_TRUE(has_issue(f, "base Python is gone"));                // dangling bin/python
}

TEST(PythonEnv, UnreadableSitePackages) {
  machine_facts f = run("unreadable-venv");
  ASSERT_TRUE(f.python.found);
  EXPECT_EQ(f.python.env_kind, "uv");
  EXPECT_TRUE(f.python.packages.empty());
  EXPECT_TRUE(has_issue(f, "cannot list site-packages: EACCES")) << issues_text(f);
}

TEST(PythonEnv, ExplicitPythonSymlinkResolvesToItsVenv) {
  detect_options o;
  o.python = "/home/user/proj/.venv/bin/python3";
  sysroot sys = sysroot::captured(fixture("uv-venv"));
  sys.set_environment({});  // no VIRTUAL_ENV: the flag alone must find the venv
  machine_facts f;
  detect_python(sys, o, f);
  ASSERT_TRUE(f.python.found);
  EXPECT_EQ(f.python.how_found, "--python");
  EXPECT_EQ(f.python.prefix, "/home/user/proj/.venv");
  EXPECT_EQ(f.python.env_kind, "uv");
  EXPECT_EQ(f.python.interpreter, "/home/user/proj/.venv/bin/python3");
  EXPECT_TRUE(f.python.packages.count("torch"));
}

TEST(PythonEnv, ExplicitPythonOfSystemInterpreter) {
  detect_options o;
  o.python = "/usr/bin/python3";
  machine_facts f = run("debian-system", o);
  ASSERT_TRUE(f.python.found);
  EXPECT_EQ(f.python.env_kind, "system");
  EXPECT_EQ(f.python.version, "3.11");  // from the link target python3.11
}

TEST(PythonEnv, ExplicitVenvOverridesEnvironment) {
  detect_options o;
  o.venv = "/opt/env";
  sysroot sys = sysroot::captured(fixture("stdlib-venv"));
  sys.set_environment({{"VIRTUAL_ENV", "/somewhere/else"}});
  machine_facts f;
  detect_python(sys, o, f);
  ASSERT_TRUE(f.python.found);
  EXPECT_EQ(f.python.how_found, "--venv");
  EXPECT_EQ(f.python.prefix, "/opt/env");
}

TEST(PythonEnv, ExplicitChoiceThatFailsDoesNotFallBack) {
  detect_options o;
  o.venv = "/no/such/venv";
  machine_facts f = run("debian-system", o);
  EXPECT_FALSE(f.python.found);
  EXPECT_TRUE(has_issue(f, "--venv: not a directory"));
  detect_options p;
  p.python = "/no/python3";
  machine_facts g = run("debian-system", p);
  EXPECT_FALSE(g.python.found);
  EXPECT_TRUE(has_issue(g, "--python: no such interpreter"));
  detect_options q;
  q.venv = "/usr";  // a directory, but not an environment
  machine_facts h = run("debian-system", q);
  EXPECT_FALSE(h.python.found);
  EXPECT_TRUE(has_issue(h, "not a Python environment"));
}

TEST(PythonEnv, StaleVirtualEnvFallsThroughToPath) {
  sysroot sys = sysroot::captured(fixture("debian-system"));
  sys.set_environment({{"VIRTUAL_ENV", "/gone/.venv"}, {"PATH", "/usr/bin"}});
  machine_facts f;
  detect_python(sys, {}, f);
  ASSERT_TRUE(f.python.found);
  EXPECT_EQ(f.python.how_found, "PATH");
  EXPECT_TRUE(has_issue(f, "VIRTUAL_ENV: not a directory"));
}

TEST(PythonEnv, DotVenvOnlyWithAnExplicitCwdUnderSysroot) {
  sysroot sys = sysroot::captured(fixture("uv-venv"));
  sys.set_environment({{"PATH", "/nowhere"}});
  machine_facts none;
  detect_python(sys, {}, none);
  EXPECT_FALSE(none.python.found);  // the process cwd means nothing inside a captured tree
  detect_options o;
  o.cwd = "/home/user/proj";
  machine_facts f;
  detect_python(sys, o, f);
  ASSERT_TRUE(f.python.found);
  EXPECT_EQ(f.python.how_found, "./.venv");
  EXPECT_EQ(f.python.prefix, "/home/user/proj/.venv");
}

TEST(PythonEnv, PathWalkFindsAVenvFirstOnPath) {
  sysroot sys = sysroot::captured(fixture("uv-venv"));
  sys.set_environment({{"PATH", "relative/bin:/home/user/proj/.venv/bin:/usr/bin"}});
  machine_facts f;
  detect_python(sys, {}, f);
  ASSERT_TRUE(f.python.found);
  EXPECT_EQ(f.python.how_found, "PATH");
  EXPECT_EQ(f.python.env_kind, "uv");
  EXPECT_EQ(f.python.prefix, "/home/user/proj/.venv");
}

TEST(PythonEnv, NothingFoundIsNotAnIssue) {
  sysroot sys = sysroot::captured(fixture("conda-env"));
  sys.set_environment({{"PATH", "/usr/bin"}});
  machine_facts f;
  detect_python(sys, {}, f);
  EXPECT_FALSE(f.python.found);
  EXPECT_TRUE(f.issues.empty()) << issues_text(f);
}

}  // namespace
}  // namespace gs

namespace gs {
namespace {

TEST(PythonEnvPyenv, ShimFollowsTheGlobalVersionFile) {
  machine_facts f = run("pyenv");
  ASSERT_TRUE(f.python.found);
  EXPECT_EQ(f.python.how_found, "pyenv");
  EXPECT_EQ(f.python.interpreter, "/home/user/.pyenv/versions/3.11.7/bin/python3");
  EXPECT_EQ(f.python.prefix, "/home/user/.pyenv/versions/3.11.7");
  EXPECT_EQ(f.python.version, "3.11");
  EXPECT_EQ(f.python.packages.at("torch").version, "2.9.1+rocm6.4");
  EXPECT_FALSE(f.python.packages.count("numpy"));  // the system's, not this Python's
  EXPECT_TRUE(f.issues.empty()) << issues_text(f);
}

TEST(PythonEnvPyenv, VersionSourcesInOrder) {
  sysroot sys = sysroot::captured(fixture("pyenv"));
  auto env = sys.environment();
  env["PYENV_VERSION"] = "system";  // the shim defers to the next python3 on PATH
  sys.set_environment(env);
  machine_facts sys_py;
  detect_python(sys, {}, sys_py);
  ASSERT_TRUE(sys_py.python.found);
  EXPECT_EQ(sys_py.python.prefix, "/usr");
  EXPECT_EQ(sys_py.python.how_found, "PATH");
  env["PYENV_VERSION"] = "3.9.99";  // not installed
  sys.set_environment(env);
  machine_facts missing;
  detect_python(sys, {}, missing);
  EXPECT_FALSE(missing.python.found);
  EXPECT_TRUE(has_issue(missing, "no such interpreter"));
  detect_options o;
  o.python = "/home/user/.pyenv/shims/python3";  // `--python $(which python3)`
  env.erase("PYENV_VERSION");
  sys.set_environment(env);
  machine_facts flag;
  detect_python(sys, o, flag);
  EXPECT_EQ(flag.python.interpreter, "/home/user/.pyenv/versions/3.11.7/bin/python3");
  EXPECT_EQ(flag.python.how_found, "--python");
  detect_options in_project;
  in_project.cwd = "/home/user/proj/sub";  // .python-version is found from the cwd upwards
  machine_facts local;
  detect_python(sys, in_project, local);
  EXPECT_FALSE(local.python.found);
  EXPECT_TRUE(has_issue(local, "/home/user/.pyenv/versions/3.9.99/bin/python3"));
}

}  // namespace
}  // namespace gs
