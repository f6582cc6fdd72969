// gdn_chunk_v1 on the cpu backend; see gdn_cpu_kernel.h.
#include "fla/gdn_cpu_kernel.h"

#include <algorithm>
#include <cstring>

#include "kernels/ref/gdn_ref.h"
#include "kernels/ref/gdn_v2_ref.h"
#include "kernels/gdn_v2_layout.h"

namespace gs {

namespace {
runtime_status fail(const std::string& why, const char* kernel = "gdn_chunk_v1") {
  return runtime_status::failure(kernel, 1, why);
}
}  // namespace

runtime_status run_gdn_chunk_v1_cpu(const cpu_launch& l, void** args) {
  auto q = launch_arg<const uint16_t*>(args, 0), k = launch_arg<const uint16_t*>(args, 1);
  auto v = launch_arg<const uint16_t*>(args, 2);
  auto g = launch_arg<const float*>(args, 3);
  auto beta = launch_arg<const uint16_t*>(args, 4);
  auto h0 = launch_arg<const float*>(args, 5);
  auto o = launch_arg<float*>(args, 6), ht = launch_arg<float*>(args, 7);
  gdn_shape s;
  s.T = launch_arg<int>(args, 9);
  s.H = launch_arg<int>(args, 10);
  s.HV = launch_arg<int>(args, 11);
  s.V = launch_arg<int>(args, 12);
  float scale = launch_arg<float>(args, 13);
  s.B = int(l.dims.grid[2]);
  s.K = l.define_int("GS_DK", 128);
  const int bv = l.define_int("GS_BV", 8), stages = l.define_int("GS_STAGES", 2);
  if (std::string why = s.invalid(); !why.empty()) return fail(why);
  if (stages < 1 || stages > 8) return fail("GS_STAGES must be 1..8");
  // The kernel gives each block one value head and GS_BV columns: a grid that does not cover
  // every (head, column) would leave outputs unwritten on a GPU. Say so instead of guessing.
  if (int(l.dims.grid[1]) != s.HV || uint64_t(l.dims.grid[0]) * bv < uint64_t(s.V))
    return fail("grid must be (ceil(V / GS_BV), HV, B)");
  if (!l.valid_range(q, s.qk_elems() * 2) || !l.valid_range(k, s.qk_elems() * 2) ||
      !l.valid_range(v, s.v_elems() * 2) || !l.valid_range(g, s.gate_elems() * 4) ||
      !l.valid_range(beta, s.gate_elems() * 2) || (h0 && !l.valid_range(h0, s.state_elems() * 4)))
    return illegal_address("gdn_chunk_v1", "input");
  if (!l.valid_range(o, s.v_elems() * 4) || !l.valid_range(ht, s.state_elems() * 4))
    return illegal_address("gdn_chunk_v1", "output");
  gdn_inputs in;
  in.shape = s;
  in.q.assign(q, q + s.qk_elems());
  in.k.assign(k, k + s.qk_elems());
  in.v.assign(v, v + s.v_elems());
  in.beta.assign(beta, beta + s.gate_elems());
  in.g.assign(g, g + s.gate_elems());
  if (h0) in.h0.assign(h0, h0 + s.state_elems());
  std::vector<float> out_o, out_ht;
  gdn_chunk_cpu(in, stages, scale, out_o, out_ht);
  std::memcpy(o, out_o.data(), out_o.size() * sizeof(float));
  std::memcpy(ht, out_ht.data(), out_ht.size() * sizeof(float));
  return runtime_status::success();
}

runtime_status run_gdn_v2_prep_cpu(const cpu_launch& l, void** args) {
  auto q = launch_arg<const uint16_t*>(args, 0), k = launch_arg<const uint16_t*>(args, 1);
  auto g = launch_arg<const float*>(args, 2);
  auto beta = launch_arg<const uint16_t*>(args, 3);
  auto prep = launch_arg<float*>(args, 4);
  gdn_shape s;
  s.T = launch_arg<int>(args, 5);
  s.H = launch_arg<int>(args, 6);
  s.HV = launch_arg<int>(args, 7);
  s.V = GDN2_BV;  // the prep kernel does not read v
  float scale = launch_arg<float>(args, 8);
  s.B = int(l.dims.grid[2]);
  s.K = l.define_int("GS_DK", 128);
  if (std::string why = s.invalid(); !why.empty()) return fail(why, "gdn_v2_prep");
  if (std::string why = gdn_v2_unsupported(s); !why.empty()) return fail(why, "gdn_v2_prep");
  if (int(l.dims.grid[1]) != s.HV || int(l.dims.grid[0]) != (s.T + GDN2_CHUNK - 1) / GDN2_CHUNK)
    return fail("grid must be (ceil(T / 64), HV, B)", "gdn_v2_prep");
  if (!l.valid_range(q, s.qk_elems() * 2) || !l.valid_range(k, s.qk_elems() * 2) ||
      !l.valid_range(g, s.gate_elems() * 4) || !l.valid_range(beta, s.gate_elems() * 2))
    return illegal_address("gdn_v2_prep", "input");
  if (!l.valid_range(prep, gdn_v2_prep_floats(s) * 4)) return illegal_address("gdn_v2_prep", "output");
  gdn_v2_prep_cpu(s, q, k, g, beta, scale, prep);
  return runtime_status::success();
}

runtime_status run_gdn_v2_state_cpu(const cpu_launch& l, void** args) {
  auto q = launch_arg<const uint16_t*>(args, 0), k = launch_arg<const uint16_t*>(args, 1);
  auto v = launch_arg<const uint16_t*>(args, 2);
  auto h0 = launch_arg<const float*>(args, 3), prep = launch_arg<const float*>(args, 4);
  auto o = launch_arg<float*>(args, 5), ht = launch_arg<float*>(args, 6);
  gdn_shape s;
  s.T = launch_arg<int>(args, 7);
  s.H = launch_arg<int>(args, 8);
  s.HV = launch_arg<int>(args, 9);
  s.V = launch_arg<int>(args, 10);
  s.B = int(l.dims.grid[2]);
  s.K = l.define_int("GS_DK", 128);
  if (std::string why = s.invalid(); !why.empty()) return fail(why, "gdn_v2_state");
  if (std::string why = gdn_v2_unsupported(s); !why.empty()) return fail(why, "gdn_v2_state");
  if (int(l.dims.grid[1]) != s.HV || int(l.dims.grid[0]) * GDN2_BV != s.V)
    return fail("grid must be (V / 16, HV, B)", "gdn_v2_state");
  if (!l.valid_range(q, s.qk_elems() * 2) || !l.valid_range(k, s.qk_elems() * 2) ||
      !l.valid_range(v, s.v_elems() * 2) || (h0 && !l.valid_range(h0, s.state_elems() * 4)) ||
      !l.valid_range(prep, gdn_v2_prep_floats(s) * 4))
    return illegal_address("gdn_v2_state", "input");
  if (!l.valid_range(o, s.v_elems() * 4) || !l.valid_range(ht, s.state_elems() * 4))
    return illegal_address("gdn_v2_state", "output");
  gdn_v2_state_cpu(s, q, k, v, h0, prep, o, ht);
  return runtime_status::success();
}

}  // namespace gs
