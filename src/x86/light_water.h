/* light_water.h - private to src/x86: look water's row kernels, one per vector width
 * (look/light_water_body.h compiled by light_water_avx2.c, light_water_avx512.c and, with
 * AVX512VBMI, light_water_avx512icl.c), which light_water_simd.c puts in the light's table. */
#ifndef RP_X86_LIGHT_WATER_H
#define RP_X86_LIGHT_WATER_H

#include <stdint.h>

#include "look/light_simd.h"

/* Pixels x0..x1-1 of row r->y, in groups of 8 or 16 pixels (x1 at least that), as
 * rp_light_water_fn, with no row past the frame (r's odd_* flags 0). */
int rp_light_water_row_avx2(const rp_light *l, const struct rp_light_frame *f,
                            const struct rp_light_wrows *r, int x0, int x1, const uint8_t *bg,
                            uint8_t *out, int rgba);
int rp_light_water_row_avx512(const rp_light *l, const struct rp_light_frame *f,
                              const struct rp_light_wrows *r, int x0, int x1, const uint8_t *bg,
                              uint8_t *out, int rgba);
int rp_light_water_row_avx512icl(const rp_light *l, const struct rp_light_frame *f,
                                 const struct rp_light_wrows *r, int x0, int x1, const uint8_t *bg,
                                 uint8_t *out, int rgba);

#endif
