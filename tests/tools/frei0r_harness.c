/* frei0r_harness.c - drives the frei0r plugin as a host would, through dlopen, for
 * tests/cli/frei0r.sh.
 *
 *   frei0r_harness PLUGIN order SCENE W H FRAMES FPS
 *       Renders frames 0..FRAMES-1 at times k / FPS in order on one instance (the reference),
 *       then on two more instances at once, one thread each, in shuffled orders with repeats
 *       and backward jumps (one of them in milliseconds, both re-sent every parameter before
 *       every frame, as MLT does; two calls in three at a time one bit below or above the
 *       frame's), and compares every frame with the reference byte for byte.
 *       Prints "order: N calls, M differ" and each reference frame's FNV-1a hash; fails when
 *       fewer than half the reference frames differ from the background (passed through).
 *   frei0r_harness PLUGIN bad SCENE_OK MASK_SCENE BROKEN_SCENE
 *       Bad inputs, each of which must give the host frame back unchanged: times NaN,
 *       infinite, negative, huge and past the scene; missing, unreadable and broken scenes;
 *       a scene whose wall mask cannot be read; unknown layer and time unit, a bad seed, a
 *       NULL string; frames of 1x1 and 16384x16384. Then a good parameter must render again.
 *       Prints "bad: NAME ok" per case, or "bad: NAME FAILED".
 *   frei0r_harness PLUGIN resend SCENE_COPY
 *       Renders a frame of SCENE_COPY (a scene file this call may overwrite), then replaces
 *       the file's text with a broken scene and sends the same path again: the frame must be
 *       the same (an unchanged value does not rebuild, so the file is not read again); then
 *       a new seed: a frame is rendered from the scene read before (another frame); then
 *       sends the path spelled otherwise ("./" in front): that rebuilds, reads the broken
 *       text and passes the frame through. A string got from the plugin still reads as it
 *       did after the parameter is set again. Prints "resend: ok" or "resend: FAILED".
 *   frei0r_harness PLUGIN time SCENE W H FRAMES FPS
 *       For bench/run: the milliseconds a frame takes in order (frames 0..FRAMES-1), then
 *       at FRAMES times drawn at random from the same frames (seeks: checkpoint replays),
 *       and the CPU milliseconds (all threads) a frame in order.
 *       Prints "time: IN_ORDER_MS RANDOM_MS IN_ORDER_CPU_MS".
 *
 *   frei0r_harness PLUGIN seek SCENE W H FPS SECONDS SEEKS
 *       For bench/run: in a scene SECONDS long, the milliseconds a frame takes in order
 *       (30 frames at FPS), the milliseconds of going on to its last frame (the whole
 *       simulation, its checkpoints saved on the way), then the milliseconds a frame takes
 *       at SEEKS random times over the scene; a time the plugin has not reached within its
 *       bound on one call is sent again until its frame comes. Prints "seek: IN_ORDER_MS
 *       WHOLE_MS SEEK_MS WHOLE_CALLS SEEK_CALLS_BEYOND_ONE".
 *
 *   frei0r_harness PLUGIN frames SCENE BG W H FRAMES FPS [NAME V...]
 *       Renders frames 0..FRAMES-1 at times k / FPS in order over BG (raw RGB24, W x H,
 *       alpha 255) on one instance and writes them to stdout as raw RGBA: once with no
 *       parameter but the scene set, or, given the double parameter NAME, once for each
 *       value V in turn on the same instance (one pass after another).
 *   frei0r_harness PLUGIN params
 *       Prints each parameter as "param INDEX TYPE NAME" (TYPE: bool, double, string, ...),
 *       for the editors' panels' check in tests/cli/frei0r.sh.
 *   frei0r_harness PLUGIN seeds SCENE [SEED...]
 *       Sets each SEED on a new instance and renders 2.5 s: prints "seed [SEED] ok" when the
 *       frame rendered, "seed [SEED] refused" when the plugin passed it through.
 *
 * Exit status 0 when every comparison held, 1 otherwise, 2 for bad usage. */
