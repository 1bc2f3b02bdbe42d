/* oqueue.c - the ordered work queue (see oqueue.h). */
#include "base/oqueue.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/common.h"

enum { JOB_FREE, JOB_QUEUED, JOB_RUNNING, JOB_DONE, JOB_SKIPPED };

struct rp_oqueue {
    rp_oqueue_cfg c;
    unsigned char *state; /* per job */
    /* head: the oldest job not delivered; tail: the next one to fill. */
    uint64_t head, tail;
    int failed;
    void *failed_job;
    int flushing, stop, started, nthreads;
    pthread_t *threads;
    pthread_mutex_t lock;
    pthread_cond_t changed;
};

static void fail(rp_oqueue *q, int code, void *job)
{
    if (code && !q->failed) {
        q->failed = code;
        q->failed_job = job;
    }
}

static void *worker(void *arg)
{
    rp_oqueue *q = arg;

    pthread_mutex_lock(&q->lock);
    int id = q->started++;
    pthread_cond_broadcast(&q->changed);
    for (;;) {
        void *jobs[RP_OQUEUE_MAX_BATCH];
        size_t slot[RP_OQUEUE_MAX_BATCH];
        int n = 0;

        if (q->stop)
            break;
        for (uint64_t i = q->head; i < q->tail && n < q->c.batch; i++)
            if (q->state[i % q->c.njobs] == JOB_QUEUED)
                slot[n++] = i % q->c.njobs;
        if (n == 0 || (n < q->c.batch && !q->flushing && !q->failed)) {
            pthread_cond_wait(&q->changed, &q->lock);
            continue;
        }
        int skip = q->failed != 0;
        for (int i = 0; i < n; i++) {
            q->state[slot[i]] = skip ? JOB_SKIPPED : JOB_RUNNING;
            jobs[i] = q->c.jobs[slot[i]];
        }
        if (!skip) {
            pthread_mutex_unlock(&q->lock);
            int r = q->c.work(q->c.ctx, id, jobs, n);
            pthread_mutex_lock(&q->lock);
            fail(q, r, jobs[0]);
            for (int i = 0; i < n; i++)
                q->state[slot[i]] = JOB_DONE;
        }
        pthread_cond_broadcast(&q->changed);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

/* Deliver finished jobs at the head, in order, until at most `keep` are in flight; with
 * wait, wait for them. Called and returns with the lock held. */
static int deliver(rp_oqueue *q, int wait, uint64_t keep)
{
    while (q->tail - q->head > keep) {
        size_t s = q->head % q->c.njobs;
        void *job = q->c.jobs[s];

        if (q->state[s] != JOB_DONE && q->state[s] != JOB_SKIPPED) {
            if (!wait)
                break;
            pthread_cond_wait(&q->changed, &q->lock);
            continue;
        }
        int dropped = q->failed || q->state[s] == JOB_SKIPPED;
        pthread_mutex_unlock(&q->lock);
        int r = 0;
        if (!dropped)
            r = q->c.done(q->c.ctx, job);
        else if (q->c.drop)
            q->c.drop(q->c.ctx, job);
        pthread_mutex_lock(&q->lock);
        fail(q, r, job);
        q->state[s] = JOB_FREE;
        q->head++;
        pthread_cond_broadcast(&q->changed);
    }
    return q->failed;
}

int rp_oqueue_new(rp_oqueue **out, const rp_oqueue_cfg *cfg)
{
    rp_oqueue *q = calloc(1, sizeof *q);

    *out = NULL;
    if (!q)
        return RP_ERR_NOMEM;
    q->c = *cfg;
    if (q->c.batch < 1)
        q->c.batch = 1;
    if (q->c.batch > RP_OQUEUE_MAX_BATCH)
        q->c.batch = RP_OQUEUE_MAX_BATCH;
    q->state = calloc(cfg->njobs, 1);
    q->threads = calloc((size_t)cfg->workers, sizeof *q->threads);
    if (!q->state || !q->threads) {
        free(q->state);
        free(q->threads);
        free(q);
        return RP_ERR_NOMEM;
    }
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->changed, NULL);
    for (int i = 0; i < cfg->workers; i++) {
        int e = pthread_create(&q->threads[i], NULL, worker, q);
        if (e) {
            rp_oqueue_free(&q);
            /* EAGAIN: no memory for the thread's stack (ulimit -v) or too many threads */
            return e == EAGAIN || e == ENOMEM ? RP_ERR_NOMEM : RP_ERR_UNSUPPORTED;
        }
        q->nthreads = i + 1;
    }
    *out = q;
    return RP_OK;
}

void *rp_oqueue_acquire(rp_oqueue *q, int *status)
{
    void *job = NULL;

    pthread_mutex_lock(&q->lock);
    *status = deliver(q, 1, q->c.njobs - 1); /* leaves the slot at tail free */
    if (!*status)
        job = q->c.jobs[q->tail % q->c.njobs];
    pthread_mutex_unlock(&q->lock);
    return job;
}

int rp_oqueue_submit(rp_oqueue *q)
{
    pthread_mutex_lock(&q->lock);
    q->state[q->tail % q->c.njobs] = JOB_QUEUED;
    q->tail++;
    pthread_cond_broadcast(&q->changed);
    int r = deliver(q, 0, 0);
    pthread_mutex_unlock(&q->lock);
    return r;
}

int rp_oqueue_flush(rp_oqueue *q)
{
    pthread_mutex_lock(&q->lock);
    q->flushing = 1; /* a batch worker takes a short batch */
    pthread_cond_broadcast(&q->changed);
    int r = deliver(q, 1, 0);
    q->flushing = 0;
    pthread_mutex_unlock(&q->lock);
    return r;
}

void *rp_oqueue_failed_job(const rp_oqueue *q)
{
    return q->failed_job;
}

void rp_oqueue_free(rp_oqueue **pq)
{
    rp_oqueue *q;

    if (!pq || !*pq)
        return;
    q = *pq;
    pthread_mutex_lock(&q->lock);
    q->stop = 1;
    for (uint64_t i = q->head; i < q->tail; i++)
        if (q->state[i % q->c.njobs] == JOB_QUEUED)
            q->state[i % q->c.njobs] = JOB_SKIPPED;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
    for (int i = 0; i < q->nthreads; i++)
        pthread_join(q->threads[i], NULL);
    for (uint64_t i = q->head; i < q->tail; i++)
        if (q->c.drop)
            q->c.drop(q->c.ctx, q->c.jobs[i % q->c.njobs]);
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->changed);
    free(q->state);
    free(q->threads);
    free(q);
    *pq = NULL;
}
