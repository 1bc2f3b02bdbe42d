/* md5x8_simd.c - the AVX2 kernel of MD5 (RFC 1321) of eight equal-length messages at once
 * (check/md5x8.c). Message i is in 32-bit lane i of the four state registers, so one
 * instruction does a step of all eight; each lane's 64-byte block is read with unaligned
 * 256-bit loads and turned into sixteen registers of "word j of every lane" by 8x8
 * transposes (gathers are slow on AMD). Full blocks come straight from the messages; the
 * padded tail, the same one or two blocks for every lane since the lengths are equal, from
 * a local buffer. One step depends on the one before, so the kernel is bound by that
 * chain's latency; the steps below are arranged to keep it short. Built with `target`
 * attributes (no -m flags). */
#include "check/md5x8_simd.h"

#include <string.h>

#include "base/cpu.h"

#ifdef RP_HAVE_X86_KERNELS
#include <immintrin.h>

/* RFC 1321's T[i] = floor(2^32 * |sin(i + 1)|) and initial state (the rotate amounts are
 * written in compress8's steps). */
static const uint32_t md5_k[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};
static const uint32_t md5_init[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};

static void store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* The end of a message as MD5 pads it: the last len % 64 bytes, 0x80, zeros, and the length
 * in bits as 64 bits little-endian, filling 1 block (rest < 56) or 2. Returns the count. */
static size_t pad_tail(uint8_t tail[128], const uint8_t *msg, size_t len)
{
    size_t rest = len % 64, blocks = rest < 56 ? 1 : 2;
    uint64_t bits = (uint64_t)len << 3;

    memset(tail, 0, 128);
    if (rest)
        memcpy(tail, msg + (len - rest), rest);
    tail[rest] = 0x80;
    for (int i = 0; i < 8; i++)
        tail[blocks * 64 - 8 + i] = (uint8_t)(bits >> (8 * i));
    return blocks;
}

#define AVX2 __attribute__((target("avx2")))

/* The round functions F, H and I, written so that one or two operations wait on b, the
 * value the previous step just made. G goes in two parts (STEP_G). */
static AVX2 inline __m256i fun_f(__m256i b, __m256i c, __m256i d)
{
    return _mm256_xor_si256(d, _mm256_and_si256(b, _mm256_xor_si256(c, d)));
}

static AVX2 inline __m256i fun_h(__m256i b, __m256i c, __m256i d)
{
    return _mm256_xor_si256(b, _mm256_xor_si256(c, d));
}

static AVX2 inline __m256i fun_i(__m256i b, __m256i c, __m256i d)
{
    return _mm256_xor_si256(c, _mm256_or_si256(b, _mm256_xor_si256(d, _mm256_set1_epi32(-1))));
}

/* x rotated left by s: two shifts and an or (AVX2 has no vector rotate), or by 16 one byte
 * shuffle (rot16, a local of compress8). */
#define ROTL(x, s)                                                                                 \
    ((s) == 16 ? _mm256_shuffle_epi8(x, rot16)                                                     \
               : _mm256_or_si256(_mm256_slli_epi32(x, s), _mm256_srli_epi32(x, 32 - (s))))

/* Step k: a = b + rotl(a + f + T[k] + w, s), where `early` is a plus any part of f that does
 * not depend on b, and `late` the rest of f. early + T[k] + w is summed first: it is known
 * steps ahead, so only `late` and what follows lie on the chain from one step to the next.
 * The empty asm keeps that sum whole: gcc otherwise reassociates the adds to put a + f
 * first, one more add on the chain. */
#define STEP_SPLIT(early, late, a, b, w, k, s)                                                     \
    do {                                                                                           \
        __m256i t_ = _mm256_add_epi32(early, _mm256_add_epi32(w, kv[k]));                          \
        __asm__("" : "+x"(t_));                                                                    \
        t_ = _mm256_add_epi32(t_, late);                                                           \
        a = _mm256_add_epi32(b, ROTL(t_, s));                                                      \
    } while (0)
#define STEP(f, a, b, c, d, w, k, s) STEP_SPLIT(a, f(b, c, d), a, b, w, k, s)
/* G = (b & d) | (c & ~d): the two parts share no bit, so the | is a +, and c & ~d, which
 * does not wait on b, joins the early sum. */
#define STEP_G(a, b, c, d, w, k, s)                                                                \
    STEP_SPLIT(_mm256_add_epi32(a, _mm256_andnot_si256(d, c)), _mm256_and_si256(b, d), a, b, w, k, \
               s)

/* RFC 1321's 64 steps over one block of each lane; w[j] holds word j of every lane, kv[k]
 * T[k] in every lane. */
