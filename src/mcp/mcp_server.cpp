// The MCP server's protocol and tools; see mcp_server.h.
#include "mcp/mcp_server.h"

#include <algorithm>

namespace gs {
namespace {

using nlohmann::json;

json error_response(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

json tool_error(const std::string& text) {
  return {{"content", json::array({{{"type", "text"}, {"text", text}}})}, {"isError", true}};
}

json object_schema(json properties, std::vector<std::string> required = {}) {
  json s = {{"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
  if (!required.empty()) s["required"] = required;
  return s;
}

/// A JSON argument of the expected kind, or an error text naming it.
std::string arg_error(const json& args, const char* key, json::value_t kind, bool required) {
  if (!args.contains(key)) return required ? std::string("missing argument '") + key + "'" : "";
  const json& v = args[key];
  bool ok = kind == json::value_t::number_unsigned ? v.is_number_integer() && v.get<long long>() > 0
            : kind == json::value_t::number_float   ? v.is_number() && v.get<double>() > 0
                                                    : v.type() == kind;
  return ok ? "" : std::string("argument '") + key + "' has the wrong type";
}

/// args[key], a list of strings, appended to argv: each a word of its own, never an option (a
/// leading '-'), so a tool's caller cannot smuggle flags into the command. "" or why not.
std::string append_words(const json& args, const char* key, const char* what, std::vector<std::string>& argv) {
  if (!args.contains(key)) return "";
  for (const json& w : args[key]) {
    if (!w.is_string() || w.get<std::string>().empty() || w.get<std::string>()[0] == '-')
      return std::string("argument '") + key + "' holds something that is no " + what;
    argv.push_back(w.get<std::string>());
  }
  return "";
}

}  // namespace

const std::vector<std::string>& mcp_protocol_versions() {
  static const std::vector<std::string> v{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"};
  return v;
}

json mcp_server::tools() const {
  json t = json::array();
  t.push_back({{"name", "check"},
               {"description", "Detect this machine's GPU software stack (GPU and arch, driver, ROCm/CUDA, the Python "
                               "environment's torch build and packages, risky environment variables) and the known "
                               "problems of that stack, with fixes. Returns gpustack's redacted JSON report. Fast (well "
                               "under a second); runs nothing on the GPU."},
               {"inputSchema", object_schema({{"python", {{"type", "string"}, {"description", "the Python interpreter to inspect (default: the usual search)"}}}})}});
  t.push_back({{"name", "explain"},
               {"description", "Diagnose text a user pasted: a traceback or training log, python -m torch.utils.collect_env, "
                               "pip list, rocminfo, nvidia-smi, an env dump, dmesg lines, a whole GitHub issue, or an old "
                               "gpustack report. Returns the cause with the quoted evidence and the fix, what could not be "
                               "decided, and what to ask for next, as a redacted JSON report."},
               {"inputSchema", object_schema({{"text", {{"type", "string"}, {"description", "the pasted text"}}}}, {"text"})}});
  t.push_back({{"name", "estimate"},
               {"description", "Predict a QLoRA fine-tuning run's peak GPU memory, host RAM, download and disk for a model "
                               "of gpustack's registry, and whether it fits this machine's GPU or a card of vram_gib."},
               {"inputSchema", object_schema({{"model", {{"type", "string"}, {"description", "registry model, e.g. qwen3.5-0.8b"}}},
                                              {"seq", {{"type", "integer"}, {"description", "tokens per sequence"}}},
                                              {"batch", {{"type", "integer"}, {"description", "sequences per micro-batch"}}},
                                              {"vram_gib", {{"type", "number"}, {"description", "ask about a card with this much memory"}}}},
                                             {"model"})}});
  t.push_back({{"name", "inspect"},
               {"description", "List the GPU code inside libraries (AMD offload bundles, NVIDIA fatbins) and whether this "
                               "GPU (or the arch given) can run it; default: the Python environment's GPU libraries."},
               {"inputSchema", object_schema({{"paths", {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", "libraries or directories"}}},
                                              {"gpu", {{"type", "string"}, {"description", "judge for this arch (gfx1201, sm_90)"}}}})}});
  t.push_back({{"name", "matrix"},
               {"description", "The version-compatibility matrix: which stacks (arch, driver, ROCm/CUDA, torch, Triton, "
                               "bitsandbytes, FLA) are known good or bad for which probes, as Markdown."},
               {"inputSchema", object_schema(json::object())}});
  if (o_.allow_probes)
    t.push_back({{"name", "probe"},
                 {"description", "Run gpustack probes on this machine's GPU (each in a watched child: a hang costs one probe); "
                                 "slow, and it runs code on the GPU. Enabled because the server was started with --allow-probes."},
                 {"inputSchema", object_schema({{"ids", {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", "probe ids (default: the suite)"}}},
                                                {"timeout_s", {{"type", "integer"}, {"description", "seconds any one phase may take"}}}})}});
  return t;
}

json mcp_server::call_tool(const json& params) {
  const std::string name = params.value("name", "");
  const json args = params.contains("arguments") && params["arguments"].is_object() ? params["arguments"] : json::object();
  std::vector<std::string> argv;
  std::string file_text, why;
  double timeout_s = 120;
  auto check_args = [&](std::initializer_list<std::tuple<const char*, json::value_t, bool>> spec) {
    for (const auto& [k, kind, req] : spec)
      if (std::string e = arg_error(args, k, kind, req); !e.empty()) return e;
    for (auto it = args.begin(); it != args.end(); ++it) {
      const std::string k = it.key();  // not a structured binding: clang 14 cannot capture one in the lambda
      bool known = std::any_of(spec.begin(), spec.end(), [&](const auto& s) { return std::get<0>(s) == k; });
      if (!known) return "unknown argument '" + k + "'";
    }
    return std::string();
  };
  if (name == "check") {
    why = check_args({{"python", json::value_t::string, false}});
    argv = {"check", "--json"};
    if (args.contains("python")) argv.insert(argv.end(), {"--python", args["python"].get<std::string>()});
    timeout_s = 60;
  } else if (name == "explain") {
    why = check_args({{"text", json::value_t::string, true}});
    if (why.empty()) file_text = args["text"].get<std::string>();
    argv = {"explain", "--json", "{FILE}"};
    timeout_s = 60;
  } else if (name == "estimate") {
    why = check_args({{"model", json::value_t::string, true},
                      {"seq", json::value_t::number_unsigned, false},
                      {"batch", json::value_t::number_unsigned, false},
                      {"vram_gib", json::value_t::number_float, false}});
    if (why.empty()) {
      argv = {"estimate", "--json", "--model", args["model"].get<std::string>()};
      if (args.contains("seq")) argv.insert(argv.end(), {"--seq", std::to_string(args["seq"].get<long long>())});
      if (args.contains("batch")) argv.insert(argv.end(), {"--batch", std::to_string(args["batch"].get<long long>())});
      if (args.contains("vram_gib")) argv.insert(argv.end(), {"--vram", std::to_string(args["vram_gib"].get<double>())});
    }
    timeout_s = 60;
  } else if (name == "inspect") {
    why = check_args({{"paths", json::value_t::array, false}, {"gpu", json::value_t::string, false}});
    argv = {"inspect", "--json"};
    if (why.empty()) why = append_words(args, "paths", "path", argv);
    if (why.empty() && args.contains("gpu")) argv.insert(argv.end(), {"--gpu", args["gpu"].get<std::string>()});
    timeout_s = 300;
  } else if (name == "matrix") {
    why = check_args({});
    argv = {"matrix", "show", "--markdown"};
  } else if (name == "probe") {
    if (!o_.allow_probes)
      return tool_error("probe runs code on the GPU, and this server was started read-only: start it as "
                        "`gpustack mcp --allow-probes` to offer probes");
    why = check_args({{"ids", json::value_t::array, false}, {"timeout_s", json::value_t::number_unsigned, false}});
    argv = {"probe", "--json"};
    if (why.empty()) why = append_words(args, "ids", "probe id", argv);
    if (why.empty() && args.contains("timeout_s"))
      argv.insert(argv.end(), {"--timeout", std::to_string(args["timeout_s"].get<long long>())});
    timeout_s = 3600;
  } else {
    return tool_error("no tool named '" + name + "'");
  }
  if (!why.empty()) return tool_error(name + ": " + why);
  tool_run_result r = o_.run(argv, file_text, timeout_s);
  if (r.timed_out) return tool_error(name + ": no answer within " + std::to_string(int(timeout_s)) + " s");
  json result = {{"content", json::array({{{"type", "text"}, {"text", r.out}}})}, {"isError", r.exit_code == 2 || r.exit_code < 0}};
  // The report as structured content too, where the command printed JSON (matrix prints Markdown).
  json parsed = json::parse(r.out, nullptr, false);
  if (!parsed.is_discarded() && parsed.is_object()) result["structuredContent"] = std::move(parsed);
  return result;
}

std::optional<std::string> mcp_server::handle_line(const std::string& line) {
  if (line.find_first_not_of(" \t\r") == std::string::npos) return std::nullopt;
  json msg = json::parse(line, nullptr, false);
  if (msg.is_discarded() || !msg.is_object()) return error_response(nullptr, -32700, "parse error: not a JSON object").dump();
  if (!msg.contains("id")) return std::nullopt;  // a notification (notifications/initialized, cancelled, ...)
  const json id = msg["id"];
  const std::string method = msg.value("method", "");
  const json params = msg.contains("params") && msg["params"].is_object() ? msg["params"] : json::object();
  json result;
  if (method == "initialize") {
    const std::string asked = params.value("protocolVersion", "");
    const auto& known = mcp_protocol_versions();
    const bool speaks = std::find(known.begin(), known.end(), asked) != known.end();
    result = {{"protocolVersion", speaks ? asked : known.back()},
              {"capabilities", {{"tools", {{"listChanged", false}}}}},
              {"serverInfo", {{"name", "gpustack"}, {"version", GPUSTACK_VERSION}}},
              {"instructions", "gpustack answers whether this machine's GPU software stack will fine-tune an LLM, and why "
                               "not: `check` for the machine, `explain` for text a user pasted. Reports are redacted."}};
  } else if (method == "ping") {
    result = json::object();
  } else if (method == "tools/list") {
    result = {{"tools", tools()}};
  } else if (method == "tools/call") {
    result = call_tool(params);
  } else {
    return error_response(id, -32601, "method not found: " + method).dump();
  }
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}.dump();
}

}  // namespace gs
