/* sink.c - the sink list and its three kinds of version 1 (see sink.h). */
#include "sink.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "state.h"

/* ---- the encoded output ---------------------------------------------------------------- */

typedef struct output_sink {
    rp_output *out;
} output_sink;

static int output_check(const rp_sink_cfg *cfg, rp_error *err)
{
    int r = rp_output_validate(cfg->out, err->msg, sizeof err->msg);
    return r ? rp_error_set(err, r, 1, "%s", err->msg) : RP_OK;
}

static int output_open(void *priv, const rp_sink_cfg *cfg, rp_error *err)
{
    output_sink *o = priv;
    int r = rp_output_open(&o->out, cfg->out, err->msg, sizeof err->msg);
    if (r)
        return rp_error_set(err, r, r == RP_ERR_INVALID || r == RP_ERR_EXISTS, "%s", err->msg);
    return RP_OK;
}

static int output_write(void *priv, const rp_frame *f, rp_error *err)
{
    output_sink *o = priv;
    int r = rp_output_write(o->out, f->index, f->data, err->msg, sizeof err->msg);
    return r ? rp_error_set(err, r, 0, "%s", err->msg) : RP_OK;
}

/* The container is finished and moved into place here, before the side files are
 * committed: an encoder failure at the end still removes them. */
static int output_finish(void *priv, rp_error *err)
{
    output_sink *o = priv;
    int r = rp_output_close(&o->out, err->msg, sizeof err->msg);
    return r ? rp_error_set(err, r, 0, "%s", err->msg) : RP_OK;
}

static int output_commit(void *priv, rp_error *err)
{
    (void)priv;
    (void)err;
    return RP_OK;
}

static void output_abort(void *priv)
{
    output_sink *o = priv;
    rp_output_abort(&o->out);
}

static int64_t output_frames(const void *priv)
{
    const output_sink *o = priv;
    return o->out ? rp_output_frames(o->out) : 0;
}

const rp_sink_kind rp_sink_output = {
    .name = "output",
    .priv_size = sizeof(output_sink),
    .check = output_check,
    .open = output_open,
    .write = output_write,
    .finish = output_finish,
    .commit = output_commit,
    .abort = output_abort,
    .frames = output_frames,
};

/* ---- --hash lines ---------------------------------------------------------------------- */

typedef struct hash_sink {
    FILE *stream;
} hash_sink;

static int hash_open(void *priv, const rp_sink_cfg *cfg, rp_error *err)
{
    (void)err;
    ((hash_sink *)priv)->stream = cfg->stream;
    return RP_OK;
}

static int hash_write(void *priv, const rp_frame *f, rp_error *err)
{
    hash_sink *h = priv;
    char hex[33];
    rp_md5_hex(f->data, f->stride * (size_t)f->height, hex);
    if (fprintf(h->stream, "%" PRId64 " %s\n", f->index, hex) < 0)
        return rp_error_set(err, RP_ERR_IO, 0, "stdout: write failed: %s", strerror(errno));
    return RP_OK;
}

static int hash_finish(void *priv, rp_error *err)
{
    hash_sink *h = priv;
    if (fflush(h->stream) != 0)
        return rp_error_set(err, RP_ERR_IO, 0, "stdout: write failed: %s", strerror(errno));
    return RP_OK;
}

static void hash_abort(void *priv)
{
    (void)priv;
}

const rp_sink_kind rp_sink_hash = {
    .name = "--hash",
    .priv_size = sizeof(hash_sink),
    .open = hash_open,
    .write = hash_write,
    .finish = hash_finish,
    .commit = output_commit,
    .abort = hash_abort,
};

/* ---- --dump-heights -------------------------------------------------------------------- */

typedef struct heights_sink {
    rp_output_file *file;
    uint8_t *scratch; /* little-endian bytes of one height field */
    size_t cells;
} heights_sink;

static int heights_check(const rp_sink_cfg *cfg, rp_error *err)
{
    int r = rp_output_file_check(cfg->path, cfg->overwrite, err->msg, sizeof err->msg);
    return r ? rp_error_set(err, r, 1, "--dump-heights: %s", err->msg) : RP_OK;
}

static int heights_open(void *priv, const rp_sink_cfg *cfg, rp_error *err)
{
    heights_sink *h = priv;
    h->cells = cfg->cells;
    if (!(h->scratch = malloc(cfg->cells * 2)))
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    int r = rp_output_file_open(&h->file, cfg->path, cfg->overwrite, err->msg, sizeof err->msg);
    if (r) {
        free(h->scratch);
        h->scratch = NULL;
        return rp_error_set(err, r, 0, "--dump-heights: %s", err->msg);
    }
    return RP_OK;
}

