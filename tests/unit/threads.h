/* threads.h - the unit tests' pools: n threads, or on wasm32, which has no threads
 * (web/wasm-include/pthread.h; make web-tests), none: NULL, the caller's thread. After
 * cmocka.h. */
#ifndef RP_TEST_THREADS_H
#define RP_TEST_THREADS_H

#include "base/diag.h"
#include "base/pool.h"

static inline rp_pool *pool_of(int n)
{
    rp_pool *pool = NULL;
#ifdef __wasi__
    (void)n;
#else
    assert_int_equal(rp_pool_new(&pool, n), RP_OK);
#endif
    return pool;
}

#endif