#include <dlfcn.h>
#include <frei0r.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static struct {
    int (*init)(void);
    void (*deinit)(void);
    void (*info)(f0r_plugin_info_t *);
    void (*param_info)(f0r_param_info_t *, int);
    f0r_instance_t (*construct)(unsigned, unsigned);
    void (*destruct)(f0r_instance_t);
    void (*set)(f0r_instance_t, f0r_param_t, int);
    void (*get)(f0r_instance_t, f0r_param_t, int);
    void (*update)(f0r_instance_t, double, const uint32_t *, uint32_t *);
} f0r;

static int load(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "frei0r_harness: %s\n", dlerror());
        return -1;
    }
    *(void **)&f0r.init = dlsym(h, "f0r_init");
    *(void **)&f0r.deinit = dlsym(h, "f0r_deinit");
    *(void **)&f0r.info = dlsym(h, "f0r_get_plugin_info");
    *(void **)&f0r.param_info = dlsym(h, "f0r_get_param_info");
    *(void **)&f0r.construct = dlsym(h, "f0r_construct");
    *(void **)&f0r.destruct = dlsym(h, "f0r_destruct");
    *(void **)&f0r.set = dlsym(h, "f0r_set_param_value");
    *(void **)&f0r.get = dlsym(h, "f0r_get_param_value");
    *(void **)&f0r.update = dlsym(h, "f0r_update");
    if (!f0r.init || !f0r.deinit || !f0r.info || !f0r.param_info || !f0r.construct ||
        !f0r.destruct || !f0r.set || !f0r.get || !f0r.update) {
        fprintf(stderr, "frei0r_harness: %s lacks a frei0r function\n", path);
        return -1;
    }
    return f0r.init() == 1 ? 0 : -1;
}

static void set_str(f0r_instance_t in, int index, const char *value)
{
    f0r_param_string s = (char *)value;
    f0r.set(in, &s, index);
}

/* Parameter 4: the error frame (a bool, a double to frei0r). */
static void set_errframe(f0r_instance_t in, int on)
{
    f0r_param_bool b = on;
    f0r.set(in, &b, 4);
}

/* A background with detail in every channel, alpha included. */
static uint32_t *background(unsigned w, unsigned h)
{
    uint8_t *p = malloc((size_t)w * h * 4);
    for (size_t y = 0; p && y < h; y++)
        for (size_t x = 0; x < w; x++) {
            uint8_t *q = p + (y * w + x) * 4;
            q[0] = (uint8_t)(x * 255 / (w > 1 ? w - 1 : 1));
            q[1] = (uint8_t)(y * 255 / (h > 1 ? h - 1 : 1));
            q[2] = (uint8_t)((x / 8 + y / 8) % 2 ? 200 : 40);
            q[3] = (uint8_t)(255 - (x + y) % 7);
        }
    return (uint32_t *)p;
}

static uint64_t fnv(const void *data, size_t n)
{
    const uint8_t *p = data;
    uint64_t h = 14695981039346656037u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211u;
    return h;
}

/* ---- order ---------------------------------------------------------------------------- */

typedef struct worker {
    const char *scene;
    unsigned w, h;
    int frames, fps, ms;
    uint64_t seed;
    const uint32_t *bg;
    uint8_t *const *ref; /* the reference frames */
    int calls, differ;
} worker;

static uint64_t next_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return *s >> 33;
}

/* Frame indices in a shuffled order, each at least once, with repeats and runs backwards. */
static int make_order(int frames, uint64_t seed, int *order)
{
    int n = 0;
    for (int k = 0; k < frames; k++)
        order[n++] = k;
    for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
        int j = (int)(next_rand(&seed) % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < frames / 2; i++) /* repeats */
        order[n++] = (int)(next_rand(&seed) % (uint64_t)frames);
    for (int k = frames - 1; k >= 0; k -= 3) /* backwards, as an editor scrubbing */
        order[n++] = k;
    return n;
}

