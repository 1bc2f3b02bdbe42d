/* manifest.c - reading verification manifests (framemd5/framehash files and --hash
 * lines) and checking them against a run, as manifest.h describes. The framehash layout
 * is libavformat's (hashenc.c, framehash.c in FFmpeg 5.1). */
#include "check/manifest.h"

#include "base/diag.h"

/* The run's setting in messages (rp_name). */
#define MAX_MEMORY rp_name("--max-memory", "rp_run.max_memory")

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/common.h"

#define CHUNK ((size_t)1 << 16) /* bytes read at once */
#define HEX_MIN 8               /* the shortest hash (CRC32, Adler-32) in hex digits */
#define STOP_LINES 4096         /* lines between looks at the stop flag */

typedef struct parser {
    rp_manifest *m;
    rp_diag *diag;
    const char *default_algo;
    size_t cap;        /* frames and hashes allocated */
    int64_t max_bytes; /* what the frames and hashes may take; 0: no limit */
    int64_t file_size; /* a regular file's size (the first allocation's hint), or 0 */
    volatile sig_atomic_t *stop;
    size_t bytes; /* bytes fed so far */
    /* The current line: [line, line + len), without '\n' or a trailing '\r'. */
    const char *line;
    size_t len;
    int lineno;
    int ends_mid_line; /* the file ends inside this line (no '\n') */
} parser;

