// The shared open / compile / buffer / failure handling of the kernel probes; see gpu_session.h.
#include "probes/gpu_session.h"

#include <climits>

#include "probes/probe_options.h"

#include <cstdlib>
#include <vector>

#include "core/assets.h"

namespace gs {

bool gpu_session::open() {
  phase("load");
  runtime_status why;
  std::unique_ptr<runtime> rt = open_runtime(ctx_.device, why);
  if (!rt) {
    std::string reason = why.message.empty() ? why.call : why.message;
    finish(status::skip, "no GPU could be opened for device '" + ctx_.device + "': " + reason);
    result_.data["open_error"] = {{"call", why.call}, {"code", why.code}, {"message", why.message}};
    return false;
  }
  if (ctx_.device == "auto" && rt->props().backend == "cpu") {
    finish(status::skip, (why.message.empty() ? std::string("no GPU found, auto chose the cpu backend") : why.message) +
                             "; --device cpu runs this probe on the CPU references");
    return false;
  }
  adopt(std::move(rt));
  return true;
}

void gpu_session::adopt(std::unique_ptr<runtime> rt) {
  rt_ = std::move(rt);
  const device_props& p = rt_->props();
  result_.data["device"] = {{"backend", p.backend}, {"name", p.name}, {"arch", p.arch},
                            {"wave_size", p.wave_size}, {"compiler", p.compiler}};
}

bool gpu_session::compile(std::string_view file, const std::vector<std::string>& defines, module_handle& mod,
                          bool arch_specific) {
  phase("compile");
  std::string path = "kernels/" + std::string(file);
  std::optional<std::string_view> text = find_asset(path);
  if (!text) {
    finish(status::error, path + " is not embedded in this binary");
    return false;
  }
  compile_request req;
  req.name = std::string(file);
  req.source = std::string(*text);
  req.defines.push_back("GS_WARP_SIZE=" + std::to_string(props().wave_size));
  req.defines.insert(req.defines.end(), defines.begin(), defines.end());
  req.arch_specific = arch_specific;
  compiled_code code;
  if (!check(rt_->compile(req, code))) return false;
  result_.data["kernel_source"] = {{"file", path}, {"cache_key", code.cache_key}, {"from_cache", code.from_cache}};
  if (!code.log.empty()) result_.data["kernel_source"]["compiler_log"] = code.log;
  return check(rt_->load(code, mod));
}

bool gpu_session::kernel(module_handle mod, const std::string& name, kernel_handle& k) {
  return check(rt_->get_kernel(mod, name, k));
}

void gpu_session::phase(std::string_view p) {
  ctx_.phase(p);
  result_.phase = std::string(p);
}

bool gpu_session::check(const runtime_status& st) {
  if (st.ok) return true;
  finish(status::fail, st.call + " failed in phase " + result_.phase + ": " + st.message);
  result_.data["runtime_error"] = {{"call", st.call}, {"code", st.code}, {"message", st.message}};
  return false;
}

void gpu_session::finish(status s, std::string detail) {
  result_.outcome = s;
  result_.detail = std::move(detail);
}

long long option_int(const probe_context& ctx, const std::string& key, long long fallback, long long lo, long long hi) {
  auto it = ctx.options.find(key);
  if (it == ctx.options.end()) return fallback;
  char* end = nullptr;
  long long v = std::strtoll(it->second.c_str(), &end, 0);
  if (it->second.empty() || *end != '\0' || v < lo || v > hi) return fallback;
  return v;
}

long long option_int(const probe_context& ctx, const std::string& key, long long fallback) {
  // The command line checked the value against the table; the same range holds here.
  const probe_option_spec* spec = find_probe_option(ctx.probe_id, key);
  return spec ? option_int(ctx, key, fallback, spec->lo, spec->hi) : option_int(ctx, key, fallback, LLONG_MIN, LLONG_MAX);
}

std::string option_text(const probe_context& ctx, const std::string& key, const std::string& fallback) {
  auto it = ctx.options.find(key);
  return it == ctx.options.end() ? fallback : it->second;
}

guarded_buffer::~guarded_buffer() {
  if (rt_ && whole_.ptr) rt_->free(whole_);
}

runtime_status guarded_buffer::create(runtime& rt, size_t bytes) {
  rt_ = &rt;
  bytes_ = bytes;
  runtime_status st = rt.alloc(bytes + 2 * guard_bytes, whole_);
  if (!st.ok) return st;
  std::vector<unsigned char> guard(guard_bytes, guard_byte);
  st = rt.copy_to_device(whole_, guard.data(), guard_bytes);
  if (!st.ok) return st;
  return rt.copy_to_device({static_cast<char*>(ptr()) + bytes_, guard_bytes}, guard.data(), guard_bytes);
}

runtime_status guarded_buffer::upload(const void* src) {
  return rt_->copy_to_device({ptr(), bytes_}, src, bytes_);
}

runtime_status guarded_buffer::download(void* dst) const {
  return rt_->copy_to_host(dst, {ptr(), bytes_}, bytes_);
}

runtime_status guarded_buffer::fill_u32(uint32_t pattern) {
  std::vector<uint32_t> host((bytes_ + 3) / 4, pattern);
  return rt_->copy_to_device({ptr(), bytes_}, host.data(), bytes_);
}

runtime_status guarded_buffer::check_guards(bool& intact) const {
  std::vector<unsigned char> front(guard_bytes), back(guard_bytes);
  runtime_status st = rt_->copy_to_host(front.data(), whole_, guard_bytes);
  if (!st.ok) return st;
  st = rt_->copy_to_host(back.data(), {static_cast<char*>(ptr()) + bytes_, guard_bytes}, guard_bytes);
  if (!st.ok) return st;
  intact = true;
  for (size_t i = 0; i < guard_bytes; ++i) intact = intact && front[i] == guard_byte && back[i] == guard_byte;
  return st;
}

}  // namespace gs
