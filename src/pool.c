/* pool.c - a fixed pthread pool running one parallel-for at a time.
 *
 * The caller's thread takes part. Work is cut into one contiguous chunk per thread,
 * so which thread handles which index never matters for jobs whose indices are
 * independent (every use in rockpool: rows of a step or of a render). */
#include "pool.h"

#include <pthread.h>
#include <stdlib.h>

#include "common.h"

/* A short busy wait before sleeping: steps and renders come back to back, and a
 * condition-variable wake-up costs tens of microseconds, a large share of a step. Kept
 * short because a spinning thread takes CPU from the video encoder: at 1080p to MP4 on 2
 * cores, 20000 spins cost ~10% end to end, 2000 keep most of the step's gain. */
#define SPINS 2000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

struct rp_pool {
    int nthreads;
    pthread_t *threads;
    pthread_mutex_t lock;
    pthread_cond_t start;
    pthread_cond_t done;
    unsigned long generation; /* bumped for each job */
    int pending;              /* workers still running the current job */
    int quit;
    rp_pool_fn fn;
    void *ctx;
    int count;
};

struct worker_arg {
    rp_pool *pool;
    int index;
};

static void chunk(int count, int nthreads, int i, int *begin, int *end)
{
    *begin = (int)((int64_t)count * i / nthreads);
    *end = (int)((int64_t)count * (i + 1) / nthreads);
}

static void *worker(void *arg)
{
    rp_pool *pool = ((struct worker_arg *)arg)->pool;
    int index = ((struct worker_arg *)arg)->index;
    unsigned long seen = 0;
    free(arg);
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        if (!__atomic_load_n(&pool->quit, __ATOMIC_ACQUIRE) && pool->generation == seen) {
            pthread_mutex_unlock(&pool->lock);
            for (int i = 0; i < SPINS &&
                            __atomic_load_n(&pool->generation, __ATOMIC_ACQUIRE) == seen &&
                            !__atomic_load_n(&pool->quit, __ATOMIC_ACQUIRE);
                 i++)
                cpu_relax();
            pthread_mutex_lock(&pool->lock);
        }
        while (!pool->quit && pool->generation == seen)
            pthread_cond_wait(&pool->start, &pool->lock);
        if (pool->quit)
            break;
        seen = pool->generation;
        rp_pool_fn fn = pool->fn;
        void *ctx = pool->ctx;
        int begin, end;
        chunk(pool->count, pool->nthreads, index, &begin, &end);
        pthread_mutex_unlock(&pool->lock);
        if (begin < end)
            fn(ctx, begin, end);
        pthread_mutex_lock(&pool->lock);
        if (__atomic_sub_fetch(&pool->pending, 1, __ATOMIC_ACQ_REL) == 0)
            pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

int rp_pool_new(rp_pool **out, int nthreads)
{
    rp_pool *pool;
    *out = NULL;
    if (nthreads < 1 || nthreads > 1024)
        return RP_ERR_INVALID;
    pool = calloc(1, sizeof *pool);
    if (!pool)
        return RP_ERR_NOMEM;
    pool->nthreads = 1;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->start, NULL);
    pthread_cond_init(&pool->done, NULL);
    pool->threads = calloc((size_t)nthreads, sizeof *pool->threads);
    if (!pool->threads)
        goto fail;
    /* Worker i (1..n-1) takes chunk i; the caller takes chunk 0. */
    for (int i = 1; i < nthreads; i++) {
        struct worker_arg *arg = malloc(sizeof *arg);
        if (!arg)
            goto fail;
        arg->pool = pool;
        arg->index = i;
        if (pthread_create(&pool->threads[i], NULL, worker, arg) != 0) {
            free(arg);
            goto fail;
        }
        pool->nthreads = i + 1;
    }
    pool->nthreads = nthreads;
    *out = pool;
    return RP_OK;
fail:
    rp_pool_free(&pool);
    return RP_ERR_NOMEM;
}

void rp_pool_free(rp_pool **ppool)
{
    if (!ppool || !*ppool)
        return;
    rp_pool *pool = *ppool;
    pthread_mutex_lock(&pool->lock);
    __atomic_store_n(&pool->quit, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&pool->start);
    pthread_mutex_unlock(&pool->lock);
    for (int i = 1; i < pool->nthreads; i++)
        pthread_join(pool->threads[i], NULL);
    pthread_mutex_destroy(&pool->lock);
    pthread_cond_destroy(&pool->start);
    pthread_cond_destroy(&pool->done);
    free(pool->threads);
    free(pool);
    *ppool = NULL;
}

int rp_pool_threads(const rp_pool *pool)
{
    return pool ? pool->nthreads : 1;
}

void rp_pool_run(rp_pool *pool, int count, rp_pool_fn fn, void *ctx)
{
    int begin, end;
    if (count <= 0)
        return;
    if (!pool || pool->nthreads == 1) {
        fn(ctx, 0, count);
        return;
    }
    pthread_mutex_lock(&pool->lock);
    pool->fn = fn;
    pool->ctx = ctx;
    pool->count = count;
    __atomic_store_n(&pool->pending, pool->nthreads - 1, __ATOMIC_RELEASE);
    __atomic_store_n(&pool->generation, pool->generation + 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&pool->start);
    pthread_mutex_unlock(&pool->lock);

    chunk(count, pool->nthreads, 0, &begin, &end);
    if (begin < end)
        fn(ctx, begin, end);

    for (int i = 0; i < SPINS && __atomic_load_n(&pool->pending, __ATOMIC_ACQUIRE) > 0; i++)
        cpu_relax();
    pthread_mutex_lock(&pool->lock);
    while (pool->pending > 0)
        pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}