/* Fill diag for the current line; col is 1-based, 0 for none. Returns RP_ERR_FORMAT. */
__attribute__((format(printf, 3, 4))) static int fail(parser *p, int col, const char *fmt, ...)
{
    rp_diag *d = p->diag;
    const char *prefix = p->ends_mid_line ? "truncated line (the file ends mid-line): " : "";
    size_t at = strlen(prefix), n;
    va_list ap;

    memcpy(d->msg, prefix, at + 1);
    va_start(ap, fmt);
    vsnprintf(d->msg + at, sizeof(d->msg) - at, fmt, ap);
    va_end(ap);
    d->line = p->lineno;
    d->col = col;
    n = p->len < sizeof(d->source_line) - 1 ? p->len : sizeof(d->source_line) - 1;
    memcpy(d->source_line, p->line, n);
    d->source_line[n] = '\0';
    return RP_ERR_FORMAT;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t';
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A decimal integer filling [s, e) exactly (an optional '-'); 0 on success. */
static int parse_i64(const char *s, const char *e, int64_t *v)
{
    char buf[32];
    char *end;
    size_t n = (size_t)(e - s);

    if (n == 0 || n >= sizeof(buf))
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (!(buf[0] == '-' || (buf[0] >= '0' && buf[0] <= '9')))
        return -1;
    errno = 0;
    *v = strtoll(buf, &end, 10);
    return errno || *end ? -1 : 0;
}

/* The algorithm of the manifest from now on; an error if another was named before. */
static int set_algo(parser *p, const char *name, int col)
{
    const char *canonical;
    int hex_len, ret;
    char names[512];

    ret = rp_hash_lookup(name, &canonical, &hex_len);
    if (ret == RP_ERR_NOMEM)
        return ret;
    if (ret) {
        rp_hash_list(names, sizeof(names));
        return fail(p, col, "unknown hash algorithm '%s' (expected %s)", name, names);
    }
    if (p->m->algo && strcmp(p->m->algo, canonical)) {
        if (p->m->algo_line)
            return fail(p, col, "%s hash in a manifest of %s hashes (named on line %d)", canonical,
                        p->m->algo, p->m->algo_line);
        return fail(p, col, "%s hash in a manifest of %s hashes", canonical, p->m->algo);
    }
    if (!p->m->algo) {
        p->m->algo = canonical;
        p->m->hex_len = hex_len;
        p->m->algo_line = p->lineno;
    }
    return RP_OK;
}

/* "#key S: value" with S the stream number: the value, or NULL when the line is not of
 * that key. Streams other than 0 are an error (*ret set). */
static const char *stream_value(parser *p, const char *key, int *ret)
{
    size_t k = strlen(key);
    const char *s = p->line + k, *e = p->line + p->len, *colon;
    int64_t stream;

    *ret = RP_OK;
    if (p->len <= k || strncmp(p->line, key, k) || s[0] != ' ')
        return NULL;
    colon = memchr(s, ':', (size_t)(e - s));
    if (!colon || parse_i64(s + 1, colon, &stream)) {
        *ret = fail(p, 1, "malformed '%s' line (expected '%s 0: VALUE')", key, key);
        return NULL;
    }
    if (stream != 0) {
        *ret = fail(p, (int)(s - p->line) + 2,
                    "stream %" PRId64 ": a manifest holds one video stream (stream 0)", stream);
        return NULL;
    }
    s = colon + 1;
    while (s < e && is_space(*s))
        s++;
    return s;
}

/* Copy [s, end of line) into a small string field. */
static void copy_value(parser *p, const char *s, char *dst, size_t size)
{
    size_t n = (size_t)(p->line + p->len - s);

    if (n >= size)
        n = size - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

/* Two positive integers "A<sep>B" filling the rest of the line. */
static int parse_pair(parser *p, const char *s, char sep, int64_t max, int *a, int *b)
{
    const char *e = p->line + p->len, *mid = memchr(s, sep, (size_t)(e - s));
    int64_t x, y;

    if (!mid || parse_i64(s, mid, &x) || parse_i64(mid + 1, e, &y) || x < 1 || y < 1 || x > max ||
        y > max)
        return -1;
    *a = (int)x;
    *b = (int)y;
    return 0;
}

static int header_line(parser *p)
{
    rp_manifest *m = p->m;
    const char *v;
    int ret;

    if (p->len > 7 && !strncmp(p->line, "#hash: ", 7)) {
        char name[64];

        if (m->count)
            return fail(p, 1, "'#hash' after frame lines");
        copy_value(p, p->line + 7, name, sizeof(name));
        return set_algo(p, name, 8);
    }
    if ((v = stream_value(p, "#tb", &ret))) {
        if (parse_pair(p, v, '/', INT32_MAX, &m->tb_num, &m->tb_den))
            return fail(p, (int)(v - p->line) + 1, "bad time base (expected '#tb 0: NUM/DEN')");
        return RP_OK;
    }
    if (ret)
        return ret;
    if ((v = stream_value(p, "#dimensions", &ret))) {
        if (parse_pair(p, v, 'x', RP_MAX_SIDE, &m->width, &m->height))
            return fail(p, (int)(v - p->line) + 1,
                        "bad dimensions (expected '#dimensions 0: WIDTHxHEIGHT', 1..%d)",
                        RP_MAX_SIDE);
        return RP_OK;
    }
    if (ret)
        return ret;
    if ((v = stream_value(p, "#media_type", &ret))) {
        copy_value(p, v, m->media_type, sizeof(m->media_type));
        if (strcmp(m->media_type, "video"))
            return fail(p, (int)(v - p->line) + 1, "the manifest's stream is %s, not video",
                        m->media_type);
        return RP_OK;
    }
    if (ret)
        return ret;
    /* Hashes of encoded packets (ffmpeg -c copy) can never match rendered frames. */
    if ((v = stream_value(p, "#codec_id", &ret))) {
        copy_value(p, v, m->codec, sizeof(m->codec));
        if (strcmp(m->codec, "rawvideo"))
            return fail(p, (int)(v - p->line) + 1,
                        "the manifest hashes %s packets, not decoded frames (make it with "
                        "ffmpeg -i INPUT -pix_fmt rgb24 -f framemd5)",
                        m->codec);
        return RP_OK;
    }
    if (ret)
        return ret;
    /* #format, #version, #software, #sar, #stream#, comments: nothing to keep. */
    return RP_OK;
}

/* Check hex [s, e), store it lowercase in f's place in the hash table. */
static int store_hash(parser *p, const char *s, const char *e, rp_manifest_frame *f)
{
    size_t n = (size_t)(e - s);
    int col = (int)(s - p->line) + 1;

    if (n == 0)
        return fail(p, col, "missing hash");
    if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        return fail(p, col,
                    "a framecrc line (0x...): framecrc is not supported, make the manifest "
                    "with -f framemd5 or -f framehash");
    for (size_t i = 0; i < n; i++)
        if (hex_value(s[i]) < 0)
            return fail(p, col + (int)i, "'%.*s' is not a hexadecimal hash", (int)(n > 80 ? 80 : n),
                        s);
    if (n != (size_t)p->m->hex_len)
        return fail(p, col,
                    "hash of %zu hex digits, but %s hashes have %d (a manifest of another "
                    "algorithm?)",
                    n, p->m->algo, p->m->hex_len);
    char *hash = p->m->hashes + (size_t)(f - p->m->frames) * (n + 1);
    for (size_t i = 0; i < n; i++)
        hash[i] = "0123456789abcdef"[hex_value(s[i])];
    hash[n] = '\0';
    return RP_OK;
}

/* Room for more frames: the frame table and the hash table grow together, by doubling,
 * or at first to the most frames a regular file of that size can hold (one allocation),
 * never past p->max_bytes (RP_ERR_TOO_LARGE when not even one more frame fits). */
static int grow(parser *p)
{
    rp_manifest *m = p->m;
    size_t hex = (size_t)m->hex_len + 1, per = sizeof(*m->frames) + hex;
    size_t cap = p->cap ? p->cap * 2 : 256;
    rp_manifest_frame *f;
    char *h;

    if (!p->cap && p->file_size > 0) /* a frame line holds at least its hash and 2 bytes */
        cap = (size_t)((uint64_t)p->file_size / (hex + 1) + 1);
    if (p->max_bytes > 0 && cap > (uint64_t)p->max_bytes / per)
        cap = (size_t)((uint64_t)p->max_bytes / per);
    if (cap <= m->count) {
        fail(p, 0,
             "the manifest holds more frames than fit in the memory it may take (%.1f MiB of "
             "%s: %zu frames): raise %s",
             (double)p->max_bytes / (1 << 20), MAX_MEMORY, m->count, MAX_MEMORY);
        return RP_ERR_TOO_LARGE;
    }
    if (cap > SIZE_MAX / per)
        return RP_ERR_NOMEM;
    f = realloc(m->frames, cap * sizeof(*f));
    if (!f)
        return RP_ERR_NOMEM;
    m->frames = f;
    h = realloc(m->hashes, cap * hex);
    if (!h)
        return RP_ERR_NOMEM;
    m->hashes = h;
    p->cap = cap;
    return RP_OK;
}

/* Append a frame after checking its order; returns the slot. */
static int add_frame(parser *p, int64_t frame, int col, rp_manifest_frame **slot)
{
    rp_manifest *m = p->m;

    if (m->count) {
        const rp_manifest_frame *last = &m->frames[m->count - 1];

        if (frame == last->frame)
            return fail(p, col, "frame %" PRId64 " appears twice (first on line %d)", frame,
                        last->line);
        if (frame < last->frame)
            return fail(p, col,
                        "frame %" PRId64 " comes after frame %" PRId64
                        " (line %d): frames must be in increasing order",
                        frame, last->frame, last->line);
    }
    if (m->count == p->cap) {
        int ret = grow(p);
        if (ret)
            return ret;
    }
    *slot = &m->frames[m->count];
    (*slot)->frame = frame;
    (*slot)->line = p->lineno;
    (*slot)->hash = NULL; /* the table may move while it grows: set at the end */
    return RP_OK;
}

/* "stream, dts, pts, duration, size, hash[, side data]". */
static int framehash_line(parser *p)
{
    rp_manifest *m = p->m;
    const char *s = p->line, *e = p->line + p->len;
    const char *start[6], *end[6];
    int64_t v[5];
    rp_manifest_frame *f;
    int n = 0, ret;
    static const char *const names[5] = {"stream", "dts", "pts", "duration", "size"};

    while (n < 6) {
        const char *c = memchr(s, ',', (size_t)(e - s));
        const char *fe = c ? c : e;

        while (s < fe && is_space(*s))
            s++;
        start[n] = s;
        while (fe > s && is_space(fe[-1]))
            fe--;
        end[n++] = fe;
        if (!c)
            break;
        s = c + 1;
    }
    if (n < 6)
        return fail(p, 0,
                    "truncated frame line: %d of 6 fields (expected 'stream, dts, pts, "
                    "duration, size, hash')",
                    n);
    for (int i = 0; i < 5; i++)
        if (parse_i64(start[i], end[i], &v[i]))
            return fail(p, (int)(start[i] - p->line) + 1, "%s '%.*s' is not an integer", names[i],
                        (int)(end[i] - start[i] > 40 ? 40 : end[i] - start[i]), start[i]);
    if (v[0] != 0)
        return fail(p, 1, "stream %" PRId64 ": a manifest holds one video stream (stream 0)", v[0]);
    if (v[4] < 1)
        return fail(p, (int)(start[4] - p->line) + 1, "frame size %" PRId64 " is not positive",
                    v[4]);
    if (m->frame_size < 0)
        m->frame_size = v[4];
    else if (v[4] != m->frame_size)
        return fail(p, (int)(start[4] - p->line) + 1,
                    "frame size %" PRId64 " differs from %" PRId64 " on line %d", v[4],
                    m->frame_size, m->frames[0].line);
    if (!m->algo) {
        m->algo = "MD5"; /* framemd5 files before #hash existed */
        m->hex_len = 32;
    }
    ret = add_frame(p, v[2], (int)(start[2] - p->line) + 1, &f);
    if (ret)
        return ret;
    ret = store_hash(p, start[5], end[5], f);
    if (ret)
        return ret;
    m->count++;
    return RP_OK;
}

/* "FRAME HASH" or "FRAME ALGO:HASH". */
static int hash_line(parser *p)
{
    rp_manifest *m = p->m;
    const char *s = p->line, *e = p->line + p->len, *fs, *fe, *hs, *he, *colon;
    rp_manifest_frame *f;
    int64_t frame;
    int ret;

    while (s < e && is_space(*s))
        s++;
    fs = s;
    while (s < e && !is_space(*s))
        s++;
    fe = s;
    while (s < e && is_space(*s))
        s++;
    hs = s;
    while (s < e && !is_space(*s))
        s++;
    he = s;
    while (s < e && is_space(*s))
        s++;
    if (hs == he)
        return fail(p, 0,
                    "truncated line: a frame number without a hash (expected 'FRAME "
                    "HASH')");
    if (s != e)
        return fail(p, (int)(s - p->line) + 1, "text after the hash (expected 'FRAME HASH')");
    if (parse_i64(fs, fe, &frame) || frame < 0)
        return fail(p, (int)(fs - p->line) + 1, "'%.*s' is not a frame number",
                    (int)(fe - fs > 40 ? 40 : fe - fs), fs);
    colon = memchr(hs, ':', (size_t)(he - hs));
    if (colon) {
        char name[64];
        size_t n = (size_t)(colon - hs);

        if (n >= sizeof(name))
            n = sizeof(name) - 1;
        memcpy(name, hs, n);
        name[n] = '\0';
        ret = set_algo(p, name, (int)(hs - p->line) + 1);
        if (ret)
            return ret;
        hs = colon + 1;
    } else if (!m->algo) {
        ret = set_algo(p, p->default_algo, (int)(hs - p->line) + 1);
        if (ret)
            return ret;
        m->algo_line = 0; /* implied, not named */
    }
    ret = add_frame(p, frame, (int)(fs - p->line) + 1, &f);
    if (ret)
        return ret;
    ret = store_hash(p, hs, he, f);
    if (ret)
        return ret;
    m->count++;
    return RP_OK;
}

static int not_a_manifest(parser *p)
{
    return fail(p, 1,
                "not a manifest (expected framemd5/framehash lines 'stream, dts, pts, "
                "duration, size, hash' or --hash lines 'FRAME HASH')");
}

static int parse_line(parser *p)
{
    rp_manifest *m = p->m;
    const char *s = p->line, *e = p->line + p->len;
    enum rp_manifest_kind kind;

    if (memchr(p->line, '\0', p->len))
        return not_a_manifest(p);
    while (s < e && is_space(*s))
        s++;
    if (s == e)
        return RP_OK;
    if (*s == '#')
        return header_line(p);
    if (!(*s >= '0' && *s <= '9') && *s != '-')
        return m->count ? fail(p, (int)(s - p->line) + 1, "expected a frame line")
                        : not_a_manifest(p);
    kind = memchr(s, ',', (size_t)(e - s)) ? RP_MANIFEST_FRAMEHASH : RP_MANIFEST_HASH_LINES;
    if (m->kind && kind != m->kind)
        return fail(p, (int)(s - p->line) + 1, "%s in a file of %s (line %d)",
                    kind == RP_MANIFEST_FRAMEHASH ? "a framemd5 line" : "a 'FRAME HASH' line",
                    m->kind == RP_MANIFEST_FRAMEHASH ? "framemd5 lines" : "'FRAME HASH' lines",
                    m->frames[0].line);
    m->kind = kind;
    return kind == RP_MANIFEST_FRAMEHASH ? framehash_line(p) : hash_line(p);
}

/* A parser for filename's text (the diag's file), with no limits. */
static int parser_init(parser *p, const char *filename, const char *default_algo, rp_diag *diag)
{
    memset(diag, 0, sizeof(*diag));
    snprintf(diag->file, sizeof(diag->file), "%s", filename ? filename : "<manifest>");
    memset(p, 0, sizeof(*p));
    p->diag = diag;
    p->default_algo = default_algo;
    p->m = calloc(1, sizeof(*p->m));
    if (!p->m)
        return RP_ERR_NOMEM;
    p->m->frame_size = -1;
    return RP_OK;
}

/* Parse one line of len bytes (without its '\n'; last: the text ends without one). */
static int feed(parser *p, const char *line, size_t len, int last)
{
    if (p->lineno == INT32_MAX)
        return fail(p, 0, "too many lines: not a manifest");
    if (p->lineno % STOP_LINES == 0 && p->stop && *p->stop)
        return RP_ERR_INTERRUPTED;
    p->bytes += len + !last;
    p->line = line;
    p->len = len;
    if (p->len && p->line[p->len - 1] == '\r')
        p->len--;
    p->lineno++;
    p->ends_mid_line = last;
    return parse_line(p);
}

/* After the last line: a manifest without frames is an error; the frames get their
 * hashes (the table no longer moves). The manifest into *out, or freed. */
static int finish(parser *p, rp_manifest **out)
{
    rp_manifest *m = p->m;
    int ret;

    if (!m->count) {
        p->line = "";
        p->len = 0;
        p->ends_mid_line = 0;
        ret = p->bytes ? fail(p, 0, "no frame lines: not a manifest")
                       : fail(p, 0, "empty file: not a manifest");
        p->diag->line = p->lineno ? p->lineno : 1;
        rp_manifest_free(&p->m);
        return ret;
    }
    for (size_t i = 0; i < m->count; i++)
        m->frames[i].hash = m->hashes + i * ((size_t)m->hex_len + 1);
    *out = m;
    p->m = NULL;
    return RP_OK;
}

static int manifest_parse(rp_manifest **out, const char *text, size_t len, const char *filename,
                          const char *default_algo, rp_diag *diag)
{
    parser p;
    size_t pos = 0;
    int ret;

    *out = NULL;
    if ((ret = parser_init(&p, filename, default_algo, diag)))
        return ret;
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;

        if ((ret = feed(&p, text + pos, end - pos, !nl))) {
            rp_manifest_free(&p.m);
            return ret;
        }
        pos = nl ? end + 1 : len;
    }
    return finish(&p, out);
}

int64_t rp_manifest_memory(int64_t file_size)
{
    int64_t per = (int64_t)sizeof(rp_manifest_frame) + HEX_MIN + 1;
    int64_t most = (int64_t)sizeof(rp_manifest_frame) + RP_HASH_HEX_MAX;

    if (file_size < 0)
        file_size = 0;
    return (int64_t)(CHUNK + RP_MANIFEST_LINE_MAX) + (file_size / (HEX_MIN + 2) + 1) * per + most;
}

/* Feed the complete lines of buf[0, *have) to p, keep the unfinished one at the start of
 * buf; at the end of the file (eof) it is the last line. */
static int feed_lines(parser *p, char *buf, size_t *have, int eof)
{
    size_t start = 0;
    const char *nl;
    int ret;

    while ((nl = memchr(buf + start, '\n', *have - start))) {
        if ((ret = feed(p, buf + start, (size_t)(nl - buf) - start, 0)))
            return ret;
        start = (size_t)(nl - buf) + 1;
    }
    memmove(buf, buf + start, *have - start);
    *have -= start;
    if (*have > RP_MANIFEST_LINE_MAX) {
        p->line = "";
        p->len = 0;
        p->lineno++;
        return fail(p, 0, "a line longer than %d bytes: not a manifest", RP_MANIFEST_LINE_MAX);
    }
    return eof && *have ? feed(p, buf, *have, 1) : RP_OK;
}

/* Read f in chunks into p, a line at a time. */
static int read_lines(parser *p, FILE *f)
{
    char *buf = malloc(CHUNK + RP_MANIFEST_LINE_MAX + 1);
    size_t have = 0;
    int ret = RP_OK;

    if (!buf)
        return RP_ERR_NOMEM;
    while (ret == RP_OK) {
        size_t n = fread(buf + have, 1, CHUNK, f);

        if (p->stop && *p->stop) {
            ret = RP_ERR_INTERRUPTED;
            break;
        }
        if (n == 0 && ferror(f)) {
            snprintf(p->diag->msg, sizeof(p->diag->msg), "cannot read: %s", strerror(errno));
            ret = RP_ERR_IO;
            break;
        }
        have += n;
        ret = feed_lines(p, buf, &have, n == 0);
        if (n == 0)
            break;
    }
    free(buf);
    return ret;
}

static int manifest_load(rp_manifest **out, const char *path, const char *default_algo,
                         int64_t max_bytes, volatile sig_atomic_t *stop, rp_diag *diag)
{
    parser p;
    struct stat st;
    FILE *f;
    int ret;

    *out = NULL;
    if ((ret = parser_init(&p, path, default_algo, diag)))
        return ret;
    p.max_bytes = max_bytes;
    p.stop = stop;
    f = fopen(path, "rb");
    if (!f) {
        snprintf(diag->msg, sizeof(diag->msg), "cannot open: %s", strerror(errno));
        rp_manifest_free(&p.m);
        return RP_ERR_IO;
    }
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        p.file_size = st.st_size;
        if (max_bytes > 0 && rp_manifest_memory(st.st_size) > max_bytes) {
            snprintf(diag->msg, sizeof(diag->msg),
                     "a manifest of %.1f MiB may take %.1f MiB to read, over the %.1f MiB "
                     "%s leaves for it (raise %s)",
                     (double)st.st_size / (1 << 20),
                     (double)rp_manifest_memory(st.st_size) / (1 << 20),
                     (double)max_bytes / (1 << 20), MAX_MEMORY, MAX_MEMORY);
            ret = RP_ERR_TOO_LARGE;
        }
    }
    if (!ret)
        ret = read_lines(&p, f);
    fclose(f);
    if (ret) {
        rp_manifest_free(&p.m);
        return ret;
    }
    return finish(&p, out);
}

