/* writer.c - the writer thread of the frame pipeline (see writer.h). */
#include "session/writer.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"

struct rp_writer {
    rp_writer_opts o;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    uint8_t **frames;
    int16_t **heights;
    uint16_t *(*aovs)[RP_AOV_KINDS];
    int64_t *index;
    int head;     /* next slot to hand out */
    int queued;   /* slots submitted and not yet written */
    int acquired; /* a slot is out with the renderer */
    int stopping;
    int status; /* first error, RP_OK while all is well */
    rp_error err;
};

static void *writer_main(void *arg)
{
    rp_writer *w = arg;
    int tail = 0;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->queued && !w->stopping)
            pthread_cond_wait(&w->changed, &w->lock);
        if (!w->queued)
            break;
        int64_t k = w->index[tail];
        int failed = w->status != RP_OK;
        pthread_mutex_unlock(&w->lock);

        int r = RP_OK;
        rp_error err;
        if (!failed) {
            rp_frame f = w->o.frame;
            f.index = k;
            f.data = w->frames[tail];
            f.heights = w->heights[tail];
            for (int kind = 0; kind < RP_AOV_KINDS; kind++)
                f.aov[kind] = w->aovs[tail][kind];
            r = rp_sinks_write(w->o.sinks, &f, &err);
        }

        pthread_mutex_lock(&w->lock);
        if (r && w->status == RP_OK) {
            w->status = r;
            w->err = err;
        }
        tail = (tail + 1) % w->o.slots;
        w->queued--;
        pthread_cond_broadcast(&w->changed);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

static void free_buffers(rp_writer *w)
{
    for (int i = 0; i < w->o.slots; i++) {
        if (w->frames)
            free(w->frames[i]);
        if (w->heights)
            free(w->heights[i]);
        for (int kind = 0; w->aovs && kind < RP_AOV_KINDS; kind++)
            free(w->aovs[i][kind]);
    }
    free(w->frames);
    free(w->heights);
    free(w->aovs);
    free(w->index);
}

int rp_writer_new(rp_writer **out, const rp_writer_opts *opts)
{
    *out = NULL;
    if (!opts->sinks || opts->slots < 1 || !opts->frame_bytes)
        return RP_ERR_INVALID;
    rp_writer *w = calloc(1, sizeof *w);
    if (!w)
        return RP_ERR_NOMEM;
    w->o = *opts;
    w->frames = calloc((size_t)opts->slots, sizeof *w->frames);
    w->heights = calloc((size_t)opts->slots, sizeof *w->heights);
    w->aovs = calloc((size_t)opts->slots, sizeof *w->aovs);
    w->index = calloc((size_t)opts->slots, sizeof *w->index);
    if (!w->frames || !w->heights || !w->aovs || !w->index)
        goto fail;
    for (int i = 0; i < opts->slots; i++) {
        if (!(w->frames[i] = malloc(opts->frame_bytes)))
            goto fail;
        if (opts->cells && !(w->heights[i] = malloc(opts->cells * sizeof(int16_t))))
            goto fail;
        for (int kind = 0; kind < RP_AOV_KINDS; kind++)
            if (opts->aov_bytes[kind] && !(w->aovs[i][kind] = malloc(opts->aov_bytes[kind])))
                goto fail;
    }
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->changed, NULL);
    if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->changed);
        goto fail;
    }
    *out = w;
    return RP_OK;
fail:
    free_buffers(w);
    free(w);
    return RP_ERR_NOMEM;
}

uint8_t *rp_writer_acquire(rp_writer *w, int16_t **heights, uint16_t *aov[RP_AOV_KINDS])
{
    pthread_mutex_lock(&w->lock);
    while (w->queued == w->o.slots && w->status == RP_OK)
        pthread_cond_wait(&w->changed, &w->lock);
    int ok = w->status == RP_OK;
    w->acquired = ok;
    pthread_mutex_unlock(&w->lock);
    if (!ok)
        return NULL;
    *heights = w->heights[w->head];
    for (int kind = 0; kind < RP_AOV_KINDS; kind++)
        aov[kind] = w->aovs[w->head][kind];
    return w->frames[w->head];
}

void rp_writer_submit(rp_writer *w, int64_t k)
{
    pthread_mutex_lock(&w->lock);
    if (w->acquired) {
        w->index[w->head] = k;
        w->head = (w->head + 1) % w->o.slots;
        w->queued++;
        w->acquired = 0;
        pthread_cond_broadcast(&w->changed);
    }
    pthread_mutex_unlock(&w->lock);
}

int rp_writer_finish(rp_writer **pw, rp_error *err)
{
    rp_writer *w = *pw;
    if (!w)
        return RP_OK;
    pthread_mutex_lock(&w->lock);
    w->stopping = 1;
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    int r = w->status;
    if (r)
        *err = w->err;
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->changed);
    free_buffers(w);
    free(w);
    *pw = NULL;
    return r;
}
