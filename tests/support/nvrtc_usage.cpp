// NVRTC compile with ptxas's report and the PTX; see nvrtc_usage.h.
#include "support/nvrtc_usage.h"

#include "core/text_scan.h"

namespace gs::test {

namespace {

/// The number right before `label` in `line` ("1024 bytes smem" with label " bytes smem").
unsigned number_before(std::string_view line, std::string_view label) {
  size_t at = line.find(label);
  if (at == std::string_view::npos) return 0;
  size_t start = at;
  while (start > 0 && line[start - 1] >= '0' && line[start - 1] <= '9') --start;
  return unsigned(scan::parse_u64(line.substr(start, at - start)).value_or(0));
}

size_t count_of(std::string_view text, std::string_view needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

nvrtc_usage_build nvrtc_build_with_usage(const vendor::nvrtc_api& api, const device_source& src,
                                         const std::string& arch) {
  nvrtc_usage_build b;
  using vendor::NVRTC_SUCCESS;
  // nvrtcGetPTX is not in the runtime's table (it only ever wants a CUBIN): looked up here.
  using size_fn = vendor::nvrtcResult (*)(vendor::nvrtcProgram, size_t*);
  using get_fn = vendor::nvrtcResult (*)(vendor::nvrtcProgram, char*);
  auto ptx_size = reinterpret_cast<size_fn>(api.lib.symbol("nvrtcGetPTXSize"));
  auto get_ptx = reinterpret_cast<get_fn>(api.lib.symbol("nvrtcGetPTX"));
  if (!ptx_size || !get_ptx) {
    b.message = api.lib.path() + " has no nvrtcGetPTX";
    return b;
  }
  // The runtime's options (nvrtc_compiler::compile), then ptxas's report.
  std::vector<std::string> options = {"--gpu-architecture=" + arch};
  for (std::string& d : define_options(src.defines)) options.push_back(std::move(d));
  options.push_back("--ptxas-options=-v");
  rtc_arrays c(src, options);
  vendor::nvrtcProgram prog = nullptr;
  if (api.nvrtcCreateProgram(&prog, src.source.c_str(), src.name.c_str(), c.header_count(), c.header_text.data(),
                             c.header_names.data()) != NVRTC_SUCCESS) {
    b.message = "nvrtcCreateProgram failed for " + src.name;
    return b;
  }
  vendor::nvrtcResult rc = api.nvrtcCompileProgram(prog, c.option_count(), c.options.data());
  size_t size = 0;
  std::string log;
  if (api.nvrtcGetProgramLogSize(prog, &size) == NVRTC_SUCCESS && size > 1) {
    log.resize(size);
    api.nvrtcGetProgramLog(prog, log.data());
    log.resize(size - 1);
  }
  if (rc == NVRTC_SUCCESS && ptx_size(prog, &size) == NVRTC_SUCCESS && size > 1) {
    b.ptx.resize(size);
    if (get_ptx(prog, b.ptx.data()) == NVRTC_SUCCESS)
      b.ptx.resize(size - 1);
    else
      b.ptx.clear();
  }
  api.nvrtcDestroyProgram(&prog);
  b.kernels = parse_ptxas_report(log);
  b.log = log;
  add_ptx_entry_facts(b.ptx, b.kernels);
  b.ok = rc == NVRTC_SUCCESS && !b.ptx.empty() && !b.kernels.empty();
  if (!b.ok) b.message = src.name + " for " + arch + ": rc " + std::to_string(rc) + ", log:\n" + log;
  return b;
}

std::vector<nvrtc_kernel_usage> parse_ptxas_report(std::string_view log) {
  std::vector<nvrtc_kernel_usage> out;
  for (std::string_view line : scan::lines(log)) {
    if (size_t at = line.find("Compiling entry function '"); at != std::string_view::npos) {
      std::string_view rest = line.substr(at + 26);
      out.push_back({});
      out.back().name = std::string(rest.substr(0, rest.find('\'')));
    } else if (out.empty()) {
      continue;
    } else if (line.find(" bytes stack frame") != std::string_view::npos) {
      out.back().stack_bytes = number_before(line, " bytes stack frame");
      out.back().spill_store_bytes = number_before(line, " bytes spill stores");
      out.back().spill_load_bytes = number_before(line, " bytes spill loads");
    } else if (line.find("Used ") != std::string_view::npos && line.find(" registers") != std::string_view::npos) {
      out.back().registers = int(number_before(line, " registers"));
      out.back().smem_bytes = number_before(line, " bytes smem");
    }
  }
  return out;
}

void add_ptx_entry_facts(std::string_view ptx, std::vector<nvrtc_kernel_usage>& kernels) {
  // An entry runs from ".entry NAME(" to the next ".entry" (helpers are inlined into it).
  for (size_t at = ptx.find(".entry "); at != std::string_view::npos;) {
    size_t name_start = at + 7, next = ptx.find(".entry ", name_start);
    std::string_view body = ptx.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at);
    std::string name(ptx.substr(name_start, ptx.find('(', name_start) - name_start));
    for (nvrtc_kernel_usage& k : kernels) {
      if (k.name != name) continue;
      k.mma_sync = int(count_of(body, "mma.sync"));
      if (size_t m = body.find(".maxntid "); m != std::string_view::npos) {
        int threads = 1;
        for (std::string_view dim : scan::split(body.substr(m + 9, body.find('\n', m) - m - 9), ','))
          threads *= int(scan::parse_u64(dim).value_or(1));
        k.max_threads = threads;
      }
    }
    at = next;
  }
}

}  // namespace gs::test
