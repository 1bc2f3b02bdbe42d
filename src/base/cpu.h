/* cpu.h - which vector kernels this process uses, and the per-module tables of them.
 *
 * Every module with vector kernels (the step, the render, the light, the upscale, the YUV
 * converter, the PNG filter, the MD5 of eight frames) has a table of function pointers, after
 * dav1d's DSP contexts: the module's header declares it, its x86 kernels and the function
 * that fills it for a level live in src/x86/, and the module takes its table from
 * rp_dsp_get() once per call, never per row. An entry is NULL where the level has no kernel:
 * the module's plain C loop, which every kernel matches byte for byte, does the work.
 *
 * The library is built for the plain x86-64 baseline (no -march); kernels for SSE2, AVX2
 * and AVX-512 are compiled with gcc/clang `target` attributes and chosen at run time from
 * what the CPU supports. The playground's wasm32 build (make web) has WebAssembly SIMD128
 * kernels for the step, the viscosity pass and look water (src/wasm/, compiled with
 * -msimd128), at the 128-bit level. Other
 * architectures, other compilers and builds with -DRP_NO_SIMD have tables of NULLs only. */
#ifndef RP_CPU_H
#define RP_CPU_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

/* Whether this build has the x86 kernels (compiled with `target` attributes). */
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) &&     \
    !defined(RP_NO_SIMD)
#define RP_HAVE_X86_KERNELS 1
#endif

/* Whether this build has the WebAssembly SIMD128 kernels (the Makefile's web rules define
 * RP_WASM_SIMD and compile src/wasm/ with -msimd128). */
#if defined(__wasm__) && defined(RP_WASM_SIMD) && !defined(RP_NO_SIMD)
#define RP_HAVE_WASM_KERNELS 1
#endif

enum rp_simd_level {
    RP_SIMD_C = 0,         /* plain C only */
    RP_SIMD_SSE2 = 1,      /* 128-bit kernels: SSE2 on x86 */
    RP_SIMD_128 = 1,       /* the same level on WebAssembly: SIMD128 */
    RP_SIMD_AVX2 = 2,      /* 256-bit kernels (and the 128-bit ones for rows of 8-15 cells) */
    RP_SIMD_AVX512 = 3,    /* AVX512F + AVX512BW: 512-bit step kernels (and the narrower ones
                            * for shorter rows); the other modules keep AVX2 */
    RP_SIMD_AVX512ICL = 4, /* and AVX512VBMI (Ice Lake, Zen 4 and later): look water's kernel
                            * picks the bed's texels with byte permutes where it can */
    RP_SIMD_MAX = RP_SIMD_AVX512ICL,
};
#define RP_SIMD_LEVELS (RP_SIMD_MAX + 1)

/** The best level this CPU (and this build) supports. */
int rp_simd_supported(void);

/** Cap the level every module uses, process-wide, for tests and benchmarks: RP_SIMD_C
 * forces the plain C reference everywhere; a negative value removes the cap. Returns the
 * level now in effect (the cap, or less if the CPU lacks it). Call it between steps and
 * renders, not while one runs on another thread. Results never depend on it. */
int rp_simd_set(int level);

/** The level in effect: min(cap, rp_simd_supported()). */
int rp_simd_level(void);

/** A module's tables, one per level, filled on first use by init(table, level), which
 * sets every entry the level has a kernel for (the table is zeroed before). Declare one
 * per module with RP_DSP_CACHE over a static array of RP_SIMD_LEVELS tables. */
typedef struct rp_dsp_cache {
    void *tables;
    size_t size;
    void (*init)(void *table, int level);
    atomic_int ready;
    pthread_mutex_t lock;
} rp_dsp_cache;

#define RP_DSP_CACHE(tables, init)                                                                 \
    {                                                                                              \
        (tables), sizeof((tables)[0]), (init), 0, PTHREAD_MUTEX_INITIALIZER                        \
    }

/* Defines a module's tables and their getters, rp_NAME_dsp_get() (the level in effect) and
 * rp_NAME_dsp_level(level) (tests), for a table type rp_NAME_dsp filled by
 * rp_NAME_dsp_init_x86() (defined on every architecture: a no-op off x86). */
#define RP_DSP_TABLES(name)                                                                        \
    static void name##_dsp_fill(void *table, int level)                                            \
    {                                                                                              \
        rp_##name##_dsp_init_x86(table, level);                                                    \
    }                                                                                              \
    RP_DSP_TABLES_FILLED_BY(name, name##_dsp_fill)

/* The same, with the tables filled by fill(table, level): for a module with kernels for more
 * than one architecture, whose fill calls each one's init (each a no-op off its own). */
#define RP_DSP_TABLES_FILLED_BY(name, fill)                                                        \
    static rp_##name##_dsp name##_dsp_tables[RP_SIMD_LEVELS];                                      \
    static rp_dsp_cache name##_dsp_cache = RP_DSP_CACHE(name##_dsp_tables, fill);                  \
    const rp_##name##_dsp *rp_##name##_dsp_get(void)                                               \
    {                                                                                              \
        return rp_dsp_get(&name##_dsp_cache);                                                      \
    }                                                                                              \
    const rp_##name##_dsp *rp_##name##_dsp_level(int level)                                        \
    {                                                                                              \
        return rp_dsp_get_level(&name##_dsp_cache, level);                                         \
    }

/** The table for the level in effect (rp_simd_level()); thread-safe. */
const void *rp_dsp_get(rp_dsp_cache *c);

/** The table for a given level (0..RP_SIMD_MAX), even one this CPU lacks: for tests that
 * check which entries each level fills. */
const void *rp_dsp_get_level(rp_dsp_cache *c, int level);

#endif
