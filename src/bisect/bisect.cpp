// The bisection's run: listing, journal, trials, search; see bisect.h.
#include "bisect/bisect.h"

#include <chrono>
#include <cmath>
#include <filesystem>

#include "bisect/bisect_env.h"
#include "core/byte_size.h"
#include "core/file_io.h"
#include "core/sha256.h"
#include "core/text_scan.h"
#include "python/pep503.h"
#include "python/script_io.h"
#include "sys/subprocess_capture.h"
#include "watch/watch.h"

namespace gs {
namespace fs = std::filesystem;
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

bool is_one_of(const std::string& a, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (a == n || a.rfind(std::string(n) + "=", 0) == 0) return true;
  return false;
}

/// The JSON object a helper printed last (pip may print warnings before it).
std::optional<nlohmann::json> last_json_line(const std::string& out) {
  size_t end = out.size();
  while (end > 0) {
    size_t start = out.rfind('\n', end - 1);
    start = start == std::string::npos ? 0 : start + 1;
    std::string line = out.substr(start, end - start);
    if (!line.empty() && line.front() == '{') {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_discarded()) return j;
    }
    if (start == 0) break;
    end = start - 1;
  }
  return std::nullopt;
}

/// Runs one of probes/python/bisect_*.py in the user's interpreter.
captured_run run_helper(const std::string& python, const std::string& script_path, const nlohmann::json& args,
                        double timeout_s, std::map<std::string, std::string> env = {}) {
  env["GPUSTACK_ARGS"] = args.dump();
  return run_captured({python, script_path}, timeout_s, env);
}

bool write_helper(const std::string& dir, const char* asset, std::string* path, std::string* why) {
  *path = dir + "/" + asset;
  return write_asset(dir, std::string("probes/python/") + asset, why);
}

struct journal {
  std::string path;
  nlohmann::json key;
  std::map<std::string, trial_result> tries;

  void save() const {
    nlohmann::json j = {{"schema", 1}, {"key", key}, {"tries", nlohmann::json::object()}};
    for (const auto& [v, t] : tries) j["tries"][v] = t.to_json();
    std::string why;
    write_file_atomically(path, j.dump(1), why);
  }
  /// The tries of an earlier run with the same key; anything else is ignored (and overwritten).
  void load() {
    std::string text, why;
    if (!read_whole_file(path, text, why)) return;
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("key", nlohmann::json()) != key) return;
    if (j.contains("tries") && j["tries"].is_object())
      for (const auto& [v, t] : j["tries"].items()) tries[v] = trial_result::from_json(t);
  }
};

nlohmann::json key_of(const bisect_request& r) {
  return {{"package", pep503_normalize(r.package)}, {"good", r.good}, {"bad", r.bad}, {"python", r.python},
          {"probe", r.probe_args}, {"run", r.run_command}, {"target", r.compile_target},
          {"match", r.match}, {"find_links", r.find_links}, {"index_url", r.index_url}, {"pre", r.prereleases},
          {"allow_conflicts", r.allow_conflicts}};
}

/// The last non-empty line of a program's output, for a one-line reason.
std::string last_line(const std::string& out) {
  std::string last;
  for (std::string_view l : scan::split(out, '\n'))
    if (!scan::trim(l).empty()) last = std::string(scan::trim(l));
  return last.empty() ? "(no output)" : last.substr(0, 300);
}

std::string seconds_text(double s) {
  char b[32];
  std::snprintf(b, sizeof b, s < 100 ? "%.1f s" : "%.0f s", s);
  return b;
}

}  // namespace

std::optional<std::vector<std::string>> probe_trial_argv(const bisect_request& r, const std::string& report_path,
                                                         std::string* why) {
  const std::vector<std::string>& a = r.probe_args;
  if (a.empty()) {
    *why = "name the probe after --, for example `-- fla --stages 4` or `-- gemm.bf16`, or give --run CMD";
    return std::nullopt;
  }
  for (const std::string& x : a)
    if (is_one_of(x, {"--python", "--venv", "--json", "--markdown", "-o", "--out", "--matrix", "--no-matrix"})) {
      *why = "bisect sets " + x.substr(0, x.find('=')) + " of each trial itself: give it to bisect, before --";
      return std::nullopt;
    }
  std::vector<std::string> argv{r.self_exe};
  size_t from = 0;
  bool is_fla = false;
  if (a[0] == "probe") {
    from = 1;
    argv.push_back("probe");
    is_fla = a.size() > 1 && a[1] == "fla";
  } else if (a[0] == "fla") {
    argv.insert(argv.end(), {"probe"});
    is_fla = true;
  } else if (a[0] == "train-smoke") {
    // as given
  } else if (!a[0].empty() && a[0][0] == '-') {
    *why = "the probe goes first after --: `-- fla ...`, `-- train-smoke ...` or probe ids, not " + a[0];
    return std::nullopt;
  } else {
    argv.push_back("probe");
  }
  argv.insert(argv.end(), a.begin() + long(from), a.end());
  if (!r.compile_target.empty()) {
    if (!is_fla) {
      *why = "--compile-only judges Triton kernels by compiling them: it works with `-- fla ...` only";
      return std::nullopt;
    }
    argv.insert(argv.end(), {"--compile-only", "--target", r.compile_target});
  }
  argv.insert(argv.end(), {"--python", r.python, "--json", "-o", report_path});
  argv.insert(argv.end(), r.matrix_args.begin(), r.matrix_args.end());
  return argv;
}

