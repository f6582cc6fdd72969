// ROCm installs, the CUDA toolkit and the vendor-library inventory, from files only.
// Which ROCm is active: ROCM_PATH when it exists, else where /opt/rocm resolves (usually
// /opt/rocm -> /etc/alternatives/rocm -> /opt/rocm-X.Y.Z), else the only install. Libraries are
// searched in the dynamic linker's order (LD_LIBRARY_PATH, ld.so.conf dirs, default dirs) and
// then in the toolkit dirs the loader may not know, so the first libamdhip64 found is the one an
// unbundled torch or Triton would load (research/detection.md 5.4); detect_python later replaces
// it with torch/lib's copy when torch bundles one.
#include "detect/toolkits.h"

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>

#include "core/text_scan.h"
#include "detect/detect.h"
#include "detect/lib_inventory.h"
#include "detect/path_util.h"

namespace gs {

std::string parse_rocm_version_text(std::string_view text) {
  // Exactly three dot-separated digit runs at the start; what follows ("-43", ".60200") is a
  // build or point number.
  size_t i = 0;
  for (int part = 0; part < 3; ++part) {
    size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i - start < 9) ++i;
    if (i == start) return "";
    if (part < 2) {
      if (i >= text.size() || text[i] != '.') return "";
      ++i;
    }
  }
  return std::string(text.substr(0, i));
}

std::string parse_cuda_version_json(std::string_view text) {
  auto j = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return "";
  for (const char* key : {"cuda", "cuda_nvcc", "cuda_cudart"}) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_object()) continue;
    auto v = it->find("version");
    if (v != it->end() && v->is_string() && !v->get<std::string>().empty()) return v->get<std::string>();
  }
  return "";
}

std::string parse_cuda_version_txt(std::string_view text) {
  constexpr std::string_view kPrefix = "CUDA Version ";
  size_t p = text.find(kPrefix);
  if (p == std::string_view::npos) return "";
  std::string_view rest = text.substr(p + kPrefix.size());
  size_t n = 0;
  while (n < rest.size() && n < 32 && ((rest[n] >= '0' && rest[n] <= '9') || rest[n] == '.')) ++n;
  return std::string(rest.substr(0, n));
}

std::vector<std::string> parse_ld_so_conf(std::string_view text) {
  std::vector<std::string> dirs;
  for (std::string_view line : scan::lines(text)) {
    if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
    if (line.empty() || line.front() != '/') continue;  // "include ...", "hwcap ...", junk
    dirs.emplace_back(line);
  }
  return dirs;
}

namespace {

std::string env_or_empty(const std::map<std::string, std::string>& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? std::string() : it->second;
}

/// Read a small version file; a missing file is silent, any other failure is an issue.
std::optional<std::string> read_version_file(const sysroot& sys, const std::string& path, machine_facts& facts) {
  read_result r = sys.read(path, 64 << 10);
  if (!r) {
    if (r.err != ENOENT && r.err != ENOTDIR) facts.issues.push_back({path, "cannot read: " + errno_name(r.err)});
    return std::nullopt;
  }
  return r.text;
}

/// "rocm-6.4.1" / "cuda-13.0" -> "6.4.1" / "13.0": the fallback when no version file exists.
std::string version_from_dir_name(std::string_view name, std::string_view prefix) {
  if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) return "";
  std::string_view v = name.substr(prefix.size());
  for (char c : v)
    if (!((c >= '0' && c <= '9') || c == '.')) return "";
  return std::string(v);
}

void detect_rocm(const sysroot& sys, const std::map<std::string, std::string>& env, machine_facts& facts) {
  std::vector<std::string> reals;  // distinct install roots, resolved
  int err = 0;
  for (const std::string& n : sys.list("/opt", &err))
    if (n == "rocm" || n.rfind("rocm-", 0) == 0) {
      std::string real = resolve_path(sys, "/opt/" + n);
      if (sys.is_dir(real) && std::find(reals.begin(), reals.end(), real) == reals.end()) reals.push_back(real);
    }
  if (err != 0 && err != ENOENT) facts.issues.push_back({"/opt", "cannot list: " + errno_name(err)});
  std::string rocm_path = env_or_empty(env, "ROCM_PATH");
  std::string active;
  if (!rocm_path.empty()) {
    std::string real = resolve_path(sys, path_normalize(rocm_path));
    if (sys.is_dir(real)) {
      active = real;
      if (std::find(reals.begin(), reals.end(), real) == reals.end()) reals.push_back(real);
    } else {
      facts.issues.push_back({"ROCM_PATH", "ROCM_PATH=" + rocm_path + " is not a directory"});
    }
  }
  if (active.empty() && stat_resolved(sys, "/opt/rocm").is_dir) active = resolve_path(sys, "/opt/rocm");
  if (active.empty() && reals.size() == 1) active = reals.front();
  std::sort(reals.begin(), reals.end());
  for (const std::string& real : reals) {
    rocm_install inst;
    inst.path = real;
    inst.active = real == active;
    if (auto text = read_version_file(sys, path_join(real, ".info/version"), facts)) {
      inst.version = parse_rocm_version_text(*text);
      if (inst.version.empty())
        facts.issues.push_back({path_join(real, ".info/version"), "no MAJOR.MINOR.PATCH version in the file"});
    }
    if (inst.version.empty()) inst.version = version_from_dir_name(path_basename(real), "rocm-");
    if (inst.active) facts.stack.rocm_version = inst.version;
    facts.stack.rocm_installs.push_back(std::move(inst));
  }
}

