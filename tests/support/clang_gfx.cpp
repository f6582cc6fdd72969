// clang-19 builds for AMD archs and the parsing of what llvm-readelf/llvm-objdump print; see
// clang_gfx.h.
#include "support/clang_gfx.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>

#include "core/sha256.h"
#include "core/text_scan.h"
#include "runtime/hip_compiler.h"
#include "support/files.h"
#include "support/shell.h"

namespace gs::test {

namespace {

/// For the sh -c line: the paths and defines here hold no single quote.
std::string single_quoted(const std::string& s) { return "'" + s + "'"; }

/// "    .vgpr_count:     156" -> key ".vgpr_count", value "156".
bool split_note_key(std::string_view line, std::string_view& key, std::string_view& value) {
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return false;
  key = scan::trim(line.substr(0, colon));
  value = scan::trim(line.substr(colon + 1));
  return key.starts_with('.');
}

/// A count the note prints; 0 for anything else (a check then fails on the missing figure).
unsigned as_unsigned(std::string_view v) { return unsigned(scan::parse_u64(v).value_or(0)); }

void set_note_field(amdgpu_kernel_resources& k, std::string_view key, std::string_view value) {
  if (key == ".name")
    k.name = std::string(value);
  else if (key == ".group_segment_fixed_size")
    k.lds_bytes = as_unsigned(value);
  else if (key == ".private_segment_fixed_size")
    k.scratch_bytes = as_unsigned(value);
  else if (key == ".vgpr_count")
    k.vgprs = int(as_unsigned(value));
  else if (key == ".agpr_count")
    k.agprs = int(as_unsigned(value));
  else if (key == ".sgpr_count")
    k.sgprs = int(as_unsigned(value));
  else if (key == ".max_flat_workgroup_size")
    k.max_block = int(as_unsigned(value));
  else if (key == ".wavefront_size")
    k.wave = int(as_unsigned(value));
}

// Where finished builds are kept: beside the test binary (build/tests/clang-gfx-cache), so a
// clean build starts empty. ctest runs each test in its own process and three tests want all 44
// builds: without the cache each process rebuilt them (~20 s apiece in CI's plain phase).
std::string clang_gfx_cache_root() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : (exe.parent_path() / "clang-gfx-cache").string();
}

// clang-19's --version line, part of every key: another compiler is another build.
const std::string& clang_version() {
  static const std::string v = [] {
    std::string out;
    shell("clang-19 --version 2>&1 | head -1", &out);
    return out;
  }();
  return v;
}

// The build's outputs the parsers read; a key's directory holds them once the build succeeded.
constexpr const char* kBuildOutputs[] = {".notes", ".remarks", ".dis"};

}  // namespace

std::string missing_clang_gfx_tools() {
  std::string missing;
  for (const char* tool : {"clang-19", "llvm-mc-19", "llvm-objdump-19", "llvm-readelf-19"})
    if (shell(std::string("command -v ") + tool + " >/dev/null") != 0)
      missing += (missing.empty() ? "" : " ") + std::string(tool);
  return missing;
}

const std::string& clang_gfx_math_prelude() {
  static const std::string text =
      R"GS(// clang_gfx_math.h: ocml's f32 functions the shim declares, as ROCm's device libraries define them.
#pragma once
extern "C" __device__ inline float __ocml_exp_f32(float x) { return __builtin_expf(x); }
extern "C" __device__ inline float __ocml_exp2_f32(float x) { return __builtin_exp2f(x); }
extern "C" __device__ inline float __ocml_log_f32(float x) { return __builtin_logf(x); }
extern "C" __device__ inline float __ocml_rsqrt_f32(float x) { return __builtin_amdgcn_rsqf(x); }
)GS";
  return text;
}

