// build_report: machine_facts + findings + probe results -> the schema-v1 JSON tree
// (reports/schema/report.schema.json, docs/report-format.md), then redaction over the whole
// tree. exit_code_for reads the same tree, so `check` and a saved report agree on the code.
#include <ctime>

#include "card/card_fields.h"
#include "core/utc_time.h"
#include "report/redact.h"
#include "report/report.h"

namespace gs {
namespace {

using nlohmann::json;

json host_json(const host_info& h, bool identifiers) {
  json j = {
      {"os", {{"id", h.os_id}, {"version", h.os_version}, {"pretty", h.os_pretty}}},
      {"kernel", h.kernel},
      {"machine", h.machine},
      {"cpu", {{"model", h.cpu_model}, {"logical", h.cpu_logical}, {"physical_cores", h.cpu_physical_cores}}},
      {"ram", {{"total_bytes", h.ram_total_bytes}, {"available_bytes", h.ram_available_bytes}}},
      {"swap", {{"total_bytes", h.swap_total_bytes}, {"free_bytes", h.swap_free_bytes}}},
      {"zram_bytes", h.zram_bytes},
      {"container", {{"detected", h.in_container}, {"kind", h.container_kind}}},
  };
  // Identity leaves the machine only when asked for (--include-identifiers).
  if (identifiers) j["identity"] = {{"hostname", h.hostname}, {"user", h.user}, {"home", h.home}};
  return j;
}

/// gpus[].card: the card_fields table, unknown fields left out; processes (pid, memory, name)
/// only with --include-identifiers, their count always.
json card_json(const card_state& c, bool identifiers) {
  json j = json::object();
  for (const card_text_field& f : card_text_fields())
    if (!(c.*f.member).empty()) j[f.key] = c.*f.member;
  for (const card_number_field& f : card_number_fields())
    if (auto v = card_number(c, f)) j[f.key] = *v;
  for (const card_flag_field& f : card_flag_fields())
    if (auto v = c.*f.member) j[f.key] = *v;
  if (c.throttle_reasons) j["throttle_reasons"] = *c.throttle_reasons;
  if (identifiers && !c.processes.empty()) {
    json ps = json::array();
    for (const card_process& p : c.processes) ps.push_back({{"pid", p.pid}, {"used_bytes", p.used_bytes}, {"name", p.name}});
    j["processes"] = std::move(ps);
  }
  if (!c.firmware.empty()) {
    json fw = json::array();
    for (const card_firmware& f : c.firmware) fw.push_back({{"name", f.name}, {"version", f.version}, {"feature", f.feature}});
    j["firmware"] = std::move(fw);
  }
  return j;
}

json gpu_json(const gpu_info& g, bool identifiers) {
  json j = {
      {"vendor", g.vendor},
      {"arch", g.arch},
      {"name", g.name},
      {"pci_id", g.pci_id},
      {"pci_revision", g.pci_revision},
      {"pci_address", g.pci_address},
      {"vram_bytes", g.vram_bytes},
      {"wave_size", g.wave_size},
      {"compute_units", g.compute_units},
      {"source", g.source},
      {"family", g.family},
      {"gfx_target_version", g.gfx_target_version},
      {"kfd_node", g.kfd_node},
      {"render_minor", g.render_minor},
      {"compute_capability", g.compute_capability},
      {"serial", g.serial},
  };
  if (g.pcie_width || g.pcie_max_width || g.pcie_gts > 0)
    j["pcie"] = {{"width", g.pcie_width}, {"max_width", g.pcie_max_width}, {"gts", g.pcie_gts},
                 {"max_gts", g.pcie_max_gts}, {"narrowest", g.pcie_narrowest}};
  if (!g.pcie_root.empty())
    j["place"] = {{"pcie_root", g.pcie_root}, {"bridges", g.pcie_bridges}, {"numa_node", g.numa_node},
                  {"iommu_group_type", g.iommu_group_type}, {"xgmi_hive", g.xgmi_hive}};
  if (!g.card.source.empty()) j["card"] = card_json(g.card, identifiers);
  return j;
}

json library_json(const library_info& l) {
  return {{"name", l.name}, {"path", l.path}, {"soname", l.soname}, {"version", l.version}, {"origin", l.origin}};
}

/// The run-time compilers gpustack itself uses (NVRTC, comgr, hiprtc), picked out of the
/// libraries so a reader sees at once whether kernels can be built here.
json compiler_json(const stack_info& s) {
  json c = json::object();
  for (const library_info& l : s.libraries) {
    std::string key;
    if (l.name.find("nvrtc") != std::string::npos) key = "nvrtc";
    else if (l.name.find("comgr") != std::string::npos) key = "comgr";
    else if (l.name.find("hiprtc") != std::string::npos) key = "hiprtc";
    if (!key.empty() && !c.contains(key)) c[key] = {{"version", l.version}, {"path", l.path}};
  }
  return c;
}

json stack_json(const stack_info& s, const python_info& py) {
  json rocm_installs = json::array();
  for (const rocm_install& r : s.rocm_installs)
    rocm_installs.push_back({{"path", r.path}, {"version", r.version}, {"active", r.active}});
  json libs = json::array();
  for (const library_info& l : s.libraries) libs.push_back(library_json(l));
  json packages = json::object(), details = json::object();
  for (const auto& [name, p] : py.packages) {
    packages[name] = p.version;
    details[name] = {{"location", p.location}, {"installer", p.installer}, {"editable", p.editable}};
  }
  auto torch = py.packages.find("torch");
  return {
      {"driver",
       {{"amdgpu", {{"loaded", s.amdgpu_loaded}, {"initstate", s.amdgpu_initstate}, {"version", s.amdgpu_version}}},
        {"nvidia", {{"version", s.nvidia_driver}, {"open_module", s.nvidia_open_module}}}}},
      {"rocm", {{"version", s.rocm_version}, {"installs", rocm_installs}, {"hip_runtime_source", s.hip_runtime_source}}},
      {"cuda",
       {{"toolkit_version", s.cuda_toolkit_version}, {"toolkit_path", s.cuda_toolkit_path}, {"driver_api", s.cuda_driver_api}}},
      {"libraries", libs},
      {"compiler", compiler_json(s)},
      {"python",
       {{"found", py.found},
        {"interpreter", py.interpreter},
        {"version", py.version},
        {"env_kind", py.env_kind},
        {"prefix", py.prefix},
        {"how_found", py.how_found},
        {"site_packages", py.site_packages},
        {"packages", packages},
        {"package_details", details}}},
      {"torch",
       {{"version", torch == py.packages.end() ? "" : torch->second.version}, {"cuda", py.torch_cuda}, {"hip", py.torch_hip}}},
  };
}

json finding_json(const finding& f) {
  json j = {{"id", f.id},          {"severity", to_string(f.level)}, {"title", f.title},
            {"evidence", f.evidence}, {"remediation", f.remediation}, {"refs", f.refs},
            {"rule_source", f.rule_source}};
  if (!f.unknown_facts.empty()) j["unknown_facts"] = f.unknown_facts;
  return j;
}

json probe_json(const probe_result& p) {
  return {{"id", p.id},
          {"status", to_string(p.outcome)},
          {"phase", p.phase},
          {"duration_ms", p.duration_ms},
          {"detail", p.detail},
          {"data", p.data.is_object() ? p.data : json{{"value", p.data}}},
          {"finding_ids", p.finding_ids},
          {"kernel_log", p.kernel_log}};
}

/// The one-line verdict and the counts it rests on.
/// Why nothing about a GPU stack was tested, "" when something was. `check` tests the stack it
/// detects, so without a GPU it tested none; a probe run tested something when a step ran on a
/// GPU (a skip ran nothing; gpustack's CPU references test gpustack, not the user's stack).
std::string nothing_tested_why(const std::string& command, bool has_gpu, const json& probes) {
  if (command == "explain") return "";  // a paste is judged, not tested: explain says "unknown" itself
  if (probes.empty()) return command == "check" && !has_gpu ? "no GPU found" : "";
  int ran = 0, on_cpu = 0;
  for (const json& p : probes) {
    std::string st = p.value("status", "");
    if (st == "skip") continue;
    std::string id = p.value("id", "");
    if (id.size() > 8 && id.compare(id.size() - 8, 8, ".verdict") == 0) continue;  // sums up the others
    ++ran;
    const json& d = p.contains("data") && p["data"].is_object() ? p["data"] : json::object();
    const json& dev = d.contains("device") ? d["device"] : json();
    if ((dev.is_string() && dev == "cpu") || (dev.is_object() && dev.value("backend", "") == "cpu")) ++on_cpu;
  }
  std::string gpu = has_gpu ? "" : "no GPU found; ";
  if (ran == 0) return gpu + "every step was skipped";
  if (on_cpu == ran) return gpu + "only gpustack's CPU references ran";
  return "";
}

json summary_json(const json& findings, const json& probes, const std::string& untested_why) {
  json fc = {{"info", 0}, {"warn", 0}, {"fail", 0}};
  json pc = {{"pass", 0}, {"warn", 0}, {"fail", 0}, {"skip", 0}, {"hang", 0}, {"crash", 0}, {"error", 0}};
  for (const json& f : findings) fc[f["severity"].get<std::string>()] = fc[f["severity"].get<std::string>()].get<int>() + 1;
  for (const json& p : probes) pc[p["status"].get<std::string>()] = pc[p["status"].get<std::string>()].get<int>() + 1;
  int probe_failures = pc["fail"].get<int>() + pc["crash"].get<int>() + pc["error"].get<int>();
  std::string status = pc["hang"].get<int>() > 0                          ? "hang"
                       : (fc["fail"].get<int>() > 0 || probe_failures > 0) ? "fail"
                       : (fc["warn"].get<int>() > 0 || pc["warn"].get<int>() > 0) ? "warn"
                       : !untested_why.empty()                                     ? "untested"
                                                                                  : "pass";
  auto plural = [](int n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); };
  std::string text = status + ": " + (untested_why.empty() ? "" : "nothing was tested (" + untested_why + "); ") + plural(fc["fail"].get<int>(), "failure", "failures") + ", " +
                     plural(fc["warn"].get<int>(), "warning", "warnings") + ", " +
                     plural(fc["info"].get<int>(), "note", "notes");
  if (!probes.empty()) {
    text += "; probes";
    bool first = true;
    for (const char* k : {"pass", "warn", "fail", "skip", "hang", "crash", "error"}) {
      int n = pc[k].get<int>();
      if (n == 0) continue;
      text += (first ? " " : ", ") + std::to_string(n) + " " + k;
      first = false;
    }
  }
  if (status == "hang") text += " (the GPU may need a reset)";
  return {{"status", status}, {"text", text}, {"findings", fc}, {"probes", pc}};
}

}  // namespace