void detect_cuda(const sysroot& sys, const std::map<std::string, std::string>& env, machine_facts& facts) {
  std::string root;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    std::string v = env_or_empty(env, var);
    if (v.empty()) continue;
    std::string real = resolve_path(sys, path_normalize(v));
    if (sys.is_dir(real)) {
      root = real;
      break;
    }
    facts.issues.push_back({var, std::string(var) + "=" + v + " is not a directory"});
  }
  if (root.empty() && stat_resolved(sys, "/usr/local/cuda").is_dir) root = resolve_path(sys, "/usr/local/cuda");
  if (root.empty()) {
    std::vector<std::string> versioned;
    for (const std::string& n : sys.list("/usr/local"))
      if (n.rfind("cuda-", 0) == 0 && stat_resolved(sys, "/usr/local/" + n).is_dir) versioned.push_back("/usr/local/" + n);
    if (versioned.size() == 1) root = resolve_path(sys, versioned.front());
  }
  if (root.empty()) return;
  facts.stack.cuda_toolkit_path = root;
  std::string version;
  if (auto text = read_version_file(sys, path_join(root, "version.json"), facts)) {
    version = parse_cuda_version_json(*text);
    if (version.empty()) facts.issues.push_back({path_join(root, "version.json"), "no CUDA version in the file"});
  }
  if (version.empty())
    if (auto text = read_version_file(sys, path_join(root, "version.txt"), facts))
      version = parse_cuda_version_txt(*text);
  if (version.empty()) {
    version = version_from_dir_name(path_basename(root), "cuda-");
    facts.issues.push_back({root, stat_resolved(sys, path_join(root, "bin/nvcc")).exists
                                      ? "no version.json: version taken from the directory name"
                                      : "no version.json and no bin/nvcc: an incomplete toolkit"});
  }
  facts.stack.cuda_toolkit_version = version;
}

/// Where a directory's libraries come from, for library_info::origin.
std::string classify_origin(std::string_view real_dir, const machine_facts& facts, bool from_ld_path) {
  for (const rocm_install& r : facts.stack.rocm_installs)
    if (path_is_under(real_dir, r.path)) return "rocm";
  if (!facts.stack.cuda_toolkit_path.empty() && path_is_under(real_dir, facts.stack.cuda_toolkit_path))
    return "cuda";
  return from_ld_path ? "ld_library_path" : "system";
}

void inventory_libraries(const sysroot& sys, const std::map<std::string, std::string>& env, machine_facts& facts) {
  struct search_dir {
    std::string path;
    bool from_ld_path;
  };
  std::vector<search_dir> dirs;
  for (const std::string& d : split_path_list(env_or_empty(env, "LD_LIBRARY_PATH")))
    if (!d.empty() && d.front() == '/') dirs.push_back({d, true});
  std::vector<std::string> conf_files{"/etc/ld.so.conf"};
  for (const std::string& n : sys.list("/etc/ld.so.conf.d"))
    if (n.size() > 5 && n.substr(n.size() - 5) == ".conf") conf_files.push_back("/etc/ld.so.conf.d/" + n);
  for (const std::string& f : conf_files)
    if (auto text = read_version_file(sys, f, facts))
      for (std::string& d : parse_ld_so_conf(*text)) dirs.push_back({std::move(d), false});
  // The loader's built-in dirs, then places it may not know about: the active ROCm and CUDA
  // lib dirs (Triton's last resort is /opt/rocm/lib) and the NVIDIA container runtime's dir.
  for (const char* d : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
                        "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib",
                        "/usr/lib/wsl/lib", "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib"})
    dirs.push_back({d, false});
  for (const rocm_install& r : facts.stack.rocm_installs)
    if (r.active) {
      dirs.push_back({path_join(r.path, "lib"), false});
      dirs.push_back({path_join(r.path, "lib64"), false});
    }
  if (!facts.stack.cuda_toolkit_path.empty()) {
    dirs.push_back({path_join(facts.stack.cuda_toolkit_path, "lib64"), false});
    dirs.push_back({path_join(facts.stack.cuda_toolkit_path, "targets/x86_64-linux/lib"), false});
    dirs.push_back({path_join(facts.stack.cuda_toolkit_path, "targets/sbsa-linux/lib"), false});
  }
  std::vector<std::string> seen;  // /lib and /usr/lib are one dir on merged-/usr systems
  std::vector<std::string_view> stems = rocm_library_stems();
  for (std::string_view s : nvidia_library_stems()) stems.push_back(s);
  for (const search_dir& d : dirs) {
    std::string real = resolve_path(sys, path_normalize(d.path));
    if (std::find(seen.begin(), seen.end(), real) != seen.end()) continue;
    seen.push_back(real);
    scan_library_dir(sys, real, stems, classify_origin(real, facts, d.from_ld_path), facts.stack.libraries,
                     facts.issues);
  }
  for (const library_info& l : facts.stack.libraries)
    if (l.name == "libamdhip64") {
      facts.stack.hip_runtime_source = l.path;
      break;
    }
}

}  // namespace

void detect_toolkits(const sysroot& sys, machine_facts& facts) {
  std::map<std::string, std::string> env = sys.environment();
  detect_rocm(sys, env, facts);
  detect_cuda(sys, env, facts);
  inventory_libraries(sys, env, facts);
}

}  // namespace gs
