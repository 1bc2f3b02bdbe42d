/* sink.c - the sink list and its basic kinds: the encoded output, --hash lines,
 * --dump-heights (see sink.h; --verify and --stats have files of their own). */
#include "session/sink.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/diag.h"
#include "check/hash.h"

/* The run's setting in messages (rp_name). */
#define DUMP_HEIGHTS rp_name("--dump-heights", "rp_run.dump_heights")

/* ---- the encoded output ---------------------------------------------------------------- */

typedef struct output_sink {
    rp_output *out;
} output_sink;

static int output_check(const rp_sink_cfg *cfg, rp_error *err)
{
    return rp_output_validate(cfg->out, err);
}

static int output_open(void *priv, const rp_sink_cfg *cfg, rp_error *err)
{
    output_sink *o = priv;
    return rp_output_open(&o->out, cfg->out, err);
}

static int output_write(void *priv, const rp_frame *f, rp_error *err)
{
    output_sink *o = priv;
    return rp_output_write(o->out, f->index, f->data, err);
}

/* The container is finished and moved into place here, before the side files are
 * committed: an encoder failure at the end still removes them. */
static int output_finish(void *priv, rp_error *err)
{
    output_sink *o = priv;
    return rp_output_close(&o->out, err);
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

static double output_memory(const rp_sink_cfg *cfg)
{
    return (double)cfg->out->width * cfg->out->height *
           rp_output_cell_bytes(cfg->out, cfg->out->threads);
}

static int output_paths(const rp_sink_cfg *cfg, rp_path_use *uses)
{
    uses[0] =
        (rp_path_use){cfg->path, "-o", rp_output_spec_format(cfg->out) == RP_FORMAT_PNG ? 2 : 1};
    return 1;
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
    .memory = output_memory,
    .paths = output_paths,
};

/* ---- --hash lines ---------------------------------------------------------------------- */

/* Frames are hashed on worker threads (rp_hasher, made on the first frame, so on the
 * writer thread, whose signals are blocked) and the lines printed in frame order by the
 * hasher's callback. */
typedef struct hash_sink {
    FILE *stream;
    const char *algo;
    int threads;
    char prefix[16]; /* "" for MD5, else "crc32:" */
    rp_hasher *hasher;
    rp_error err; /* why the callback failed */
} hash_sink;

static int hash_check(const rp_sink_cfg *cfg, rp_error *err)
{
    char names[512];
    if (!rp_hash_lookup(cfg->hash_algo, NULL, NULL))
        return RP_OK;
    rp_hash_list(names, sizeof names);
    return rp_error_set(err, RP_ERR_INVALID, 1, "unknown hash algorithm '%s' (expected %s)",
                        cfg->hash_algo, names);
}

static int hash_open(void *priv, const rp_sink_cfg *cfg, rp_error *err)
{
    hash_sink *h = priv;
    const char *canonical;
    int r = hash_check(cfg, err);
    if (r)
        return r;
    rp_hash_lookup(cfg->hash_algo, &canonical, NULL);
    h->stream = cfg->stream;
    h->algo = canonical;
    h->threads = cfg->threads;
    if (strcmp(canonical, "MD5")) {
        size_t i = 0;
        for (; canonical[i] && i < sizeof h->prefix - 2; i++)
            h->prefix[i] = (char)(canonical[i] >= 'A' && canonical[i] <= 'Z' ? canonical[i] + 32
                                                                             : canonical[i]);
        h->prefix[i] = ':';
    }
    return RP_OK;
}

static int hash_line(void *priv, int64_t frame_index, const uint8_t *frame, const char *hex)
{
    hash_sink *h = priv;
    (void)frame;
    if (fprintf(h->stream, "%" PRId64 " %s%s\n", frame_index, h->prefix, hex) < 0)
        return rp_error_set(&h->err, RP_ERR_IO, 0, "stdout: write failed: %s", strerror(errno));
    return RP_OK;
}

static int hash_write(void *priv, const rp_frame *f, rp_error *err)
{
    hash_sink *h = priv;
    int r;
    if (!h->hasher && (r = rp_hasher_new(&h->hasher, h->algo, f->stride * (size_t)f->height,
                                         h->threads, hash_line, h)))
        return r == RP_ERR_NOMEM ? rp_error_set(err, r, 0, "%s: out of memory starting hashing: %s",
                                                rp_name("--hash", "rp_run.hash"), rp_oom_hint())
                                 : rp_error_set(err, r, 0, "%s: cannot start hashing: %s",
                                                rp_name("--hash", "rp_run.hash"), rp_strerror(r));
    if ((r = rp_hasher_submit(h->hasher, f->index, f->data)))
        *err = h->err;
    return r;
}

static int hash_finish(void *priv, rp_error *err)
{
    hash_sink *h = priv;
    int r = h->hasher ? rp_hasher_flush(h->hasher) : RP_OK;
    rp_hasher_free(&h->hasher);
    if (r) {
        *err = h->err;
        return r;
    }
    if (fflush(h->stream) != 0)
        return rp_error_set(err, RP_ERR_IO, 0, "stdout: write failed: %s", strerror(errno));
    return RP_OK;
}

static void hash_abort(void *priv)
{
    hash_sink *h = priv;
    rp_hasher_free(&h->hasher);
}

/* The hasher's frame copies (hash.h); --verify's too (the manifest is not read yet when
 * this is asked: its algorithm NULL counts as MD5's, the most any algorithm's can be). */
double rp_sink_hash_memory(const rp_sink_cfg *cfg)
{
    size_t bpp = (size_t)rp_pixfmt_bytes(cfg->out->pixfmt);
    size_t pixels = (size_t)cfg->out->width * (size_t)cfg->out->height;
    return (double)pixels * (double)rp_hasher_copies(cfg->hash_algo, pixels * bpp, cfg->threads) *
           (double)bpp;
}

const rp_sink_kind rp_sink_hash = {
    .name = "--hash",
    .priv_size = sizeof(hash_sink),
    .check = hash_check,
    .open = hash_open,
    .write = hash_write,
    .finish = hash_finish,
    .commit = output_commit,
    .abort = hash_abort,
    .memory = rp_sink_hash_memory,
};

/* ---- --dump-heights -------------------------------------------------------------------- */

typedef struct heights_sink {
    rp_output_file *file;
    uint8_t *scratch; /* little-endian bytes of one height field */
    size_t cells;
} heights_sink;

static int heights_check(const rp_sink_cfg *cfg, rp_error *err)
{
    int r = rp_output_file_check(cfg->path, cfg->overwrite, err);
    return r ? rp_error_set(err, r, err->bad_input, "%s: %s", DUMP_HEIGHTS, err->msg) : RP_OK;
}

static int heights_open(void *priv, const rp_sink_cfg *cfg, rp_error *err)
{
    heights_sink *h = priv;
    h->cells = cfg->cells;
    if (!(h->scratch = malloc(cfg->cells * 2)))
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    int r = rp_output_file_open(&h->file, cfg->path, cfg->overwrite, err);
    if (r) {
        free(h->scratch);
        h->scratch = NULL;
        return rp_error_set(err, r, err->bad_input, "%s: %s", DUMP_HEIGHTS, err->msg);
    }
    return RP_OK;
}

static int heights_write(void *priv, const rp_frame *f, rp_error *err)
{
    heights_sink *h = priv;
    rp_heights_to_le(h->scratch, f->heights, h->cells);
    return rp_output_file_write(h->file, h->scratch, 2 * h->cells, err);
}

static int heights_finish(void *priv, rp_error *err)
{
    heights_sink *h = priv;
    return rp_output_file_finish(h->file, err);
}

static int heights_commit(void *priv, rp_error *err)
{
    heights_sink *h = priv;
    int r = rp_output_file_commit(&h->file, err);
    free(h->scratch);
    h->scratch = NULL;
    return r;
}

static void heights_abort(void *priv)
{
    heights_sink *h = priv;
    rp_output_file_abort(&h->file);
    free(h->scratch);
    h->scratch = NULL;
}

static int heights_paths(const rp_sink_cfg *cfg, rp_path_use *uses)
{
    uses[0] = (rp_path_use){cfg->path, DUMP_HEIGHTS, 1};
    return 1;
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
    .paths = heights_paths,
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
    /* Last opened first: a directory an earlier sink created may hold one a later sink
     * created, and is removed only once that one is. */
    for (int i = l->n - 1; i >= 0; i--) {
        if (l->priv[i]) {
            l->kind[i]->abort(l->priv[i]);
            free(l->priv[i]);
            l->priv[i] = NULL;
        }
    }
    l->opened = 0;
}

double rp_sinks_memory(const rp_sinks *l)
{
    double bytes = 0;
    for (int i = 0; i < l->n; i++)
        bytes += l->kind[i]->memory ? l->kind[i]->memory(&l->cfg[i]) : 0;
    return bytes;
}

int rp_sinks_paths(const rp_sinks *l, rp_path_use *uses)
{
    int n = 0;
    for (int i = 0; i < l->n; i++)
        n += l->kind[i]->paths ? l->kind[i]->paths(&l->cfg[i], uses + n) : 0;
    return n;
}