static void *work(void *arg)
{
    worker *wk = arg;
    size_t bytes = (size_t)wk->w * wk->h * 4;
    uint32_t *out = malloc(bytes);
    int *order = malloc(sizeof *order * (size_t)wk->frames * 3);
    f0r_instance_t in = f0r.construct(wk->w, wk->h);
    if (!out || !order || !in) {
        wk->differ = -1;
        goto done;
    }
    int n = make_order(wk->frames, wk->seed, order);
    for (int i = 0; i < n; i++) {
        int k = order[i];
        /* every parameter again before every frame */
        set_str(in, 0, wk->scene);
        set_str(in, 1, wk->ms ? "ms" : "s");
        set_str(in, 2, "render");
        set_str(in, 3, "");
        double t = wk->ms ? (double)k * 1000 / wk->fps : (double)k / wk->fps;
        /* a frame's time a bit off in its last bit, as a host's arithmetic leaves it */
        if (i % 3)
            t = nextafter(t, i % 3 == 1 ? 0 : INFINITY);
        f0r.update(in, t, wk->bg, out);
        wk->calls++;
        if (memcmp(out, wk->ref[k], bytes))
            wk->differ++;
    }
done:
    if (in)
        f0r.destruct(in);
    free(order);
    free(out);
    return NULL;
}

static int order_test(const char *scene, unsigned w, unsigned h, int frames, int fps)
{
    size_t bytes = (size_t)w * h * 4;
    uint32_t *bg = background(w, h);
    uint8_t **ref = calloc((size_t)frames, sizeof *ref);
    f0r_instance_t in = f0r.construct(w, h);
    int status = 1;
    if (!bg || !ref || !in)
        goto done;
    set_str(in, 0, scene);
    int rendered = 0; /* reference frames that are not the background passed through */
    for (int k = 0; k < frames; k++) {
        if (!(ref[k] = malloc(bytes)))
            goto done;
        f0r.update(in, (double)k / fps, bg, (uint32_t *)ref[k]);
        rendered += memcmp(ref[k], bg, bytes) != 0;
        printf("frame %d %016" PRIx64 "\n", k, fnv(ref[k], bytes));
    }
    if (rendered < frames / 2) {
        printf("order: only %d of %d frames rendered\n", rendered, frames);
        goto done;
    }
    worker wk[2] = {{scene, w, h, frames, fps, 0, 1, bg, ref, 0, 0},
                    {scene, w, h, frames, fps, 1, 2, bg, ref, 0, 0}};
    pthread_t th[2];
    int started = 0;
    for (; started < 2; started++)
        if (pthread_create(&th[started], NULL, work, &wk[started]))
            break;
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    if (started < 2 || wk[0].differ < 0 || wk[1].differ < 0)
        goto done;
    printf("order: %d calls, %d differ\n", wk[0].calls + wk[1].calls, wk[0].differ + wk[1].differ);
    status = wk[0].differ || wk[1].differ || !wk[0].calls || !wk[1].calls;
done:
    if (in)
        f0r.destruct(in);
    for (int k = 0; ref && k < frames; k++)
        free(ref[k]);
    free(ref);
    free(bg);
    return status;
}

/* ---- bad inputs ----------------------------------------------------------------------- */

static int failures;

/* One update at time t on an instance of w x h with the parameters given (NULL: left as
 * they are); it must pass the frame through (or, render = 1, change it). */