static AVX2 void compress8(__m256i st[4], const __m256i w[16], const __m256i kv[64])
{
    const __m256i rot16 = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2,
                                           3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
    __m256i a = st[0], b = st[1], c = st[2], d = st[3];

    STEP(fun_f, a, b, c, d, w[0], 0, 7);
    STEP(fun_f, d, a, b, c, w[1], 1, 12);
    STEP(fun_f, c, d, a, b, w[2], 2, 17);
    STEP(fun_f, b, c, d, a, w[3], 3, 22);
    STEP(fun_f, a, b, c, d, w[4], 4, 7);
    STEP(fun_f, d, a, b, c, w[5], 5, 12);
    STEP(fun_f, c, d, a, b, w[6], 6, 17);
    STEP(fun_f, b, c, d, a, w[7], 7, 22);
    STEP(fun_f, a, b, c, d, w[8], 8, 7);
    STEP(fun_f, d, a, b, c, w[9], 9, 12);
    STEP(fun_f, c, d, a, b, w[10], 10, 17);
    STEP(fun_f, b, c, d, a, w[11], 11, 22);
    STEP(fun_f, a, b, c, d, w[12], 12, 7);
    STEP(fun_f, d, a, b, c, w[13], 13, 12);
    STEP(fun_f, c, d, a, b, w[14], 14, 17);
    STEP(fun_f, b, c, d, a, w[15], 15, 22);

    STEP_G(a, b, c, d, w[1], 16, 5);
    STEP_G(d, a, b, c, w[6], 17, 9);
    STEP_G(c, d, a, b, w[11], 18, 14);
    STEP_G(b, c, d, a, w[0], 19, 20);
    STEP_G(a, b, c, d, w[5], 20, 5);
    STEP_G(d, a, b, c, w[10], 21, 9);
    STEP_G(c, d, a, b, w[15], 22, 14);
    STEP_G(b, c, d, a, w[4], 23, 20);
    STEP_G(a, b, c, d, w[9], 24, 5);
    STEP_G(d, a, b, c, w[14], 25, 9);
    STEP_G(c, d, a, b, w[3], 26, 14);
    STEP_G(b, c, d, a, w[8], 27, 20);
    STEP_G(a, b, c, d, w[13], 28, 5);
    STEP_G(d, a, b, c, w[2], 29, 9);
    STEP_G(c, d, a, b, w[7], 30, 14);
    STEP_G(b, c, d, a, w[12], 31, 20);

    STEP(fun_h, a, b, c, d, w[5], 32, 4);
    STEP(fun_h, d, a, b, c, w[8], 33, 11);
    STEP(fun_h, c, d, a, b, w[11], 34, 16);
    STEP(fun_h, b, c, d, a, w[14], 35, 23);
    STEP(fun_h, a, b, c, d, w[1], 36, 4);
    STEP(fun_h, d, a, b, c, w[4], 37, 11);
    STEP(fun_h, c, d, a, b, w[7], 38, 16);
    STEP(fun_h, b, c, d, a, w[10], 39, 23);
    STEP(fun_h, a, b, c, d, w[13], 40, 4);
    STEP(fun_h, d, a, b, c, w[0], 41, 11);
    STEP(fun_h, c, d, a, b, w[3], 42, 16);
    STEP(fun_h, b, c, d, a, w[6], 43, 23);
    STEP(fun_h, a, b, c, d, w[9], 44, 4);
    STEP(fun_h, d, a, b, c, w[12], 45, 11);
    STEP(fun_h, c, d, a, b, w[15], 46, 16);
    STEP(fun_h, b, c, d, a, w[2], 47, 23);

    STEP(fun_i, a, b, c, d, w[0], 48, 6);
    STEP(fun_i, d, a, b, c, w[7], 49, 10);
    STEP(fun_i, c, d, a, b, w[14], 50, 15);
    STEP(fun_i, b, c, d, a, w[5], 51, 21);
    STEP(fun_i, a, b, c, d, w[12], 52, 6);
    STEP(fun_i, d, a, b, c, w[3], 53, 10);
    STEP(fun_i, c, d, a, b, w[10], 54, 15);
    STEP(fun_i, b, c, d, a, w[1], 55, 21);
    STEP(fun_i, a, b, c, d, w[8], 56, 6);
    STEP(fun_i, d, a, b, c, w[15], 57, 10);
    STEP(fun_i, c, d, a, b, w[6], 58, 15);
    STEP(fun_i, b, c, d, a, w[13], 59, 21);
    STEP(fun_i, a, b, c, d, w[4], 60, 6);
    STEP(fun_i, d, a, b, c, w[11], 61, 10);
    STEP(fun_i, c, d, a, b, w[2], 62, 15);
    STEP(fun_i, b, c, d, a, w[9], 63, 21);

    st[0] = _mm256_add_epi32(st[0], a);
    st[1] = _mm256_add_epi32(st[1], b);
    st[2] = _mm256_add_epi32(st[2], c);
    st[3] = _mm256_add_epi32(st[3], d);
}

