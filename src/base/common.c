/* common.c - error strings and messages, the CPU count, a memory probe, integer roots. */
#include "base/common.h"

#include <sched.h>
#include <unistd.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rp_strerror(int err)
{
    switch (err) {
    case RP_OK: return "success";
    case RP_ERR_NOMEM: return "out of memory";
    case RP_ERR_INVALID: return "invalid argument";
    case RP_ERR_TOO_LARGE: return "size too large";
    case RP_ERR_IO: return "input/output error";
    case RP_ERR_FORMAT: return "malformed or unsupported file";
    case RP_ERR_ENCODER: return "encoder error";
    case RP_ERR_UNSUPPORTED: return "not supported by the installed libraries";
    case RP_ERR_MISMATCH: return "frame differs from the manifest";
    case RP_ERR_EXISTS: return "file exists";
    case RP_ERR_INTERRUPTED: return "interrupted";
    case RP_ERR_AGAIN: return "not done yet: call again";
    }
    return "unknown error";
}

int rp_online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
#if defined(__linux__) && defined(CPU_COUNT)
    /* A process limited to some CPUs (taskset, a batch system's cpuset, a container's
     * --cpuset-cpus) gets one thread for each of those: more threads than CPUs only wait
     * for one another (1000 frames of --preset elias at 1080p on one CPU: 64 threads take
     * 2.2 times one thread's time). Counted as nproc(1) counts them, from the affinity
     * mask where it can be read (not past 1024 CPUs: there, the online count). */
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int k = CPU_COUNT(&set);
        if (k >= 1 && (n < 1 || k < n))
            n = k;
    }
#endif
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

int rp_memory_short(size_t bytes)
{
    /* through a volatile, so that the malloc and free pair is not elided (clang does) */
    void *volatile p = malloc(bytes);
    int none = p == NULL;
    free(p);
    return none;
}

uint32_t rp_isqrt64(uint64_t v)
{
    if (!v)
        return 0;
    /* digit by digit from the highest power of 4 not above v, without branches: ge is all
     * ones where the digit is 1 */
    uint64_t rem = v, root = 0, bit = (uint64_t)1 << ((63 - __builtin_clzll(v)) & ~1);
    while (bit) {
        uint64_t t = root + bit, ge = (uint64_t)0 - (uint64_t)(rem >= t);
        rem -= t & ge;
        root = (root >> 1) + (bit & ge);
        bit >>= 2;
    }
    return (uint32_t)root;
}

/* bytes as "%.*f MiB" or "%.*f GiB" with digits decimals (-1: whole bytes). */
static void bytes_text(double bytes, int digits, char *text, size_t len)
{
    if (digits < 0)
        snprintf(text, len, "%.0f bytes", bytes);
    else if (bytes >= (double)(1 << 30))
        snprintf(text, len, "%.*f GiB", digits + 1, bytes / (1 << 30));
    else
        snprintf(text, len, "%.*f MiB", digits, bytes / (1 << 20));
}

void rp_bytes_pair(double need, double limit, char *need_text, char *limit_text, size_t len)
{
    for (int digits = 1; digits <= 7; digits += 2) {
        bytes_text(need, digits, need_text, len);
        bytes_text(limit, digits, limit_text, len);
        if (strcmp(need_text, limit_text) || need == limit)
            return;
    }
    bytes_text(need, -1, need_text, len);
    bytes_text(limit, -1, limit_text, len);
}

/* cos(x) for 0 <= x <= pi/2 with x in Q30, result in Q30: the Taylor series to x^14
 * in Horner form (truncation error below 2e-10), all in int64. */
static int64_t cos_q30(int64_t x)
{
    static const int64_t div[] = {182, 132, 90, 56, 30, 12, 2};
    const int64_t one = (int64_t)1 << 30;
    int64_t x2 = (x * x) >> 30;
    int64_t term = one;
    for (size_t i = 0; i < sizeof div / sizeof div[0]; i++)
        term = one - ((x2 * term) >> 30) / div[i];
    return term;
}

int32_t rp_cos_pi_q16(int64_t num, int64_t den)
{
    /* round(pi * 2^30) */
    const int64_t pi_q30 = 3373259426LL;
    int sign = 1;
    int64_t t;
    if (den <= 0 || num < 0)
        return 0;
    t = num % (2 * den);
    if (t > den)
        t = 2 * den - t; /* cos(2pi - a) = cos(a) */
    if (2 * t > den) {
        t = den - t; /* cos(pi - a) = -cos(a) */
        sign = -1;
    }
    int64_t c = cos_q30(pi_q30 * t / den);
    return (int32_t)(sign * ((c + (1 << 13)) >> 14));
}

void rp_heights_to_le(uint8_t *dst, const int16_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint16_t v = (uint16_t)src[i];
        dst[2 * i] = (uint8_t)v;
        dst[2 * i + 1] = (uint8_t)(v >> 8);
    }
}