void rp_manifest_free(rp_manifest **m)
{
    if (!m || !*m)
        return;
    free((*m)->frames);
    free((*m)->hashes);
    free(*m);
    *m = NULL;
}

/* Fill diag with a message about the manifest (line 0: the whole file). */
__attribute__((format(printf, 3, 4))) static int mismatch(rp_diag *d, int line, const char *fmt,
                                                          ...)
{
    va_list ap;

    d->line = line;
    d->col = 0;
    d->source_line[0] = '\0';
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
    va_end(ap);
    return RP_ERR_INVALID;
}

/* pts * tb_num * fps_num / (tb_den * fps_den) as a whole frame; -1 if it is not one,
 * -2 on overflow. */
static int pts_to_frame(int64_t pts, const rp_manifest *m, const rp_manifest_run *run,
                        int64_t *frame)
{
    int64_t num, den;

    if (__builtin_mul_overflow((int64_t)m->tb_num, (int64_t)run->fps_num, &num) ||
        __builtin_mul_overflow((int64_t)m->tb_den, (int64_t)run->fps_den, &den) ||
        __builtin_mul_overflow(pts, num, &num))
        return -2;
    if (num % den)
        return -1;
    *frame = num / den;
    return 0;
}

static int manifest_check(rp_manifest *m, const rp_manifest_run *run, rp_diag *d)
{
    const char *pix_fmt = run->pix_fmt ? run->pix_fmt : "rgb24";
    int bpp = !strcmp(pix_fmt, "rgb24") ? 3 : !strcmp(pix_fmt, "rgba") ? 4 : 0;
    int64_t want_size = (int64_t)run->width * run->height * bpp;
    int64_t first = run->first_frame, last = run->first_frame + run->frame_count - 1;

    memset(d->msg, 0, sizeof(d->msg));
    if (!bpp)
        return mismatch(d, 0, "frames of pixel format '%s' cannot be verified (rgb24 or rgba)",
                        pix_fmt);
    if (run->hash_algo) {
        const char *canonical;

        if (rp_hash_lookup(run->hash_algo, &canonical, NULL))
            return mismatch(d, 0, "unknown hash algorithm '%s'", run->hash_algo);
        if (strcmp(canonical, m->algo))
            return mismatch(d, m->algo_line, "the manifest holds %s hashes, %s asks for %s",
                            m->algo, rp_name("--hash-algo", "rp_run.hash_algo"), canonical);
    }
    if (m->width && (m->width != run->width || m->height != run->height))
        return mismatch(d, 0, "the manifest is for %dx%d frames, this run renders %dx%d", m->width,
                        m->height, run->width, run->height);
    if (m->frame_size >= 0 && m->frame_size != want_size) {
        int64_t pixels = (int64_t)run->width * run->height;

        if (m->frame_size == pixels * (bpp == 3 ? 4 : 3))
            return mismatch(
                d, m->frames[0].line,
                "the manifest's frames are %" PRId64 " bytes, %s frames of %s (%dx%d "
                "%s are %" PRId64 "): %s, or make it with -pix_fmt %s",
                m->frame_size, bpp == 3 ? "rgba" : "rgb24",
                bpp == 3 ? "4 bytes a pixel" : "3 bytes a pixel", run->width, run->height, pix_fmt,
                want_size,
                rp_name(bpp == 3 ? "verify with --alpha" : "verify without --alpha",
                        bpp == 3 ? "verify with rp_run.alpha" : "verify without rp_run.alpha"),
                pix_fmt);
        return mismatch(d, m->frames[0].line,
                        "the manifest's frames are %" PRId64 " bytes, but %dx%d %s frames are "
                        "%" PRId64 " (another size or pixel format: make it with -pix_fmt %s)",
                        m->frame_size, run->width, run->height, pix_fmt, want_size, pix_fmt);
    }
    if (m->tb_num && m->tb_den) {
        if (run->fps_num < 1 || run->fps_den < 1)
            return mismatch(d, 0, "the run's frame rate is unknown");
        for (size_t i = 0; i < m->count; i++) {
            int64_t frame;
            int r = pts_to_frame(m->frames[i].frame, m, run, &frame);

            if (r)
                return mismatch(d, m->frames[i].line,
                                "pts %" PRId64 " in time base %d/%d is %s at %d/%d fps (a "
                                "manifest of another frame rate?)",
                                m->frames[i].frame, m->tb_num, m->tb_den,
                                r == -1 ? "not a whole frame" : "too large", run->fps_num,
                                run->fps_den);
            m->frames[i].frame = frame;
        }
        m->tb_num = m->tb_den = 0; /* converted: a second check leaves the frames alone */
    }
    if (run->part && run->frame_count > 0) {
        /* Every frame of the run, each once: the manifest's frames first..last are
         * consecutive when there are last - first + 1 of them (they are increasing). */
        const rp_manifest_frame *a = rp_manifest_find(m, first), *b = rp_manifest_find(m, last);
        if (a && b && b - a == last - first)
            return RP_OK;
        for (int64_t k = first; k <= last; k++)
            if (!rp_manifest_find(m, k))
                return mismatch(d, 0,
                                "the manifest lacks frame %" PRId64 " (it holds frames %" PRId64
                                "..%" PRId64 ", this run renders %" PRId64 "..%" PRId64 ")",
                                k, m->frames[0].frame, m->frames[m->count - 1].frame, first, last);
    }
    if (m->count != (size_t)run->frame_count || m->frames[0].frame != first ||
        m->frames[m->count - 1].frame != last) {
        for (size_t i = 1; i < m->count; i++)
            if (m->frames[i].frame != m->frames[i - 1].frame + 1 && m->frames[0].frame == first &&
                m->frames[m->count - 1].frame == last)
                return mismatch(d, m->frames[i].line,
                                "the manifest lacks frame %" PRId64 " (it goes from %" PRId64
                                " to %" PRId64 ")",
                                m->frames[i - 1].frame + 1, m->frames[i - 1].frame,
                                m->frames[i].frame);
        return mismatch(d, 0,
                        "the manifest holds frames %" PRId64 "..%" PRId64 " (%zu), this run "
                        "renders frames %" PRId64 "..%" PRId64 " (%" PRId64 ")",
                        m->frames[0].frame, m->frames[m->count - 1].frame, m->count, first, last,
                        run->frame_count);
    }
    return RP_OK;
}