/* w[j] = word j of lanes 0..7 for j = 0..7, from the 32 bytes at p[i] + at of each lane i: an
 * 8x8 transpose of 32-bit words. Pairs of lanes are interleaved by 32 then 64 bits within
 * 128-bit halves, then the halves recombined. Written out: gcc leaves loops here rolled,
 * through the stack. */
static AVX2 inline void load_words(__m256i w[8], const uint8_t *const p[8], size_t at)
{
#define LOAD(i) _mm256_loadu_si256((const __m256i *)(const void *)(p[i] + at))
    __m256i r0 = LOAD(0), r1 = LOAD(1), r2 = LOAD(2), r3 = LOAD(3);
    __m256i r4 = LOAD(4), r5 = LOAD(5), r6 = LOAD(6), r7 = LOAD(7);
#undef LOAD
    /* words 0 1 | 4 5 (t0) and 2 3 | 6 7 (t1) of lanes 0 and 1 interleaved, and so on */
    __m256i t0 = _mm256_unpacklo_epi32(r0, r1), t1 = _mm256_unpackhi_epi32(r0, r1);
    __m256i t2 = _mm256_unpacklo_epi32(r2, r3), t3 = _mm256_unpackhi_epi32(r2, r3);
    __m256i t4 = _mm256_unpacklo_epi32(r4, r5), t5 = _mm256_unpackhi_epi32(r4, r5);
    __m256i t6 = _mm256_unpacklo_epi32(r6, r7), t7 = _mm256_unpackhi_epi32(r6, r7);
    /* word j | word j + 4 of lanes 0-3 (uj) and of lanes 4-7 (uj + 4) */
    __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
    __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
    __m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
    __m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);

    w[0] = _mm256_permute2x128_si256(u0, u4, 0x20);
    w[1] = _mm256_permute2x128_si256(u1, u5, 0x20);
    w[2] = _mm256_permute2x128_si256(u2, u6, 0x20);
    w[3] = _mm256_permute2x128_si256(u3, u7, 0x20);
    w[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
    w[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
    w[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
    w[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
}

/* Blocks 0..count-1 of every lane's p[i] into the state (x86 is little-endian, as MD5's
 * words are, so the loaded bytes are the words as they stand). The constants are broadcast
 * once per call: from _mm256_set1_epi32 in each step, gcc 12 rebuilt every one from an
 * immediate in every block. */
static AVX2 void blocks8(__m256i st[4], const uint8_t *const p[8], size_t count)
{
    __m256i kv[64], w[16];

    for (int k = 0; k < 64; k++)
        kv[k] = _mm256_set1_epi32((int)md5_k[k]);
    for (size_t at = 0; at < count * 64; at += 64) {
        load_words(w, p, at);
        load_words(w + 8, p, at + 32);
        compress8(st, w, kv);
    }
}

/* rp_md5x8 with the kernel: the whole blocks in place, then the padded tails. */
static AVX2 void md5x8_avx2(const uint8_t *const msg[8], size_t len, uint8_t digest[8][16])
{
    __m256i st[4];
    uint8_t tail[8][128];
    const uint8_t *tails[8];
    uint32_t words[4][8];
    size_t count = 0;

    for (int j = 0; j < 4; j++)
        st[j] = _mm256_set1_epi32((int)md5_init[j]);
    blocks8(st, msg, len / 64);
    for (int i = 0; i < 8; i++) {
        count = pad_tail(tail[i], msg[i], len);
        tails[i] = tail[i];
    }
    blocks8(st, tails, count);
    for (int j = 0; j < 4; j++)
        _mm256_storeu_si256((__m256i *)(void *)words[j], st[j]);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++)
            store_le32(digest[i] + 4 * j, words[j][i]);
}
#endif /* RP_HAVE_X86_KERNELS */

void rp_md5x8_dsp_init_x86(rp_md5x8_dsp *c, int level)
{
#ifdef RP_HAVE_X86_KERNELS
    if (level >= RP_SIMD_AVX2)
        c->md5x8 = md5x8_avx2;
#else
    (void)c;
    (void)level;
#endif
}