static void expect(const char *name, unsigned w, unsigned h, const char *scene, const char *unit,
                   const char *layer, const char *seed, double t, int render)
{
    size_t bytes = (size_t)w * h * 4;
    uint32_t *bg = w * h <= 4096 * 4096 ? background(w, h) : calloc(bytes, 1);
    uint32_t *out = malloc(bytes);
    f0r_instance_t in = f0r.construct(w, h);
    int good = bg && out && in;
    if (good) {
        set_errframe(in, 0);
        if (scene)
            set_str(in, 0, scene);
        if (unit)
            set_str(in, 1, unit);
        if (layer)
            set_str(in, 2, layer);
        if (seed)
            set_str(in, 3, seed);
        memset(out, 0x5a, bytes);
        f0r.update(in, t, bg, out);
        /* twice: the second call must not print again (the script counts lines) */
        f0r.update(in, t, bg, out);
        good = render ? memcmp(out, bg, bytes) != 0 : memcmp(out, bg, bytes) == 0;
    }
    printf("bad: %s %s\n", name, good ? "ok" : "FAILED");
    failures += !good;
    if (in)
        f0r.destruct(in);
    free(out);
    free(bg);
}

/* The frame at t with the seed parameter `seed` into out (64x48): 0 when it rendered. */
static int seeded(const char *scene, const char *seed, double t, const uint32_t *bg, uint32_t *out)
{
    f0r_instance_t in = f0r.construct(64, 48);
    if (!in)
        return -1;
    set_errframe(in, 0);
    set_str(in, 0, scene);
    set_str(in, 1, "s");
    set_str(in, 3, seed);
    f0r.update(in, t, bg, out);
    f0r.destruct(in);
    return memcmp(out, bg, (size_t)64 * 48 * 4) ? 0 : -1;
}

/* A string parameter changed n times on one instance, as MLT sends a keyframed seed (a new
 * string every frame): each value reads back as set, one got 16 changes before still
 * holds its text, and the peak resident size grows by "churn: N changes, K KiB" (the
 * plugin keeps a bounded number of replaced values). */
static int churn_test(int n)
{
    struct rusage ru;
    f0r_instance_t in = f0r.construct(64, 48);
    if (!in || n < 32)
        return 1;
    getrusage(RUSAGE_SELF, &ru);
    long before = ru.ru_maxrss;
    const char *held[16] = {0};
    char want[16][24], value[24];
    int bad = 0;
    for (int i = 0; i < n; i++) {
        const char *got = NULL;
        snprintf(value, sizeof value, "%d", i + 1);
        set_str(in, 3, value);
        f0r.get(in, &got, 3);
        bad += !got || strcmp(got, value);
        if (held[i % 16] && strcmp(held[i % 16], want[i % 16]))
            bad++;
        held[i % 16] = got;
        snprintf(want[i % 16], sizeof want[i % 16], "%s", value);
    }
    getrusage(RUSAGE_SELF, &ru);
    f0r.destruct(in);
    printf("churn: %d changes, %ld KiB, %d wrong\n", n, ru.ru_maxrss - before, bad);
    return bad != 0;
}

/* The seed as --seed and the scene's seed line take it: 0x2a is 42 (and not 43). */
static int seed_forms(const char *scene)
{
    size_t bytes = 64 * 48 * 4;
    uint32_t *bg = background(64, 48), *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    int good = bg && a && b && c && !seeded(scene, "0x2a", 2.5, bg, a) &&
               !seeded(scene, "42", 2.5, bg, b) && !seeded(scene, "43", 2.5, bg, c) &&
               !memcmp(a, b, bytes) && memcmp(a, c, bytes);
    printf("seed forms: %s\n", good ? "ok" : "FAILED");
    free(bg);
    free(a);
    free(b);
    free(c);
    return !good;
}

/* Each seed string in turn, on a new instance: "seed [S] ok" when the frame at 2.5 s
 * rendered, "seed [S] refused" when it passed through (the plugin refused the seed), for
 * the Shotcut panel's seed field to be checked against. */
static int seeds_test(const char *scene, char **seeds, int n)
{
    size_t bytes = 64 * 48 * 4;
    uint32_t *bg = background(64, 48), *out = malloc(bytes);
    if (!bg || !out) {
        free(bg);
        free(out);
        return 1;
    }
    for (int i = 0; i < n; i++)
        printf("seed [%s] %s\n", seeds[i],
               seeded(scene, seeds[i], 2.5, bg, out) ? "refused" : "ok");
    free(bg);
    free(out);
    return 0;
}

