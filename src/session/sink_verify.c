/* sink_verify.c - the --verify sink (rockpool(1) --verify): every written frame is hashed
 * (rp_hasher, on worker threads) and compared, in frame order, with the manifest's hash of
 * that frame (manifest.h: a framemd5/framehash file or --hash lines). The manifest is read
 * and checked against the run (size, frames, algorithm) before anything is created, so a
 * manifest for other settings is bad input. At the first difference the frame is written
 * as PNG, STEM.actual-FRAME.png in the current directory (STEM the manifest's name without
 * its directory and last extension: never among the golden files) or in cfg->dir, and the
 * sink fails with RP_ERR_MISMATCH, which stops the render; the message names the frame, the
 * manifest line, both hashes and every file written. With cfg->ref (--verify-ref, the
 * expected frames as PNGs) a difference image is written beside it, STEM.diff-FRAME.png. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/hash.h"
#include "check/manifest.h"
#include "output/output.h"
#include "input/image.h"
#include "output/output_backend.h"
#include "session/sink.h"
#include "base/common.h"
#include "base/diag.h"

/* The run's setting in messages (rp_name). */
#define VERIFY rp_name("--verify", "rp_run.verify")
#define VERIFY_DIR rp_name("--verify-dir", "rp_run.verify_dir")
#define VERIFY_REF rp_name("--verify-ref", "rp_run.verify_ref")
#define ACTUAL_PNGS                                                                                \
    rp_name("--verify's PNG of a differing frame", "rp_run.verify's PNG of a differing frame")
#define DIFF_PNGS rp_name("--verify's difference image", "rp_run.verify's difference image")

typedef struct verify_sink {
    const rp_sink_cfg *cfg;
    rp_manifest *m;
    rp_hasher *hasher;
    int width, height;
    int64_t matched;
    rp_error err; /* why the callback failed */
} verify_sink;

/* What reading the manifest may take (rp_manifest_memory): known for a regular file, 0
 * for a pipe or a device, which is read within what the rest of the run leaves. */
static double manifest_memory(const rp_sink_cfg *cfg)
{
    struct stat st;
    return cfg->path && !stat(cfg->path, &st) && S_ISREG(st.st_mode)
               ? (double)rp_manifest_memory(st.st_size)
               : 0;
}

/* Read the manifest within its share of --max-memory and check it describes the frames
 * of this run. */
static int load(rp_manifest **m, const rp_sink_cfg *cfg, rp_error *err)
{
    double budget = (double)cfg->memory_left + manifest_memory(cfg);
    int64_t max_bytes = budget < 1 ? 1 : budget > (double)INT64_MAX / 2 ? 0 : (int64_t)budget;
    int r = rp_manifest_load(m, cfg->path, cfg->hash_algo, max_bytes, cfg->stop, err);
    if (r)
        return r;
    rp_manifest_run run = {
        .width = cfg->out->width,
        .height = cfg->out->height,
        .fps_num = cfg->out->fps,
        .fps_den = cfg->out->fps_den > 0 ? cfg->out->fps_den : 1,
        .first_frame = cfg->out->first_frame,
        .frame_count = cfg->out->frame_count,
        .pix_fmt = cfg->out->pixfmt == RP_PIX_RGBA ? "rgba" : "rgb24",
        .part = cfg->part,
        .hash_algo = cfg->hash_algo && *cfg->hash_algo ? cfg->hash_algo : NULL,
    };
    if ((r = rp_manifest_check(*m, &run, err))) {
        rp_manifest_free(m);
        snprintf(err->diag.file, sizeof err->diag.file, "%s", cfg->path);
        rp_manifest_error_file(err);
        return r;
    }
    return RP_OK;
}

/* Where the differing frame goes: "DIR/STEM" (raw), and the PNG pattern
 * "DIR/STEM.TAIL-%05d.png" (TAIL "actual" or "diff") with '%' in DIR and STEM doubled. */
static int png_names(const rp_sink_cfg *cfg, const char *what, char *raw, size_t rawlen,
                     char *pattern, size_t len)
{
    const char *slash = strrchr(cfg->path, '/');
    const char *base = slash ? slash + 1 : cfg->path;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    int n = cfg->dir ? snprintf(raw, rawlen, "%s/%.*s", cfg->dir, (int)stem, base)
                     : snprintf(raw, rawlen, "%.*s", (int)stem, base);
    if (n < 0 || (size_t)n >= rawlen)
        return RP_ERR_TOO_LARGE;
    size_t o = 0;
    for (const char *p = raw; *p; p++) {
        if (o + 3 >= len)
            return RP_ERR_TOO_LARGE;
        if (*p == '%')
            pattern[o++] = '%';
        pattern[o++] = *p;
    }
    if (snprintf(pattern + o, len - o, ".%s-%%05d.png", what) >= (int)(len - o))
        return RP_ERR_TOO_LARGE;
    return RP_OK;
}