nlohmann::json build_report(const report_input& in, const report_options& opts) {
  static const machine_facts kEmpty;
  const machine_facts& f = in.facts ? *in.facts : kEmpty;
  json gpus = json::array();
  for (const gpu_info& g : f.gpus) gpus.push_back(gpu_json(g, opts.include_identifiers));
  json access = json::array();
  for (const device_access& a : f.access)
    access.push_back({{"path", a.path},   {"exists", a.exists}, {"ok", a.ok},
                      {"error", a.error}, {"group", a.group},   {"user_in_group", a.user_in_group}});
  json env = json::object();
  for (const auto& [k, v] : f.env) env[k] = v;
  json findings = json::array();
  for (const finding& x : in.findings) findings.push_back(finding_json(x));
  json probes = json::array();
  for (const probe_result& p : in.probes) probes.push_back(probe_json(p));
  json issues = json::array();
  for (const detection_issue& i : f.issues) issues.push_back({{"source", i.source}, {"message", i.message}});

  json r = {
      {"schema_version", 1},
      {"tool", {{"name", "gpustack"}, {"version", GPUSTACK_VERSION}, {"command", opts.command}}},
      {"created_utc", opts.created_utc.empty() ? utc_now_iso() : opts.created_utc},
      {"host", host_json(f.host, opts.include_identifiers)},
      {"gpus", gpus},
      {"stack", stack_json(f.stack, f.python)},
      {"env", env},
      {"access", access},
      {"findings", findings},
      {"probes", probes},
      {"issues", issues},
      {"summary", summary_json(findings, probes, nothing_tested_why(opts.command, !f.gpus.empty(), probes))},
  };
  if (!f.topology.pairs.empty()) {
    json pairs = json::array();
    for (const gpu_pair_link& l : f.topology.pairs) pairs.push_back({{"a", l.a}, {"b", l.b}, {"kind", l.kind}});
    r["topology"] = {{"pairs", pairs}, {"worst", f.topology.worst}, {"numa_nodes", f.topology.numa_nodes}, {"iommu", f.topology.iommu},
                     {"acs_read", f.topology.acs_read}, {"acs_redirect", f.topology.acs_redirect}};
  }
  if (!in.settings.empty()) r["settings"] = in.settings;
  for (const auto& [k, v] : in.extra.items()) r[k] = v;
  redactor red = redactor::for_facts(f, opts.include_identifiers);
  if (in.environment) red.add_secret_values(*in.environment);
  red.scrub_json(r);
  // Added after the pass: a key named "secrets" would otherwise have its own value removed.
  r["redaction"] = {{"identifiers", opts.include_identifiers ? "included" : "redacted"}, {"secrets", "redacted"}};
  return r;
}

int exit_code_for(const nlohmann::json& report) {
  if (!report.is_object()) return exit_ok;
  bool failed = false;
  if (auto it = report.find("probes"); it != report.end() && it->is_array())
    for (const json& p : *it) {
      if (!p.is_object() || !p.contains("status") || !p["status"].is_string()) continue;
      auto s = parse_status(p["status"].get<std::string>());
      if (s == status::hang) return exit_hang;
      if (s && is_failure(*s)) failed = true;
    }
  if (auto it = report.find("findings"); it != report.end() && it->is_array())
    for (const json& f : *it)
      if (f.is_object() && f.value("severity", "") == "fail") failed = true;
  return failed ? exit_failed : exit_ok;
}

}  // namespace gs