static int bad_test(const char *scene, const char *mask_scene, const char *broken_scene)
{
    expect("nan", 64, 48, scene, "s", NULL, NULL, NAN, 0);
    expect("infinity", 64, 48, scene, "s", NULL, NULL, INFINITY, 0);
    expect("negative", 64, 48, scene, "s", NULL, NULL, -0.5, 0);
    expect("huge", 64, 48, scene, "ms", NULL, NULL, 1e300, 0);
    expect("past the end", 64, 48, scene, "s", NULL, NULL, 3600, 0);
    expect("missing scene", 64, 48, "/nonexistent/rockpool.scene", NULL, NULL, NULL, 0.5, 0);
    expect("directory as scene", 64, 48, "/", NULL, NULL, NULL, 0.5, 0);
    expect("broken scene", 64, 48, broken_scene, NULL, NULL, NULL, 0.5, 0);
    expect("unreadable wall mask", 64, 48, mask_scene, NULL, NULL, NULL, 0.5, 0);
    expect("time unit", 64, 48, scene, "minutes", NULL, NULL, 0.5, 0);
    expect("layer", 64, 48, scene, NULL, "both", NULL, 0.5, 0);
    expect("seed", 64, 48, scene, NULL, NULL, "-3", 0.5, 0);
    expect("seed too long", 64, 48, scene, NULL, NULL, "123456789012345678901234567890", 0.5, 0);
    expect("1x1", 1, 1, scene, NULL, NULL, NULL, 0.5, 0);
    expect("16384x16384", 16384, 16384, scene, NULL, NULL, NULL, 0.5, 0);
    expect("seed 0x", 64, 48, scene, NULL, NULL, "0x", 0.5, 0);
    expect("seed 0xg", 64, 48, scene, NULL, NULL, "0xg", 0.5, 0);
    expect("good after all", 64, 48, scene, "s", "render", "5", 0.5, 1);
    failures += seed_forms(scene);

    /* A NULL string and a bad value, then good values again on the same instance: it
     * renders once more, and getting a parameter gives the value set. */
    size_t bytes = 64 * 48 * 4;
    uint32_t *bg = background(64, 48), *out = malloc(bytes);
    f0r_instance_t in = f0r.construct(64, 48);
    int good = bg && out && in;
    if (good) {
        set_errframe(in, 0);
        f0r.set(in, NULL, 0);
        f0r_param_string none = NULL;
        f0r.set(in, &none, 0);
        set_str(in, 0, "/nonexistent.scene");
        f0r.update(in, 0.5, bg, out);
        good = !memcmp(out, bg, bytes);
        set_str(in, 0, scene);
        f0r.update(in, 0.5, bg, out);
        good = good && memcmp(out, bg, bytes);
        f0r_param_string got = NULL;
        f0r.get(in, &got, 0);
        good = good && got && !strcmp(got, scene);
        f0r.set(in, &none, 99); /* an index out of range is ignored */
        f0r.get(in, &got, -1);
    }
    printf("bad: recovers %s\n", good ? "ok" : "FAILED");
    failures += !good;

    /* The error frame, on by default: a missing scene gives magenta stripes, 8 pixels
     * every 32 along x + y, each (255 + R) / 2, G / 2, (255 + B) / 2 over the frame. */
    f0r_instance_t ef = f0r.construct(64, 48);
    good = ef && bg && out;
    if (good) {
        set_str(ef, 0, "/nonexistent.scene");
        f0r.update(ef, 0.5, bg, out);
        const uint8_t *b8 = (const uint8_t *)bg, *o8 = (const uint8_t *)out;
        for (size_t y = 0; y < 48; y++)
            for (size_t x = 0; x < 64; x++) {
                size_t i = 4 * (y * 64 + x);
                int stripe = (x + y) % 32 < 8;
                uint8_t want[4] = {stripe ? (uint8_t)((255 + b8[i]) / 2) : b8[i],
                                   stripe ? (uint8_t)(b8[i + 1] / 2) : b8[i + 1],
                                   stripe ? (uint8_t)((255 + b8[i + 2]) / 2) : b8[i + 2],
                                   b8[i + 3]};
                good = good && !memcmp(o8 + i, want, 4);
            }
        f0r_param_bool on = -1;
        f0r.get(ef, &on, 4);
        good = good && on == 1;
    }
    printf("bad: error frame %s\n", good ? "ok" : "FAILED");
    failures += !good;
    if (ef)
        f0r.destruct(ef);
    if (in)
        f0r.destruct(in);
    free(out);
    free(bg);
    return failures != 0;
}

