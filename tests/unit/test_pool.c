/* test_pool.c - the thread pool (pool.c): every index of every job runs exactly once, on
 * any thread count, for jobs of any size, back to back and after the workers have gone to
 * sleep, with workers that come late into jobs already over; a NULL pool runs inline. The
 * index counts are the oracle. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sched.h>
#include <string.h>
#include <time.h>

#include "base/common.h"
#include "base/pool.h"
#include "tmpdir.h"

enum { MAX_COUNT = 1500 };

struct counts {
    int hits[MAX_COUNT];
    int calls;
    int bad_range; /* set by a worker, checked by the test's thread (cmocka's asserts
                      must not run on other threads) */
};

static void count_job(void *ctx, int begin, int end)
{
    struct counts *c = ctx;
    if (!(begin >= 0 && begin < end && end <= MAX_COUNT)) {
        __atomic_store_n(&c->bad_range, 1, __ATOMIC_RELAXED);
        return;
    }
    for (int i = begin; i < end; i++)
        __atomic_add_fetch(&c->hits[i], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&c->calls, 1, __ATOMIC_RELAXED);
}

/* Run count indices and check each ran once and nothing else ran. */
static void run_and_check(rp_pool *pool, struct counts *c, int count)
{
    memset(c, 0, sizeof *c);
    rp_pool_run(pool, count, count_job, c);
    assert_false(c->bad_range);
    for (int i = 0; i < MAX_COUNT; i++)
        if (c->hits[i] != (i < count))
            fail_msg("%d threads, count %d: index %d ran %d times", rp_pool_threads(pool), count, i,
                     c->hits[i]);
}

static void pause_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static void test_every_index_once(void **state)
{
    static struct counts c;
    static const int threads[] = {1, 2, 3, 8};
    (void)state;
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        rp_pool *pool = NULL;
        assert_int_equal(rp_pool_new(&pool, threads[t]), RP_OK);
        assert_int_equal(rp_pool_threads(pool), threads[t]);
        /* Back to back (workers spinning), sizes below and above the thread count. */
        for (int k = 0; k < 3000; k++)
            run_and_check(pool, &c, 1 + (k * 37) % MAX_COUNT);
        /* After a pause long enough for every worker to fall asleep, several times. */
        for (int k = 0; k < 5; k++) {
            pause_ms(20);
            run_and_check(pool, &c, 1 + k * 300);
        }
        run_and_check(pool, &c, 0); /* nothing to do: no call */
        assert_int_equal(c.calls, 0);
        rp_pool_free(&pool);
        assert_null(pool);
    }
}

static void test_null_pool_inline(void **state)
{
    static struct counts c;
    (void)state;
    run_and_check(NULL, &c, 1000);
    assert_int_equal(c.calls, 1); /* one call over the whole range */
    assert_int_equal(rp_pool_threads(NULL), 1);
    rp_pool_free(NULL);
}

static void test_bad_thread_counts(void **state)
{
    rp_pool *pool = (rp_pool *)&pool;
    (void)state;
    assert_int_equal(rp_pool_new(&pool, 0), RP_ERR_INVALID);
    assert_null(pool);
    assert_int_equal(rp_pool_new(&pool, 1025), RP_ERR_INVALID);
    assert_null(pool);
}

/* rp_pool_run_w: every index once, each chunk told a thread index in 0..threads-1, and
 * no index used by two threads at once (a thread's scratch is its own). */
typedef struct wctx {
    int hits[20000];
    int who[20000];
    int busy[4];
    int clash;
} wctx;

static void mark_w(void *ctx, int worker, int begin, int end)
{
    wctx *w = ctx;
    if (worker < 0 || worker >= 4 || __atomic_fetch_add(&w->busy[worker], 1, __ATOMIC_SEQ_CST))
        __atomic_store_n(&w->clash, 1, __ATOMIC_SEQ_CST);
    for (int i = begin; i < end; i++) {
        w->hits[i]++;
        w->who[i] = worker;
    }
    if (worker >= 0 && worker < 4)
        __atomic_fetch_sub(&w->busy[worker], 1, __ATOMIC_SEQ_CST);
}