static int heights_write(void *priv, const rp_frame *f, rp_error *err)
{
    heights_sink *h = priv;
    rp_heights_to_le(h->scratch, f->heights, h->cells);
    int r = rp_output_file_write(h->file, h->scratch, 2 * h->cells, err->msg, sizeof err->msg);
    return r ? rp_error_set(err, r, 0, "%s", err->msg) : RP_OK;
}

static int heights_finish(void *priv, rp_error *err)
{
    heights_sink *h = priv;
    int r = rp_output_file_finish(h->file, err->msg, sizeof err->msg);
    return r ? rp_error_set(err, r, 0, "%s", err->msg) : RP_OK;
}

static int heights_commit(void *priv, rp_error *err)
{
    heights_sink *h = priv;
    int r = rp_output_file_commit(&h->file, err->msg, sizeof err->msg);
    free(h->scratch);
    h->scratch = NULL;
    return r ? rp_error_set(err, r, 0, "%s", err->msg) : RP_OK;
}

static void heights_abort(void *priv)
{
    heights_sink *h = priv;
    rp_output_file_abort(&h->file);
    free(h->scratch);
    h->scratch = NULL;
}

const rp_sink_kind rp_sink_heights = {
    .name = "--dump-heights",
    .priv_size = sizeof(heights_sink),
    .wants_heights = 1,
    .check = heights_check,
    .open = heights_open,
    .write = heights_write,
    .finish = heights_finish,
    .commit = heights_commit,
    .abort = heights_abort,
};

/* ---- the list -------------------------------------------------------------------------- */

int rp_sinks_add(rp_sinks *l, const rp_sink_kind *kind, const rp_sink_cfg *cfg)
{
    if (l->n == RP_SINKS_MAX)
        return RP_ERR_TOO_LARGE;
    l->kind[l->n] = kind;
    l->cfg[l->n] = *cfg;
    l->priv[l->n] = NULL;
    l->n++;
    return RP_OK;
}

int rp_sinks_check(const rp_sinks *l, rp_error *err)
{
    for (int i = 0; i < l->n; i++) {
        int r = l->kind[i]->check ? l->kind[i]->check(&l->cfg[i], err) : RP_OK;
        if (r)
            return r;
    }
    return RP_OK;
}

int rp_sinks_want_heights(const rp_sinks *l)
{
    for (int i = 0; i < l->n; i++)
        if (l->kind[i]->wants_heights)
            return 1;
    return 0;
}

int rp_sinks_open(rp_sinks *l, rp_error *err)
{
    for (int i = 0; i < l->n; i++) {
        if (!(l->priv[i] = calloc(1, l->kind[i]->priv_size ? l->kind[i]->priv_size : 1))) {
            rp_sinks_abort(l);
            return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
        }
        int r = l->kind[i]->open(l->priv[i], &l->cfg[i], err);
        if (r) {
            free(l->priv[i]);
            l->priv[i] = NULL;
            rp_sinks_abort(l);
            return r;
        }
    }
    l->opened = 1;
    return RP_OK;
}

int rp_sinks_write(rp_sinks *l, const rp_frame *frame, rp_error *err)
{
    for (int i = 0; i < l->n; i++) {
        int r = l->kind[i]->write(l->priv[i], frame, err);
        if (r)
            return r;
    }
    return RP_OK;
}

int rp_sinks_close(rp_sinks *l, int64_t *frames, rp_error *err)
{
    int r = RP_OK;
    if (frames)
        *frames = 0;
    /* Side files first, the encoded output (listed first) last: its finish also moves it
     * into place, after which nothing else may fail. */
    for (int i = l->n - 1; i >= 0 && !r; i--) {
        if (frames && l->kind[i]->frames)
            *frames = l->kind[i]->frames(l->priv[i]);
        r = l->kind[i]->finish(l->priv[i], err);
    }
    for (int i = 0; i < l->n && !r; i++) {
        r = l->kind[i]->commit(l->priv[i], err);
        free(l->priv[i]);
        l->priv[i] = NULL;
    }
    rp_sinks_abort(l);
    return r;
}

void rp_sinks_abort(rp_sinks *l)
{
    for (int i = 0; i < l->n; i++) {
        if (l->priv[i]) {
            l->kind[i]->abort(l->priv[i]);
            free(l->priv[i]);
            l->priv[i] = NULL;
        }
    }
    l->opened = 0;
}