/* ---- re-sent parameters ------------------------------------------------------------------ */

static int resend_test(const char *path)
{
    size_t bytes = 64 * 48 * 4;
    uint32_t *bg = background(64, 48), *first = malloc(bytes), *out = malloc(bytes);
    f0r_instance_t in = f0r.construct(64, 48);
    char other[4096];
    int good = bg && first && out && in && path[0] != '/' &&
               snprintf(other, sizeof other, "./%s", path) < (int)sizeof other;
    if (good) {
        set_errframe(in, 0);
        set_str(in, 0, path);
        f0r.update(in, 1.5, bg, first);
        FILE *f = fopen(path, "w");
        good = f && fputs("size 64x48\nat 0s drpo 1 1\n", f) >= 0;
        good = f && !fclose(f) && good;
        set_str(in, 0, path);
        set_str(in, 1, "s");
        f0r.update(in, 1.5, bg, out);
        good = good && memcmp(first, bg, bytes) && !memcmp(out, first, bytes);
        /* a new seed builds the simulation again from the scene read before */
        set_str(in, 3, "8");
        f0r.update(in, 1.5, bg, out);
        good = good && memcmp(out, bg, bytes) && memcmp(out, first, bytes);
        /* a string got from the plugin stays valid when the value is set again (a host may
         * read on one thread while it sets on another) */
        const char *got = NULL;
        f0r.get(in, &got, 3);
        set_str(in, 3, "9");
        good = good && got && !strcmp(got, "8");
        set_str(in, 0, other);
        f0r.update(in, 1.5, bg, out);
        good = good && !memcmp(out, bg, bytes);
    }
    printf("resend: %s\n", good ? "ok" : "FAILED");
    if (in)
        f0r.destruct(in);
    free(out);
    free(first);
    free(bg);
    return !good;
}

/* ---- frames -------------------------------------------------------------------------- */

static int frames_test(char **argv, int argc)
{
    const char *scene = argv[3], *bg_path = argv[4];
    unsigned w = (unsigned)atoi(argv[5]), h = (unsigned)atoi(argv[6]);
    int frames = atoi(argv[7]), fps = atoi(argv[8]), index = -1, status = 1;
    size_t pix = (size_t)w * h;
    uint8_t *bg = malloc(pix * 4), *rgb = malloc(pix * 3), *out = malloc(pix * 4);
    FILE *f = fopen(bg_path, "rb");
    f0r_instance_t in = f0r.construct(w, h);
    if (!bg || !rgb || !out || !f || !in || fps <= 0 || fread(rgb, 3, pix, f) != pix)
        goto done;
    for (size_t i = 0; i < pix; i++) {
        memcpy(bg + 4 * i, rgb + 3 * i, 3);
        bg[4 * i + 3] = 255;
    }
    if (argc > 9) {
        f0r_plugin_info_t info;
        f0r.info(&info);
        for (int i = 0; i < info.num_params; i++) {
            f0r_param_info_t pi = {0};
            f0r.param_info(&pi, i);
            if (pi.name && !strcmp(pi.name, argv[9]) && pi.type == F0R_PARAM_DOUBLE)
                index = i;
        }
        if (index < 0) {
            fprintf(stderr, "frei0r_harness: no double parameter '%s'\n", argv[9]);
            goto done;
        }
    }
    set_str(in, 0, scene);
    for (int pass = 10; pass <= (argc > 9 ? argc - 1 : 10); pass++) {
        if (index >= 0) {
            f0r_param_double v = atof(argv[pass]);
            f0r.set(in, &v, index);
        }
        for (int k = 0; k < frames; k++) {
            f0r.update(in, (double)k / fps, (const uint32_t *)bg, (uint32_t *)out);
            if (fwrite(out, 4, pix, stdout) != pix)
                goto done;
        }
    }
    status = 0;
done:
    if (f)
        fclose(f);
    if (in)
        f0r.destruct(in);
    free(out);
    free(rgb);
    free(bg);
    return status;
}

