/* simd.c - which vector kernels this process uses (see simd.h): detected from the CPU at
 * run time, and capped by rp_simd_set() so tests can compare every level with the plain
 * C reference in one process. */
#include "x86/simd.h"

#include <stdatomic.h>

/* The cap set by rp_simd_set(); RP_SIMD_MAX = no cap. Atomic only so a cap set by one
 * thread is seen by pool workers without a data race; the value is a plain level. */
static atomic_int simd_cap = RP_SIMD_MAX;

int rp_simd_supported(void)
{
#ifdef RP_HAVE_X86_KERNELS
    /* libgcc's (and compiler-rt's) CPU model is filled in by a constructor; calling the
     * initialiser again is cheap and makes this safe from other constructors too. It
     * also checks that the OS saves the AVX (and AVX-512) state (XGETBV) before reporting
     * avx2 (avx512f). */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
        return RP_SIMD_AVX512;
    if (__builtin_cpu_supports("avx2"))
        return RP_SIMD_AVX2;
    if (__builtin_cpu_supports("sse2"))
        return RP_SIMD_SSE2;
#endif
    return RP_SIMD_C;
}

int rp_simd_set(int level)
{
    if (level < 0 || level > RP_SIMD_MAX)
        level = RP_SIMD_MAX;
    atomic_store_explicit(&simd_cap, level, memory_order_relaxed);
    return rp_simd_level();
}

int rp_simd_level(void)
{
    int cap = atomic_load_explicit(&simd_cap, memory_order_relaxed);
    int have = rp_simd_supported();
    return cap < have ? cap : have;
}
