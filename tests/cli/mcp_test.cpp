// `gpustack mcp`: the protocol and the tools' command lines with a stand-in runner (no process),
// then the real server driven over stdin/stdout, and, where the official MCP Python SDK is
// installed, driven by that SDK's client (tests/fixtures/mcp/sdk_client.py).
#include "mcp/mcp_server.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "support/run_binary.h"
#include "support/shell.h"

namespace gs {
namespace {

using nlohmann::json;

struct recorded {
  std::vector<std::string> args;
  std::string text;
  double timeout_s = 0;
};

mcp_server server_with(recorded& seen, bool allow_probes = false, tool_run_result answer = {0, false, "{\"a\":1}"}) {
  mcp_options o;
  o.allow_probes = allow_probes;
  o.run = [&seen, answer](const std::vector<std::string>& args, const std::string& text, double t) {
    seen = {args, text, t};
    return answer;
  };
  return mcp_server(o);
}

json call(mcp_server& s, const std::string& name, json args) {
  json req = {{"jsonrpc", "2.0"}, {"id", 7}, {"method", "tools/call"}, {"params", {{"name", name}, {"arguments", args}}}};
  auto reply = s.handle_line(req.dump());
  EXPECT_TRUE(reply);
  json r = json::parse(*reply);
  EXPECT_EQ(r["id"], 7);
  return r["result"];
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

TEST(Mcp, TheHandshakeNegotiatesAVersionAndNotificationsGetNoReply) {
  recorded seen;
  mcp_server s = server_with(seen);
  json r = json::parse(*s.handle_line(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}})"));
  EXPECT_EQ(r["result"]["protocolVersion"], "2025-03-26");
  EXPECT_EQ(r["result"]["serverInfo"]["name"], "gpustack");
  EXPECT_TRUE(r["result"]["capabilities"].contains("tools"));
  r = json::parse(*s.handle_line(R"({"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2099-01-01"}})"));
  EXPECT_EQ(r["result"]["protocolVersion"], mcp_protocol_versions().back());
  EXPECT_EQ(r["id"], "a");
  EXPECT_FALSE(s.handle_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  EXPECT_FALSE(s.handle_line("   "));
  r = json::parse(*s.handle_line(R"({"jsonrpc":"2.0","id":2,"method":"resources/list"})"));
  EXPECT_EQ(r["error"]["code"], -32601);
  r = json::parse(*s.handle_line("not json"));
  EXPECT_EQ(r["error"]["code"], -32700);
  EXPECT_TRUE(r["id"].is_null());
  r = json::parse(*s.handle_line(R"({"jsonrpc":"2.0","id":3,"method":"ping"})"));
  EXPECT_EQ(r["result"], json::object());
}

TEST(Mcp, ReadOnlyByDefaultProbesOnlyWhenAllowed) {
  recorded seen;
  mcp_server ro = server_with(seen);
  std::vector<std::string> names;
  for (const json& t : ro.tools()) names.push_back(t["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"check", "explain", "estimate", "inspect", "matrix"}));
  json r = call(ro, "probe", json::object());
  EXPECT_TRUE(r["isError"]);
  EXPECT_NE(r["content"][0]["text"].get<std::string>().find("--allow-probes"), std::string::npos);
  EXPECT_TRUE(seen.args.empty()) << "nothing ran";
  mcp_server rw = server_with(seen, true);
  EXPECT_EQ(rw.tools().size(), 6u);
  r = call(rw, "probe", {{"ids", {"py.torch", "gemm.bf16"}}, {"timeout_s", 30}});
  EXPECT_FALSE(r["isError"]);
  EXPECT_EQ(joined(seen.args), "probe --json py.torch gemm.bf16 --timeout 30");
  r = call(rw, "probe", {{"ids", {"--device=0"}}});
  EXPECT_TRUE(r["isError"]) << "an id that is an option is refused";
}

TEST(Mcp, EachToolRunsItsCommandWithTheArgumentsChecked) {
  recorded seen;
  mcp_server s = server_with(seen);
  json r = call(s, "explain", {{"text", "RuntimeError: HIP error: invalid device function"}});
  EXPECT_EQ(joined(seen.args), "explain --json {FILE}");
  EXPECT_EQ(seen.text, "RuntimeError: HIP error: invalid device function");
  EXPECT_EQ(r["structuredContent"], json({{"a", 1}}));
  EXPECT_FALSE(r["isError"]);
  call(s, "estimate", {{"model", "qwen3.5-0.8b"}, {"seq", 2048}, {"vram_gib", 16}});
  EXPECT_EQ(joined(seen.args), "estimate --json --model qwen3.5-0.8b --seq 2048 --vram 16.000000");
  call(s, "inspect", {{"paths", {"/opt/lib/libfoo.so"}}, {"gpu", "gfx1201"}});
  EXPECT_EQ(joined(seen.args), "inspect --json /opt/lib/libfoo.so --gpu gfx1201");
  call(s, "check", {{"python", "/venv/bin/python"}});
  EXPECT_EQ(joined(seen.args), "check --json --python /venv/bin/python");
  call(s, "matrix", json::object());
  EXPECT_EQ(joined(seen.args), "matrix show --markdown");
  seen = {};
  for (const auto& [tool, args] : std::vector<std::pair<std::string, json>>{
           {"explain", json::object()},
           {"explain", {{"text", 5}}},
           {"estimate", {{"model", "m"}, {"seq", -1}}},
           {"check", {{"rm", "-rf"}}},
           {"inspect", {{"paths", {"--deep"}}}},
           {"nope", json::object()}}) {
    json e = call(s, tool, args);
    EXPECT_TRUE(e["isError"]) << tool << " " << args;
  }
  EXPECT_TRUE(seen.args.empty()) << "no command ran for a refused call";
}

TEST(Mcp, ACommandThatCouldNotRunIsAToolErrorWithItsWords) {
  recorded seen;
  mcp_server s = server_with(seen, false, {2, false, "gpustack: --model: no such model"});
  json r = call(s, "estimate", {{"model", "nope"}});
  EXPECT_TRUE(r["isError"]);
  EXPECT_EQ(r["content"][0]["text"], "gpustack: --model: no such model");
  EXPECT_FALSE(r.contains("structuredContent"));
  mcp_server slow = server_with(seen, false, {-1, true, ""});
  r = call(slow, "check", json::object());
  EXPECT_TRUE(r["isError"]);
}

TEST(Mcp, TheRealServerAnswersOverStdio) {
  const std::string session =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}})" "\n"
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})" "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"check","arguments":{}}})" "\n"
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"explain","arguments":{"text":"RuntimeError: CUDA error: no kernel image is available for execution on the device\nGPU 0: NVIDIA GeForce GTX 1080 Ti\ntorch 2.8.0+cu128"}}})" "\n"
      R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"probe","arguments":{}}})" "\n";
  gs::testing::run_output o = gs::testing::run_gpustack("mcp", session);
  ASSERT_EQ(o.rc, 0) << o.err;
  std::vector<json> replies;
  size_t start = 0;
  while (start < o.out.size()) {
    size_t nl = o.out.find('\n', start);
    replies.push_back(json::parse(o.out.substr(start, nl - start)));
    start = nl == std::string::npos ? o.out.size() : nl + 1;
  }
  ASSERT_EQ(replies.size(), 4u) << o.out;  // the notification got none
  EXPECT_EQ(replies[0]["result"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ(replies[1]["result"]["structuredContent"]["tool"]["command"], "check");
  const json& ex = replies[2]["result"]["structuredContent"];
  EXPECT_EQ(ex["tool"]["command"], "explain");
  ASSERT_FALSE(ex["findings"].empty()) << replies[2].dump().substr(0, 600);
  EXPECT_TRUE(replies[3]["result"]["isError"]);
}

/// An interpreter with the MCP Python SDK, which is on PyPI only (not in Debian): GPUSTACK_MCP_PYTHON,
/// or python3 when it has it, or a venv this test makes once under $TMPDIR and pip-installs `mcp`
/// into (kept for the sanitizer run after the plain one); "" where PyPI does not answer either.
std::string sdk_python() {
  const char* env = std::getenv("GPUSTACK_MCP_PYTHON");
  if (env && *env) return env;
  if (test::run("python3 -c 'import mcp.client.stdio' 2>/dev/null")) return "python3";
  const std::string venv = (std::filesystem::temp_directory_path() / "gpustack-test-mcp-sdk").string();
  const std::string py = venv + "/bin/python";
  if (test::run("'" + py + "' -c 'import mcp.client.stdio' 2>/dev/null")) return py;
  std::filesystem::remove_all(venv);
  if (test::run("python3 -m venv '" + venv + "' >/dev/null 2>&1 && timeout 300 '" + py +
                "' -m pip install -q --disable-pip-version-check mcp >/dev/null 2>&1") &&
      test::run("'" + py + "' -c 'import mcp.client.stdio' 2>/dev/null"))
    return py;
  return "";
}

TEST(Mcp, TheOfficialPythonSdkDrivesIt) {
  std::string py = sdk_python();
  if (py.empty())
    GTEST_SKIP() << "the MCP Python SDK is not installed and PyPI did not answer (pip install mcp; GPUSTACK_MCP_PYTHON=its python)";
  std::string out;
  ASSERT_TRUE(test::run(py + " " GPUSTACK_SOURCE_DIR "/tests/fixtures/mcp/sdk_client.py '" GPUSTACK_BINARY "' 2>/dev/null", &out))
      << out;
  json r = json::parse(out.substr(out.find('{')));
  EXPECT_EQ(r["server"], "gpustack");
  EXPECT_EQ(r["tools"], json({"check", "estimate", "explain", "inspect", "matrix"}));
  EXPECT_FALSE(r["check"]["is_error"]);
  EXPECT_EQ(r["check"]["report"]["tool"]["command"], "check");
  EXPECT_FALSE(r["explain"]["is_error"]);
  EXPECT_FALSE(r["explain"]["report"]["findings"].empty());
  EXPECT_TRUE(r["probe"]["is_error"]);
  EXPECT_TRUE(r["explain_without_text"]["is_error"]);
}

}  // namespace
}  // namespace gs
