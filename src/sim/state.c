/* state.c - simulation checkpoints (see state.h for the layout). */
#include "sim/state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"

#define HEAD 48 /* bytes before the buffers */

static const uint8_t magic[8] = {'R', 'P', 'S', 'T', 'A', 'T', 'E', 0};

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= FNV_PRIME;
    }
    return h;
}

static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    return fnv(h, b, 8);
}

uint64_t rp_state_key(const rp_settings *s, const rp_timeline *tl, int64_t k)
{
    uint64_t h = FNV_OFFSET;
    h = fnv_u64(h, (uint64_t)s->width);
    h = fnv_u64(h, (uint64_t)s->height);
    h = fnv_u64(h, (uint64_t)s->water.stencil);
    h = fnv_u64(h, (uint64_t)s->water.boundary);
    h = fnv_u64(h, (uint64_t)s->water.damping_shift);
    h = fnv_u64(h, (uint64_t)s->water.damping_q16);
    h = fnv_u64(h, (uint64_t)s->water.viscosity_q16);
    /* the items of frames 0..k-1, each after its frame number (it->frame) */
    const rp_item *items;
    size_t n;
    rp_timeline_span(tl, 0, k, &items, &n);
    for (size_t i = 0; i < n; i++) {
        const rp_item *it = &items[i];
        h = fnv_u64(h, (uint64_t)it->frame);
        h = fnv_u64(h, (uint64_t)it->kind);
        if (it->kind == RP_ITEM_DROP) {
            const rp_drop *d = &it->drop;
            h = fnv_u64(h, (uint64_t)(int64_t)d->x);
            h = fnv_u64(h, (uint64_t)(int64_t)d->y);
            h = fnv_u64(h, (uint64_t)(int64_t)d->radius);
            h = fnv_u64(h, (uint64_t)(int64_t)d->height);
            h = fnv_u64(h, (uint64_t)d->shape);
            h = fnv_u64(h, (uint64_t)d->mode);
        } else if (it->kind == RP_ITEM_WALL_MASK) {
            h = fnv(h, it->mask_path, strlen(it->mask_path));
        } else {
            if (it->mask_path)
                h = fnv(h, it->mask_path, strlen(it->mask_path));
            h = fnv_u64(h, (uint64_t)(int64_t)it->x);
            h = fnv_u64(h, (uint64_t)(int64_t)it->y);
            h = fnv_u64(h, (uint64_t)(int64_t)it->w);
            h = fnv_u64(h, (uint64_t)(int64_t)it->h);
            h = fnv_u64(h, (uint64_t)(int64_t)it->r);
        }
    }
    return h;
}

/* FNV-1a of a whole file's bytes, after its length. */
static int fnv_file(uint64_t *h, const char *path, rp_error *err)
{
    uint8_t buf[65536];
    uint64_t total = 0;
    size_t n;
    FILE *f = fopen(path, "rb");
    if (!f) {
        return rp_error_set(err, RP_ERR_IO, 0, "cannot read '%s' to bind the checkpoint to it: %s",
                            path, strerror(errno));
    }
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        *h = fnv(*h, buf, n);
        total += n;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        return rp_error_set(err, RP_ERR_IO, 0, "cannot read '%s' to bind the checkpoint to it",
                            path);
    }
    *h = fnv_u64(*h, total);
    return RP_OK;
}

int rp_state_inputs(const rp_scene *scene, const rp_timeline *tl, const char *background,
                    const char *sky, uint64_t *digest, rp_error *err)
{
    size_t len;
    const char *text = rp_scene_text(scene, &len);
    uint64_t h = fnv_u64(FNV_OFFSET, len);
    const char *last = NULL;
    int r;
    h = fnv(h, text, len);
    const rp_item *items;
    size_t n;
    rp_timeline_span(tl, 0, rp_timeline_frames(tl), &items, &n);
    for (size_t i = 0; i < n; i++) {
        if (!rp_item_mask(&items[i]))
            continue;
        if (last && !strcmp(last, items[i].mask_path))
            continue;
        last = items[i].mask_path;
        if ((r = fnv_file(&h, last, err)))
            return r;
    }
    if (background && background[0] && (r = fnv_file(&h, background, err)))
        return r;
    if (sky && sky[0] && (r = fnv_file(&h, sky, err)))
        return r;
    *digest = h;
    return RP_OK;
}

