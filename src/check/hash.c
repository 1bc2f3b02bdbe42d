/* hash.c - frame hashes by name through libraries: libavutil's AVHashContext for
 * FFmpeg's algorithms, libxxhash's XXH3_64bits for xxh3. This file maps names and formats
 * digests as hash.h describes; the one hash written here is md5x8.c's, which the hasher
 * uses for MD5 frames eight at a time where the CPU has AVX2 (see rp_hasher below). */
#include "check/hash.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libavutil/hash.h>
#include <xxhash.h>

#include "base/common.h"
#include "base/oqueue.h"
#include "check/md5x8.h"

#define XXH3_NAME "XXH3"

struct rp_hash {
    struct AVHashContext *av; /* NULL for XXH3 */
    XXH3_state_t *xxh3;
    const char *name;
    int hex_len;
};

/* libavutil's spelling of a name typed in any case, or NULL. */
static const char *av_canonical(const char *name)
{
    const char *n;

    for (int i = 0; (n = av_hash_names(i)); i++)
        if (strcasecmp(n, name) == 0)
            return n;
    return NULL;
}

int rp_hash_lookup(const char *name, const char **canonical, int *hex_len)
{
    struct AVHashContext *av = NULL;
    const char *n;

    if (!name || !*name)
        name = RP_HASH_DEFAULT;
    if (strcasecmp(name, XXH3_NAME) == 0) {
        if (canonical)
            *canonical = XXH3_NAME;
        if (hex_len)
            *hex_len = 16;
        return RP_OK;
    }
    n = av_canonical(name);
    if (!n)
        return RP_ERR_INVALID;
    if (av_hash_alloc(&av, n) < 0)
        return RP_ERR_NOMEM;
    if (canonical)
        *canonical = av_hash_get_name(av);
    if (hex_len)
        *hex_len = 2 * av_hash_get_size(av);
    av_hash_freep(&av);
    return RP_OK;
}

const char *rp_hash_name_at(int i)
{
    int n = 0;

    if (i < 0)
        return NULL;
    while (av_hash_names(n))
        n++;
    if (i < n)
        return av_hash_names(i);
    return i == n ? XXH3_NAME : NULL;
}

void rp_hash_list(char *buf, size_t len)
{
    size_t used = 0;
    const char *n;

    if (!buf || !len)
        return;
    buf[0] = '\0';
    for (int i = 0; (n = rp_hash_name_at(i)); i++) {
        for (const char *s = i ? ", " : ""; *s && used + 1 < len; s++)
            buf[used++] = *s;
        for (; *n && used + 1 < len; n++)
            buf[used++] = (char)(*n >= 'A' && *n <= 'Z' ? *n - 'A' + 'a' : *n);
        buf[used] = '\0';
    }
}

int rp_hash_new(rp_hash **out, const char *name)
{
    rp_hash *h;
    int ret;

    if (!out)
        return RP_ERR_INVALID;
    *out = NULL;
    h = calloc(1, sizeof(*h));
    if (!h)
        return RP_ERR_NOMEM;
    ret = rp_hash_lookup(name, &h->name, &h->hex_len);
    if (ret)
        goto fail;
    if (strcmp(h->name, XXH3_NAME) == 0) {
        h->xxh3 = XXH3_createState();
        if (!h->xxh3) {
            ret = RP_ERR_NOMEM;
            goto fail;
        }
    } else if (av_hash_alloc(&h->av, h->name) < 0) {
        ret = RP_ERR_NOMEM;
        goto fail;
    }
    rp_hash_reset(h);
    *out = h;
    return RP_OK;

fail:
    rp_hash_free(&h);
    return ret;
}

void rp_hash_free(rp_hash **h)
{
    if (!h || !*h)
        return;
    av_hash_freep(&(*h)->av);
    if ((*h)->xxh3)
        XXH3_freeState((*h)->xxh3);
    free(*h);
    *h = NULL;
}

const char *rp_hash_name(const rp_hash *h)
{
    return h ? h->name : NULL;
}