/* ---- time ---------------------------------------------------------------------------- */

/* Seconds on a clock: CLOCK_MONOTONIC (wall) or CLOCK_PROCESS_CPUTIME_ID (every thread's
 * CPU, the plugin's workers included). */
static double now(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* An instance over a background for the timing modes, its scene set and built (outside
 * the timing); errframe 0: a frame not rendered is the host's, unchanged. */
typedef struct timed {
    f0r_instance_t in;
    uint32_t *bg, *out;
} timed;

static int timed_open(timed *t, const char *scene, unsigned w, unsigned h, int errframe)
{
    t->bg = background(w, h);
    t->out = malloc((size_t)w * h * 4);
    t->in = f0r.construct(w, h);
    if (!t->bg || !t->out || !t->in)
        return -1;
    set_errframe(t->in, errframe);
    set_str(t->in, 0, scene);
    f0r.update(t->in, 0, t->bg, t->out);
    return 0;
}

static void timed_close(timed *t)
{
    if (t->in)
        f0r.destruct(t->in);
    free(t->out);
    free(t->bg);
}

static int time_test(const char *scene, unsigned w, unsigned h, int frames, int fps)
{
    timed t;
    uint64_t seed = 7;
    int status = 1;
    if (!timed_open(&t, scene, w, h, 1)) {
        double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        for (int k = 0; k < frames; k++)
            f0r.update(t.in, (double)k / fps, t.bg, t.out);
        double t1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_PROCESS_CPUTIME_ID);
        for (int i = 0; i < frames; i++)
            f0r.update(t.in, (double)(next_rand(&seed) % (uint64_t)frames) / fps, t.bg, t.out);
        double t2 = now(CLOCK_MONOTONIC);
        printf("time: %.3f %.3f %.3f\n", (t1 - t0) * 1e3 / frames, (t2 - t1) * 1e3 / frames,
               (c1 - c0) * 1e3 / frames);
        status = 0;
    }
    timed_close(&t);
    return status;
}

/* Time t sent until its frame comes (a call simulates a bounded number of steps,
 * rockpool-frei0r(7) LIMITS): the calls it took. */
static int until_rendered(timed *t, double time, size_t bytes)
{
    int calls = 0;
    do
        f0r.update(t->in, time, t->bg, t->out);
    while (++calls < 10000 && !memcmp(t->out, t->bg, bytes));
    return calls;
}

/* Seeks in a long scene: the milliseconds of a frame in order (the first 30 at FPS), of
 * running from the start to the scene's last frame at SECONDS (every checkpoint passed on
 * the way), then of a frame at each of SEEKS random times over the whole scene. */
