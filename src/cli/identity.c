/* identity.c - --job-id (identity.h): four SHA-256 digests of what makes a chunk, printed
 * with the resolved options so that farm scripts ask rockpool instead of reading option
 * spellings themselves. */
#include "identity.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#define HEX 65 /* a SHA-256 in hex with its NUL */

static int fail(rp_error *err, int bad_input, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rp_cli_verror(err, bad_input ? RP_ERR_IO : RP_ERR_NOMEM, bad_input, fmt, ap);
    va_end(ap);
    return 1;
}

static void add_text(rp_hash *h, const char *s)
{
    rp_hash_update(h, (const uint8_t *)s, strlen(s));
}

/* The SHA-256 of a file's bytes, read in pieces. */
static int file_digest(const char *path, const char *what, char hex[HEX], rp_error *err)
{
    static uint8_t buf[1 << 16];
    rp_hash *h;
    size_t n;
    /* a regular file's bytes only: a device or a FIFO (/dev/zero) has no end to digest, and
     * a pipe read here would be gone when the render reads it (or a FIFO's writer, so the
     * render's open would wait for ever): asked before it is opened */
    struct stat st;
    if (!stat(path, &st) && !S_ISREG(st.st_mode))
        return fail(err, 1, "--job-id: %s '%s' is not a regular file", what, path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(err, 1, "--job-id: cannot read %s '%s': %s", what, path, strerror(errno));
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
        fclose(f);
        return fail(err, 1, "--job-id: %s '%s' is not a regular file", what, path);
    }
    if (rp_hash_new(&h, "sha256")) {
        fclose(f);
        return fail(err, 0, "--job-id: out of memory");
    }
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        rp_hash_update(h, buf, n);
    int bad = ferror(f);
    int e = errno;
    fclose(f);
    if (!bad)
        rp_hash_final_hex(h, hex);
    rp_hash_free(&h);
    return bad ? fail(err, 1, "--job-id: cannot read %s '%s': %s", what, path, strerror(e)) : 0;
}

/* One input into the inputs digest: its role and its content's digest. */
static int add_file(rp_hash *inputs, const char *what, const char *path, rp_error *err)
{
    char hex[HEX];
    if (file_digest(path, what, hex, err))
        return 1;
    add_text(inputs, what);
    add_text(inputs, " ");
    add_text(inputs, hex);
    add_text(inputs, "\n");
    return 0;
}

/* The options digest's text: one "key=value" line per resolved option. */
typedef struct lines {
    char text[4096];
    size_t len;
} lines;

static void put(lines *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(l->text + l->len, sizeof l->text - l->len, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n < sizeof l->text - l->len - 1) {
        l->len += (size_t)n;
        l->text[l->len++] = '\n';
        l->text[l->len] = '\0';
    }
}

static const char *or_default(const char *s)
{
    return s && s[0] ? s : "default";
}

/* The options' text. The output's settings are as the render resolves them (st): an option
 * given as the value it takes anyway (-c libx264 --crf 23 --encoder-preset medium --pix-fmt
 * yuv420p for an MP4 where libx264 is installed) reads as leaving it out, and the encoder's
 * options are left out of a format that has no encoder. */
