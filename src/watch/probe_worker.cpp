// probe_worker (probe_worker.h). A request is JSON: the step's index in the worker's list, its
// options and the device; the answer is the step's probe_result, encoded as a fresh child sends
// it (result_codec.h).
#include "watch/probe_worker.h"

#include <algorithm>

#include "python/python_worker.h"
#include "python/script_runner.h"
#include "watch/probe_child.h"
#include "watch/result_codec.h"

namespace gs {

std::vector<std::string> probe_worker::preload_of(const std::vector<const probe_spec*>& steps, bool in_worker) {
  std::vector<std::string> mods;
  for (const probe_spec* p : steps)
    if (p->warm && p->warm->in_worker == in_worker)
      for (const std::string& m : p->warm->preload)
        if (std::find(mods.begin(), mods.end(), m) == mods.end()) mods.push_back(m);
  return mods;
}

probe_worker::probe_worker(std::vector<const probe_spec*> steps, const runner_options& base)
    : steps_(std::move(steps)),
      base_(base),
      worker_(worker_handlers{
          .on_start =
              [this] {
                // In the worker process: its interpreters start importing at once, each only
                // when a step will use it. Without a Python the steps skip on their own
                // (run_python_step asks first).
                std::optional<std::string> interp =
                    base_.facts ? probe_interpreter(*base_.facts, nullptr) : std::nullopt;
                if (!interp) return;
                for (bool in_worker : {false, true}) {
                  if (std::none_of(steps_.begin(), steps_.end(), [&](const probe_spec* p) {
                        return p->warm && p->warm->in_worker == in_worker;
                      }))
                    continue;
                  python_[in_worker] = std::make_unique<python_worker>(*interp, preload_of(steps_, in_worker));
                  std::string error;
                  python_[in_worker]->start(&error);  // a failure is met again, and reported, by its first step
                }
              },
          .on_request =
              [this](std::string_view request, child_reporter& rep) {
                nlohmann::json q = nlohmann::json::parse(request, nullptr, false);
                size_t index = q.is_object() ? q.value("index", size_t(-1)) : size_t(-1);
                if (index >= steps_.size())
                  return encode_probe_result(make_result("worker", status::error, "the worker got a malformed request"));
                const probe_spec& spec = *steps_[index];
                runner_options o = base_;
                o.probe_options = q.value("options", std::map<std::string, std::string>{});
                o.device = q.value("device", base_.device);
                reporter_sink sink(rep);
                probe_context ctx = make_context(spec, o, &sink);
                ctx.python_in_worker = spec.warm && spec.warm->in_worker;
                ctx.python = python_[ctx.python_in_worker].get();
                return encode_probe_result(call_probe(spec, ctx));
              }}) {}

probe_worker::~probe_worker() = default;

void probe_worker::start() { worker_.start(); }

bool probe_worker::serves(const probe_spec& spec) const {
  return spec.warm && std::find(steps_.begin(), steps_.end(), &spec) != steps_.end();
}

probe_result probe_worker::run(const probe_spec& spec, const runner_options& o,
                               const std::function<void(std::string_view)>& on_phase,
                               const std::function<void(double)>& on_tick) {
  const size_t index = static_cast<size_t>(std::find(steps_.begin(), steps_.end(), &spec) - steps_.begin());
  nlohmann::json request = {{"index", index}, {"options", o.probe_options}, {"device", o.device}};
  watch_events ev;
  ev.on_phase = on_phase;
  ev.on_tick = on_tick;
  watch_outcome w = worker_.run(request.dump(), o.limits, o.cpu, ev);
  probe_result r = from_outcome(spec, w);
  if (!r.data.is_object()) r.data = nlohmann::json::object();
  nlohmann::json& info = r.data["worker"];
  if (!info.is_object()) info = {{"mode", "warm"}};
  info["shared"] = true;
  info["worker"] = worker_.starts();  // the run's n-th worker process
  if (w.pgid > 0) info["worker_pid"] = w.pgid;
  if (!worker_.died_between().empty()) info["new_worker_because"] = worker_.died_between();
  if (w.end != watch_end::finished) info["worker_ended"] = true;  // the next step gets a new one
  return r;
}

}  // namespace gs
