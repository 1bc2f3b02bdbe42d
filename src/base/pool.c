/* pool.c - a fixed pthread pool running one parallel-for at a time.
 *
 * The caller's thread takes part. The index range is cut into one contiguous part per
 * thread, each handed out in chunks (about eight) from the part's own counter: thread t
 * starts on part t, so from one job to the next the same thread tends to take the same
 * indices (the same rows, still in its core's cache), and a thread that has finished its
 * part takes chunks of the others', so one slowed down (by the video encoder's threads, or
 * another process) holds nobody up. Which thread handles which index never matters for
 * jobs whose indices are independent (every use in rockpool: rows of a step or of a render,
 * bands of steps).
 *
 * A job is done when every index has run: the caller waits for the count of indices left
 * to reach 0, not for the workers. A worker the system has not run since the job started
 * (its core taken by the encoder's threads or another process) takes no part, and the
 * caller does its chunks instead of waiting a time slice for it to wake and find none
 * left. So that such a late worker can never take a chunk of a later job for an earlier
 * one, each part's counter carries the job's tag (the generation's low 32 bits) beside the
 * next index, and a chunk is taken by a compare-and-swap that checks the tag: a worker
 * takes chunks of the job it woke for only, and reads the job's function and context only
 * after taking one (the job cannot end while a chunk of it is out, so the caller has not
 * replaced them).
 *
 * Starting a job and waiting for it take no lock while the threads are awake: the job is
 * published by bumping `generation`, and completion is counted down in `remaining`. A thread
 * that has waited SPINS rounds goes to sleep on a condition variable, after announcing it in
 * `sleepers` (or `caller_sleeps`); the other side takes the lock and signals only then.
 * Those flags and the counters they are checked against are sequentially consistent atomics,
 * with a full fence between each side's store and its load of the other's (the store-load
 * order the handshake needs: some emulators, such as qemu-user running aarch64 code on x86,
 * do not keep it for plain acquire/release pairs), so a sleeper either sees the change it
 * waits for or is seen and woken. As a last guard a sleeper wakes every 50 ms to look again,
 * so a lost wake-up could only cost time, never hang a run. */
#include "base/pool.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "base/common.h"

/* A short busy wait before sleeping: jobs come back to back, and a condition-variable
 * wake-up costs tens of microseconds. Kept short because a spinning thread takes CPU from
 * the video encoder. */
#define SPINS 2000

/* Chunks per thread: enough to even out a slow thread, few enough that taking one costs
 * nothing next to a chunk's work (at least a row of a frame). */
#define CHUNKS_PER_THREAD 8

#define SEQ __ATOMIC_SEQ_CST

/* A full fence: between a store the other side reads and a load of what it stores. */
#define FENCE() __atomic_thread_fence(__ATOMIC_SEQ_CST)

/* Wait on c for at most 50 ms (the caller re-checks its condition). */
static void wait_a_while(pthread_cond_t *c, pthread_mutex_t *m)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_nsec += 50 * 1000 * 1000;
    if (t.tv_nsec >= 1000 * 1000 * 1000) {
        t.tv_sec++;
        t.tv_nsec -= 1000 * 1000 * 1000;
    }
    pthread_cond_timedwait(c, m, &t);
}

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
    pthread_cond_t start;     /* workers sleep here for the next generation */
    pthread_cond_t done;      /* the caller sleeps here for remaining == 0 */
    unsigned long generation; /* bumped for each job */
    int sleepers;             /* workers asleep (or about to be) on start */
    int caller_sleeps;        /* the caller is asleep (or about to be) on done */
    int remaining;            /* indices of the current job not yet run */
    int quit;
    /* The current job, written before generation is bumped: read by a worker only while it
     * holds a chunk of the job (grain and the parts' ends, read before it takes one, are
     * atomics: run_job says why the ends' order matters). */
    rp_pool_fn fn;
    rp_pool_wfn wfn; /* instead of fn: told the thread's index */
    void *ctx;
    struct worker_arg *args;
    struct share *shares; /* nthreads of them, one per thread */
    int grain;
};

struct worker_arg {
    rp_pool *pool;
    int index;
};