std::string bisect_key(const bisect_request& r) { return sha256_hex(key_of(r).dump()).substr(0, 12); }

bisect_outcome run_bisection(const bisect_request& r, const bisect_say& say) {
  const auto t0 = std::chrono::steady_clock::now();
  bisect_outcome o;
  const std::string pkg = pep503_normalize(r.package);
  const std::string root = r.state_dir + "/bisect";
  o.work_dir = root + "/" + pkg + "-" + bisect_key(r);
  const std::string cache = root + "/cache", helpers = o.work_dir + "/helpers";
  std::error_code ec;
  fs::create_directories(helpers, ec);
  if (ec) {
    o.error = "cannot create " + helpers + ": " + ec.message();
    return o;
  }
  std::string index_py, check_py;
  if (!write_helper(helpers, "bisect_index.py", &index_py, &o.error) ||
      !write_helper(helpers, "bisect_check.py", &check_py, &o.error))
    return o;

  std::string why;
  auto packaging = packaging_path_for(r.python, root + "/pip-venv", &why);
  if (!packaging) {
    o.error = why;
    return o;
  }

  // 1. The releases.
  say(r.find_links.empty() ? "listing the releases of " + r.package + " on the package index"
                           : "listing the releases of " + r.package + " in " + r.find_links);
  captured_run lr = run_helper(r.python, index_py,
                               {{"package", r.package}, {"find_links", r.find_links}, {"index_url", r.index_url},
                                {"packaging_path", *packaging}},
                               180);
  auto lj = last_json_line(lr.output);
  auto listing = lj ? parse_version_listing(*lj, &why) : std::nullopt;
  if (!listing) {
    o.error = "could not list the releases of " + r.package + " with " + r.python +
              (lr.timed_out ? " (no answer in 180 s)" : "") + ": " +
              (why.empty() ? last_line(lr.output) : why);
    return o;
  }
  o.listing = *listing;
  if (o.listing.versions.empty()) {
    o.error = "no release of " + r.package + " in " +
              (o.listing.locations.empty() ? std::string("the listing") : o.listing.locations.front());
    for (const std::string& e : o.listing.errors) o.error += "; " + e;
    return o;
  }
  auto range = select_range(o.listing, r.good, r.bad, r.prereleases, &why);
  if (!range) {
    o.error = why;
    return o;
  }
  o.range = *range;
  const size_t n = o.range.line.size();
  o.trials.assign(n, std::nullopt);
  say(std::to_string(n) + " releases from " + o.range.line.front().version + " (good) to " + o.range.line.back().version +
      " (bad)" + (o.range.left_out.empty() ? "" : ", " + std::to_string(o.range.left_out.size()) +
                                                     " more with no file for this Python left out"));

  // 2. What an earlier run of the same bisection already learnt.
  journal jr{o.work_dir + "/journal.json", key_of(r), {}};
  if (r.restart) fs::remove(jr.path, ec);
  jr.load();
  bisect_line line(n);
  for (size_t i = 0; i < n; ++i)
    if (auto it = jr.tries.find(o.range.line[i].version); it != jr.tries.end()) {
      o.trials[i] = it->second;
      line[i] = it->second.verdict;
      ++o.resumed;
    }
  if (o.resumed) say("resuming: " + std::to_string(o.resumed) + " releases were tried before (" + jr.path + ")");

  // 3. The trials.
  std::optional<installer> inst;
  bool cache_pruned = false;
  install_interrupt_handler();
  while (auto next = next_to_try(line)) {
    if (interrupt_requested()) {
      o.interrupted = true;
      break;
    }
    const listed_version& lv = o.range.line[*next];
    const double used = double(directory_bytes(cache) + directory_bytes(o.work_dir));
    if (used > r.disk_limit_gib * kGiB && !cache_pruned) {
      say("the wheel cache and scratch environments hold " + gib_text(used) + ", over --disk-limit " +
          gib_text(r.disk_limit_gib * kGiB) + ": emptying the cache " + cache);
      remove_tree(cache, nullptr);
      cache_pruned = true;
    }
    const double used_now = double(directory_bytes(cache) + directory_bytes(o.work_dir));
    if (used_now > r.disk_limit_gib * kGiB) {
      o.stopped = "the scratch environments hold " + gib_text(used_now) + ", over --disk-limit " +
                  gib_text(r.disk_limit_gib * kGiB) + (r.keep ? " (--keep leaves every one)" : "");
      break;
    }
    if (auto free = free_bytes(r.state_dir); free && double(*free) < 1.0 * kGiB) {
      o.stopped = "less than 1 GiB free on the disk of " + r.state_dir;
      break;
    }
    say("trying " + r.package + " " + lv.version + " (at most " + std::to_string(remaining_estimate(line)) +
        " more trials)");
    trial_result t;
    t.version = lv.version;
    const std::string env_dir = o.work_dir + "/env-" + lv.version;
    if (!lv.installable) {
      t.status = "not-installable";
      t.detail = lv.why_not;
    } else {
      if (!inst) {
        inst = choose_installer(r.python, root + "/pip-venv", r.allow_uv, &why);
        if (!inst) {
          o.error = why;
          break;
        }
        o.installer = inst->kind;
      }
      install_request ir{r.python, r.package, lv.version, env_dir, cache, r.find_links, r.index_url, r.install_timeout_s};
      install_outcome io = install_version(*inst, ir);
      t.install_s = io.seconds;
      if (interrupt_requested()) {
        o.interrupted = true;
        break;
      }
      if (!io.ok) {
        t.status = "install-failed";
        t.detail = io.reason;
      } else {
        const std::string pp = trial_pythonpath(env_dir);
        captured_run cr = run_helper(r.python, check_py, {{"package", r.package}, {"version", lv.version}, {"packaging_path", *packaging}}, 120,
                                     {{"PYTHONPATH", pp}});
        auto cj = last_json_line(cr.output);
        if (!cj) {
          t.status = "install-failed";
          t.detail = "the installed stack could not be inspected: " + last_line(cr.output);
        } else {
          for (const auto& c : cj->value("conflicts", nlohmann::json::array()))
            if (c.is_string()) t.conflicts.push_back(c.get<std::string>());
        }
        if (t.status.empty() && !t.conflicts.empty() && !r.allow_conflicts) {
          t.status = "conflict";
          t.detail = t.conflicts.front() + (t.conflicts.size() > 1 ? " (and " + std::to_string(t.conflicts.size() - 1) + " more)" : "");
        }
        if (t.status.empty()) {
          trial_run run;
          run.env = {{"PYTHONPATH", pp}, {"GPUSTACK_BISECT_PACKAGE", r.package}, {"GPUSTACK_BISECT_VERSION", lv.version},
                     {"GPUSTACK_BISECT_PYTHON", r.python}};
          run.timeout_s = r.timeout_s;
          run.log_path = o.work_dir + "/trial-" + lv.version + ".log";
          t.log_path = run.log_path;
          if (!r.run_command.empty()) {
            run.argv = {"/bin/sh", "-c", r.run_command};
          } else {
            t.report_path = o.work_dir + "/report-" + lv.version + ".json";
            fs::remove(t.report_path, ec);
            run.argv = *probe_trial_argv(r, t.report_path, &why);
          }
          program_end pe = run_trial_program(run);
          t.probe_s = pe.seconds;
          if (pe.interrupted) {
            o.interrupted = true;
            break;
          }
          std::string text;
          if (!r.run_command.empty() || pe.hang || pe.signal) {
            judge_exit(pe.hang, pe.signal, pe.exit_code, r.timeout_s, t);
          } else if (read_whole_file(t.report_path, text, why)) {
            auto rep = nlohmann::json::parse(text, nullptr, false);
            if (rep.is_discarded()) {
              t.status = "error";
              t.detail = "the probe's report is not JSON: " + t.report_path;
            } else {
              judge_report(rep, t, r.match);
              t.exit_code = pe.exit_code;
            }
          } else {
            t.status = "error";
            t.detail = "gpustack exited " + std::to_string(pe.exit_code) + " with no report: " +
                       last_line(pe.tail);
          }
        }
      }
    }
    if (!r.keep) remove_tree(env_dir, nullptr);
    say(r.package + " " + lv.version + ": " + to_string(t.verdict) + " (" + t.status + ")" +
        (t.install_s > 0 ? ", install " + seconds_text(t.install_s) : "") +
        (t.probe_s > 0 ? ", probe " + seconds_text(t.probe_s) : "") + (t.detail.empty() ? "" : ": " + t.detail));
    line[*next] = t.verdict;
    jr.tries[lv.version] = t;
    jr.save();
    o.trials[*next] = std::move(t);
  }
  o.answer = conclude(line);
  o.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return o;
}

}  // namespace gs