static void resolved_options(const rp_cli *cli, const rp_summary *sum, const rp_output_settings *st,
                             lines *l)
{
    rp_settings_info info, *s = &info;
    rp_settings_get_info(sum->settings, &info);
    const rp_output_opts *o = &cli->run.out;
    enum rp_format fmt = o->path || o->format ? rp_output_format_of(o) : RP_FORMAT_NONE;
    put(l, "scene-size=%dx%d", s->width, s->height);
    put(l, "size=%dx%d", s->out_width, s->out_height);
    put(l, "fps=%d/%d", s->fps, s->fps_den);
    put(l, "frames=%" PRId64, sum->frames);
    put(l, "preset=%s", s->preset);
    put(l, "seed=%" PRIu64, s->seed);
    put(l, "background=%s", s->background[0] ? "file" : "built-in");
    put(l, "fit=%d", s->fit);
    put(l, "strength=%d", s->strength_milli);
    put(l, "background-end=%d", s->background_end);
    put(l, "grid=%dx%d", s->grid_w, s->grid_h);
    put(l, "rate=%d", s->rate);
    put(l, "format=%s", fmt ? rp_output_format_name(fmt) : "none");
    if (st->codec[0]) {
        put(l, "codec=%s", st->codec);
        /* the CRF the encoder is given (23 for x264, 28 for x265, 31 for VP9 when none is
         * asked for), or the quantiser of one without (mpeg4), or neither (a bit rate) */
        if (st->crf >= 0)
            put(l, "crf=%d", st->crf);
        else
            put(l, "crf=none");
        if (st->qscale > 0)
            put(l, "qscale=%d", st->qscale);
        put(l, "encoder-preset=%s", or_default(st->encoder_preset));
        put(l, "bitrate=%" PRId64, st->bitrate);
    }
    if (st->pix_fmt[0])
        put(l, "pix-fmt=%s", st->pix_fmt);
    /* what an option changes nothing in is left out, so that a chunk rendered with it
     * joins the chunks rendered without: the PNG level reaches the PNG frames and the AOV
     * sequences alone, the hash algorithm a framehash manifest alone */
    int aovs = 0;
    for (int k = 0; k < RP_AOV_KINDS; k++)
        aovs |= cli->run.aov[k] != NULL;
    if (fmt == RP_FORMAT_PNG || aovs)
        put(l, "png-level=%d", o->png_level);
    if (st->hash_algo[0])
        put(l, "hash-algo=%s", st->hash_algo);
    put(l, "alpha=%d", cli->run.alpha);
    /* the background's sound as the output carries it: --no-audio changes nothing without */
    put(l, "audio=%d", st->audio);
    for (int k = 0; k < RP_AOV_KINDS; k++)
        if (cli->run.aov[k])
            put(l, "aov=%s", rp_aov_name((enum rp_aov)k));
}

/* The per-run side outputs on the command line, as options, or "none". */
static void side_outputs(const rp_cli *cli, char *buf, size_t len)
{
    const rp_run *r = &cli->run;
    const struct {
        int on;
        const char *name;
    } side[] = {
        {r->stats != NULL, "--stats"},           {r->dump_heights != NULL, "--dump-heights"},
        {r->save_state != NULL, "--save-state"}, {r->hash, "--hash"},
        {r->verify != NULL, "--verify"},         {r->verify_ref != NULL, "--verify-ref"},
        {cli->progress_fd >= 0, "--progress-fd"}};
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof side / sizeof *side; i++)
        if (side[i].on)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " " : "", side[i].name);
    for (int k = 0; k < RP_AOV_KINDS && n < len; k++)
        if (r->aov[k])
            n += (size_t)snprintf(buf + n, len - n, "%s--aov", n ? " " : "");
    if (!n)
        snprintf(buf, len, "none");
}

/* The four digests and the job line of the run cli describes. */
typedef struct identity {
    char scene[HEX], inputs[HEX], options[HEX], build[HEX];
    char job[4 * HEX];
    int files;
    lines opts;
} identity;

