/* cpu.c - which vector kernels this process uses (see cpu.h): detected from the CPU at
 * run time, and capped by rp_simd_set() so tests can compare every level with the plain
 * C reference in one process. */
#include "base/cpu.h"

#include <string.h>

#include "rpcore.h" /* rp_simd_cap */

/* The cap set by rp_simd_set(); RP_SIMD_MAX = no cap. Atomic only so a cap set by one
 * thread is seen by pool workers without a data race; the value is a plain level. */
static atomic_int simd_cap = RP_SIMD_MAX;
/* rp_simd_supported() + 1 once known, else 0. */
static atomic_int simd_have;

static int detect(void)
{
#ifdef RP_HAVE_X86_KERNELS
    /* libgcc's (and compiler-rt's) CPU model is filled in by a constructor; calling the
     * initialiser again makes this safe from other constructors too. It also checks that
     * the OS saves the AVX (and AVX-512) state (XGETBV) before reporting avx2 (avx512f). */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
        return __builtin_cpu_supports("avx512vbmi") ? RP_SIMD_AVX512ICL : RP_SIMD_AVX512;
    if (__builtin_cpu_supports("avx2"))
        return RP_SIMD_AVX2;
    if (__builtin_cpu_supports("sse2"))
        return RP_SIMD_SSE2;
#elif defined(RP_HAVE_WASM_KERNELS)
    /* a WebAssembly engine without SIMD128 refuses the whole module, so it has it here */
    return RP_SIMD_128;
#endif
    return RP_SIMD_C;
}

int rp_simd_supported(void)
{
    int have = atomic_load_explicit(&simd_have, memory_order_relaxed);
    if (!have) {
        have = detect() + 1;
        atomic_store_explicit(&simd_have, have, memory_order_relaxed);
    }
    return have - 1;
}

int rp_simd_set(int level)
{
    if (level < 0 || level > RP_SIMD_MAX)
        level = RP_SIMD_MAX;
    atomic_store_explicit(&simd_cap, level, memory_order_relaxed);
    return rp_simd_level();
}

int rp_simd_cap(const char *level)
{
    static const char *const names[] = {"c", "sse2", "avx2", "avx512", "avx512icl"};
    _Static_assert(sizeof names / sizeof *names == RP_SIMD_LEVELS, "a name for every level");
#ifdef __wasm__
    int wasm = 1; /* "simd128" names the 128-bit level only where it is WebAssembly's */
#else
    int wasm = 0;
#endif
    for (int i = 0; level && i <= RP_SIMD_MAX; i++)
        if (!strcmp(level, names[i]) || (wasm && i == RP_SIMD_128 && !strcmp(level, "simd128"))) {
            rp_simd_set(i);
            return RP_OK;
        }
    return RP_ERR_INVALID;
}

int rp_simd_level(void)
{
    int cap = atomic_load_explicit(&simd_cap, memory_order_relaxed);
    int have = rp_simd_supported();
    return cap < have ? cap : have;
}

const void *rp_dsp_get_level(rp_dsp_cache *c, int level)
{
    if (!atomic_load_explicit(&c->ready, memory_order_acquire)) {
        pthread_mutex_lock(&c->lock);
        if (!atomic_load_explicit(&c->ready, memory_order_relaxed)) {
            for (int l = 0; l < RP_SIMD_LEVELS; l++) {
                void *t = (char *)c->tables + (size_t)l * c->size;
                memset(t, 0, c->size);
                c->init(t, l);
            }
            atomic_store_explicit(&c->ready, 1, memory_order_release);
        }
        pthread_mutex_unlock(&c->lock);
    }
    if (level < 0 || level > RP_SIMD_MAX)
        level = RP_SIMD_C;
    return (const char *)c->tables + (size_t)level * c->size;
}

const void *rp_dsp_get(rp_dsp_cache *c)
{
    return rp_dsp_get_level(c, rp_simd_level());
}