int rp_hash_hex_len(const rp_hash *h)
{
    return h ? h->hex_len : 0;
}

void rp_hash_reset(rp_hash *h)
{
    if (!h)
        return;
    if (h->av)
        av_hash_init(h->av);
    else
        XXH3_64bits_reset(h->xxh3);
}

void rp_hash_update(rp_hash *h, const uint8_t *data, size_t len)
{
    if (!h || (!data && len))
        return;
    if (h->av)
        av_hash_update(h->av, data, len);
    else
        XXH3_64bits_update(h->xxh3, data, len);
}

/* n bytes as 2n lowercase hex digits, in order, and a NUL. */
static void put_hex(const uint8_t *bytes, int n, char *hex)
{
    static const char digits[] = "0123456789abcdef";

    for (int i = 0; i < n; i++) {
        hex[2 * i] = digits[bytes[i] >> 4];
        hex[2 * i + 1] = digits[bytes[i] & 15];
    }
    hex[2 * n] = '\0';
}

void rp_hash_final_hex(rp_hash *h, char *hex)
{
    if (!h || !hex) {
        if (hex)
            hex[0] = '\0';
        rp_hash_reset(h);
        return;
    }
    if (h->av) {
        /* The digest bytes in order, lowercase: what libavformat's framehash prints. */
        av_hash_final_hex(h->av, (uint8_t *)hex, h->hex_len + 1);
    } else {
        XXH64_canonical_t c; /* big-endian bytes, as xxhsum prints them */

        XXH64_canonicalFromHash(&c, XXH3_64bits_digest(h->xxh3));
        put_hex(c.digest, 8, hex);
    }
    rp_hash_reset(h);
}

void rp_hash_hex(rp_hash *h, const uint8_t *data, size_t len, char *hex)
{
    if (!data && len) { /* no bytes to hash: no digest */
        if (hex)
            hex[0] = '\0';
        return;
    }
    rp_hash_reset(h);
    rp_hash_update(h, data, len);
    rp_hash_final_hex(h, hex);
}

/* ---- rp_hasher: frames hashed on worker threads, delivered in order ---- */

typedef struct hash_job {
    uint8_t *frame;
    int64_t index;
    char hex[RP_HASH_HEX_MAX];
} hash_job;

struct rp_hasher {
    size_t frame_size;
    rp_hasher_fn done;
    void *ctx;
    int failed; /* the callback's nonzero result, once it gave one */
    rp_hash *inline_hash;
    /* lanes > 0: MD5 frames are hashed `lanes` at a time by rp_md5x8 (batch mode), by one
     * worker, or with no workers by the caller once `lanes` frames are copied. */
    int lanes;
    /* With workers (nworkers > 0), the frames go through an ordered queue (base/oqueue.h)
     * of njobs copies, hashed by the workers (hashes[i] is worker i's context) and called
     * back in order on the caller's thread. Without workers in batch mode, jobs[] holds
     * the batch being filled, head..tail. */
    int nworkers;
    rp_hash *hashes[RP_HASHER_MAX_THREADS];
    rp_oqueue *queue;
    hash_job *jobs;
    void **job_ptrs;
    size_t njobs;
    uint64_t head, tail;
};

/* Batch mode (MD5 on a CPU with AVX2): rp_md5x8 hashes up to 8 frames in one pass, faster
 * per frame than one MD5 stream. The frames copied for it, 2 * lanes with a
 * worker, stay within BATCH_BYTES: 8 lanes at 1920x1080 (16 copies, 100 MB), 5 at
 * 3840x2160, none (one frame at a time) where fewer than 2 would fit. */
#define BATCH_BYTES ((size_t)256 << 20)

/* The frames of a batch for frame_size (0: too large to batch), on any CPU. */
static int lanes_for(size_t frame_size)
{
    size_t lanes = BATCH_BYTES / 2 / (frame_size ? frame_size : 1);

    if (lanes > 8)
        lanes = 8;
    return lanes >= 2 ? (int)lanes : 0;
}

