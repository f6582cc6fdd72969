// A Dockerfile (or Containerfile): the last stage's image, its ENV, USER and the packages its
// RUN lines pip-install, following `FROM <earlier stage>` so a stage inherits what it builds on.
// A Dockerfile says nothing about how the container runs (devices, groups, IPC, GPUs): those
// facts stay unknown (runtime_known = false) and the rules that need them stay silent.
#include <map>

#include "container/container_read.h"
#include "core/text_scan.h"

namespace gs::container_read {
namespace {

struct instruction {
  std::string keyword;  ///< upper case: "FROM", "ENV", ...
  std::string args;
  int line = 0;
};

/// Instructions with their continuation lines joined; comments and blank lines dropped. The
/// escape character is '\' unless a `# escape=`` directive at the top says otherwise.
std::vector<instruction> instructions(std::string_view text) {
  std::vector<instruction> out;
  char escape = '\\';
  std::string pending;
  int start = 0, n = 0;
  bool directives = true;
  for (std::string_view raw : scan::lines(text)) {
    ++n;
    std::string_view l = scan::trim(raw);
    if (directives && l.rfind("#", 0) == 0) {
      std::string d = scan::lower(l);
      if (d.find("escape=`") != std::string::npos) escape = '`';
      continue;
    }
    if (!l.empty()) directives = false;
    if (l.rfind("#", 0) == 0 || (l.empty() && !pending.empty())) continue;  // comments inside a continuation too
    if (l.empty()) continue;
    if (pending.empty()) start = n;
    bool continues = l.back() == escape;
    if (continues) l.remove_suffix(1);
    pending += std::string(l);
    pending += ' ';
    if (continues) continue;
    std::string_view p = scan::trim(pending);
    size_t sp = p.find_first_of(" \t");
    instruction ins;
    ins.keyword = std::string(p.substr(0, sp));
    for (char& ch : ins.keyword) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    ins.args = sp == std::string_view::npos ? "" : std::string(scan::trim(p.substr(sp)));
    ins.line = start;
    out.push_back(std::move(ins));
    pending.clear();
  }
  return out;
}

/// ENV A=1 B="two words"  or the legacy  ENV A one value.
void read_env(const std::string& args, const std::map<std::string, std::string>& vars, container_info& c) {
  std::vector<std::string> words = shell_words(args);
  if (words.empty()) return;
  if (words[0].find('=') == std::string::npos) {
    size_t sp = args.find_first_of(" \t");
    if (sp != std::string::npos) c.env[words[0]] = substitute(scan::trim(std::string_view(args).substr(sp)), vars);
    return;
  }
  for (const std::string& w : words)
    if (size_t eq = w.find('='); eq != std::string::npos && eq > 0) c.env[w.substr(0, eq)] = substitute(w.substr(eq + 1), vars);
}

/// The commands of a RUN line (split at &&, ||, ;, |) that install Python packages.
void read_run(const std::string& args, const std::map<std::string, std::string>& vars, container_info& c) {
  std::vector<std::string> words = shell_words(substitute(args, vars));
  std::vector<std::string> cmd;
  auto flush = [&] {
    for (size_t i = 0; i + 1 < cmd.size(); ++i)
      if ((cmd[i].rfind("pip", 0) == 0 || cmd[i] == "uv") && cmd[i + 1] == "install") return read_pip_install(cmd, c);
      else if (cmd[i] == "uv" && cmd[i + 1] == "pip") return read_pip_install(cmd, c);
  };
  for (std::string& w : words) {
    bool sep = w == "&&" || w == "||" || w == ";" || w == "|";
    if (!sep && (w.ends_with(";"))) {
      w.pop_back();
      cmd.push_back(w);
      sep = true;
    } else if (!sep) {
      cmd.push_back(w);
    }
    if (sep) {
      flush();
      cmd.clear();
    }
  }
  flush();
}

}  // namespace

container_spec dockerfile(std::string_view text) {
  container_spec spec;
  spec.kind = "dockerfile";
  std::map<std::string, std::string> args;      // ARG before the first FROM and in the stage
  std::map<std::string, container_info> stages; // by lower-case stage name
  container_info cur;
  bool in_stage = false;
  for (const instruction& ins : instructions(text)) {
    if (ins.keyword == "ARG") {
      for (const std::string& w : shell_words(ins.args)) {
        size_t eq = w.find('=');
        std::string name = w.substr(0, eq);
        if (!args.count(name) || eq != std::string::npos) args[name] = eq == std::string::npos ? "" : substitute(w.substr(eq + 1), args);
      }
      continue;
    }
    if (ins.keyword == "FROM") {
      std::vector<std::string> w = shell_words(ins.args);
      std::string image, alias;
      for (size_t i = 0; i < w.size(); ++i) {
        if (w[i].rfind("--", 0) == 0) continue;  // --platform=...
        if (image.empty()) image = substitute(w[i], args);
        else if (scan::iequals(w[i], "as") && i + 1 < w.size()) alias = scan::lower(w[++i]);
      }
      auto earlier = stages.find(scan::lower(image));
      container_info next = earlier != stages.end() ? earlier->second : container_info{};
      if (earlier == stages.end()) next.image = image;
      next.kind = "dockerfile";
      next.line = ins.line;
      if (!alias.empty()) stages[alias] = next;
      cur = next;
      in_stage = true;
      continue;
    }
    if (!in_stage) continue;
    if (ins.keyword == "ENV") read_env(ins.args, args, cur);
    else if (ins.keyword == "USER") cur.user = substitute(scan::trim(ins.args), args);
    else if (ins.keyword == "RUN") read_run(ins.args, args, cur);
    else continue;
    // Keep the named stage current, for a later FROM <alias>.
    for (auto& [alias, st] : stages)
      if (st.line == cur.line) st = cur;
  }
  if (!in_stage) {
    spec.error = "no FROM instruction: not a Dockerfile";
    return spec;
  }
  // The image's stack as its own ENV states it (nvidia/cuda sets CUDA_VERSION, rocm images ROCM_VERSION).
  if (auto it = cur.env.find("ROCM_VERSION"); it != cur.env.end()) cur.image_rocm = it->second;
  if (auto it = cur.env.find("CUDA_VERSION"); it != cur.env.end()) cur.image_cuda = it->second;
  read_image_stack(cur);
  if (cur.image.find('$') != std::string::npos)
    cur.notes.push_back("FROM " + cur.image + ": a build argument without a default; the base image is not known");
  spec.containers.push_back(std::move(cur));
  return spec;
}

}  // namespace gs::container_read
