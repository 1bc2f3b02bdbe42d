/* md5x8_simd.h - private to md5x8.c and the x86 kernel: the table of MD5-of-eight kernels
 * (see base/cpu.h). A kernel gives exactly RFC 1321's digests. */
#ifndef RP_MD5X8_SIMD_H
#define RP_MD5X8_SIMD_H

#include <stddef.h>
#include <stdint.h>

/** rp_md5x8() (md5x8.h), in one pass over the eight messages. */
typedef void (*rp_md5x8_fn)(const uint8_t *const msg[8], size_t len, uint8_t digest[8][16]);

typedef struct rp_md5x8_dsp {
    rp_md5x8_fn md5x8;
} rp_md5x8_dsp;

/** The table for the level in effect, or for a given level (tests). */
const rp_md5x8_dsp *rp_md5x8_dsp_get(void);
const rp_md5x8_dsp *rp_md5x8_dsp_level(int level);

/** Fill the x86 entries for a level (src/x86/md5x8_simd.c). */
void rp_md5x8_dsp_init_x86(rp_md5x8_dsp *c, int level);

#endif
