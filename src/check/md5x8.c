/* md5x8.c - MD5 (RFC 1321) of eight equal-length messages at once (see md5x8.h): the
 * AVX2 kernel of the module's table (md5x8_simd.h, src/x86/md5x8_simd.c) where the level
 * allows it, else libavutil's MD5 one message at a time (other CPUs and architectures,
 * -DRP_NO_SIMD, rp_simd_set() below AVX2), to the same digests. */
#include "check/md5x8.h"

#include <libavutil/md5.h>

#include "base/cpu.h"
#include "check/md5x8_simd.h"

RP_DSP_TABLES(md5x8)

int rp_md5x8_available(void)
{
    return rp_md5x8_dsp_get()->md5x8 != NULL;
}

void rp_md5x8(const uint8_t *const msg[8], size_t len, uint8_t digest[8][16])
{
    rp_md5x8_fn kernel = rp_md5x8_dsp_get()->md5x8;
    if (kernel) {
        kernel(msg, len, digest);
        return;
    }
    for (int i = 0; i < 8; i++)
        av_md5_sum(digest[i], msg[i], len);
}
