// What every kernel probe does the same way: open the runtime for --device (phase "load"),
// compile and load one kernels/*.cu for the device's arch (phase "compile"), hold guarded
// buffers, and turn the first failing runtime call into the probe's result. A device that
// cannot be opened makes the probe `skip` with the reason, never `pass`.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "probes/probe.h"
#include "runtime/runtime.h"

namespace gs {

/// One probe's use of one runtime. Every method that can fail returns false after writing the
/// outcome (skip / fail / error), the phase and the vendor's words into the result.
class gpu_session {
 public:
  gpu_session(const probe_context& ctx, probe_result& result) : ctx_(ctx), result_(result) {}

  /// Phase "load": open_runtime(ctx.device). `auto` that finds no GPU is a skip too: the GPU
  /// probes exist to test a GPU, and `--device cpu` is how to run them on the references.
  bool open();
  /// Use an already open runtime (tests hand in open_cpu_runtime()).
  void adopt(std::unique_ptr<runtime> rt);
  runtime& rt() { return *rt_; }
  const device_props& props() const { return rt_->props(); }

  /// Phase "compile": kernels/<file> from the embedded assets, with GS_WARP_SIZE set from the
  /// device and `defines` added (`arch_specific`: compile_request::arch_specific, sm_90a); then
  /// load it.
  bool compile(std::string_view file, const std::vector<std::string>& defines, module_handle& mod,
               bool arch_specific = false);
  /// Look up an extern "C" kernel in a loaded module.
  bool kernel(module_handle mod, const std::string& name, kernel_handle& k);

  /// Enter a phase ("launch", "sync", "verify") and record it in the result.
  void phase(std::string_view p);
  /// "Still alive" during long host-side work (checking large outputs).
  void heartbeat() { ctx_.heartbeat(); }
  /// True when `st` is ok; otherwise the result becomes `fail` with "<call>: <message>".
  bool check(const runtime_status& st);
  /// Set the outcome and the one-line detail.
  void finish(status s, std::string detail);

 private:
  const probe_context& ctx_;
  probe_result& result_;
  std::unique_ptr<runtime> rt_;
};

/// A --set key=value option as an integer within its range in probes/probe_options.cpp, else `fallback`.
long long option_int(const probe_context& ctx, const std::string& key, long long fallback);
/// The same for options gpustack sets itself (probe fla's fla.* keys), not the user: within [lo, hi].
long long option_int(const probe_context& ctx, const std::string& key, long long fallback, long long lo, long long hi);
/// A --set key=value option as text, else `fallback`.
std::string option_text(const probe_context& ctx, const std::string& key, const std::string& fallback);

/// A device allocation with guard bytes on both sides (research/aesthetics.md (b)5). The guards
/// hold a known pattern, so a kernel that writes past either end of its output is caught.
class guarded_buffer {
 public:
  static constexpr size_t guard_bytes = 4096;
  static constexpr unsigned char guard_byte = 0xa5;

  guarded_buffer() = default;
  guarded_buffer(const guarded_buffer&) = delete;
  guarded_buffer& operator=(const guarded_buffer&) = delete;
  ~guarded_buffer();

  /// Allocate `bytes` plus the guards and write the guard pattern.
  runtime_status create(runtime& rt, size_t bytes);
  /// The device address of the first usable byte (what a kernel argument points at).
  void* ptr() const { return static_cast<char*>(whole_.ptr) + guard_bytes; }
  size_t bytes() const { return bytes_; }
  runtime_status upload(const void* src);
  runtime_status download(void* dst) const;
  /// Fill the usable part with a 32-bit pattern (outputs: unwritten_bits before the launch).
  runtime_status fill_u32(uint32_t pattern);
  /// Read both guards back; `intact` is false when any byte changed.
  runtime_status check_guards(bool& intact) const;

 private:
  runtime* rt_ = nullptr;
  buffer whole_;
  size_t bytes_ = 0;
};

}  // namespace gs
