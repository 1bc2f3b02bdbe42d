/* test_oqueue.c - the ordered work queue (base/oqueue.c): every job filled is worked on
 * once and delivered once, in fill order, whatever order the workers finish in; batches
 * never exceed their size and a short one is taken only by a flush; after a failure no job
 * is worked on or delivered any more (jobs filled before the failing one but not yet worked
 * on included) and every undelivered one is dropped; freeing a
 * queue with jobs in flight drops them. The oracle is the sequence numbers each callback
 * records. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <time.h>

#include "base/common.h"
#include "base/oqueue.h"

enum { MAX_ITEMS = 400, MAX_JOBS = 16 };

typedef struct job {
    int seq; /* the item it holds */
} job;

typedef struct log {
    job jobs[MAX_JOBS];
    void *ptrs[MAX_JOBS];
    int worked[MAX_ITEMS];    /* times each item was worked on (atomic) */
    int delivered[MAX_ITEMS]; /* order of delivery: delivered[k] = item */
    int ndelivered;
    int dropped[MAX_ITEMS];
    int ndropped;
    int batch_max, batch_short; /* largest batch; batches below the size (atomic) */
    int batch;
    int fail_work_at, fail_done_at; /* -1 = never */
} log_t;

/* A pause of 0..300 us that depends on the item, so workers finish out of order. */
static void pause_for(int seq)
{
    struct timespec ts = {0, (long)((seq * 7919) % 300) * 1000};
    nanosleep(&ts, NULL);
}

static int work(void *ctx, int worker, void *const *jobs, int n)
{
    log_t *l = ctx;
    int r = 0;
    (void)worker;
    for (int i = 0; i < n; i++) {
        int seq = ((job *)jobs[i])->seq;
        __atomic_add_fetch(&l->worked[seq], 1, __ATOMIC_RELAXED);
        pause_for(seq);
        if (seq == l->fail_work_at)
            r = RP_ERR_IO;
    }
    int m = __atomic_load_n(&l->batch_max, __ATOMIC_RELAXED);
    while (n > m && !__atomic_compare_exchange_n(&l->batch_max, &m, n, 0, __ATOMIC_RELAXED,
                                                 __ATOMIC_RELAXED))
        ;
    if (n < l->batch)
        __atomic_add_fetch(&l->batch_short, 1, __ATOMIC_RELAXED);
    return r;
}

static int done(void *ctx, void *j)
{
    log_t *l = ctx;
    int seq = ((job *)j)->seq;
    l->delivered[l->ndelivered++] = seq;
    return seq == l->fail_done_at ? RP_ERR_IO : 0;
}

static void drop(void *ctx, void *j)
{
    log_t *l = ctx;
    l->dropped[l->ndropped++] = ((job *)j)->seq;
}

static rp_oqueue *make(log_t *l, int njobs, int workers, int batch)
{
    rp_oqueue *q;
    memset(l, 0, sizeof *l);
    l->fail_work_at = l->fail_done_at = -1;
    l->batch = batch;
    for (int i = 0; i < njobs; i++)
        l->ptrs[i] = &l->jobs[i];
    rp_oqueue_cfg c = {.jobs = l->ptrs,
                       .njobs = (size_t)njobs,
                       .workers = workers,
                       .batch = batch,
                       .work = work,
                       .done = done,
                       .drop = drop,
                       .ctx = l};
    assert_int_equal(rp_oqueue_new(&q, &c), RP_OK);
    return q;
}

/* Fill items 0..n-1; returns how many were accepted before a failure. */
static int fill(rp_oqueue *q, int n)
{
    for (int i = 0; i < n; i++) {
        int status = 0;
        job *j = rp_oqueue_acquire(q, &status);
        if (!j) {
            assert_int_not_equal(status, 0);
            return i;
        }
        j->seq = i;
        if (rp_oqueue_submit(q))
            return i + 1;
    }
    return n;
}

