// gdn_v2_layout.h: the shapes kernels/gdn_chunk_v2.cu and its host code agree on (this header
// is read by both: plain C++ without GS_CUDA/GS_HIP). Sizes in bytes; the kernel checks its
// structs against these with static_assert, so host and device cannot drift.
#pragma once
#include "gs_device.h"

#define GDN2_CHUNK 64  // chunk length, as FLA's default path
#define GDN2_TR 16     // rows per pipelined tile of the state kernel: one matrix-unit M
#define GDN2_BV 16     // value columns per state-kernel block: one matrix-unit N
#define GDN2_KS 32     // K columns per pipelined slice of the prep kernel
#define GDN2_PAD 8     // bf16 of padding per shared row: rows land 4 banks apart, 16-byte aligned

/// Prep outputs per (sequence, value head, chunk), in the space of 2 x 64 x 64 + 3 x 64 floats:
/// U = (I + A)^-1 diag(beta) and P as bf16 hi and lo planes (U_hi, U_lo, P_hi, P_lo, each 64 x 64
/// gs_u16: the state kernel feeds them to the matrix unit as they are), then G (gate cumsum),
/// rk, rq (norm factors), 64 fp32 each.
GS_HD constexpr unsigned long long gdn2_prep_floats_per_chunk() { return 2ull * GDN2_CHUNK * GDN2_CHUNK + 3ull * GDN2_CHUNK; }
/// Offsets of the planes in gs_u16 units from the chunk's start, and of the scalars in floats.
#define GDN2_U_HI 0
#define GDN2_U_LO (GDN2_CHUNK * GDN2_CHUNK)
#define GDN2_P_HI (2 * GDN2_CHUNK * GDN2_CHUNK)
#define GDN2_P_LO (3 * GDN2_CHUNK * GDN2_CHUNK)
#define GDN2_SCAL (2 * GDN2_CHUNK * GDN2_CHUNK)

/// One ring slot of the prep kernel: q and k, 64 rows x GDN2_KS columns.
GS_HD constexpr unsigned gdn2_prep_slot_bytes() { return 2u * GDN2_CHUNK * (GDN2_KS + GDN2_PAD) * 2u; }
/// A and its inverse in fp32 ([64][65]: the odd stride keeps columns on different banks).
GS_HD constexpr unsigned gdn2_prep_solve_bytes() { return 2u * GDN2_CHUNK * (GDN2_CHUNK + 1) * 4u; }
/// G, beta, rk, rq and the two sums of squares, 64 fp32 each.
GS_HD constexpr unsigned gdn2_prep_scalar_bytes() { return 6u * GDN2_CHUNK * 4u; }
GS_HD constexpr unsigned gdn2_prep_smem_bytes(int stages) {
  return (stages * gdn2_prep_slot_bytes() > gdn2_prep_solve_bytes() ? stages * gdn2_prep_slot_bytes()
                                                                    : gdn2_prep_solve_bytes()) +
         gdn2_prep_scalar_bytes();
}

/// bf16 stride of the U and P rows a state-kernel slot may carry: 72 keeps rows 16-byte aligned
/// for async copies and 4 banks apart.
#define GDN2_UP_STRIDE (GDN2_CHUNK + GDN2_PAD)
/// One ring slot of the state kernel: q and k rows (GDN2_TR x (dk + pad) bf16), v (GDN2_TR x
/// GDN2_BV bf16), G, rk, rq of those rows and G at the chunk's end (padded to 16 bytes); with
/// `up` (GS_V2_RING_UP=1) also the tile's rows of U and P as hi/lo planes, so the wave that
/// multiplies by them reads shared memory instead of waiting on L2 in the middle of the tile.
GS_HD constexpr unsigned gdn2_state_slot_bytes(int dk, bool up) {
  return 2u * GDN2_TR * (dk + GDN2_PAD) * 2u + GDN2_TR * GDN2_BV * 2u + 3u * GDN2_TR * 4u + 16u +
         (up ? 4u * GDN2_TR * GDN2_UP_STRIDE * 2u : 0u);
}
/// The state kernel's fixed part: split (hi, lo) copies of what meets the matrix unit as the B
/// operand, stored n-major (one row per value column, k contiguous, rows padded by GDN2_PAD):
/// S [16][dk], the chunk's rhs' and v_new [16][64], the tile's kd-weighted v_new [16][16]; then
/// two partial 16 x 16 fp32 products (waves 1 and 3 hand theirs to waves 0 and 2).
GS_HD constexpr unsigned gdn2_state_fixed_bytes(int dk) {
  return 2u * GDN2_BV * 2u * (unsigned)((dk + GDN2_PAD) + 2 * (GDN2_CHUNK + GDN2_PAD) + (GDN2_TR + GDN2_PAD)) +
         2u * GDN2_TR * GDN2_TR * 4u;
}
GS_HD constexpr unsigned gdn2_state_smem_bytes(int stages, int dk, bool up) {
  return stages * gdn2_state_slot_bytes(dk, up) + gdn2_state_fixed_bytes(dk);
}
