// selftest.gpu_hang: see the header. If the synchronize ever returns, the kernel did not spin
// (a compiler that removed the loop, a runtime that does not wait): that is a `fail`, because
// the self-test then proves nothing.
#include "probes/gpu_hang_probe.h"

#include "probes/gpu_session.h"

namespace gs {
namespace {

probe_result run_gpu_hang(const probe_context& ctx) {
  probe_result r;
  r.id = "selftest.gpu_hang";
  gpu_session s(ctx, r);
  if (!s.open()) return r;
  module_handle mod;
  kernel_handle k;
  if (!s.compile("spin_forever.cu", {}, mod) || !s.kernel(mod, "spin_on_flag_v1", k)) return r;
  s.phase("launch");
  guarded_buffer flag;
  if (!s.check(flag.create(s.rt(), sizeof(unsigned))) || !s.check(flag.fill_u32(0))) return r;
  void* p = flag.ptr();
  void* args[] = {&p};
  launch_dims d;  // one thread in one block: enough to never finish
  if (!s.check(s.rt().launch(k, d, args))) return r;
  s.phase("sync");
  if (!s.check(s.rt().synchronize())) return r;
  s.finish(status::fail, "the spin kernel returned: the watchdog self-test could not make a GPU wait");
  return r;
}

}  // namespace

const probe_spec selftest_gpu_hang_probe = {
    "selftest.gpu_hang",
    "watchdog self-test on the GPU: a kernel spins on a flag that never flips; expect hang in sync",
    {},
    /*isolated=*/true,
    /*uses_gpu=*/true,
    run_gpu_hang,
};

}  // namespace gs