static int verify_check(const rp_sink_cfg *cfg, rp_error *err)
{
    rp_manifest *m = NULL;
    struct stat st;
    char place[4200];
    if (cfg->dir && rp_path_kernel_fs(cfg->dir, place, sizeof place))
        return rp_error_set(err, RP_ERR_INVALID, 1, "%s %s: it is %s", VERIFY_DIR, cfg->dir, place);
    if (cfg->dir && stat(cfg->dir, &st) != 0)
        return rp_error_set(err, RP_ERR_IO, 1, "%s %s: %s", VERIFY_DIR, cfg->dir, strerror(errno));
    if (cfg->dir && !S_ISDIR(st.st_mode))
        return rp_error_set(err, RP_ERR_INVALID, 1, "%s %s: not a directory", VERIFY_DIR, cfg->dir);
    /* The expected frames are read only at a difference: their pattern is checked now. */
    char raw[4096], actual[8200], diff[8200];
    if (cfg->ref) {
        int r = rp_output_pattern_name(cfg->ref, cfg->out->first_frame, raw, sizeof raw, err);
        if (r)
            return rp_error_set(err, r, err->bad_input, "%s: %s", VERIFY_REF, err->msg);
    }
    /* The frames written at a difference must not be the expected frames' files */
    if (cfg->ref && !png_names(cfg, "actual", raw, sizeof raw, actual, sizeof actual) &&
        !png_names(cfg, "diff", raw, sizeof raw, diff, sizeof diff)) {
        const rp_path_use uses[] = {{cfg->ref, VERIFY_REF, 2},
                                    {actual, "the PNGs of differing frames", 2},
                                    {diff, "the difference image", 2}};
        int r = rp_paths_check(uses, 3, err);
        if (r)
            return r;
    }
    /* A pipe can be read once: it is read and checked when the sink opens (still before
     * any frame, and a failure there removes every file the run had begun). */
    if (stat(cfg->path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return RP_OK;
    int r = load(&m, cfg, err);
    rp_manifest_free(&m);
    return r;
}

/* Write a frame as one PNG, STEM.KIND-FRAME.png (through the PNG output, so the actual
 * frame is the bytes -o would write); its name, or why it failed, into what. */
static void write_png(verify_sink *v, const char *kind, enum rp_pixfmt pixfmt, int64_t k,
                      const uint8_t *rgb, char *what, size_t len)
{
    char raw[4096], pattern[8200];
    rp_error err; /* its message is told cut to 511 bytes */
    rp_output_spec o;
    rp_output *out = NULL;
    if (png_names(v->cfg, kind, raw, sizeof raw, pattern, sizeof pattern)) {
        snprintf(what, len, "not written: the name is too long");
        return;
    }
    rp_output_spec_init(&o);
    o.path = pattern;
    o.format = RP_FORMAT_PNG;
    o.width = v->width;
    o.height = v->height;
    o.fps = v->cfg->out->fps;
    o.fps_den = v->cfg->out->fps_den;
    o.pixfmt = pixfmt;
    o.first_frame = k;
    o.frame_count = 1;
    o.overwrite = 1;
    o.threads = 1;
    int r = rp_output_open(&out, &o, &err);
    if (!r && !(r = rp_output_write(out, k, rgb, &err)))
        r = rp_output_close(&out, &err);
    rp_output_abort(&out);
    if (r)
        snprintf(what, len, "not written: %.511s", err.msg);
    else
        snprintf(what, len, "written to %.900s.%s-%05" PRId64 ".png", raw, kind, k);
}

/* The difference of the actual frame from the expected one (frame k of --verify-ref),
 * as an RGB picture: the actual frame in dim grey where the two are equal, red where they
 * differ (any of its samples: RGBA with --alpha), brighter the larger the difference (8
 * levels a step, at least 64); written as
 * STEM.diff-FRAME.png. Its name, or why there is none, into what. */
static void write_diff(verify_sink *v, int64_t k, const uint8_t *frame, char *what, size_t len)
{
    char name[4096];
    rp_error err; /* its message is told cut to 511 bytes */
    int w = v->width, h = v->height, iw, ih;
    size_t bpp = (size_t)rp_pixfmt_bytes(v->cfg->out->pixfmt), n = (size_t)w * (size_t)h;
    uint8_t *ref = NULL, *diff;
    if (rp_output_pattern_name(v->cfg->ref, k, name, sizeof name, &err) ||
        rp_image_probe(name, &iw, &ih, &err)) {
        snprintf(what, len, "; no difference image: %.511s", err.msg);
        return;
    }
    if (iw != w || ih != h) {
        snprintf(what, len, "; no difference image: %.900s is %dx%d, the frame %dx%d", name, iw, ih,
                 w, h);
        return;
    }
    /* with --alpha the frame is RGBA: every sample compared, alpha too */
    if ((bpp == 4 ? rp_image_load_rgba(name, w, h, &ref, &err)
                  : rp_image_load_rgb(name, w, h, &ref, &err)) ||
        !(diff = malloc(n * 3))) {
        snprintf(what, len, "; no difference image: %.511s", ref ? "out of memory" : err.msg);
        free(ref);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const uint8_t *a = frame + i * bpp, *b = ref + i * bpp;
        int d = 0, grey = (a[0] + 2 * a[1] + a[2]) / 16;
        for (int c = 0; c < (int)bpp; c++)
            d = abs(a[c] - b[c]) > d ? abs(a[c] - b[c]) : d;
        diff[i * 3] = (uint8_t)(d ? (64 + 8 * d > 255 ? 255 : 64 + 8 * d) : grey);
        diff[i * 3 + 1] = diff[i * 3 + 2] = (uint8_t)(d ? 0 : grey);
    }
    char made[1024];
    write_png(v, "diff", RP_PIX_RGB24, k, diff, made, sizeof made);
    snprintf(what, len, "; the difference from %.900s %.900s", name, made);
    free(ref);
    free(diff);
}

/* The hasher's callback, in frame order: compare one frame. */
static int compare(void *priv, int64_t k, const uint8_t *frame, const char *hex)
{
    verify_sink *v = priv;
    const rp_manifest_frame *want = rp_manifest_find(v->m, k);
    char what[1024];
    if (!want) /* rp_manifest_check() saw every frame of the run: cannot happen */
        return rp_error_set(&v->err, RP_ERR_INVALID, 1, "%s: no hash for frame %" PRId64,
                            v->cfg->path, k);
    if (!strcmp(want->hash, hex)) {
        v->matched++;
        return RP_OK;
    }
    char diff[2100] = "";
    /* the frame as it was hashed (RGBA with --alpha) */
    write_png(v, "actual", v->cfg->out->pixfmt, k, frame, what, sizeof what);
    if (v->cfg->ref)
        write_diff(v, k, frame, diff, sizeof diff);
    return rp_error_set(&v->err, RP_ERR_MISMATCH, 0,
                        "%s:%d: frame %" PRId64 " differs: expected %s %s, got %s (the frame is "
                        "%s%s)",
                        v->cfg->path, want->line, k, v->m->algo, want->hash, hex, what, diff);
}

static int verify_open(void *priv, const rp_sink_cfg *cfg, rp_error *err)
{
    verify_sink *v = priv;
    v->cfg = cfg;
    return load(&v->m, cfg, err);
}

static int verify_write(void *priv, const rp_frame *f, rp_error *err)
{
    verify_sink *v = priv;
    int r;
    if (!v->hasher) {
        v->width = f->width;
        v->height = f->height;
        if ((r = rp_hasher_new(&v->hasher, v->m->algo, f->stride * (size_t)f->height,
                               v->cfg->threads, compare, v)))
            return r == RP_ERR_NOMEM
                       ? rp_error_set(err, r, 0, "%s: out of memory starting hashing: %s", VERIFY,
                                      rp_oom_hint())
                       : rp_error_set(err, r, 0, "%s: cannot start hashing: %s", VERIFY,
                                      rp_strerror(r));
    }
    if ((r = rp_hasher_submit(v->hasher, f->index, f->data)))
        *err = v->err;
    return r;
}

static int verify_finish(void *priv, rp_error *err)
{
    verify_sink *v = priv;
    int r = v->hasher ? rp_hasher_flush(v->hasher) : RP_OK;
    rp_hasher_free(&v->hasher);
    if (r)
        *err = v->err;
    return r;
}

static void verify_abort(void *priv)
{
    verify_sink *v = priv;
    rp_hasher_free(&v->hasher);
    rp_manifest_free(&v->m);
}

static int verify_commit(void *priv, rp_error *err)
{
    (void)err;
    verify_abort(priv);
    return RP_OK;
}

/* The hasher's copies, and the most that reading the manifest may take. */
static double verify_memory(const rp_sink_cfg *cfg)
{
    return rp_sink_hash_memory(cfg) + manifest_memory(cfg);
}

/* The manifest, and the PNGs a difference writes (in cfg->names): a name of an input (the
 * background, the scene, ...) for a frame, which a difference would overwrite, or the file
 * of another output, is refused before anything is rendered. */
static int verify_paths(const rp_sink_cfg *cfg, rp_path_use *uses)
{
    char raw[4096], *actual = cfg->names, *diff = actual ? actual + RP_VERIFY_NAME_MAX : NULL;
    int n = 0;
    uses[n++] = (rp_path_use){cfg->path, VERIFY, 0};
    if (actual && !png_names(cfg, "actual", raw, sizeof raw, actual, RP_VERIFY_NAME_MAX))
        uses[n++] = (rp_path_use){actual, ACTUAL_PNGS, 2};
    if (actual && cfg->ref && !png_names(cfg, "diff", raw, sizeof raw, diff, RP_VERIFY_NAME_MAX))
        uses[n++] = (rp_path_use){diff, DIFF_PNGS, 2};
    return n;
}

const rp_sink_kind rp_sink_verify = {
    .name = "--verify",
    .priv_size = sizeof(verify_sink),
    .check = verify_check,
    .open = verify_open,
    .write = verify_write,
    .finish = verify_finish,
    .commit = verify_commit,
    .abort = verify_abort,
    .memory = verify_memory,
    .paths = verify_paths,
};