static int batch_lanes(const char *canonical, size_t frame_size)
{
    if (strcmp(canonical, "MD5") != 0 || !rp_md5x8_available())
        return 0;
    return lanes_for(frame_size);
}

/* Worker threads: one batch worker, else one per thread up to the cap; none hash inline. */
static int worker_count(int lanes, int threads)
{
    if (threads <= 1)
        return 0;
    if (lanes)
        return 1;
    return threads > RP_HASHER_MAX_THREADS ? RP_HASHER_MAX_THREADS : threads;
}

/* Frame copies: a batch being filled without workers, two batches with the worker, two
 * per worker otherwise. */
static size_t copy_count(int lanes, int threads)
{
    size_t workers = (size_t)worker_count(lanes, threads);

    return lanes ? (size_t)lanes * (workers ? 2 : 1) : 2 * workers;
}

size_t rp_hasher_copies(const char *algo, size_t frame_size, int threads)
{
    const char *canonical;
    size_t plain = copy_count(0, threads), batched;

    if (rp_hash_lookup(algo, &canonical, NULL))
        return 0;
    if (strcmp(canonical, "MD5") != 0)
        return plain;
    batched = copy_count(lanes_for(frame_size), threads);
    return batched > plain ? batched : plain;
}

/* The MD5 of n (1..8) frames in one rp_md5x8 pass, into their jobs' hex (the digest bytes
 * in order, lowercase, as av_hash_final_hex writes them). */
static void hash_batch(hash_job *const *jobs, int n, size_t len)
{
    const uint8_t *msg[8];
    uint8_t digest[8][16];

    for (int i = 0; i < 8; i++)
        msg[i] = jobs[i < n ? i : 0]->frame; /* idle lanes repeat the first frame */
    rp_md5x8(msg, len, digest);
    for (int i = 0; i < n; i++)
        put_hex(digest[i], 16, jobs[i]->hex);
}

/* The queue's work: `lanes` frames at a time in batch mode, else one with the worker's own
 * context. */
static int hash_work(void *ctx, int worker, void *const *jobs, int n)
{
    rp_hasher *hs = ctx;

    if (hs->lanes)
        hash_batch((hash_job *const *)jobs, n, hs->frame_size);
    else
        rp_hash_hex(hs->hashes[worker], ((hash_job *)jobs[0])->frame, hs->frame_size,
                    ((hash_job *)jobs[0])->hex);
    return 0;
}

static int hash_done(void *ctx, void *job)
{
    rp_hasher *hs = ctx;
    hash_job *j = job;

    return hs->done(hs->ctx, j->index, j->frame, j->hex);
}

/* Batch mode without workers: hash the copied frames and call back for each in order,
 * up to the first callback that fails. */
static int run_batch(rp_hasher *hs)
{
    hash_job *batch[8] = {0};
    int n = (int)(hs->tail - hs->head);

    for (int i = 0; i < n; i++)
        batch[i] = &hs->jobs[i];
    if (n)
        hash_batch(batch, n, hs->frame_size);
    hs->head = hs->tail;
    for (int i = 0; i < n && !hs->failed; i++) {
        int ret = hs->done(hs->ctx, batch[i]->index, batch[i]->frame, batch[i]->hex);
        if (ret)
            hs->failed = ret;
    }
    return hs->failed;
}