static void put32(uint8_t *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t get64(const uint8_t *b)
{
    return (uint64_t)get32(b) | (uint64_t)get32(b + 4) << 32;
}

int rp_state_encode(const rp_water *w, int64_t k, uint64_t key, uint64_t inputs, uint8_t **buf,
                    size_t *len)
{
    const rp_water_params *p = rp_water_params_of(w);
    size_t cells = (size_t)p->width * (size_t)p->height;
    size_t n = HEAD + 4 * cells + 8;
    uint8_t *b = malloc(n);

    *buf = NULL;
    if (!b)
        return RP_ERR_NOMEM;
    memcpy(b, magic, 8);
    put32(b + 8, RP_STATE_VERSION);
    put32(b + 12, (uint32_t)p->width);
    put32(b + 16, (uint32_t)p->height);
    put32(b + 20, 0);
    put64(b + 24, (uint64_t)k);
    put64(b + 32, key);
    put64(b + 40, inputs);
    rp_heights_to_le(b + HEAD, rp_water_heights(w), cells);
    rp_heights_to_le(b + HEAD + 2 * cells, rp_water_prev(w), cells);
    put64(b + n - 8, fnv(FNV_OFFSET, b, n - 8));
    *buf = b;
    *len = n;
    return RP_OK;
}

int rp_state_read(FILE *f, rp_water *w, int64_t *frame, uint64_t *key, uint64_t *inputs,
                  rp_error *err)
{
    const rp_water_params *p = rp_water_params_of(w);
    size_t cells = (size_t)p->width * (size_t)p->height;
    uint8_t head[HEAD], tail[8];
    uint64_t sum = FNV_OFFSET;
    int16_t *buf = NULL;
    uint8_t *raw = NULL;
    int r = RP_ERR_FORMAT;

    size_t got = fread(head, 1, sizeof head, f);
    if (got == 0)
        return rp_error_set(err, RP_ERR_FORMAT, 1, "the state file is empty");
    if (memcmp(head, magic, got < 8 ? got : 8))
        return rp_error_set(err, RP_ERR_FORMAT, 1, "not a rockpool state file");
    /* the magic, or as much of it as there is: a state cut short in its header */
    if (got != sizeof head)
        return rp_error_set(err, RP_ERR_FORMAT, 1,
                            "state file is truncated (%zu bytes; its header alone is %d)", got,
                            HEAD);
    if (get32(head + 8) < RP_STATE_VERSION) {
        return rp_error_set(err, RP_ERR_FORMAT, 1,
                            "state made by an older rockpool (state format %u; this rockpool "
                            "reads format %d, which also binds the scene, masks and "
                            "background): save it again",
                            get32(head + 8), RP_STATE_VERSION);
    }
    if (get32(head + 8) != RP_STATE_VERSION) {
        return rp_error_set(err, RP_ERR_FORMAT, 1,
                            "state format version %u, this rockpool reads version %d",
                            get32(head + 8), RP_STATE_VERSION);
    }
    if (get32(head + 12) != (uint32_t)p->width || get32(head + 16) != (uint32_t)p->height) {
        return rp_error_set(err, RP_ERR_FORMAT, 1, "state is for %ux%u, this run is %dx%d",
                            get32(head + 12), get32(head + 16), p->width, p->height);
    }
    sum = fnv(sum, head, sizeof head);
    buf = malloc(cells * 2 * sizeof *buf);
    raw = malloc(cells * 4);
    if (!buf || !raw) {
        r = rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
        goto fail;
    }
    if (fread(raw, 1, cells * 4, f) != cells * 4 || fread(tail, 1, 8, f) != 8) {
        rp_error_set(err, RP_ERR_FORMAT, 1, "state file is truncated");
        goto fail;
    }
    sum = fnv(sum, raw, cells * 4);
    if (sum != get64(tail) || fgetc(f) != EOF) {
        rp_error_set(err, RP_ERR_FORMAT, 1, "state file is damaged (checksum mismatch)");
        goto fail;
    }
    if ((int64_t)get64(head + 24) < 0 || get32(head + 20) != 0) {
        rp_error_set(err, RP_ERR_FORMAT, 1, "state file is damaged (bad frame index or header)");
        goto fail;
    }
    for (size_t i = 0; i < cells * 2; i++)
        buf[i] = (int16_t)(uint16_t)(raw[2 * i] | raw[2 * i + 1] << 8);
    rp_water_load(w, buf, buf + cells);
    *frame = (int64_t)get64(head + 24);
    *key = get64(head + 32);
    *inputs = get64(head + 40);
    r = RP_OK;
fail:
    free(buf);
    free(raw);
    return r;
}
