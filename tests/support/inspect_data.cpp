// inspect_data.h. nvcc takes ~3 s an object and comgr ~1 s a target here; everything is built
// once per test process and shared by the inspect tests.
#include "support/inspect_data.h"

#include <zlib.h>
#include <zstd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/hip_compiler.h"
#include "runtime/kernel_source.h"

namespace gs::test {
namespace fs = std::filesystem;

namespace {

struct scratch {
  std::string dir;
  scratch() {
    std::string tmpl = (fs::temp_directory_path() / "gpustack-inspect-XXXXXX").string();
    if (char* d = ::mkdtemp(tmpl.data())) dir = d;
  }
  ~scratch() {
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

std::string find_tool(std::initializer_list<const char*> names) {
  for (const char* n : names) {
    std::string out;
    if (run(std::string("command -v ") + n, &out) && !out.empty()) {
      while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
      return out;
    }
  }
  for (const char* n : names)
    for (const char* dir : {"/usr/local/cuda/bin/", "/usr/lib/llvm-14/bin/"})
      if (fs::exists(std::string(dir) + n)) return std::string(dir) + n;
  return {};
}

constexpr const char* kCudaSource =
    "__global__ void add(float* a, const float* b, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) a[i] += b[i];\n"
    "}\n";

/// The documented plain bundle (detection.md 6.2), for when no clang-offload-bundler exists.
std::string write_bundle(const std::vector<std::pair<std::string, std::string>>& entries) {
  auto u64 = [](uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); };
  size_t table = 24 + 8;
  for (auto& [id, co] : entries) table += 24 + id.size();
  std::string head = "__CLANG_OFFLOAD_BUNDLE__" + u64(entries.size()), body;
  uint64_t off = (table + 4095) / 4096 * 4096;
  for (auto& [id, co] : entries) {
    head += u64(co.empty() ? 0 : off) + u64(co.size()) + u64(id.size()) + id;
    if (!co.empty()) {
      body.resize(off - table, '\0');
      body += co;
      off = table + body.size();
      off = (off + 4095) / 4096 * 4096;
    }
  }
  return head + body;
}

}  // namespace

const std::string& scratch_dir() {
  static scratch s;
  return s.dir;
}

const std::optional<nvcc_objects>& nvcc_built(std::string* why) {
  static std::string reason;
  static const std::optional<nvcc_objects> objs = []() -> std::optional<nvcc_objects> {
    std::string nvcc = find_tool({"nvcc"});
    if (nvcc.empty()) {
      reason = "nvcc not installed";
      return std::nullopt;
    }
    std::string dir = scratch_dir();
    write_file(dir + "/k.cu", kCudaSource);
    nvcc_objects o{dir + "/multi.o", dir + "/compressed.o", dir + "/sm90a.o"};
    const std::string multi = " -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"
                              " -gencode arch=compute_90,code=compute_90";
    std::string log;
    if (!run(nvcc + " -c " + dir + "/k.cu -o " + o.multi + multi, &log) ||
        !run(nvcc + " -c " + dir + "/k.cu -o " + o.compressed + multi + " -Xfatbin -compress-all", &log) ||
        !run(nvcc + " -c " + dir + "/k.cu -o " + o.sm90a + " -gencode arch=compute_90a,code=sm_90a", &log)) {
      reason = "nvcc failed: " + log;
      return std::nullopt;
    }
    return o;
  }();
  if (why) *why = reason;
  return objs;
}

const std::optional<amd_objects>& amd_built(std::string* why) {
  static std::string reason;
  static const std::optional<amd_objects> objs = []() -> std::optional<amd_objects> {
    hip_compiler c;
    hip_compiler_options opts;
    opts.kind = hip_compiler_kind::comgr;
    runtime_status st = c.open(opts);
    if (!st.ok) {
      reason = "amd_comgr not available: " + st.message;
      return std::nullopt;
    }
    amd_objects o;
    for (auto [arch, wave, out] : {std::tuple{"gfx90a", 64, &o.gfx90a}, std::tuple{"gfx1030", 32, &o.gfx1030}}) {
      compile_request req{"k.cu", "#include \"gs_device.h\"\nGS_KERNEL void k(float* p) { p[threadIdx.x] = 1.0f; }\n", {}};
      device_source src;
      compiled_code code;
      if (!prepare_device_source(req, "hip", wave, src).ok || !(st = c.compile(src, arch, code)).ok) {
        reason = std::string("comgr could not compile for ") + arch + ": " + st.message;
        return std::nullopt;
      }
      out->assign(code.image.begin(), code.image.end());
    }
    std::string dir = scratch_dir();
    write_file(dir + "/gfx90a.co", o.gfx90a);
    write_file(dir + "/gfx1030.co", o.gfx1030);
    std::string bundler = find_tool({"clang-offload-bundler", "clang-offload-bundler-14"});
    const std::string targets =
        " -type=o -targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx90a,hipv4-amdgcn-amd-amdhsa--gfx1030";
    if (!bundler.empty()) {
      std::string ins = " -input=/dev/null -input=" + dir + "/gfx90a.co -input=" + dir + "/gfx1030.co";
      std::string old_ins = " -inputs=/dev/null," + dir + "/gfx90a.co," + dir + "/gfx1030.co";
      if (run(bundler + targets + ins + " -output=" + dir + "/k.hipfb") ||
          run(bundler + targets + old_ins + " -outputs=" + dir + "/k.hipfb")) {
        o.bundle = read_file(dir + "/k.hipfb");
        o.bundler_used = true;
      }
    }
    if (o.bundle.empty())
      o.bundle = write_bundle({{"host-x86_64-unknown-linux-gnu-", ""},
                               {"hipv4-amdgcn-amd-amdhsa--gfx90a", o.gfx90a},
                               {"hipv4-amdgcn-amd-amdhsa--gfx1030", o.gfx1030}});
    return o;
  }();
  if (why) *why = reason;
  return objs;
}

std::optional<std::string> clang_hip_object(std::string* why) {
  static std::string reason;
  static const std::optional<std::string> obj = []() -> std::optional<std::string> {
    std::string clang = find_tool({"clang-14", "clang"});
    if (clang.empty()) {
      reason = "no clang";
      return std::nullopt;
    }
    std::string dir = scratch_dir();
    // clang's host side wants a hipLaunchKernel declaration; the device side needs nothing.
    write_file(dir + "/k.hip",
               "typedef struct { unsigned x, y, z; } gs_dim3;\n"
               "extern \"C\" int hipLaunchKernel(const void*, gs_dim3, gs_dim3, void**, unsigned long, void*);\n"
               "extern \"C\" __attribute__((global)) void k(float* p) { p[0] = 1.0f; }\n");
    std::string log;
    if (!run(clang + " -x hip --offload-arch=gfx90a --offload-arch=gfx1030 -nogpulib -nogpuinc -c " + dir +
                 "/k.hip -o " + dir + "/khip.o",
             &log)) {
      reason = "clang cannot compile HIP here: " + log;
      return std::nullopt;
    }
    return dir + "/khip.o";
  }();
  if (why) *why = reason;
  return obj;
}

std::string make_ccob(const std::string& bundle, int version, int method) {
  std::string payload;
  if (method == 0) {
    uLongf n = compressBound(bundle.size());
    payload.resize(n);
    compress2(reinterpret_cast<Bytef*>(payload.data()), &n, reinterpret_cast<const Bytef*>(bundle.data()), bundle.size(), 9);
    payload.resize(n);
  } else {
    payload.resize(ZSTD_compressBound(bundle.size()));
    size_t n = ZSTD_compress(payload.data(), payload.size(), bundle.data(), bundle.size(), 19);
    payload.resize(ZSTD_isError(n) ? 0 : n);
  }
  auto le = [](uint64_t v, int bytes) { return std::string(reinterpret_cast<const char*>(&v), static_cast<size_t>(bytes)); };
  std::string h = "CCOB" + le(static_cast<uint64_t>(version), 2) + le(static_cast<uint64_t>(method), 2);
  const uint64_t hash = 0x0123456789abcdefull;  // MD5 low half in clang; gpustack does not check it
  if (version == 1) h += le(bundle.size(), 4) + le(hash, 8);
  if (version == 2) h += le(24 + payload.size(), 4) + le(bundle.size(), 4) + le(hash, 8);
  if (version == 3) h += le(32 + payload.size(), 8) + le(bundle.size(), 8) + le(hash, 8);
  return h + payload;
}

std::optional<std::string> host_object_with_section(const std::string& section, const std::string& bytes,
                                                    const std::string& name) {
  std::string dir = scratch_dir();
  std::string src = dir + "/host_" + name + ".cpp", obj = dir + "/host_" + name + ".o", data = dir + "/" + name + ".bin",
              out = dir + "/" + name + ".o";
  write_file(src, "int gs_host_symbol = 1;\n");
  write_file(data, bytes);
  if (!run("c++ -c " + src + " -o " + obj)) return std::nullopt;
  if (!run("objcopy --add-section " + section + "=" + data + " --set-section-flags " + section + "=alloc,readonly " + obj +
           " " + out))
    return std::nullopt;
  return out;
}

}  // namespace gs::test
