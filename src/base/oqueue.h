/* oqueue.h - an ordered work queue: jobs are filled by one producer in order, worked on by
 * a few threads in any order, and delivered back to the producer's thread in the order
 * they were filled. The frame hashers (check/hash.c) and the PNG writer
 * (output/output_png.c) run their worker threads through it.
 *
 * The jobs are the caller's objects (njobs of them, used as a ring). A job is the
 * caller's between rp_oqueue_acquire() and rp_oqueue_submit(), a worker's while it is
 * worked on, and the caller's again in the done or drop callback. After the first failure
 * (a work or done callback returning nonzero) no job is worked on any more: every job not
 * yet delivered is handed to drop instead of done. */
#ifndef RP_OQUEUE_H
#define RP_OQUEUE_H

#include <stddef.h>

/** Work on n jobs (1 <= n <= batch) on worker thread `worker` (0 .. workers-1), in any
 * order with other workers. Returns 0, or a nonzero code that fails the queue. */
typedef int (*rp_oqueue_work_fn)(void *ctx, int worker, void *const *jobs, int n);
/** A job worked on, on the producer's thread, in fill order. Returns 0 or a failure. */
typedef int (*rp_oqueue_done_fn)(void *ctx, void *job);
/** A job not delivered to done (the queue had failed, or it is freed): release what the
 * job holds. On the producer's thread. May be NULL. */
typedef void (*rp_oqueue_drop_fn)(void *ctx, void *job);

#define RP_OQUEUE_MAX_BATCH 8

typedef struct rp_oqueue_cfg {
    void *const *jobs; /* njobs job objects, used in ring order */
    size_t njobs;      /* >= 1 */
    int workers;       /* worker threads, >= 1 */
    int batch;         /* jobs a worker takes at once, 1..RP_OQUEUE_MAX_BATCH: it waits for
                        * that many queued ones, or takes fewer in rp_oqueue_flush() */
    rp_oqueue_work_fn work;
    rp_oqueue_done_fn done;
    rp_oqueue_drop_fn drop;
    void *ctx;
} rp_oqueue_cfg;

typedef struct rp_oqueue rp_oqueue;

/** Start cfg->workers threads. RP_ERR_NOMEM (also when a thread cannot be created for want
 * of memory or threads: EAGAIN), or RP_ERR_UNSUPPORTED when a thread cannot be created for
 * another reason (the ones started are stopped). */
int rp_oqueue_new(rp_oqueue **q, const rp_oqueue_cfg *cfg);

/** The next job to fill: delivers the jobs done so far, then waits for a free one. NULL
 * when the queue has failed (*status gets the failure, rp_oqueue_failed_job() the job). */
void *rp_oqueue_acquire(rp_oqueue *q, int *status);

/** Queue the job rp_oqueue_acquire() returned, and deliver the jobs done so far. Returns
 * the queue's failure, or 0. */
int rp_oqueue_submit(rp_oqueue *q);

/** Wait for every queued job and deliver them all. Returns the queue's failure, or 0. */
int rp_oqueue_flush(rp_oqueue *q);

/** The job whose work or done callback failed first, or NULL. */
void *rp_oqueue_failed_job(const rp_oqueue *q);

/** Stop the workers (they finish the jobs they hold; queued ones are not started) and
 * drop every job not delivered. NULL and a NULL *q are no-ops. */
void rp_oqueue_free(rp_oqueue **q);

#endif