static void test_order(void **state)
{
    (void)state;
    static log_t l;
    static const int shapes[][2] = {{1, 1}, {2, 1}, {3, 2}, {6, 4}, {12, 4}, {16, 8}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        rp_oqueue *q = make(&l, shapes[s][0], shapes[s][1], 1);
        assert_int_equal(fill(q, 200), 200);
        assert_int_equal(rp_oqueue_flush(q), 0);
        rp_oqueue_free(&q);
        assert_null(q);
        assert_int_equal(l.ndelivered, 200);
        assert_int_equal(l.ndropped, 0);
        for (int i = 0; i < 200; i++) {
            assert_int_equal(l.delivered[i], i);
            assert_int_equal(l.worked[i], 1);
        }
    }
}

static void test_batches(void **state)
{
    (void)state;
    static log_t l;
    for (int workers = 1; workers <= 3; workers++) {
        rp_oqueue *q = make(&l, 8, workers, 4);
        assert_int_equal(fill(q, 43), 43); /* 10 full batches and a short one of 3 */
        assert_int_equal(rp_oqueue_flush(q), 0);
        assert_int_equal(l.ndelivered, 43);
        for (int i = 0; i < 43; i++)
            assert_int_equal(l.delivered[i], i);
        assert_true(l.batch_max <= 4);
        /* then a lone job after the flush: taken only by the next flush */
        assert_int_equal(fill(q, 1), 1);
        assert_int_equal(rp_oqueue_flush(q), 0);
        rp_oqueue_free(&q);
        assert_int_equal(l.ndelivered, 44);
        assert_int_equal(l.delivered[43], 0);
        assert_true(l.batch_short >= 1);
    }
}

static void test_work_failure(void **state)
{
    (void)state;
    static log_t l;
    rp_oqueue *q = make(&l, 6, 3, 1);
    l.fail_work_at = 37;
    int accepted = fill(q, 200);
    assert_true(accepted > 37 && accepted < 200);
    assert_int_equal(rp_oqueue_flush(q), RP_ERR_IO);
    assert_int_equal(((job *)rp_oqueue_failed_job(q))->seq, 37);
    rp_oqueue_free(&q);
    /* A prefix 0..k-1 delivered in order, nothing from 37 on: the items before 37 still
     * queued when it failed (at most the ring's other 5) are dropped with the rest. */
    assert_true(l.ndelivered <= 37 && l.ndelivered >= 37 - 5);
    for (int i = 0; i < l.ndelivered; i++)
        assert_int_equal(l.delivered[i], i);
    assert_int_equal(l.ndelivered + l.ndropped, accepted);
    for (int i = 0; i < l.ndropped; i++)
        assert_true(l.dropped[i] >= l.ndelivered);
}

static void test_done_failure(void **state)
{
    (void)state;
    static log_t l;
    rp_oqueue *q = make(&l, 4, 2, 1);
    l.fail_done_at = 5;
    int accepted = fill(q, 100);
    assert_true(accepted >= 6 && accepted < 100);
    assert_int_equal(rp_oqueue_flush(q), RP_ERR_IO);
    rp_oqueue_free(&q);
    assert_int_equal(l.ndelivered, 6); /* 0..5: 5's delivery is the one that failed */
    assert_int_equal(l.ndelivered + l.ndropped, accepted);
}

static void test_free_in_flight(void **state)
{
    (void)state;
    static log_t l;
    rp_oqueue *q = make(&l, 12, 2, 1);
    assert_int_equal(fill(q, 11), 11);
    rp_oqueue_free(&q); /* no flush: what is not delivered is dropped, nothing hangs */
    assert_int_equal(l.ndelivered + l.ndropped, 11);
    for (int i = 0; i < l.ndelivered; i++)
        assert_int_equal(l.delivered[i], i);
    for (int i = 0; i < 11; i++)
        assert_true(l.worked[i] <= 1);
    rp_oqueue_free(&q);
    rp_oqueue_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),          cmocka_unit_test(test_batches),
        cmocka_unit_test(test_work_failure),   cmocka_unit_test(test_done_failure),
        cmocka_unit_test(test_free_in_flight),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