static void test_worker_index(void **state)
{
    (void)state;
    rp_pool *pool = NULL;
    static wctx w;
    assert_int_equal(rp_pool_new(&pool, 4), RP_OK);
    for (int round = 0; round < 20; round++) {
        memset(&w, 0, sizeof w);
        rp_pool_run_w(pool, 20000, mark_w, &w);
        assert_int_equal(w.clash, 0);
        for (int i = 0; i < 20000; i++)
            assert_int_equal(w.hits[i], 1);
    }
    rp_pool_free(&pool);
    memset(&w, 0, sizeof w);
    rp_pool_run_w(NULL, 100, mark_w, &w); /* no pool: the caller, thread 0 */
    assert_int_equal(w.who[99], 0);
    assert_int_equal(w.hits[99], 1);
}

/* The default thread count is the CPUs the process may run on, as nproc(1) counts them
 * (within a cgroup CPU quota, test_cgroup_cpus): restricted to one CPU, 1 (the online
 * count, which a batch system's CPU set does not lower, gave every CPU of the machine a
 * thread). */
static void test_usable_cpus(void **state)
{
    (void)state;
    cpu_set_t all, one;
    if (sched_getaffinity(0, sizeof all, &all) != 0)
        skip();
    int n = CPU_COUNT(&all), q = rp_cgroup_cpus("/proc/self/cgroup", "/sys/fs/cgroup");
    n = q > 0 && q < n ? q : n;
    assert_int_equal(rp_online_cpus(), n > 64 ? 64 : n);
    int first = 0;
    while (!CPU_ISSET(first, &all))
        first++;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    int got = rp_online_cpus();
    assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
    assert_int_equal(got, 1);
}