/* A thread's own part of the index range: state is the job's tag << 32 | the first index
 * not yet handed out, end the part's end. A cache line each, so taking a chunk writes no
 * line another thread's counter shares. */
struct share {
    _Alignas(64) uint64_t state;
    int end;
};

static inline uint64_t share_state(uint32_t tag, int next)
{
    return (uint64_t)tag << 32 | (uint32_t)next;
}

static void finished(rp_pool *pool, int n);

/* Take chunks of job `tag` until none are left (thread `worker`): first those of the
 * thread's own part, then, in turn, what the other threads have not taken of theirs.
 * Returns at once when a part carries another tag: that job is over. */
static void run_chunks(rp_pool *pool, int worker, uint32_t tag)
{
    for (int k = 0; k < pool->nthreads; k++) {
        int t = worker + k < pool->nthreads ? worker + k : worker + k - pool->nthreads;
        struct share *sh = &pool->shares[t];
        uint64_t s = __atomic_load_n(&sh->state, SEQ);
        for (;;) {
            if ((uint32_t)(s >> 32) != tag)
                return;
            /* acquire: if this is the end of a later job, its state (stored before it) is
             * what the compare-and-swap below sees, and it fails */
            int begin = (int)(uint32_t)s, end = __atomic_load_n(&sh->end, __ATOMIC_ACQUIRE);
            if (begin >= end)
                break;
            int grain = __atomic_load_n(&pool->grain, __ATOMIC_RELAXED);
            int stop = end - begin > grain ? begin + grain : end;
            /* on failure s is reloaded: taken by another thread, or a later job's */
            if (!__atomic_compare_exchange_n(&sh->state, &s, share_state(tag, stop), 0, SEQ, SEQ))
                continue;
            if (pool->wfn)
                pool->wfn(pool->ctx, worker, begin, stop);
            else
                pool->fn(pool->ctx, begin, stop);
            finished(pool, stop - begin);
            s = __atomic_load_n(&sh->state, SEQ);
        }
    }
}

/* n indices run: the last wakes the caller if it sleeps. */
static void finished(rp_pool *pool, int n)
{
    int left = __atomic_sub_fetch(&pool->remaining, n, SEQ);
    FENCE();
    if (left == 0 && __atomic_load_n(&pool->caller_sleeps, SEQ)) {
        pthread_mutex_lock(&pool->lock);
        pthread_cond_signal(&pool->done);
        pthread_mutex_unlock(&pool->lock);
    }
}

/* Wait until generation differs from seen or quit is set; returns 0 on quit. */
static int wait_for_job(rp_pool *pool, unsigned long seen)
{
    for (int i = 0; i < SPINS; i++) {
        if (__atomic_load_n(&pool->generation, SEQ) != seen || __atomic_load_n(&pool->quit, SEQ))
            return !__atomic_load_n(&pool->quit, SEQ);
        cpu_relax();
    }
    pthread_mutex_lock(&pool->lock);
    __atomic_add_fetch(&pool->sleepers, 1, SEQ);
    FENCE();
    while (__atomic_load_n(&pool->generation, SEQ) == seen && !__atomic_load_n(&pool->quit, SEQ))
        wait_a_while(&pool->start, &pool->lock);
    __atomic_sub_fetch(&pool->sleepers, 1, SEQ);
    pthread_mutex_unlock(&pool->lock);
    return !__atomic_load_n(&pool->quit, SEQ);
}

