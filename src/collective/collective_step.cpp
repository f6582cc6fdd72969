// The collective.<op> steps (collective_step.h).
#include "collective/collective_step.h"

#include <fmt/format.h>

#include "collective/bus_bandwidth.h"
#include "core/assets.h"
#include "core/text_scan.h"
#include "probes/gpu_session.h"
#include "probes/python_probes.h"

namespace gs {
namespace {

std::string size_text(double bytes) {
  for (auto [unit, shift] : {std::pair{"GiB", 30}, {"MiB", 20}, {"KiB", 10}})
    if (bytes >= double(1ull << shift)) return fmt::format("{:g} {}", bytes / double(1ull << shift), unit);
  return fmt::format("{:g} B", bytes);
}

nlohmann::json sizes_from(const probe_context& ctx) {
  nlohmann::json sizes = nlohmann::json::array();
  const std::string list = option_text(ctx, "collective.sizes", "4096");  // the views below point into it
  for (std::string_view one : scan::split_nonempty(list, ','))
    if (std::optional<uint64_t> b = scan::parse_u64(one)) sizes.push_back(*b);
  return sizes;
}

probe_result run_collective_step(const probe_context& ctx) {
  const std::string op = option_text(ctx, "collective.op", "all_reduce");
  const std::string id = "collective." + op;
  const char* script = "probes/python/collective_launch.py";
  if (!find_asset(script)) return make_result(id, status::skip, std::string(script) + " is not in this build of gpustack");
  if (!ctx.facts) return make_result(id, status::skip, "no machine facts: cannot tell which Python to use");
  std::string why;
  if (!probe_interpreter(*ctx.facts, &why)) return make_result(id, status::skip, why);
  python_probe_request req;
  req.script = script;
  req.extra_assets = {"probes/python/collective_worker.py"};
  const std::string fault = option_text(ctx, "collective.fault", "");
  req.args = {{"op", op},
              {"backend", option_text(ctx, "collective.backend", "auto")},
              {"nproc", option_int(ctx, "collective.nproc", 0, 0, 1024)},
              {"sizes", sizes_from(ctx)},
              {"op_timeout_s", option_int(ctx, "collective.op_timeout_s", 60, 1, 86400)},
              {"init_timeout_s", option_int(ctx, "collective.init_timeout_s", 120, 1, 86400)},
              {"fault", fault.empty() ? nlohmann::json() : nlohmann::json::parse(fault)}};
  ctx.phase("start");
  probe_result r = collective_result(op, run_python_script(ctx, req));
  const python_info& py = ctx.facts->python;
  r.data["python"] = {{"interpreter", py.interpreter}, {"version", py.version}, {"env_kind", py.env_kind}};
  if (r.outcome != status::pass && r.outcome != status::skip) r.finding_ids = match_result_findings(r, *ctx.facts);
  return r;
}

}  // namespace

probe_spec collective_step_spec(const std::string& op, std::deque<std::string>& ids) {
  ids.push_back("collective." + op);
  const char* summary = op == "p2p" ? "peer access and copy bandwidth between every pair of GPUs"
                                    : "one rank per GPU through torchrun: exact results at every size, bus bandwidth";
  return {ids.back().c_str(), summary, {}, true, true, run_collective_step};
}

std::map<std::string, std::string> collective_step_options(const collective_settings& s, const std::string& op) {
  std::string sizes;
  for (uint64_t b : s.sizes) sizes += (sizes.empty() ? "" : ",") + std::to_string(b);
  return {{"collective.op", op},
          {"collective.backend", s.backend},
          {"collective.nproc", std::to_string(s.nproc)},
          {"collective.sizes", sizes},
          {"collective.op_timeout_s", std::to_string(int(s.op_timeout_s))},
          {"collective.init_timeout_s", std::to_string(int(s.init_timeout_s))},
          {"collective.fault", s.fault_json}};
}

probe_result collective_result(const std::string& op, const python_probe_outcome& outcome) {
  probe_result r = to_probe_result("collective." + op, outcome);
  if (!r.data.is_object()) return r;
  const std::string seen = r.data.value("outcome", "");
  if (r.outcome == status::fail && seen == "hang") r.outcome = status::hang;
  if (r.outcome == status::fail && seen == "crash") r.outcome = status::crash;
  const int ranks = r.data.value("world_size", 0);
  auto sizes = r.data.find("sizes");
  if (sizes == r.data.end() || !sizes->is_array()) return r;
  const nlohmann::json* largest = nullptr;
  for (nlohmann::json& row : *sizes) {
    if (!row.is_object() || !row.contains("bytes") || !row.contains("time_us")) continue;
    if (auto b = bandwidth_of(op, ranks, row["bytes"].get<double>(), row["time_us"].get<double>())) {
      row["algbw_gbps"] = b->algbw_gbps;
      row["busbw_gbps"] = b->busbw_gbps;
      largest = &row;
    }
  }
  if (largest && r.outcome == status::pass)
    r.detail += fmt::format("; bus bandwidth {:.2f} GB/s at {} ({:.1f} us a call; nccl-tests' busbw)",
                            (*largest)["busbw_gbps"].get<double>(), size_text((*largest)["bytes"].get<double>()),
                            (*largest)["time_us"].get<double>());
  return r;
}

}  // namespace gs