/* A file of text at dir/rel, its directories made first. */
static void put_file(const char *dir, const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    for (char *s = path + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        mkdir(path, 0755);
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* rp_cgroup_cpus over a made-up /sys/fs/cgroup (root) and /proc/self/cgroup (proc): the
 * quota over the period rounded up, the tightest of the group and those above it, v2 at
 * the root or under unified/, v1 under the cpu controller's mount only; no limit, a value
 * that is not a plain number, or no file: 0. Worked out by hand. */
static void test_cgroup_cpus(void **state)
{
    const char *dir = *state;
    char root[512], proc[512];
    snprintf(proc, sizeof proc, "%s/proc-cgroup", dir);
    static const struct {
        const char *self, *files[3][2];
        int want;
    } cases[] = {
        {"0::/\n", {{"cpu.max", "200000 100000\n"}}, 2},
        {"0::/\n", {{"cpu.max", "max 100000\n"}}, 0},
        {"0::/a/b\n", {{"a/b/cpu.max", "max 100000\n"}, {"a/cpu.max", "150000 100000\n"}}, 2},
        {"0::/a/b\n", {{"a/b/cpu.max", "250000 100000\n"}, {"a/cpu.max", "50000 100000\n"}}, 1},
        {"0::/a/b\n", {{"a/b/cpu.max", "100000 100000\n"}, {"cpu.max", "400000 100000\n"}}, 1},
        {"0::/x\n", {{"unified/x/cpu.max", "300000 100000\n"}}, 3},
        {"12:pids:/\n4:cpu,cpuacct:/docker/abc\n0::/\n",
         {{"cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "400000\n"},
          {"cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n"}},
         4},
        {"1:cpu:/\n", {{"cpu/cpu.cfs_quota_us", "-1\n"}, {"cpu/cpu.cfs_period_us", "100000\n"}}, 0},
        {"3:cpuset:/x\n",
         {{"cpu/x/cpu.cfs_quota_us", "100000\n"}, {"cpu/x/cpu.cfs_period_us", "100000\n"}},
         0},
        {"0::/\n", {{"cpu.max", "2e5 100000\n"}}, 0},
        {"0::/\n", {{"cpu.max", "200000 100000 1\n"}}, 0},
        {"0::/\n", {{"cpu.max", "-200000 100000\n"}}, 0},
        {"0::/\n", {{"cpu.max", "200000 0\n"}}, 0},
        {"0::/\n", {{"cpu.max", "1234567890123456789 100000\n"}}, 0},
        {"0::/\n", {{"cpu.max", "$(reboot) 100000\n"}}, 0},
        {"0::relative\n", {{"cpu.max", "200000 100000\n"}}, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(root, sizeof root, "%s/root%zu", dir, i);
        mkdir(root, 0755);
        for (int j = 0; j < 3 && cases[i].files[j][0]; j++)
            put_file(root, cases[i].files[j][0], cases[i].files[j][1]);
        put_file(dir, "proc-cgroup", cases[i].self);
        if (rp_cgroup_cpus(proc, root) != cases[i].want)
            fail_msg("case %zu (%s): %d CPUs, wanted %d", i, cases[i].self,
                     rp_cgroup_cpus(proc, root), cases[i].want);
    }
    snprintf(root, sizeof root, "%s/root0", dir);
    assert_int_equal(rp_cgroup_cpus("/nonexistent/cgroup", root), 0);
}

/* Workers that come late. A job ends when its last index has run, not when every worker
 * has looked at it, so a worker the system has not run for a while (here: 8 threads on
 * this machine's CPUs, and chunks that sleep now and then) may wake into a job that is
 * over, or into a later one. Each job has its own context on the caller's stack, marked
 * live only while rp_pool_run runs, and jobs alternate between the two kinds of function:
 * every chunk must find its own job's context live and be handed by the right kind of
 * call, and every index must run once. A worker that took a chunk of a later job for the
 * one it woke for (or ran a job's function after it ended) fails this. */
struct late_job {
    int live, id;
    int hits[64];
};

static int late_bad;

static void late_chunk(struct late_job *j, int id, int begin, int end)
{
    if (!__atomic_load_n(&j->live, __ATOMIC_SEQ_CST) || j->id != id || begin < 0 || end > 64)
        __atomic_store_n(&late_bad, 1, __ATOMIC_SEQ_CST);
    for (int i = begin; i < end && i < 64; i++)
        __atomic_add_fetch(&j->hits[i], 1, __ATOMIC_SEQ_CST);
    if ((begin * 7 + id) % 13 == 0) {
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

static void late_fn(void *ctx, int begin, int end)
{
    struct late_job *j = ctx;
    late_chunk(j, j->id % 2 ? -1 : j->id, begin, end);
}

static void late_wfn(void *ctx, int worker, int begin, int end)
{
    struct late_job *j = ctx;
    late_chunk(j, worker >= 0 && j->id % 2 ? j->id : -1, begin, end);
}

static void one_late_job(rp_pool *pool, int id, int count)
{
    struct late_job j;
    memset(&j, 0, sizeof j);
    j.id = id;
    __atomic_store_n(&j.live, 1, __ATOMIC_SEQ_CST);
    if (id % 2)
        rp_pool_run_w(pool, count, late_wfn, &j);
    else
        rp_pool_run(pool, count, late_fn, &j);
    __atomic_store_n(&j.live, 0, __ATOMIC_SEQ_CST);
    for (int i = 0; i < 64; i++)
        if (j.hits[i] != (i < count))
            fail_msg("job %d, count %d: index %d ran %d times", id, count, i, j.hits[i]);
    /* scribble over the context, as the caller's next use of its stack would */
    memset(&j, 0xa5, sizeof j);
    __atomic_store_n(&j.live, 0, __ATOMIC_SEQ_CST);
}

static void test_late_workers(void **state)
{
    (void)state;
    static const int threads[] = {2, 3, 8};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        rp_pool *pool = NULL;
        __atomic_store_n(&late_bad, 0, __ATOMIC_SEQ_CST);
        assert_int_equal(rp_pool_new(&pool, threads[t]), RP_OK);
        for (int k = 0; k < 4000; k++) {
            one_late_job(pool, k, 1 + (k * 29) % 64);
            if (k % 500 == 499)
                pause_ms(5);
        }
        rp_pool_free(&pool);
        if (__atomic_load_n(&late_bad, __ATOMIC_SEQ_CST))
            fail_msg("%d threads: a chunk ran for a job that was over or not its own", threads[t]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worker_index),
        cmocka_unit_test(test_every_index_once),
        cmocka_unit_test(test_late_workers),
        cmocka_unit_test(test_null_pool_inline),
        cmocka_unit_test(test_bad_thread_counts),
        cmocka_unit_test(test_usable_cpus),
        cmocka_unit_test_setup_teardown(test_cgroup_cpus, make_dir, remove_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