int rp_hasher_new(rp_hasher **out, const char *algo, size_t frame_size, int threads,
                  rp_hasher_fn done, void *ctx)
{
    rp_hasher *hs;
    int ret;

    *out = NULL;
    hs = calloc(1, sizeof(*hs));
    if (!hs)
        return RP_ERR_NOMEM;
    hs->frame_size = frame_size;
    hs->done = done;
    hs->ctx = ctx;
    ret = rp_hash_new(&hs->inline_hash, algo);
    if (ret) {
        free(hs);
        return ret;
    }
    hs->lanes = batch_lanes(rp_hash_name(hs->inline_hash), frame_size);
    if (threads <= 1 && !hs->lanes) {
        *out = hs;
        return RP_OK;
    }
    hs->nworkers = worker_count(hs->lanes, threads);
    hs->njobs = copy_count(hs->lanes, threads);
    hs->jobs = calloc(hs->njobs, sizeof(*hs->jobs));
    if (!hs->jobs)
        goto nomem;
    for (size_t i = 0; i < hs->njobs; i++)
        if (!(hs->jobs[i].frame = malloc(frame_size ? frame_size : 1)))
            goto nomem;
    for (int i = 0; i < hs->nworkers && !hs->lanes; i++) {
        ret = rp_hash_new(&hs->hashes[i], algo);
        if (ret)
            goto fail;
    }
    if (hs->nworkers) {
        if (!(hs->job_ptrs = malloc(hs->njobs * sizeof *hs->job_ptrs)))
            goto nomem;
        for (size_t i = 0; i < hs->njobs; i++)
            hs->job_ptrs[i] = &hs->jobs[i];
        rp_oqueue_cfg q = {.jobs = hs->job_ptrs,
                           .njobs = hs->njobs,
                           .workers = hs->nworkers,
                           .batch = hs->lanes ? hs->lanes : 1,
                           .work = hash_work,
                           .done = hash_done,
                           .ctx = hs};
        if ((ret = rp_oqueue_new(&hs->queue, &q)))
            goto fail;
    }
    *out = hs;
    return RP_OK;

nomem:
    ret = RP_ERR_NOMEM;
fail:
    rp_hasher_free(&hs);
    return ret;
}

const char *rp_hasher_name(const rp_hasher *hs)
{
    return rp_hash_name(hs->inline_hash);
}

int rp_hasher_hex_len(const rp_hasher *hs)
{
    return rp_hash_hex_len(hs->inline_hash);
}

int rp_hasher_submit(rp_hasher *hs, int64_t frame_index, const uint8_t *frame)
{
    hash_job *job;
    int ret;

    if (hs->failed)
        return hs->failed;
    if (!hs->nworkers && hs->lanes) {
        job = &hs->jobs[hs->tail - hs->head];
        memcpy(job->frame, frame, hs->frame_size);
        job->index = frame_index;
        hs->tail++;
        return hs->tail - hs->head == (uint64_t)hs->lanes ? run_batch(hs) : RP_OK;
    }
    if (!hs->nworkers) {
        char hex[RP_HASH_HEX_MAX];

        rp_hash_hex(hs->inline_hash, frame, hs->frame_size, hex);
        ret = hs->done(hs->ctx, frame_index, frame, hex);
        if (ret)
            hs->failed = ret;
        return ret;
    }
    if (!(job = rp_oqueue_acquire(hs->queue, &ret)))
        return hs->failed = ret;
    memcpy(job->frame, frame, hs->frame_size); /* the job is ours: no worker reads it */
    job->index = frame_index;
    return hs->failed = rp_oqueue_submit(hs->queue);
}

int rp_hasher_flush(rp_hasher *hs)
{
    if (!hs->nworkers)
        return hs->failed || !hs->lanes ? hs->failed : run_batch(hs);
    return hs->failed = rp_oqueue_flush(hs->queue);
}

void rp_hasher_free(rp_hasher **phs)
{
    rp_hasher *hs;

    if (!phs || !*phs)
        return;
    hs = *phs;
    /* Frames still queued are dropped: workers only finish what they hold. */
    rp_oqueue_free(&hs->queue);
    free(hs->job_ptrs);
    for (size_t i = 0; hs->jobs && i < hs->njobs; i++)
        free(hs->jobs[i].frame);
    free(hs->jobs);
    for (int i = 0; i < RP_HASHER_MAX_THREADS; i++)
        rp_hash_free(&hs->hashes[i]);
    rp_hash_free(&hs->inline_hash);
    free(hs);
    *phs = NULL;
}
