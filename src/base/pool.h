/* pool.h - a small fixed pthread pool that runs a parallel-for over an index range.
 *
 * Work is split into contiguous chunks; callers must make each index's work
 * independent of the others so the result never depends on the thread count. */
#ifndef RP_POOL_H
#define RP_POOL_H

typedef struct rp_pool rp_pool;

/** fn(ctx, begin, end) handles indices begin..end-1. */
typedef void (*rp_pool_fn)(void *ctx, int begin, int end);

/** Start nthreads-1 workers (the caller is the nth). nthreads >= 1. */
int rp_pool_new(rp_pool **out, int nthreads);
void rp_pool_free(rp_pool **pool);
int rp_pool_threads(const rp_pool *pool);
/** Jobs handed to the workers so far (runs done inline, with one thread or no pool, are not
 * counted): for tests of who shares work. */
unsigned long rp_pool_jobs(const rp_pool *pool);

/** Run fn over 0..count-1 and wait for all of it. pool may be NULL (runs inline). */
void rp_pool_run(rp_pool *pool, int count, rp_pool_fn fn, void *ctx);

/** fn(ctx, worker, begin, end): as rp_pool_fn, told which thread runs it (0 the caller,
 * 1..threads-1 the workers), for per-thread scratch memory made before the run. */
typedef void (*rp_pool_wfn)(void *ctx, int worker, int begin, int end);

/** rp_pool_run with the thread's index. */
void rp_pool_run_w(rp_pool *pool, int count, rp_pool_wfn fn, void *ctx);

#endif