clang_gfx_build build_for_gfx(const device_source& src, const std::string& arch, const std::string& dir) {
  clang_gfx_build b;
  std::filesystem::create_directories(dir);
  for (const auto& [name, text] : src.headers) write_file(dir + "/" + name, text);
  write_file(dir + "/hip_rtc_shim.h", hip_rtc_shim());
  write_file(dir + "/clang_gfx_math.h", clang_gfx_math_prelude());
  write_file(dir + "/" + src.name, src.source);

  // The options hip_compiler::compile passes (-O3, -mwavefrontsize64 for wave64 on gfx10+, the
  // defines), with the arch as clang's HIP driver spells it.
  std::string opts = "-O3";
  if (gfx_major(arch) >= 10 && src.wave_size == 64) opts += " -mwavefrontsize64";
  for (const std::string& d : define_options(src.defines)) opts += " " + single_quoted(d);
  const std::string base = dir + "/" + arch;
  // The resource-usage remarks go to a file (printed on failure): they tell spills from stack objects.
  b.command = "cd " + single_quoted(dir) + " && { clang-19 -x hip --offload-arch=" + arch +
              " -nogpulib -nogpuinc --cuda-device-only --no-gpu-bundle-output -S " + opts +
              " -Rpass-analysis=kernel-resource-usage -include hip_rtc_shim.h -include clang_gfx_math.h -I. " +
              single_quoted(src.name) + " -o " + single_quoted(base + ".s") + " 2> " + single_quoted(base + ".remarks") + " || { cat " +
              single_quoted(base + ".remarks") + "; false; }; } && llvm-mc-19 -triple=amdgcn-amd-amdhsa -mcpu=" + arch +
              " -filetype=obj " + single_quoted(base + ".s") + " -o " + single_quoted(base + ".o") + " && llvm-readelf-19 --notes " +
              single_quoted(base + ".o") + " > " + single_quoted(base + ".notes") + " && llvm-objdump-19 -d " + single_quoted(base + ".o") +
              " > " + single_quoted(base + ".dis");
  // Everything that goes into the build, and nothing of where: the key of the kept outputs.
  std::string inputs = clang_version() + '\0' + arch + '\0' + opts + '\0' + src.name + '\0' + src.source;
  for (const auto& [name, text] : src.headers) inputs += '\0' + name + '\0' + text;
  inputs += '\0' + hip_rtc_shim() + '\0' + clang_gfx_math_prelude();
  const std::string root = clang_gfx_cache_root();
  const std::string kept = root.empty() ? "" : root + "/" + sha256_hex(inputs);
  // ctest runs the ClangGfx tests two at a time: a per-key lock makes the second wait for the
  // first's build of this source and arch and read it, instead of building it again beside it.
  int lock_fd = -1;
  if (!kept.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(root, ec);
    lock_fd = ::open((kept + ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (lock_fd >= 0) ::flock(lock_fd, LOCK_EX);
  }
  struct unlock_at_exit {
    int fd;
    ~unlock_at_exit() {
      if (fd >= 0) ::close(fd);  // closing drops the flock
    }
  } unlock{lock_fd};
  if (!kept.empty() && std::filesystem::exists(kept + "/done")) {
    for (const char* ext : kBuildOutputs) std::filesystem::copy_file(kept + "/" + arch + ext, base + ext);
  } else {
    if (shell(b.command, &b.log) != 0) return b;
    if (!kept.empty()) {  // into a private directory, then one rename: readers never see half a build
      std::error_code ec;
      const std::string tmp = kept + ".tmp" + std::to_string(::getpid());
      std::filesystem::create_directories(tmp, ec);
      for (const char* ext : kBuildOutputs) std::filesystem::copy_file(base + ext, tmp + "/" + arch + ext, ec);
      write_file(tmp + "/done", b.command);
      std::filesystem::rename(tmp, kept, ec);
      if (ec) std::filesystem::remove_all(tmp, ec);  // another process kept the same build first
    }
  }
  b.kernels = parse_amdgpu_notes(read_file(base + ".notes"));
  add_spill_remarks(read_file(base + ".remarks"), b.kernels);
  b.mnemonics = parse_objdump_mnemonics(read_file(base + ".dis"));
  for (const auto& [symbol, ops] : b.mnemonics)
    for (const std::string& op : ops)
      if (op == "s_swappc_b64" || op == "s_setpc_b64") ++b.calls[symbol];
  b.ok = !b.kernels.empty();
  if (!b.ok) b.log = "no amdhsa.kernels in the metadata note of " + base + ".o";
  return b;
}

std::vector<amdgpu_kernel_resources> parse_amdgpu_notes(std::string_view notes) {
  std::vector<amdgpu_kernel_resources> out;
  bool in_kernels = false;
  for (std::string_view line : scan::lines(notes)) {
    if (!line.empty() && line.front() != ' ') {  // a top-level key: amdhsa.kernels, amdhsa.target, ...
      in_kernels = line.starts_with("amdhsa.kernels:");
      continue;
    }
    if (!in_kernels) continue;
    std::string_view key, value;
    if (line.starts_with("  - .")) {  // a new kernel's first key
      out.emplace_back();
      if (split_note_key(line.substr(4), key, value)) set_note_field(out.back(), key, value);
    } else if (line.starts_with("    .") && !out.empty()) {  // the kernel's other keys
      if (split_note_key(line, key, value)) set_note_field(out.back(), key, value);
    }
  }
  return out;
}

void add_spill_remarks(std::string_view remarks, std::vector<amdgpu_kernel_resources>& kernels) {
  amdgpu_kernel_resources* current = nullptr;
  auto after = [](std::string_view line, std::string_view label) {
    std::string_view rest = line.substr(line.find(label) + label.size());
    return unsigned(scan::parse_u64(rest.substr(0, rest.find(" ["))).value_or(0));
  };
  for (std::string_view line : scan::lines(remarks)) {
    if (size_t at = line.find("Function Name: "); at != std::string_view::npos) {
      std::string_view rest = line.substr(at + 15);
      std::string name(scan::trim(rest.substr(0, rest.find(" ["))));
      current = nullptr;
      for (amdgpu_kernel_resources& k : kernels)
        if (k.name == name) current = &k;
    } else if (current && line.find("VGPRs Spill: ") != std::string_view::npos) {
      current->vgpr_spills = int(after(line, "VGPRs Spill: "));
    } else if (current && line.find("SGPRs Spill: ") != std::string_view::npos) {
      current->sgpr_spills = int(after(line, "SGPRs Spill: "));
    }
  }
}

std::map<std::string, std::vector<std::string>> parse_objdump_mnemonics(std::string_view objdump) {
  std::map<std::string, std::vector<std::string>> out;
  std::vector<std::string>* current = nullptr;
  for (std::string_view line : scan::lines(objdump)) {
    size_t lt = line.find(" <");
    if (!line.empty() && line.front() != '\t' && lt != std::string_view::npos && line.ends_with(">:")) {
      current = &out[std::string(line.substr(lt + 2, line.size() - lt - 4))];
      continue;
    }
    if (!current || line.empty() || line.front() != '\t') continue;
    std::string_view insn = scan::trim(line);
    size_t end = insn.find_first_of(" \t");
    std::string_view op = insn.substr(0, end);
    if (!op.empty() && !op.starts_with("//")) current->emplace_back(op);
  }
  return out;
}

}  // namespace gs::test
