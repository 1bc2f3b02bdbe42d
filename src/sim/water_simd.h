/* water_simd.h - private to water.c and the x86 kernels: the step's table of vector
 * kernels (see base/cpu.h). Each kernel computes exactly what water.c's plain loop (the
 * step's step_span, the viscosity pass's viscosity_rows) computes, byte for byte. */
#ifndef RP_WATER_SIMD_H
#define RP_WATER_SIMD_H

#include <stdint.h>

#include "sim/water.h"

/** A step kernel: for cells 0..k-1 of one row, out[i] = sat16(damp(S - out[i])), S the
 * stencil over u, m, d (the rows above, at and below; m[-1] and m[k] are read, and u[-1],
 * d[k] etc. for the 8-cell stencils). n is the row's cell count; k, the count done, is n,
 * or 0 for rows shorter than one vector (8 cells); the caller finishes cells k..n-1.
 *
 * Magnitudes: mag(v) = v ^ (v >> 15), i.e. v for v >= 0 and -1 - v below. in_mag must be
 * at least the largest mag of every cell the kernel reads (the three rows of cur and the
 * row of prev); when it is small the kernel takes an exact int16 path. *out_mag receives
 * the largest mag of the cells written (0 if none). */
typedef int (*rp_span_fn)(const int16_t *u, const int16_t *m, const int16_t *d, int16_t *out, int n,
                          int shift, int32_t q16, int in_mag, int *out_mag);

/* How a step damps (damp() in water.c): n - (n >> shift) for shift 1..30, trunc(n * q16 /
 * 65536) for q16 0 < q16 < 65536, or not at all (q16 = 65536). */
enum rp_damp_kind { RP_DAMP_SHIFT, RP_DAMP_Q16, RP_DAMP_NONE, RP_DAMP_KINDS };

/** A viscosity kernel: for cells 0..k-1 of one row, out[i] = m[i] + ((lap * v + 2^15) >>
 * 16) with lap = u[i] + d[i] + m[i - 1] + m[i + 1] - 4 m[i] and the product in 64 bits
 * (water.c viscosity_rows), for 0 <= v <= 16384; m[-1] and m[n] are read. Returns k, a
 * multiple of the vector's width up to n; the caller finishes cells k..n-1. */
typedef int (*rp_visc_fn)(const int16_t *u, const int16_t *m, const int16_t *d, int16_t *out, int n,
                          int32_t v);

typedef struct rp_water_dsp {
    rp_span_fn span[RP_STENCIL_ISO + 1][RP_DAMP_KINDS]; /* by stencil and damping */
    rp_visc_fn viscosity;
} rp_water_dsp;

/** The table for the level in effect, or for a given level (tests). */
const rp_water_dsp *rp_water_dsp_get(void);
const rp_water_dsp *rp_water_dsp_level(int level);

/** Fill the x86 entries for a level (src/x86/water_simd.c), or the WebAssembly ones
 * (src/wasm/water_simd.c); each is a no-op off its architecture. */
void rp_water_dsp_init_x86(rp_water_dsp *c, int level);
void rp_water_dsp_init_wasm(rp_water_dsp *c, int level);

/** For tests: 1 if every per-row magnitude bound the step keeps for the kernels (see
 * water.c) holds for both buffers, else 0. */
int rp_water_bounds_hold(const rp_water *w);

/** For tests: one step of the one-step loop (rp_water_steps' reference). */
void rp_water_step_unblocked(rp_water *w, rp_pool *pool);

#endif