static int identity_of(const rp_cli *cli, const rp_scene *scene, const rp_session *session,
                       const rp_summary *sum, identity *id, rp_error *err)
{
    rp_output_settings st;
    char exe_hex[HEX];
    rp_hash *h;
    size_t len;
    const char *text = rp_scene_text(scene, &len);
    rp_settings_info s;
    rp_settings_get_info(sum->settings, &s);
    id->files = 0;
    id->opts.len = 0;
    id->opts.text[0] = '\0';

    /* the output's settings as the render would resolve them (a bad -c or --pix-fmt, an
     * encoder not installed: refused as the render refuses them) */
    if (rp_session_output_settings(session, &st, err))
        return 1;
    if (rp_hash_new(&h, "sha256"))
        return fail(err, 0, "--job-id: out of memory");
    rp_hash_hex(h, (const uint8_t *)text, len, id->scene);
    /* inputs: each file once, in a fixed order: background, sky, masks, checkpoint */
    if (s.background[0] && (id->files++, add_file(h, "background", s.background, err)))
        goto fail;
    if (s.sky[0] && (id->files++, add_file(h, "sky", s.sky, err)))
        goto fail;
    size_t at = 0;
    for (const char *path; (path = rp_scene_next_mask_path(scene, &at));)
        if (id->files++, add_file(h, "wall-mask", path, err))
            goto fail;
    if (cli->run.load_state && (id->files++, add_file(h, "load-state", cli->run.load_state, err)))
        goto fail;
    rp_hash_final_hex(h, id->inputs);
    resolved_options(cli, sum, &st, &id->opts);
    rp_hash_hex(h, (const uint8_t *)id->opts.text, id->opts.len, id->options);
    /* the build: the version and this program's own bytes */
    if (file_digest("/proc/self/exe", "the program", exe_hex, err))
        snprintf(exe_hex, sizeof exe_hex, "unknown");
    add_text(h, "rockpool " RP_VERSION "\n");
    add_text(h, exe_hex);
    rp_hash_final_hex(h, id->build);
    rp_hash_free(&h);
    snprintf(id->job, sizeof id->job, "scene=%.16s,inputs=%.16s,options=%.16s,build=%.16s",
             id->scene, id->inputs, id->options, id->build);
    return 0;
fail:
    rp_hash_free(&h);
    return 1;
}

int rp_identity_line(const rp_cli *cli, const rp_scene *scene, const rp_session *session,
                     const rp_summary *sum, char job[RP_JOB_LINE_LEN + 1], rp_error *err)
{
    static identity id; /* (its options' text is 4 KB) */
    if (identity_of(cli, scene, session, sum, &id, err))
        return 1;
    if (strlen(id.job) != RP_JOB_LINE_LEN)
        return fail(err, 0, "--job-id: the job line is malformed");
    memcpy(job, id.job, RP_JOB_LINE_LEN + 1);
    return 0;
}

int rp_identity_print(const rp_cli *cli, const rp_scene *scene, const rp_session *session,
                      const rp_summary *sum, FILE *out, rp_error *err)
{
    static identity id;
    char job_hex[HEX], side[160];
    rp_hash *h;
    if (identity_of(cli, scene, session, sum, &id, err))
        return 1;
    if (rp_hash_new(&h, "sha256"))
        return fail(err, 0, "--job-id: out of memory");
    rp_hash_hex(h, (const uint8_t *)id.job, strlen(id.job), job_hex);
    rp_hash_free(&h);
    side_outputs(cli, side, sizeof side);

    fprintf(out, "job-id:       %s\n", job_hex);
    fprintf(out, "job:          %s\n", id.job);
    fprintf(out, "scene:        %s\n", id.scene);
    fprintf(out, "inputs:       %s (%d file%s)\n", id.inputs, id.files, id.files == 1 ? "" : "s");
    fprintf(out, "options:      %s\n", id.options);
    fprintf(out, "build:        %s (rockpool %s)\n", id.build, RP_VERSION);
    fprintf(out, "frames:       %" PRId64 "\n", sum->frames);
    if (cli->run.start != 0 || cli->run.end != -1 || cli->times)
        fprintf(out, "range:        %" PRId64 "-%" PRId64 "%s\n", sum->start, sum->end - 1,
                sum->start < sum->end ? "" : " (empty)");
    else
        fprintf(out, "range:        none\n");
    fprintf(out, "side-outputs: %s\n", side);
    fprintf(out, "output-given: %s\n", cli->output_given ? "yes" : "no");
    fprintf(out, "overwrite:    %s\n", cli->run.out.overwrite ? "yes" : "no");
    for (char *p = id.opts.text, *e; *p; p = e + 1) {
        e = strchr(p, '\n');
        fprintf(out, "option:       %.*s\n", (int)(e - p), p);
    }
    return 0;
}
