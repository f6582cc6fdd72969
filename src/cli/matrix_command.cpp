// `gpustack matrix merge REPORT...`, `gpustack matrix show` (docs/matrix.md) and `gpustack matrix
// fleet REPORT...` (docs/fleet.md: one report per node, which nodes differ from the majority).
// Exit codes: 0 done; 2 bad arguments, an unreadable or corrupt matrix, or an input that is not
// a report (the readable reports are still merged and saved, and every bad one is named).
#include <cstdio>
#include <fstream>

#include "cli/cli.h"
#include "core/file_io.h"
#include "core/status.h"
#include "matrix/fleet.h"
#include "matrix/matrix.h"
#include "matrix/matrix_record.h"
#include "matrix/matrix_render.h"
#include "report/report_file.h"

namespace gs {
namespace {

struct matrix_args {
  std::string matrix_path;
  std::vector<std::string> inputs;
  bool markdown = false, html = false, json = false, no_shipped = false, color_off = false;
  std::string out_file;
};

std::string matrix_path_of(const matrix_args& a) { return a.matrix_path.empty() ? default_matrix_path() : a.matrix_path; }

bool write_out(const std::string& out_file, const std::string& text) {
  if (out_file.empty() || out_file == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return true;
  }
  std::string error;
  if (!write_file_atomically(out_file, text, error)) {
    std::fprintf(stderr, "gpustack: %s\n", error.c_str());
    return false;
  }
  std::fprintf(stderr, "gpustack: written to %s\n", out_file.c_str());
  return true;
}

int run_merge(const matrix_args& a) {
  std::string path = matrix_path_of(a);
  if (path.empty()) {
    std::fprintf(stderr, "gpustack: no HOME or XDG_DATA_HOME: name the matrix with --matrix FILE\n");
    return exit_usage;
  }
  compat_matrix m;
  std::string msg;
  if (load_matrix_file(path, m, msg) == load_status::error) {
    std::fprintf(stderr, "gpustack: %s\n(the file is left as it is; nothing merged)\n", msg.c_str());
    return exit_usage;
  }
  int merged = 0, dupes = 0, bad = 0;
  for (const std::string& in : a.inputs) {
    // A .toml input is another matrix (a colleague's), folded in row by row.
    if (in.size() > 5 && in.compare(in.size() - 5, 5, ".toml") == 0) {
      compat_matrix other;
      std::string why;
      if (load_matrix_file(in, other, why) != load_status::ok) {
        std::fprintf(stderr, "gpustack: %s: %s\n", in.c_str(), why.empty() ? "no such file" : why.c_str());
        ++bad;
        continue;
      }
      merge_matrix(m, other);
      std::fprintf(stderr, "  %s: matrix with %zu stacks folded in\n", in.c_str(), other.rows.size());
      ++merged;
      continue;
    }
    nlohmann::json report;
    std::string why;
    if (!read_report_file(in, report, why)) {
      std::fprintf(stderr, "gpustack: %s\n", why.c_str());
      ++bad;
      continue;
    }
    merge_outcome r = merge_report(m, report);
    if (!r.error.empty()) {
      std::fprintf(stderr, "gpustack: %s: %s\n", in.c_str(), r.error.c_str());
      ++bad;
    } else if (r.duplicate) {
      std::fprintf(stderr, "  %s: already merged (same report), skipped\n", in.c_str());
      ++dupes;
    } else {
      if (r.cells) std::fprintf(stderr, "  %s: %d probe result%s -> stack %s\n", in.c_str(), r.cells, r.cells == 1 ? "" : "s", r.row_id.c_str());
      else if (r.left_out) std::fprintf(stderr, "  %s: nothing to record: %s\n", in.c_str(), r.left_out_why.c_str());
      else std::fprintf(stderr, "  %s: nothing to record: a report without probe results (check) adds no cell\n", in.c_str());
      if (r.cells && r.left_out) std::fprintf(stderr, "  %s: left out %s\n", in.c_str(), r.left_out_why.c_str());
      ++merged;
    }
  }
  if (merged > 0 && !save_matrix_file(path, m, msg, matrix_file_header())) {
    std::fprintf(stderr, "gpustack: %s\n", msg.c_str());
    return exit_usage;
  }
  std::fprintf(stderr, "gpustack: %d merged, %d already there, %d unreadable; %s now holds %zu stacks\n", merged, dupes, bad,
               path.c_str(), m.rows.size());
  return bad ? exit_usage : exit_ok;
}

int run_show(const matrix_args& a) {
  compat_matrix m;
  std::string source;
  if (!a.no_shipped) {
    m = shipped_matrix();
    source = "shipped matrix/compat.toml";
  }
  std::string path = matrix_path_of(a);
  if (!path.empty()) {
    compat_matrix user;
    std::string msg;
    load_status st = load_matrix_file(path, user, msg);
    if (st == load_status::error) {
      std::fprintf(stderr, "gpustack: %s\n", msg.c_str());
      return exit_usage;
    }
    if (st == load_status::absent && !a.matrix_path.empty()) {
      std::fprintf(stderr, "gpustack: no matrix at %s\n", path.c_str());
      return exit_usage;
    }
    if (st == load_status::ok) {
      merge_matrix(m, user);
      source += (source.empty() ? "" : " + ") + path;
    }
  }
  if (source.empty()) source = "(nothing)";
  std::string text = a.html ? render_matrix_html(m, source)
                     : a.markdown ? render_matrix_markdown(m, source)
                                  : render_matrix_human(m, source, !a.color_off && a.out_file.empty() && use_color(output_options{}));
  return write_out(a.out_file, text) ? exit_ok : exit_usage;
}

/// Exit 0 when every node runs one stack and nothing fails, 1 when a node differs or fails, 2 when
/// a report cannot be read (the readable ones are still folded and shown).
int run_fleet(const matrix_args& a) {
  std::vector<std::pair<std::string, nlohmann::json>> reports;
  int bad = 0;
  for (const std::string& in : a.inputs) {
    nlohmann::json r;
    std::string why;
    if (!read_report_file(in, r, why)) {
      std::fprintf(stderr, "gpustack: %s\n", why.c_str());
      ++bad;
      continue;
    }
    reports.push_back({fleet_label(in), std::move(r)});
  }
  if (reports.empty()) {
    std::fprintf(stderr, "gpustack: no readable report to fold\n");
    return exit_usage;
  }
  fleet_view v = fold_fleet(reports);
  std::string text = a.json ? fleet_json(v).dump(2) + "\n"
                     : a.markdown ? render_fleet_markdown(v)
                                  : render_fleet_human(v, !a.color_off && a.out_file.empty() && use_color(output_options{}));
  if (!write_out(a.out_file, text)) return exit_usage;
  if (bad) return exit_usage;
  return v.all_alike() ? exit_ok : exit_failed;
}

}  // namespace

command_spec matrix_command() {
  return {"matrix", "the version-compatibility matrix: merge reports into it, show it (terminal, Markdown, HTML), "
                    "fold a cluster's reports (fleet)",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<matrix_args>();
            auto which = std::make_shared<std::function<int()>>();
            sub.require_subcommand(1);
            CLI::App* merge = sub.add_subcommand("merge", "fold saved reports (JSON, or Markdown with the JSON block) into a matrix; "
                                                          "a report already in it is not counted twice");
            merge->add_option("reports", a->inputs, "report files (.json or .md); a .toml file is another matrix to fold in")
                ->required();
            merge->add_option("--matrix", a->matrix_path,
                              "the matrix to merge into (default $XDG_DATA_HOME/gpustack/matrix.toml or "
                              "~/.local/share/gpustack/matrix.toml; created if absent)");
            merge->callback([a, which] { *which = [a] { return run_merge(*a); }; });
            CLI::App* show = sub.add_subcommand("show", "render the shipped matrix plus yours");
            show->add_option("--matrix", a->matrix_path, "the matrix file to show with the shipped one (default: yours, if any)");
            show->add_flag("--no-shipped", a->no_shipped, "leave out the shipped matrix/compat.toml");
            show->add_flag("--markdown", a->markdown, "Markdown tables (for an issue or a wiki page)");
            show->add_flag("--html", a->html, "one self-contained HTML page with a colour grid (arch x stack x probe)");
            show->add_option("-o,--output", a->out_file, "write to FILE instead of standard output");
            show->add_flag("--no-color", a->color_off, "no colour in the terminal table");
            show->callback([a, which] { *which = [a] { return run_show(*a); }; });
            CLI::App* fleet = sub.add_subcommand(
                "fleet", "fold one report per node (srun, a Kubernetes Job) into one view: the majority stack, and how each "
                         "other node differs from it (exit 1 when a node differs or fails)");
            fleet->add_option("reports", a->inputs, "one report per node (.json or .md); the file name is the node's label")
                ->required();
            fleet->add_flag("--json", a->json, "the view as JSON (each differing node with its report diff)");
            fleet->add_flag("--markdown", a->markdown, "a Markdown table (a CI job summary, an issue)");
            fleet->add_option("-o,--output", a->out_file, "write to FILE instead of standard output");
            fleet->add_flag("--no-color", a->color_off, "no colour in the terminal view");
            fleet->callback([a, which] { *which = [a] { return run_fleet(*a); }; });
            return [which] { return *which ? (*which)() : int(exit_usage); };
          }};
}

}  // namespace gs