static void *worker(void *arg)
{
    struct worker_arg *wa = arg;
    rp_pool *pool = wa->pool;
    unsigned long seen = 0;

    while (wait_for_job(pool, seen)) {
        seen = __atomic_load_n(&pool->generation, SEQ);
        run_chunks(pool, wa->index, (uint32_t)seen);
    }
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
    pool->args = calloc((size_t)nthreads, sizeof *pool->args);
    pool->shares = aligned_alloc(64, (size_t)nthreads * sizeof *pool->shares);
    if (!pool->threads || !pool->args || !pool->shares)
        goto fail;
    /* Workers 1..n-1; the caller is thread 0. */
    for (int i = 1; i < nthreads; i++) {
        pool->args[i] = (struct worker_arg){pool, i};
        if (pthread_create(&pool->threads[i], NULL, worker, &pool->args[i]) != 0)
            goto fail;
        pool->nthreads = i + 1;
    }
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
    __atomic_store_n(&pool->quit, 1, SEQ);
    pthread_cond_broadcast(&pool->start);
    pthread_mutex_unlock(&pool->lock);
    for (int i = 1; i < pool->nthreads; i++)
        pthread_join(pool->threads[i], NULL);
    pthread_mutex_destroy(&pool->lock);
    pthread_cond_destroy(&pool->start);
    pthread_cond_destroy(&pool->done);
    free(pool->threads);
    free(pool->args);
    free(pool->shares);
    free(pool);
    *ppool = NULL;
}

int rp_pool_threads(const rp_pool *pool)
{
    return pool ? pool->nthreads : 1;
}

unsigned long rp_pool_jobs(const rp_pool *pool)
{
    return pool ? __atomic_load_n(&pool->generation, SEQ) : 0;
}

static void run_job(rp_pool *pool, int count, rp_pool_fn fn, rp_pool_wfn wfn, void *ctx);

void rp_pool_run(rp_pool *pool, int count, rp_pool_fn fn, void *ctx)
{
    if (count <= 0)
        return;
    if (!pool || pool->nthreads == 1) {
        fn(ctx, 0, count);
        return;
    }
    run_job(pool, count, fn, NULL, ctx);
}

void rp_pool_run_w(rp_pool *pool, int count, rp_pool_wfn fn, void *ctx)
{
    if (count <= 0)
        return;
    if (!pool || pool->nthreads == 1) {
        fn(ctx, 0, 0, count);
        return;
    }
    run_job(pool, count, NULL, fn, ctx);
}

static void run_job(rp_pool *pool, int count, rp_pool_fn fn, rp_pool_wfn wfn, void *ctx)
{
    int grain = count / (pool->nthreads * CHUNKS_PER_THREAD);
    uint32_t tag = (uint32_t)(__atomic_load_n(&pool->generation, SEQ) + 1);
    /* Every index of the previous job has run, so no worker holds a chunk of it and none
     * reads these until it takes a chunk of this job. */
    pool->fn = fn;
    pool->wfn = wfn;
    pool->ctx = ctx;
    __atomic_store_n(&pool->grain, grain > 0 ? grain : 1, __ATOMIC_RELAXED);
    __atomic_store_n(&pool->remaining, count, SEQ);
    /* Each part's state before its end: a late worker of the previous job that read its
     * state before this store and then this job's end (an acquire load, after which its
     * compare-and-swap sees the new state) fails to take a chunk; with the end first, it
     * could pair the new end with the old, used-up next and take a chunk of this job
     * under the old tag. */
    for (int t = 0; t < pool->nthreads; t++) {
        __atomic_store_n(&pool->shares[t].state,
                         share_state(tag, (int)((int64_t)count * t / pool->nthreads)), SEQ);
        __atomic_store_n(&pool->shares[t].end, (int)((int64_t)count * (t + 1) / pool->nthreads),
                         SEQ);
    }
    __atomic_add_fetch(&pool->generation, 1, SEQ);
    FENCE();
    if (__atomic_load_n(&pool->sleepers, SEQ)) {
        pthread_mutex_lock(&pool->lock);
        pthread_cond_broadcast(&pool->start);
        pthread_mutex_unlock(&pool->lock);
    }

    run_chunks(pool, 0, tag);

    for (int i = 0; i < SPINS && __atomic_load_n(&pool->remaining, SEQ) > 0; i++)
        cpu_relax();
    if (__atomic_load_n(&pool->remaining, SEQ) > 0) {
        pthread_mutex_lock(&pool->lock);
        __atomic_store_n(&pool->caller_sleeps, 1, SEQ);
        FENCE();
        while (__atomic_load_n(&pool->remaining, SEQ) > 0)
            wait_a_while(&pool->done, &pool->lock);
        __atomic_store_n(&pool->caller_sleeps, 0, SEQ);
        pthread_mutex_unlock(&pool->lock);
    }
}