static int seek_test(const char *scene, unsigned w, unsigned h, int fps, double seconds, int seeks)
{
    timed t;
    uint64_t seed = 11;
    size_t bytes = (size_t)w * h * 4;
    int status = 1, frames = 30, last = (int)(seconds * fps) - 1;
    if (last < frames || seeks < 1)
        return 1;
    if (!timed_open(&t, scene, w, h, 0)) {
        double t0 = now(CLOCK_MONOTONIC);
        for (int k = 1; k <= frames; k++)
            f0r.update(t.in, (double)k / fps, t.bg, t.out);
        double t1 = now(CLOCK_MONOTONIC);
        int calls = until_rendered(&t, (double)last / fps, bytes), more = 0;
        double t2 = now(CLOCK_MONOTONIC);
        for (int i = 0; i < seeks; i++)
            more +=
                until_rendered(&t, (double)(next_rand(&seed) % (uint64_t)(last + 1)) / fps, bytes) -
                1;
        double t3 = now(CLOCK_MONOTONIC);
        printf("seek: %.3f %.3f %.3f %d %d\n", (t1 - t0) * 1e3 / frames, (t2 - t1) * 1e3,
               (t3 - t2) * 1e3 / seeks, calls, more);
        status = 0;
    }
    timed_close(&t);
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 3 || load(argv[1]))
        goto usage;
    f0r_plugin_info_t info;
    f0r.info(&info);
    if (strcmp(info.name, "rockpool") || info.plugin_type != F0R_PLUGIN_TYPE_FILTER ||
        info.color_model != F0R_COLOR_MODEL_RGBA8888) {
        fprintf(stderr, "frei0r_harness: unexpected plugin info\n");
        return 1;
    }
    int status;
    if (!strcmp(argv[2], "order") && argc == 8)
        status = order_test(argv[3], (unsigned)atoi(argv[4]), (unsigned)atoi(argv[5]),
                            atoi(argv[6]), atoi(argv[7]));
    else if (!strcmp(argv[2], "frames") && (argc == 9 || argc >= 11))
        status = frames_test(argv, argc);
    else if (!strcmp(argv[2], "resend") && argc == 4)
        status = resend_test(argv[3]);
    else if (!strcmp(argv[2], "time") && argc == 8)
        status = time_test(argv[3], (unsigned)atoi(argv[4]), (unsigned)atoi(argv[5]), atoi(argv[6]),
                           atoi(argv[7]));
    else if (!strcmp(argv[2], "seek") && argc == 9)
        status = seek_test(argv[3], (unsigned)atoi(argv[4]), (unsigned)atoi(argv[5]), atoi(argv[6]),
                           atof(argv[7]), atoi(argv[8]));
    else if (!strcmp(argv[2], "params") && argc == 3) {
        static const char *const types[] = {"bool", "double", "color", "position", "string"};
        for (int i = 0; i < info.num_params; i++) {
            f0r_param_info_t pi = {0};
            f0r.param_info(&pi, i);
            printf("param %d %s %s\n", i, pi.type >= 0 && pi.type < 5 ? types[pi.type] : "unknown",
                   pi.name);
        }
        status = 0;
    } else if (!strcmp(argv[2], "bad") && argc == 6)
        status = bad_test(argv[3], argv[4], argv[5]);
    else if (!strcmp(argv[2], "churn") && argc == 4)
        status = churn_test(atoi(argv[3]));
    else if (!strcmp(argv[2], "seeds") && argc >= 4)
        status = seeds_test(argv[3], argv + 4, argc - 4);
    else
        goto usage;
    f0r.deinit();
    return status;
usage:
    fprintf(stderr, "usage: frei0r_harness PLUGIN order SCENE W H FRAMES FPS\n"
                    "       frei0r_harness PLUGIN bad SCENE MASK_SCENE BROKEN_SCENE\n"
                    "       frei0r_harness PLUGIN resend SCENE_COPY\n"
                    "       frei0r_harness PLUGIN frames SCENE BG W H FRAMES FPS [NAME V...]\n"
                    "       frei0r_harness PLUGIN time SCENE W H FRAMES FPS\n"
                    "       frei0r_harness PLUGIN seek SCENE W H FPS SECONDS SEEKS\n"
                    "       frei0r_harness PLUGIN params\n"
                    "       frei0r_harness PLUGIN seeds SCENE [SEED...]\n"
                    "       frei0r_harness PLUGIN churn CHANGES\n");
    return 2;
}