const rp_manifest_frame *rp_manifest_find(const rp_manifest *m, int64_t frame)
{
    size_t lo = 0, hi = m->count;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (m->frames[mid].frame < frame)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->count && m->frames[lo].frame == frame ? &m->frames[lo] : NULL;
}

/* The public entry points: the diagnostic the parser or the check leaves, as err (an
 * allocation that failed says so). */

static int manifest_error(rp_error *err, int r)
{
    if (r == RP_ERR_NOMEM && !err->diag.msg[0])
        snprintf(err->diag.msg, sizeof err->diag.msg, "out of memory");
    rp_error_diag(err, r);
    rp_manifest_error_file(err);
    return r;
}

void rp_manifest_error_file(rp_error *err)
{
    /* rp_error: msg is diag.msg alone where diag places it on a line; a message about the
     * whole file (it cannot be opened, it is empty, it is of another run) names the file */
    if (err->has_diag && err->diag.line <= 0 && err->diag.file[0])
        snprintf(err->msg, sizeof err->msg, "%.500s: %.500s", err->diag.file, err->diag.msg);
}

int rp_manifest_parse(rp_manifest **out, const char *text, size_t len, const char *filename,
                      const char *default_algo, rp_error *err)
{
    memset(&err->diag, 0, sizeof err->diag);
    int r = manifest_parse(out, text, len, filename, default_algo, &err->diag);
    return r ? manifest_error(err, r) : RP_OK;
}

int rp_manifest_load(rp_manifest **out, const char *path, const char *default_algo,
                     int64_t max_bytes, volatile sig_atomic_t *stop, rp_error *err)
{
    memset(&err->diag, 0, sizeof err->diag);
    int r = manifest_load(out, path, default_algo, max_bytes, stop, &err->diag);
    return r ? manifest_error(err, r) : RP_OK;
}

int rp_manifest_check(rp_manifest *m, const rp_manifest_run *run, rp_error *err)
{
    memset(&err->diag, 0, sizeof err->diag);
    int r = manifest_check(m, run, &err->diag);
    return r ? manifest_error(err, r) : RP_OK;
}
