// CPU reference for nested (double) absmax quantization; see double_quant_ref.h.
#include "kernels/ref/double_quant_ref.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

namespace gs {
namespace {

const uint32_t dynamic_map_bits[256] = {
    0xbf7e3333u, 0xbf7a9999u, 0xbf770000u, 0xbf736666u, 0xbf6fccccu, 0xbf6c3333u, 0xbf68999au, 0xbf650000u,
    0xbf616666u, 0xbf5dccccu, 0xbf5a3333u, 0xbf569999u, 0xbf530000u, 0xbf4f6666u, 0xbf4bccccu, 0xbf483333u,
    0xbf44999au, 0xbf410000u, 0xbf3d6667u, 0xbf39cccdu, 0xbf363334u, 0xbf32999au, 0xbf2f0000u, 0xbf2b6667u,
    0xbf27cccdu, 0xbf243333u, 0xbf20999au, 0xbf1d0000u, 0xbf196666u, 0xbf15cccdu, 0xbf123334u, 0xbf0e999au,
    0xbf0b0000u, 0xbf076666u, 0xbf03cccdu, 0xbf003333u, 0xbef93334u, 0xbef20000u, 0xbeeaccccu, 0xbee3999au,
    0xbedc6666u, 0xbed53332u, 0xbece0000u, 0xbec6ccccu, 0xbebf999au, 0xbeb86666u, 0xbeb13332u, 0xbeaa0000u,
    0xbea2ccccu, 0xbe9b999au, 0xbe946666u, 0xbe8d3334u, 0xbe860000u, 0xbe7d999au, 0xbe6f3334u, 0xbe60cccdu,
    0xbe526666u, 0xbe440000u, 0xbe359999u, 0xbe273333u, 0xbe18cccdu, 0xbe0a6666u, 0xbdf80000u, 0xbddb3334u,
    0xbdc9eb85u, 0xbdc428f5u, 0xbdbe6667u, 0xbdb8a3d7u, 0xbdb2e148u, 0xbdad1eb8u, 0xbda75c28u, 0xbda1999au,
    0xbd9bd70au, 0xbd96147bu, 0xbd9051ebu, 0xbd8a8f5du, 0xbd84cccdu, 0xbd7e147au, 0xbd728f5du, 0xbd670a3du,
    0xbd5b851fu, 0xbd500000u, 0xbd447ae1u, 0xbd38f5c3u, 0xbd2d70a3u, 0xbd21eb85u, 0xbd166667u, 0xbd0ae147u,
    0xbcfeb852u, 0xbce7ae13u, 0xbcd0a3d7u, 0xbcb9999au, 0xbca28f5cu, 0xbc8b851fu, 0xbc68f5c3u, 0xbc3ae148u,
    0xbc1f3b64u, 0xbc160418u, 0xbc0ccccdu, 0xbc039581u, 0xbbf4bc6au, 0xbbe24dd3u, 0xbbcfdf3bu, 0xbbbd70a4u,
    0xbbab020du, 0xbb989374u, 0xbb8624ddu, 0xbb676c8au, 0xbb428f5cu, 0xbb1db22du, 0xbaf1a9fcu, 0xbaa7ef9du,
    0xba7765ffu, 0xba59e83eu, 0xba3c6a80u, 0xba1eecc1u, 0xba016f01u, 0xb9c7e283u, 0xb98ce705u, 0xb923d70bu,
    0xb8ba1f4bu, 0xb88aefb3u, 0xb8378034u, 0xb7b24206u, 0xb70205ffu, 0xb65a1a94u, 0xb513a3b7u, 0x00000000u,
    0x3513a3b7u, 0x365a1a94u, 0x370205ffu, 0x37b24206u, 0x38378034u, 0x388aefb3u, 0x38ba1f4bu, 0x3923d70bu,
    0x398ce705u, 0x39c7e283u, 0x3a016f01u, 0x3a1eecc1u, 0x3a3c6a80u, 0x3a59e83eu, 0x3a7765ffu, 0x3aa7ef9du,
    0x3af1a9fcu, 0x3b1db22du, 0x3b428f5cu, 0x3b676c8au, 0x3b8624ddu, 0x3b989374u, 0x3bab020du, 0x3bbd70a4u,
    0x3bcfdf3bu, 0x3be24dd3u, 0x3bf4bc6au, 0x3c039581u, 0x3c0ccccdu, 0x3c160418u, 0x3c1f3b64u, 0x3c3ae148u,
    0x3c68f5c3u, 0x3c8b851fu, 0x3ca28f5cu, 0x3cb9999au, 0x3cd0a3d7u, 0x3ce7ae13u, 0x3cfeb852u, 0x3d0ae147u,
    0x3d166667u, 0x3d21eb85u, 0x3d2d70a3u, 0x3d38f5c3u, 0x3d447ae1u, 0x3d500000u, 0x3d5b851fu, 0x3d670a3du,
    0x3d728f5du, 0x3d7e147au, 0x3d84cccdu, 0x3d8a8f5du, 0x3d9051ebu, 0x3d96147bu, 0x3d9bd70au, 0x3da1999au,
    0x3da75c28u, 0x3dad1eb8u, 0x3db2e148u, 0x3db8a3d7u, 0x3dbe6667u, 0x3dc428f5u, 0x3dc9eb85u, 0x3ddb3334u,
    0x3df80000u, 0x3e0a6666u, 0x3e18cccdu, 0x3e273333u, 0x3e359999u, 0x3e440000u, 0x3e526666u, 0x3e60cccdu,
    0x3e6f3334u, 0x3e7d999au, 0x3e860000u, 0x3e8d3334u, 0x3e946666u, 0x3e9b999au, 0x3ea2ccccu, 0x3eaa0000u,
    0x3eb13332u, 0x3eb86666u, 0x3ebf999au, 0x3ec6ccccu, 0x3ece0000u, 0x3ed53332u, 0x3edc6666u, 0x3ee3999au,
    0x3eeaccccu, 0x3ef20000u, 0x3ef93334u, 0x3f003333u, 0x3f03cccdu, 0x3f076666u, 0x3f0b0000u, 0x3f0e999au,
    0x3f123334u, 0x3f15cccdu, 0x3f196666u, 0x3f1d0000u, 0x3f20999au, 0x3f243333u, 0x3f27cccdu, 0x3f2b6667u,
    0x3f2f0000u, 0x3f32999au, 0x3f363334u, 0x3f39cccdu, 0x3f3d6667u, 0x3f410000u, 0x3f44999au, 0x3f483333u,
    0x3f4bccccu, 0x3f4f6666u, 0x3f530000u, 0x3f569999u, 0x3f5a3333u, 0x3f5dccccu, 0x3f616666u, 0x3f650000u,
    0x3f68999au, 0x3f6c3333u, 0x3f6fccccu, 0x3f736666u, 0x3f770000u, 0x3f7a9999u, 0x3f7e3333u, 0x3f800000u,
};

std::array<float, 256> make_dynamic_map() {
  std::array<float, 256> m{};
  for (int i = 0; i < 256; ++i) std::memcpy(&m[i], &dynamic_map_bits[i], sizeof(float));
  return m;
}

// A product rounded to float32 on its own. `volatile` keeps a compiler allowed to contract
// (-ffp-contract=fast with FMA hardware) from fusing it into the add that follows.
float mul_rn(float a, float b) {
  volatile float p = a * b;
  return p;
}

}  // namespace

const std::array<float, 256>& dynamic_map_avx2() {
  static const std::array<float, 256> m = make_dynamic_map();
  return m;
}

uint8_t dynamic_code(std::span<const float, 256> code, float x) {
  int pivot = 127, upper_pivot = 255, lower_pivot = 0;
  float lower = -1.0f, upper = 1.0f;
  float val = code[pivot];
  for (int i = 64; i > 0; i >>= 1) {  // pivots move by 64, 32, ..., 1
    if (x > val) {
      lower_pivot = pivot;
      lower = val;
      pivot += i;
    } else {
      upper_pivot = pivot;
      upper = val;
      pivot -= i;
    }
    val = code[pivot];
  }
  if (upper_pivot == 255) upper = code[upper_pivot];
  if (lower_pivot == 0) lower = code[lower_pivot];
  if (x > val) {
    float midpoint = (upper + val) * 0.5f;
    return uint8_t(x > midpoint ? upper_pivot : pivot);
  }
  float midpoint = (lower + val) * 0.5f;
  return uint8_t(x < midpoint ? lower_pivot : pivot);
}

blockwise8_result quantize_blockwise8_ref(std::span<const float> y, std::span<const float, 256> code, int blocksize) {
  const size_t n = y.size(), bs = size_t(blocksize);
  blockwise8_result r;
  r.q.resize(n);
  r.absmax.resize((n + bs - 1) / bs);
  for (size_t b = 0; b < r.absmax.size(); ++b) {
    const size_t begin = b * bs, end = std::min(n, begin + bs);
    float m = -FLT_MAX;
    for (size_t i = begin; i < end; ++i) m = std::fmax(m, std::fabs(y[i]));
    r.absmax[b] = m;
    const float inv = 1.0f / m;
    for (size_t i = begin; i < end; ++i) r.q[i] = dynamic_code(code, y[i] * inv);
  }
  return r;
}

float absmax_mean(std::span<const float> absmax) {
  if (absmax.empty()) return NAN;  // torch: mean of an empty tensor is NaN
  double s = 0;
  for (float v : absmax) s += v;
  return float(s / double(absmax.size()));
}

nested_absmax double_quant_ref(std::span<const float> absmax, std::span<const float, 256> code2, float offset,
                               int blocksize2) {
  nested_absmax r;
  r.offset = offset;
  r.blocksize2 = blocksize2;
  std::copy(code2.begin(), code2.end(), r.code2.begin());
  std::vector<float> y(absmax.size());
  for (size_t i = 0; i < y.size(); ++i) y[i] = absmax[i] - offset;  // torch float32 subtract
  blockwise8_result q = quantize_blockwise8_ref(y, code2, blocksize2);
  r.q = std::move(q.q);
  r.absmax2 = std::move(q.absmax);
  return r;
}

std::vector<float> nested_absmax_dequant_ref(std::span<const uint8_t> q, std::span<const float> absmax2,
                                             std::span<const float, 256> code2, float offset, int blocksize2) {
  std::vector<float> out(q.size());
  for (size_t i = 0; i < q.size(); ++i) {
    float scaled = mul_rn(code2[q[i]], absmax2[i / size_t(blocksize2)]);  // kDequantizeBlockwise General8bit
    out[i] = scaled + offset;                                            // then torch's `+ offset`
  }
  return out;
}

bool dynamic_code_tolerated(std::span<const float, 256> code, float y, float absmax2, uint8_t got, int ulps) {
  const float inv = 1.0f / absmax2;
  if (!std::isfinite(inv) || inv == 0.0f) return dynamic_code(code, y * inv) == got;
  float lo = inv, hi = inv;
  for (int s = 0; s <= ulps; ++s) {
    if (dynamic_code(code, y * lo) == got || dynamic_code(code, y * hi) == got) return true;
    lo = std::nextafter(lo, -INFINITY);
    hi = std::nextafter(hi, INFINITY);
  }
  return false;
}

}  // namespace gs
