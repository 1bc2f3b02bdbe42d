/* md5x8.h - private: MD5 (RFC 1321) of eight messages of the same length at once, one per
 * 32-bit lane of AVX2 registers, for framemd5 where every frame has the same size. A single
 * MD5 stream is one long chain of dependent steps; eight independent chains in one register
 * do more per cycle on one core. */
#ifndef RP_MD5X8_H
#define RP_MD5X8_H

#include <stddef.h>
#include <stdint.h>

/** 1 when this build has the AVX2 kernel and the level in effect allows it
 * (from the module's table, so rp_simd_set() caps it), else 0. */
int rp_md5x8_available(void);

/** digest[i] = MD5 of the len bytes at msg[i], for i = 0..7: the 16 digest bytes in the
 * order md5sum prints them. Any len (0 included); no alignment needed; pointers may repeat
 * (a batch of fewer than eight fills the unused lanes with any valid pointer). Meant for
 * when rp_md5x8_available() is 1; otherwise it hashes the eight one after another with
 * libavutil's MD5, to the same digests. */
void rp_md5x8(const uint8_t *const msg[8], size_t len, uint8_t digest[8][16]);

#endif
