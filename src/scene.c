/* scene.c - the scene language (SPEC.md section 2): a line-by-line parser from UTF-8
 * text to validated settings and events, with 1-based line/column diagnostics.
 *
 * Columns count characters (UTF-8 code points) from 1; a tab counts as one. Numbers
 * are read digit by digit into int64 with explicit limits, so any input, however long,
 * gives a value or an "out of range" message, never undefined behaviour. There is no
 * floating point: decimals are kept exactly as integers (microseconds, millionths of a
 * percent, milli-drops per second, Q16). The timeline that expands the events into
 * per-frame items is in events.c; the grammar and every rule are in rockpool-scene(5). */
#include "scene.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest magnitude the number reader accepts before calling a number out of range. */
#define NUM_LIMIT INT64_C(1000000000000000000)

#define PCT_ONE INT64_C(1000000) /* 1% in millionths of a percent */
#define PCT_FULL (100 * PCT_ONE) /* 100% */

struct rp_scene {
    rp_settings settings;
    rp_scene_stats stats;
    char *text; /* a copy of the scene text, NUL-terminated; events point in */
    size_t text_len;
    rp_event *events;
    size_t n_events, cap_events;
};

/* One word of a line: s == NULL marks the end of the line (col is then where a missing
 * word was expected). */
typedef struct tok {
    const char *s;
    size_t n;
    int col;
} tok;

typedef struct parser {
    rp_scene *sc;
    rp_diag *diag;
    rp_settings given; /* explicitly given settings, merged over the defaults at the end */
    int set_line[16];  /* line of each setting, by bit index; 0 = not given */
    const char *dir;   /* the scene's directory prefix (with the '/'), dir_len bytes */
    size_t dir_len;
    int line;       /* current line, 1-based */
    const char *ls; /* current line's text (no newline) */
    size_t llen;
    const char *p; /* lexer cursor in the line */
    int col;       /* column of *p */
    int end_col;   /* column just past the last word read */
} parser;

static const char *const shape_names[] = {"disc", "square", "cosine", "splash"};
static const enum rp_shape shape_values[] = {RP_SHAPE_DISC, RP_SHAPE_SQUARE, RP_SHAPE_COSINE,
                                             RP_SHAPE_SPLASH};

/* ---- diagnostics ---------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (n bytes available), or 0 if it is invalid or
 * a NUL byte (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len, i;
    unsigned lo = 0x80, hi = 0xBF;

    if (c == 0)
        return 0;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4;
    else
        return 0;
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    if (n < len)
        return 0;
    for (i = 1; i < len; i++) {
        if (s[i] < lo || s[i] > hi)
            return 0;
        lo = 0x80;
        hi = 0xBF;
    }
    return len;
}

/* Copy a line for a caret display: at most cap-1 bytes, cut at a character boundary,
 * invalid bytes and NULs replaced by '?'. */
static void copy_line(char *dst, size_t cap, const char *src, size_t n)
{
    size_t i = 0, o = 0;

    while (i < n) {
        size_t k = utf8_len((const unsigned char *)src + i, n - i);
        if (k == 0) {
            if (o + 1 >= cap)
                break;
            dst[o++] = '?';
            i++;
            continue;
        }
        if (o + k >= cap)
            break;
        memcpy(dst + o, src + i, k);
        o += k;
        i += k;
    }
    dst[o] = '\0';
}

/* A word for a message: at most 40 bytes (cut at a character boundary), then "...". */
static const char *show(const char *s, size_t n, char buf[64])
{
    size_t cut = n;

    if (n > 40) {
        cut = 40;
        while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
            cut--;
    }
    copy_line(buf, 48, s, cut);
    if (cut < n)
        strcat(buf, "...");
    return buf;
}

#define SHOW(t, buf) show((t).s, (t).n, buf)

/* Report an error at col of the current line; returns RP_ERR_INVALID. */
#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif
static int fail(parser *ps, int col, const char *fmt, ...) PRINTF_LIKE(3, 4);
static int fail(parser *ps, int col, const char *fmt, ...)
{
    va_list ap;
    rp_diag *d = ps->diag;

    d->line = ps->line;
    d->col = col;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
    copy_line(d->source_line, sizeof d->source_line, ps->ls, ps->llen);
    return RP_ERR_INVALID;
}

/* ---- lexer ---------------------------------------------------------------------------- */

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void advance(parser *ps)
{
    if (((unsigned char)*ps->p & 0xC0) != 0x80)
        ps->col++;
    ps->p++;
}

/* Column of the byte `at` in the current line. */
static int col_at(const parser *ps, const char *at)
{
    const char *q;
    int col = 1;

    for (q = ps->ls; q < at; q++)
        if (((unsigned char)*q & 0xC0) != 0x80)
            col++;
    return col;
}

/* The next word of the line. A word runs to whitespace or '#'; a word starting with '"'
 * is a quoted string running to the next unescaped '"' (\" and \\ escape). */
static int lex(parser *ps, tok *t)
{
    const char *end = ps->ls + ps->llen;

    t->s = NULL;
    t->n = 0;
    t->col = ps->end_col;
    while (ps->p < end && is_space(*ps->p))
        advance(ps);
    if (ps->p == end || *ps->p == '#')
        return RP_OK;
    t->s = ps->p;
    t->col = ps->col;
    if (*ps->p == '"') {
        advance(ps);
        while (ps->p < end && *ps->p != '"') {
            if (*ps->p == '\\' && ps->p + 1 < end)
                advance(ps);
            advance(ps);
        }
        if (ps->p == end)
            return fail(ps, t->col, "unterminated quoted string (expected a closing '\"')");
        advance(ps);
        if (ps->p < end && !is_space(*ps->p) && *ps->p != '#')
            return fail(ps, ps->col, "unexpected text after the closing quote");
    } else {
        while (ps->p < end && !is_space(*ps->p) && *ps->p != '#')
            advance(ps);
    }
    t->n = (size_t)(ps->p - t->s);
    ps->end_col = ps->col;
    return RP_OK;
}

static int is(tok t, const char *word)
{
    size_t n = strlen(word);
    return t.s && t.n == n && memcmp(t.s, word, n) == 0;
}

/* The word after the statement must be the end of the line. */
static int want_end(parser *ps, const char *what)
{
    tok t;
    char b[64];
    int ret = lex(ps, &t);

    if (ret)
        return ret;
    if (t.s)
        return fail(ps, t.col, "unexpected '%s' after %s", SHOW(t, b), what);
    return RP_OK;
}

/* ---- numbers -------------------------------------------------------------------------- */

enum { NUM_OK, NUM_SYNTAX, NUM_RANGE, NUM_PRECISION };

/* s[0..n) as a decimal number (optional sign, digits, optional point and digits) times
 * 10^scale, exactly. NUM_SYNTAX if it is not a number, NUM_RANGE if its magnitude passes
 * 10^18 (any number of digits is safe), NUM_PRECISION if nonzero digits lie beyond
 * `scale` decimal places. */
static int decimal(const char *s, size_t n, int scale, int64_t *out)
{
    size_t i = 0;
    int neg = 0, digits = 0, frac = -1, big = 0, lost = 0;
    int64_t v = 0;

    if (i < n && (s[i] == '-' || s[i] == '+')) {
        neg = s[i] == '-';
        i++;
    }
    for (; i < n; i++) {
        int d;
        if (s[i] == '.') {
            if (frac >= 0)
                return NUM_SYNTAX;
            frac = 0;
            continue;
        }
        if (s[i] < '0' || s[i] > '9')
            return NUM_SYNTAX;
        d = s[i] - '0';
        digits++;
        if (frac >= 0) {
            if (frac == scale) {
                lost |= d != 0;
                continue;
            }
            frac++;
        }
        if (v > (NUM_LIMIT - d) / 10)
            big = 1;
        else
            v = v * 10 + d;
    }
    if (!digits)
        return NUM_SYNTAX;
    for (frac = frac < 0 ? 0 : frac; frac < scale; frac++) {
        if (v > NUM_LIMIT / 10)
            big = 1;
        else
            v *= 10;
    }
    if (big)
        return NUM_RANGE;
    if (lost)
        return NUM_PRECISION;
    *out = neg ? -v : v;
    return NUM_OK;
}

/* A part of a word (for "640x480", "3..9", "40,400"): its text and column. */
typedef struct part {
    const char *s;
    size_t n;
    int col;
} part;

static part whole(tok t)
{
    part p = {t.s, t.n, t.col};
    return p;
}

/* Split p at the first occurrence of sep into a and b; 0 if sep is absent. */
static int split(const parser *ps, part p, const char *sep, part *a, part *b)
{
    size_t k = strlen(sep), i;

    for (i = 0; i + k <= p.n; i++) {
        if (memcmp(p.s + i, sep, k) == 0) {
            a->s = p.s;
            a->n = i;
            a->col = p.col;
            b->s = p.s + i + k;
            b->n = p.n - i - k;
            b->col = col_at(ps, b->s);
            return 1;
        }
    }
    return 0;
}

/* An integer in lo..hi; `what` names the value in messages. */
static int int_part(parser *ps, part p, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
    char b[64];
    int64_t v = 0;
    int r = decimal(p.s, p.n, 0, &v);

    if (r == NUM_SYNTAX)
        return fail(ps, p.col, "expected a number for %s, got '%s'", what, show(p.s, p.n, b));
    if (r == NUM_PRECISION)
        return fail(ps, p.col, "%s %s is not a whole number", what, show(p.s, p.n, b));
    if (r == NUM_RANGE || v < lo || v > hi)
        return fail(ps, p.col, "%s %s is out of range (%lld..%lld)", what, show(p.s, p.n, b),
                    (long long)lo, (long long)hi);
    *out = v;
    return RP_OK;
}

/* The next word, which must exist: else "expected <expect> after '<after>'". */
static int want_word(parser *ps, const char *expect, const char *after, tok *t)
{
    int ret = lex(ps, t);

    if (ret)
        return ret;
    if (!t->s)
        return fail(ps, t->col, "expected %s after '%s'", expect, after);
    return RP_OK;
}

/* The next word as an integer in lo..hi. */
static int want_int(parser *ps, const char *after, const char *what, int64_t lo, int64_t hi,
                    int64_t *out)
{
    tok t;
    char b[64];
    int64_t v;
    int ret = want_word(ps, "a number", after, &t);

    if (ret)
        return ret;
    if (decimal(t.s, t.n, 0, &v) == NUM_SYNTAX)
        return fail(ps, t.col, "expected a number after '%s', got '%s'", after, SHOW(t, b));
    return int_part(ps, whole(t), what, lo, hi, out);
}

/* An integer or a range "A..B" (A <= B) of integers in lo..hi. */
static int want_range(parser *ps, const char *after, int64_t lo, int64_t hi, int64_t *a, int64_t *b)
{
    tok t;
    part pa, pb;
    char buf[64];
    int64_t v;
    int ret = want_word(ps, "a number or a range A..B", after, &t);

    if (ret)
        return ret;
    if (!split(ps, whole(t), "..", &pa, &pb)) {
        if (decimal(t.s, t.n, 0, &v) == NUM_SYNTAX)
            return fail(ps, t.col, "expected a number or a range A..B after '%s', got '%s'", after,
                        SHOW(t, buf));
        ret = int_part(ps, whole(t), after, lo, hi, a);
        *b = *a;
        return ret;
    }
    if ((ret = int_part(ps, pa, after, lo, hi, a)) || (ret = int_part(ps, pb, after, lo, hi, b)))
        return ret;
    if (*a > *b)
        return fail(ps, t.col, "reversed range '%s' (write the smaller value first)", SHOW(t, buf));
    return RP_OK;
}

/* ---- times, coordinates, paths -------------------------------------------------------- */

static int ends_with(part p, const char *suffix)
{
    size_t k = strlen(suffix);
    return p.n >= k && memcmp(p.s + p.n - k, suffix, k) == 0;
}

/* A time: "1.5s" (seconds, up to 6 decimals), "250ms" (up to 3 decimals) or "45f" (a
 * frame number), kept exactly as microseconds or frames. */
static int time_part(parser *ps, part p, rp_time *out)
{
    char b[64];
    part num = p;
    int scale, r;
    int64_t v = 0, max;

    out->is_frames = 0;
    if (ends_with(p, "ms")) {
        num.n -= 2;
        scale = 3;
    } else if (ends_with(p, "s")) {
        num.n -= 1;
        scale = 6;
    } else if (ends_with(p, "f")) {
        num.n -= 1;
        scale = 0;
        out->is_frames = 1;
    } else {
        if (decimal(p.s, p.n, 18, &v) != NUM_SYNTAX)
            return fail(ps, p.col, "time '%s' needs a unit (s, ms or f)", show(p.s, p.n, b));
        return fail(ps, p.col, "expected a time like 1.5s, 250ms or 45f, got '%s'",
                    show(p.s, p.n, b));
    }
    r = decimal(num.s, num.n, scale, &v);
    if (r == NUM_SYNTAX)
        return fail(ps, p.col, "expected a time like 1.5s, 250ms or 45f, got '%s'",
                    show(p.s, p.n, b));
    if (r == NUM_PRECISION)
        return fail(ps, p.col,
                    out->is_frames ? "time %s: a frame number is a whole number"
                                   : "time %s is finer than a microsecond",
                    show(p.s, p.n, b));
    max = out->is_frames ? RP_TIME_MAX_FRAMES : RP_TIME_MAX_US;
    if (r == NUM_RANGE || v < 0 || v > max)
        return fail(ps, p.col, "time %s is out of range (%s)", show(p.s, p.n, b),
                    out->is_frames ? "0f..1000000000f" : "0s..1000000s");
    out->value = v;
    return RP_OK;
}

/* A time or a span "A..B" (B after A when both use the same unit; mixed units are
 * compared at rp_timeline_build time, when fps is final). */
static int time_or_span(parser *ps, tok t, rp_event *ev)
{
    part a, b;
    char buf[64];
    int ret;

    ev->time_col = t.col;
    ev->time_text = t.s;
    ev->time_len = t.n;
    if (!split(ps, whole(t), "..", &a, &b))
        return time_part(ps, whole(t), &ev->start);
    ev->is_span = 1;
    if (a.n == 0)
        return fail(ps, a.col, "expected a time before '..' in the span");
    if (b.n == 0)
        return fail(ps, b.col, "expected a time after '..' in the span");
    if ((ret = time_part(ps, a, &ev->start)) || (ret = time_part(ps, b, &ev->end)))
        return ret;
    if (ev->start.is_frames == ev->end.is_frames && ev->end.value <= ev->start.value)
        return fail(ps, t.col, "reversed span '%s': the end must be after the start", SHOW(t, buf));
    return RP_OK;
}

/* A coordinate: pixels (0..16383, checked against the final size later) or a percentage
 * "50%" / "12.5%" (0..100, up to 6 decimals), or, when `length`, a size in pixels
 * (1..16384) or a percentage above 0. */
static int coord_part(parser *ps, part p, const char *what, int length, rp_coord *c)
{
    char b[64];
    int64_t v = 0;
    int r;

    c->col = p.col;
    if (ends_with(p, "%")) {
        r = decimal(p.s, p.n - 1, 6, &v);
        if (r == NUM_SYNTAX)
            return fail(ps, p.col, "expected a number or a percentage for %s, got '%s'", what,
                        show(p.s, p.n, b));
        if (r == NUM_PRECISION)
            return fail(ps, p.col, "%s %s has more than 6 decimals", what, show(p.s, p.n, b));
        if (r == NUM_RANGE || v < (length ? 1 : 0) || v > PCT_FULL)
            return fail(ps, p.col, "%s %s is out of range (%s..100%%)", what, show(p.s, p.n, b),
                        length ? "above 0%" : "0%");
        c->is_percent = 1;
        c->value = v;
        return RP_OK;
    }
    r = decimal(p.s, p.n, 0, &v);
    if (r == NUM_SYNTAX)
        return fail(ps, p.col, "expected a number or a percentage for %s, got '%s'", what,
                    show(p.s, p.n, b));
    if (r == NUM_PRECISION)
        return fail(ps, p.col, "%s %s is not a whole number of pixels", what, show(p.s, p.n, b));
    if (length && (r == NUM_RANGE || v < 1 || v > RP_MAX_SIDE))
        return fail(ps, p.col, "%s %s is out of range (1..%d)", what, show(p.s, p.n, b),
                    RP_MAX_SIDE);
    if (!length && (r == NUM_RANGE || v < 0 || v >= RP_MAX_SIDE))
        return fail(ps, p.col, "%s %s is off the grid (0..%d)", what, show(p.s, p.n, b),
                    RP_MAX_SIDE - 1);
    c->is_percent = 0;
    c->value = v;
    return RP_OK;
}

static int want_coord(parser *ps, const char *after, const char *what, int length, rp_coord *c)
{
    tok t;
    int ret = want_word(
        ps, length ? "a size in pixels or a percentage" : "a coordinate (pixels or a percentage)",
        after, &t);
    if (ret)
        return ret;
    return coord_part(ps, whole(t), what, length, c);
}

/* A point "X,Y". */
static int want_point(parser *ps, const char *after, rp_coord *x, rp_coord *y)
{
    tok t;
    part a, b;
    char buf[64];
    int ret = want_word(ps, "a point X,Y", after, &t);

    if (ret)
        return ret;
    if (!split(ps, whole(t), ",", &a, &b))
        return fail(ps, t.col, "expected a point X,Y (no spaces) after '%s', got '%s'", after,
                    SHOW(t, buf));
    if ((ret = coord_part(ps, a, "x coordinate", 0, x)))
        return ret;
    return coord_part(ps, b, "y coordinate", 0, y);
}

/* The next word as a path (bare, or quoted with \" and \\ escapes), resolved against the
 * scene's directory unless absolute, into out (cap bytes). */
static int want_path(parser *ps, const char *after, char *out, size_t cap)
{
    tok t;
    size_t o = 0, i, n;
    const char *s;
    int ret = want_word(ps, "a path", after, &t);

    if (ret)
        return ret;
    s = t.s;
    n = t.n;
    if (s[0] == '"') {
        s++;
        n -= 2;
    }
    if (n == 0)
        return fail(ps, t.col, "empty path after '%s'", after);
    if (s[0] != '/' && ps->dir_len > 0) {
        if (ps->dir_len >= cap)
            return fail(ps, t.col, "path is too long (at most %zu bytes)", cap - 1);
        memcpy(out, ps->dir, ps->dir_len);
        o = ps->dir_len;
    }
    for (i = 0; i < n; i++) {
        char c = s[i];
        if (t.s[0] == '"' && c == '\\' && i + 1 < n)
            c = s[++i];
        if (o + 1 >= cap)
            return fail(ps, t.col, "path is too long (at most %zu bytes)", cap - 1);
        out[o++] = c;
    }
    out[o] = '\0';
    return RP_OK;
}

/* One of the words names[0..n), as its index. */
static int want_choice(parser *ps, const char *after, const char *const *names, int n,
                       const char *list, int *out)
{
    tok t;
    char b[64];
    int i, ret;

    *out = 0; /* defined on every path, so callers never read an unset index */
    if ((ret = want_word(ps, list, after, &t)))
        return ret;
    for (i = 0; i < n; i++) {
        if (is(t, names[i])) {
            *out = i;
            return RP_OK;
        }
    }
    return fail(ps, t.col, "unknown %s '%s' (expected %s)", after, SHOW(t, b), list);
}

/* ---- settings ------------------------------------------------------------------------- */

static int set_size(parser *ps, tok kw)
{
    tok t;
    part w, h;
    char b[64];
    int64_t vw, vh;
    int ret = want_word(ps, "a size like 640x480", "size", &t);

    (void)kw;
    if (ret)
        return ret;
    if (!split(ps, whole(t), "x", &w, &h))
        return fail(ps, t.col, "expected a size like 640x480 after 'size', got '%s'", SHOW(t, b));
    if ((ret = int_part(ps, w, "width", 1, RP_MAX_SIDE, &vw)) ||
        (ret = int_part(ps, h, "height", 1, RP_MAX_SIDE, &vh)))
        return ret;
    ps->given.width = (int)vw;
    ps->given.height = (int)vh;
    return want_end(ps, "the size");
}

static int set_fps(parser *ps, tok kw)
{
    int64_t v;
    int ret = want_int(ps, "fps", "fps", 1, RP_FPS_MAX, &v);

    (void)kw;
    if (ret)
        return ret;
    ps->given.fps = (int)v;
    return want_end(ps, "the frame rate");
}

static int set_duration(parser *ps, tok kw)
{
    tok t;
    char b[64];
    int ret = want_word(ps, "a time like 10s, 2500ms or 300f", "duration", &t);

    (void)kw;
    if (ret)
        return ret;
    if ((ret = time_part(ps, whole(t), &ps->given.duration)))
        return ret;
    if (ps->given.duration.value == 0)
        return fail(ps, t.col, "duration %s is empty (it must be above 0)", SHOW(t, b));
    return want_end(ps, "the duration");
}

static int set_seed(parser *ps, tok kw)
{
    tok t;
    char b[64];
    uint64_t v = 0;
    size_t i = 0;
    int hex, digits = 0, ret = want_word(ps, "a number", "seed", &t);

    (void)kw;
    if (ret)
        return ret;
    hex = t.n > 2 && t.s[0] == '0' && (t.s[1] == 'x' || t.s[1] == 'X');
    for (i = hex ? 2 : 0; i < t.n; i++) {
        char c = t.s[i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (hex && c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (hex && c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else if (c == '-' && i == 0)
            return fail(ps, t.col, "seed %s is out of range (0..18446744073709551615)", SHOW(t, b));
        else
            return fail(ps, t.col, "expected a number after 'seed', got '%s'", SHOW(t, b));
        if (v > (UINT64_MAX - d) / (hex ? 16 : 10))
            return fail(ps, t.col, "seed %s is out of range (0..18446744073709551615)", SHOW(t, b));
        v = v * (hex ? 16 : 10) + d;
        digits++;
    }
    if (!digits)
        return fail(ps, t.col, "expected a number after 'seed', got '%s'", SHOW(t, b));
    ps->given.seed = v;
    return want_end(ps, "the seed");
}

static int set_preset(parser *ps, tok kw)
{
    tok t;
    char b[64];
    rp_settings d;
    int p, ret = want_word(ps, "a preset name", "preset", &t);

    (void)kw;
    if (ret)
        return ret;
    for (p = 0; p <= RP_PRESET_CODEPROJECT; p++)
        if (is(t, rp_preset_name((enum rp_preset)p)))
            break;
    if (p > RP_PRESET_CODEPROJECT)
        return fail(ps, t.col,
                    "unknown preset '%s' (expected elias, applet, silverlight, codeproject, "
                    "rockpool)",
                    SHOW(t, b));
    rp_settings_defaults(&d, (enum rp_preset)p);
    ps->given.preset = (enum rp_preset)p;
    ps->given.shape = d.shape;
    ps->given.mode = d.mode;
    return want_end(ps, "the preset");
}

static int set_background(parser *ps, tok kw)
{
    int ret = want_path(ps, "background", ps->given.background, sizeof ps->given.background);

    (void)kw;
    if (ret)
        return ret;
    return want_end(ps, "the path (quote a path with spaces or '#')");
}

/* Damping: "shift N" (1..30) or a factor f in (0, 1], Q16 = round(f * 65536) computed
 * exactly from the decimal digits (halves round up). Returns NUM_* like decimal(), or -1
 * when the factor is out of range (q16 is then left 0). */
static int damping_factor(const char *s, size_t n, int32_t *q16)
{
    int64_t v = 0;
    int r = decimal(s, n, 18, &v); /* f * 10^18 */
    unsigned __int128 q;

    if (r != NUM_OK)
        return r;
    if (v <= 0 || v > INT64_C(1000000000000000000))
        return -1;
    q = ((unsigned __int128)v * 131072u + UINT64_C(1000000000000000000)) /
        UINT64_C(2000000000000000000);
    *q16 = (int32_t)q;
    return NUM_OK;
}

static int set_damping(parser *ps, tok kw)
{
    tok t;
    char b[64];
    int64_t shift;
    int32_t q = 0;
    int r, ret = want_word(ps, "'shift N' or a factor like 0.94", "damping", &t);

    (void)kw;
    if (ret)
        return ret;
    if (is(t, "shift")) {
        if ((ret = want_int(ps, "shift", "damping shift", 1, 30, &shift)))
            return ret;
        ps->given.damping_shift = (int)shift;
        ps->given.damping_q16 = 0;
        return want_end(ps, "the damping");
    }
    r = damping_factor(t.s, t.n, &q);
    if (r == NUM_SYNTAX)
        return fail(ps, t.col,
                    "expected 'shift N' or a factor like 0.94 after 'damping', got "
                    "'%s'",
                    SHOW(t, b));
    if (r == NUM_PRECISION)
        return fail(ps, t.col, "damping factor %s has more than 18 decimals", SHOW(t, b));
    if (r != NUM_OK)
        return fail(ps, t.col, "damping factor %s is out of range (above 0, at most 1%s)",
                    SHOW(t, b), memchr(t.s, '.', t.n) ? "" : "; for a shift write 'shift N'");
    if (q == 0)
        return fail(ps, t.col,
                    "damping factor %s rounds to 0 in Q16 (the smallest is 0.00000762939453125)",
                    SHOW(t, b));
    ps->given.damping_q16 = q;
    ps->given.damping_shift = 0;
    return want_end(ps, "the damping");
}

static int set_stencil(parser *ps, tok kw)
{
    static const char *const names[] = {"4", "8", "iso"};
    static const enum rp_stencil values[] = {RP_STENCIL_4, RP_STENCIL_8, RP_STENCIL_ISO};
    int i, ret = want_choice(ps, "stencil", names, 3, "4, 8 or iso", &i);

    (void)kw;
    if (ret)
        return ret;
    ps->given.stencil = values[i];
    return want_end(ps, "the stencil");
}

static int set_boundary(parser *ps, tok kw)
{
    static const char *const names[] = {"wall", "open", "wrap"};
    static const enum rp_boundary values[] = {RP_BOUNDARY_WALL, RP_BOUNDARY_OPEN, RP_BOUNDARY_WRAP};
    int i, ret = want_choice(ps, "boundary", names, 3, "wall, open or wrap", &i);

    (void)kw;
    if (ret)
        return ret;
    ps->given.boundary = values[i];
    return want_end(ps, "the boundary");
}

static int set_refraction(parser *ps, tok kw)
{
    int64_t v;
    int ret = want_int(ps, "refraction", "refraction", 0, 15, &v);

    (void)kw;
    if (ret)
        return ret;
    ps->given.refraction = (int)v;
    return want_end(ps, "the refraction");
}

static int set_shading(parser *ps, tok kw)
{
    int64_t v;
    int ret = want_int(ps, "shading", "shading", 0, 1024, &v);

    (void)kw;
    if (ret)
        return ret;
    ps->given.shading = (int)v;
    return want_end(ps, "the shading divisor");
}

static int set_light(parser *ps, tok kw)
{
    int64_t x, y;
    int ret;

    (void)kw;
    if ((ret = want_int(ps, "light", "light x", -16, 16, &x)) ||
        (ret = want_int(ps, "light", "light y", -16, 16, &y)))
        return ret;
    ps->given.light_x = (int)x;
    ps->given.light_y = (int)y;
    return want_end(ps, "the light direction");
}

static int set_render(parser *ps, tok kw)
{
    static const char *const names[] = {"offset", "lens"};
    static const enum rp_render_mode values[] = {RP_RENDER_OFFSET, RP_RENDER_LENS};
    int i, ret = want_choice(ps, "render", names, 2, "offset or lens", &i);

    (void)kw;
    if (ret)
        return ret;
    ps->given.render = values[i];
    return want_end(ps, "the render mode");
}

static const struct setting {
    const char *name;
    unsigned bit;
    int (*parse)(parser *ps, tok kw);
} settings[] = {
    {"size", RP_SET_SIZE, set_size},
    {"fps", RP_SET_FPS, set_fps},
    {"duration", RP_SET_DURATION, set_duration},
    {"seed", RP_SET_SEED, set_seed},
    {"preset", RP_SET_PRESET, set_preset},
    {"background", RP_SET_BACKGROUND, set_background},
    {"damping", RP_SET_DAMPING, set_damping},
    {"stencil", RP_SET_STENCIL, set_stencil},
    {"boundary", RP_SET_BOUNDARY, set_boundary},
    {"refraction", RP_SET_REFRACTION, set_refraction},
    {"shading", RP_SET_SHADING, set_shading},
    {"light", RP_SET_LIGHT, set_light},
    {"render", RP_SET_RENDER, set_render},
};

static int bit_index(unsigned bit)
{
    int i = 0;
    while (bit > 1) {
        bit >>= 1;
        i++;
    }
    return i;
}

/* ---- events --------------------------------------------------------------------------- */

/* The options of drop, stroke and rain, in any order, each at most once: radius and
 * height (ranges for rain), shape, mode, and rain's rate. */
static int drop_opts(parser *ps, rp_event *ev, const char *usage)
{
    int rain = ev->kind == RP_EVENT_RAIN;
    int have_rate = 0, have_r = 0, have_h = 0, have_shape = 0, have_mode = 0;
    const char *expect =
        rain ? "rate, radius, height, shape or mode" : "radius, height, shape or mode";
    char b[64];
    int64_t lo, hi;
    tok t;
    int ret, i;

    for (;;) {
        int *have;
        if ((ret = lex(ps, &t)))
            return ret;
        if (!t.s)
            break;
        have = is(t, "rate") && rain ? &have_rate
               : is(t, "radius")     ? &have_r
               : is(t, "height")     ? &have_h
               : is(t, "shape")      ? &have_shape
               : is(t, "mode")       ? &have_mode
                                     : NULL;
        if (!have)
            return fail(ps, t.col, "unexpected '%s' (expected %s)", SHOW(t, b), expect);
        if (*have)
            return fail(ps, t.col, "'%s' given twice", SHOW(t, b));
        *have = 1;
        if (have == &have_rate) {
            tok v;
            part num;
            int64_t rate = 0;
            int r;
            if ((ret = want_word(ps, "a rate like 6/s", "rate", &v)))
                return ret;
            num = whole(v);
            if (!ends_with(num, "/s"))
                return fail(ps, v.col, "expected a rate like 6/s after 'rate', got '%s'",
                            SHOW(v, b));
            num.n -= 2;
            r = decimal(num.s, num.n, 3, &rate);
            if (r == NUM_SYNTAX)
                return fail(ps, v.col, "expected a rate like 6/s after 'rate', got '%s'",
                            SHOW(v, b));
            if (r == NUM_PRECISION)
                return fail(ps, v.col, "rate %s is finer than 0.001/s", SHOW(v, b));
            if (r == NUM_RANGE || rate <= 0 || rate > RP_RATE_MAX_MILLI)
                return fail(ps, v.col, "rate %s is out of range (0.001/s..100000/s)", SHOW(v, b));
            ev->rate_milli = rate;
        } else if (have == &have_r) {
            if (rain)
                ret = want_range(ps, "radius", 1, RP_RADIUS_MAX, &lo, &hi);
            else
                ret = want_int(ps, "radius", "radius", 1, RP_RADIUS_MAX, &lo);
            if (ret)
                return ret;
            ev->radius_lo = (int32_t)lo;
            ev->radius_hi = rain ? (int32_t)hi : (int32_t)lo;
        } else if (have == &have_h) {
            if (rain)
                ret = want_range(ps, "height", INT16_MIN, INT16_MAX, &lo, &hi);
            else
                ret = want_int(ps, "height", "height", INT16_MIN, INT16_MAX, &lo);
            if (ret)
                return ret;
            ev->height_lo = (int32_t)lo;
            ev->height_hi = rain ? (int32_t)hi : (int32_t)lo;
        } else if (have == &have_shape) {
            if ((ret = want_choice(ps, "shape", shape_names, 4, "disc, cosine, splash or square",
                                   &i)))
                return ret;
            ev->shape = (int)shape_values[i];
        } else {
            static const char *const modes[] = {"add", "set"};
            if ((ret = want_choice(ps, "mode", modes, 2, "add or set", &i)))
                return ret;
            ev->mode = i == 0 ? RP_MODE_ADD : RP_MODE_SET;
        }
    }
    if (rain && !have_rate)
        return fail(ps, t.col, "missing 'rate N/s' (expected %s)", usage);
    if (!have_r)
        return fail(ps, t.col, "missing 'radius' (expected %s)", usage);
    if (!have_h)
        return fail(ps, t.col, "missing 'height' (expected %s)", usage);
    return RP_OK;
}

static int event_drop(parser *ps, rp_event *ev)
{
    int ret;

    if ((ret = want_coord(ps, "drop", "x coordinate", 0, &ev->x)) ||
        (ret = want_coord(ps, "drop", "y coordinate", 0, &ev->y)))
        return ret;
    return drop_opts(ps, ev, "drop X Y radius R height H [shape S] [mode M]");
}

static int event_rain(parser *ps, rp_event *ev)
{
    return drop_opts(ps, ev, "rain rate N/s radius A..B height A..B [shape S] [mode M]");
}

static int event_stroke(parser *ps, rp_event *ev)
{
    tok t;
    char b[64];
    int ret;

    if ((ret = want_point(ps, "stroke", &ev->x, &ev->y)))
        return ret;
    if ((ret = want_word(ps, "'->'", "the start point", &t)))
        return ret;
    if (!is(t, "->"))
        return fail(ps, t.col, "expected '->' after the start point, got '%s'", SHOW(t, b));
    if ((ret = want_point(ps, "->", &ev->x2, &ev->y2)))
        return ret;
    return drop_opts(ps, ev, "stroke X,Y -> X,Y radius R height H [shape S] [mode M]");
}

static int event_wall(parser *ps, rp_event *ev)
{
    static const char *const kinds[] = {"rect", "circle", "mask"};
    char path[4096];
    int64_t r;
    int k, ret = want_choice(ps, "wall", kinds, 3, "rect, circle or mask", &k);

    if (ret)
        return ret;
    if (k == 0) {
        ev->kind = RP_EVENT_WALL_RECT;
        if ((ret = want_coord(ps, "rect", "x coordinate", 0, &ev->x)) ||
            (ret = want_coord(ps, "rect", "y coordinate", 0, &ev->y)) ||
            (ret = want_coord(ps, "rect", "wall width", 1, &ev->w)) ||
            (ret = want_coord(ps, "rect", "wall height", 1, &ev->h)))
            return ret;
        return want_end(ps, "'wall rect X Y W H'");
    }
    if (k == 1) {
        ev->kind = RP_EVENT_WALL_CIRCLE;
        if ((ret = want_coord(ps, "circle", "x coordinate", 0, &ev->x)) ||
            (ret = want_coord(ps, "circle", "y coordinate", 0, &ev->y)) ||
            (ret = want_int(ps, "circle", "wall radius", 0, 2 * RP_MAX_SIDE, &r)))
            return ret;
        ev->radius_lo = ev->radius_hi = (int32_t)r;
        return want_end(ps, "'wall circle X Y R'");
    }
    ev->kind = RP_EVENT_WALL_MASK;
    if ((ret = want_path(ps, "mask", path, sizeof path)))
        return ret;
    {
        char *copy = strdup(path);
        if (!copy)
            return RP_ERR_NOMEM;
        ev->path = copy;
    }
    return want_end(ps, "the mask path (quote a path with spaces or '#')");
}

static int push_event(rp_scene *sc, const rp_event *ev)
{
    if (sc->n_events == sc->cap_events) {
        size_t cap = sc->cap_events ? 2 * sc->cap_events : 16;
        rp_event *e = realloc(sc->events, cap * sizeof *e);
        if (!e)
            return RP_ERR_NOMEM;
        sc->events = e;
        sc->cap_events = cap;
    }
    sc->events[sc->n_events++] = *ev;
    return RP_OK;
}

/* `at TIME ACTION ...` / `at A..B ACTION ...`. */
static int parse_event(parser *ps)
{
    rp_event ev;
    tok t, a;
    char b[64];
    int ret;

    memset(&ev, 0, sizeof ev);
    ev.shape = -1;
    ev.mode = -1;
    ev.line = ps->line;
    ev.text = ps->ls;
    ev.text_len = ps->llen;
    if ((ret = want_word(ps, "a time like 1.5s, 250ms or 45f, or a span A..B", "at", &t)) ||
        (ret = time_or_span(ps, t, &ev)))
        return ret;
    if ((ret = want_word(ps, "an action (drop, rain, stroke, wall)", "the time", &a)))
        return ret;
    ev.col = a.col;
    if (a.n >= 2 && a.s[0] == '.' && a.s[1] == '.')
        return fail(ps, a.col, "unexpected '%s': write a span without spaces, like 2s..8s",
                    SHOW(a, b));
    if (is(a, "drop") || is(a, "wall")) {
        if (ev.is_span)
            return fail(ps, t.col, "%s takes a single time, not a span",
                        is(a, "drop") ? "drop" : "wall");
        if (is(a, "drop")) {
            ev.kind = RP_EVENT_DROP;
            ret = event_drop(ps, &ev);
            ps->sc->stats.drops++;
        } else {
            ret = event_wall(ps, &ev);
            ps->sc->stats.walls++;
        }
    } else if (is(a, "rain") || is(a, "stroke")) {
        if (!ev.is_span)
            return fail(ps, t.col, "%s needs a span, like 'at 2s..8s %s ...'",
                        is(a, "rain") ? "rain" : "stroke", is(a, "rain") ? "rain" : "stroke");
        if (is(a, "rain")) {
            ev.kind = RP_EVENT_RAIN;
            ev.rain_index = ps->sc->stats.rains++;
            ret = event_rain(ps, &ev);
        } else {
            ev.kind = RP_EVENT_STROKE;
            ret = event_stroke(ps, &ev);
            ps->sc->stats.strokes++;
        }
    } else {
        return fail(ps, a.col, "unknown action '%s' (expected drop, rain, stroke, wall)",
                    SHOW(a, b));
    }
    if (ret == RP_OK)
        ret = push_event(ps->sc, &ev);
    if (ret)
        free((char *)ev.path);
    return ret;
}

static int parse_line(parser *ps)
{
    tok kw;
    char b[64];
    size_t i;
    int ret = lex(ps, &kw);

    if (ret || !kw.s)
        return ret;
    if (is(kw, "at"))
        return parse_event(ps);
    for (i = 0; i < sizeof settings / sizeof settings[0]; i++) {
        int bi = bit_index(settings[i].bit);
        if (!is(kw, settings[i].name))
            continue;
        if (ps->set_line[bi])
            return fail(ps, kw.col, "'%s' is already set on line %d", settings[i].name,
                        ps->set_line[bi]);
        if ((ret = settings[i].parse(ps, kw)))
            return ret;
        ps->set_line[bi] = ps->line;
        ps->given.set |= settings[i].bit;
        return RP_OK;
    }
    return fail(ps, kw.col,
                "unknown statement '%s' (expected 'at TIME ACTION ...' or a setting: size, fps, "
                "duration, seed, preset, background, damping, stencil, boundary, refraction, "
                "shading, light, render)",
                SHOW(kw, b));
}

/* Check the line's bytes are UTF-8 without NUL; report the first bad byte. */
static int check_utf8(parser *ps)
{
    const unsigned char *s = (const unsigned char *)ps->ls;
    size_t i = 0;
    int col = 1;

    while (i < ps->llen) {
        size_t k = utf8_len(s + i, ps->llen - i);
        if (k == 0) {
            if (s[i] == 0)
                return fail(ps, col, "NUL byte in the scene (a scene is UTF-8 text)");
            return fail(ps, col, "invalid UTF-8 byte 0x%02x (a scene is UTF-8 text)", s[i]);
        }
        i += k;
        col++;
    }
    return RP_OK;
}

/* ---- public --------------------------------------------------------------------------- */

void rp_settings_defaults(rp_settings *s, enum rp_preset preset)
{
    memset(s, 0, sizeof *s);
    s->width = 640;
    s->height = 480;
    s->fps = 30;
    s->duration.value = 10 * INT64_C(1000000);
    s->duration.is_frames = 0;
    s->seed = 0;
    s->background[0] = '\0';
    s->boundary = RP_BOUNDARY_WALL;
    s->render = RP_RENDER_OFFSET;
    s->mode = RP_MODE_ADD;
    s->light_x = 1;
    s->light_y = -1;
    switch (preset) {
    case RP_PRESET_ELIAS:
        s->stencil = RP_STENCIL_4;
        s->damping_shift = 5;
        s->refraction = 0;
        s->light_x = 1;
        s->light_y = 0;
        s->shading = 1;
        s->shape = RP_SHAPE_DISC;
        break;
    case RP_PRESET_APPLET:
        s->stencil = RP_STENCIL_4;
        s->damping_shift = 5;
        s->render = RP_RENDER_LENS;
        s->shading = 0;
        s->shape = RP_SHAPE_SQUARE;
        break;
    case RP_PRESET_SILVERLIGHT:
        s->stencil = RP_STENCIL_4;
        s->damping_shift = 0;
        s->damping_q16 = 61604; /* round(0.94 * 65536) */
        s->refraction = 0;
        s->shading = 2; /* (dx - dy) / 2 */
        s->shape = RP_SHAPE_SPLASH;
        break;
    case RP_PRESET_CODEPROJECT:
        s->stencil = RP_STENCIL_8;
        s->damping_shift = 5;
        s->refraction = 3;
        s->shading = 0;
        s->shape = RP_SHAPE_COSINE;
        s->mode = RP_MODE_SET;
        break;
    case RP_PRESET_ROCKPOOL:
    default:
        preset = RP_PRESET_ROCKPOOL;
        s->stencil = RP_STENCIL_ISO;
        s->damping_shift = 7;
        s->refraction = 2;
        s->shading = 4;
        s->shape = RP_SHAPE_COSINE;
        break;
    }
    s->preset = preset;
}

void rp_settings_merge(rp_settings *dst, const rp_settings *src)
{
    unsigned set = src->set;

    if (set & RP_SET_SIZE) {
        dst->width = src->width;
        dst->height = src->height;
    }
    if (set & RP_SET_FPS)
        dst->fps = src->fps;
    if (set & RP_SET_DURATION)
        dst->duration = src->duration;
    if (set & RP_SET_SEED)
        dst->seed = src->seed;
    if (set & RP_SET_PRESET) {
        dst->preset = src->preset;
        dst->shape = src->shape;
        dst->mode = src->mode;
    }
    if (set & RP_SET_BACKGROUND)
        memcpy(dst->background, src->background, sizeof dst->background);
    if (set & RP_SET_DAMPING) {
        dst->damping_shift = src->damping_shift;
        dst->damping_q16 = src->damping_q16;
    }
    if (set & RP_SET_STENCIL)
        dst->stencil = src->stencil;
    if (set & RP_SET_BOUNDARY)
        dst->boundary = src->boundary;
    if (set & RP_SET_REFRACTION)
        dst->refraction = src->refraction;
    if (set & RP_SET_SHADING)
        dst->shading = src->shading;
    if (set & RP_SET_LIGHT) {
        dst->light_x = src->light_x;
        dst->light_y = src->light_y;
    }
    if (set & RP_SET_RENDER)
        dst->render = src->render;
    dst->set |= set;
}

static const char *const preset_names[] = {"rockpool", "elias", "applet", "silverlight",
                                           "codeproject"};

int rp_preset_from_name(const char *name)
{
    int i;

    for (i = 0; name && i <= RP_PRESET_CODEPROJECT; i++)
        if (strcmp(name, preset_names[i]) == 0)
            return i;
    return -1;
}

const char *rp_preset_name(enum rp_preset p)
{
    if ((int)p < 0 || p > RP_PRESET_CODEPROJECT)
        return "unknown";
    return preset_names[p];
}

int rp_damping_parse(const char *text, int *shift, int32_t *q16)
{
    size_t n;
    int64_t v;
    int32_t q = 0;

    if (!text || !shift || !q16)
        return RP_ERR_INVALID;
    n = strlen(text);
    if (n > 6 && memcmp(text, "shift ", 6) == 0) {
        const char *s = text + 6;
        while (*s == ' ')
            s++;
        if (decimal(s, strlen(s), 0, &v) != NUM_OK || v < 1 || v > 30)
            return RP_ERR_INVALID;
        *shift = (int)v;
        *q16 = 0;
        return RP_OK;
    }
    if (damping_factor(text, n, &q) != NUM_OK || q == 0)
        return RP_ERR_INVALID;
    *shift = 0;
    *q16 = q;
    return RP_OK;
}

int rp_scene_parse(rp_scene **out, const char *text, size_t len, const char *filename,
                   rp_diag *diag)
{
    rp_diag local;
    parser ps;
    rp_scene *sc;
    const char *slash = NULL;
    size_t pos = 0;
    int ret = RP_OK;

    if (!diag)
        diag = &local;
    memset(diag, 0, sizeof *diag);
    snprintf(diag->file, sizeof diag->file, "%s",
             !filename                    ? "<scene>"
             : strcmp(filename, "-") == 0 ? "<stdin>"
                                          : filename);
    if (!out || (!text && len > 0)) {
        snprintf(diag->msg, sizeof diag->msg, "no scene text");
        return RP_ERR_INVALID;
    }
    *out = NULL;
    sc = calloc(1, sizeof *sc);
    if (!sc)
        return RP_ERR_NOMEM;
    sc->text = malloc(len + 1);
    if (!sc->text) {
        free(sc);
        return RP_ERR_NOMEM;
    }
    if (len)
        memcpy(sc->text, text, len);
    sc->text[len] = '\0';
    sc->text_len = len;

    memset(&ps, 0, sizeof ps);
    ps.sc = sc;
    ps.diag = diag;
    rp_settings_defaults(&ps.given, RP_PRESET_ROCKPOOL);
    if (filename && strcmp(filename, "-") != 0)
        slash = strrchr(filename, '/');
    if (slash) {
        ps.dir = filename;
        ps.dir_len = (size_t)(slash - filename) + 1;
    }
    /* A UTF-8 byte order mark is tolerated and not counted in columns. */
    if (len >= 3 && memcmp(sc->text, "\xEF\xBB\xBF", 3) == 0)
        pos = 3;
    while (pos < len) {
        const char *nl = memchr(sc->text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - sc->text) : len;

        if (ps.line == INT32_MAX) {
            ret = fail(&ps, 0, "too many lines");
            break;
        }
        ps.line++;
        ps.ls = sc->text + pos;
        ps.llen = end - pos;
        if (ps.llen > 0 && ps.ls[ps.llen - 1] == '\r')
            ps.llen--; /* CRLF */
        ps.p = ps.ls;
        ps.col = 1;
        ps.end_col = 1;
        if ((ret = check_utf8(&ps)) || (ret = parse_line(&ps)))
            break;
        pos = end + 1;
    }
    if (ret) {
        if (ret == RP_ERR_NOMEM)
            snprintf(diag->msg, sizeof diag->msg, "out of memory");
        rp_scene_free(&sc);
        return ret;
    }
    /* The defaults of the scene's preset, then what the scene set explicitly. */
    rp_settings_defaults(&sc->settings, ps.given.preset);
    rp_settings_merge(&sc->settings, &ps.given);
    sc->settings.set = ps.given.set;
    *out = sc;
    return RP_OK;
}

void rp_scene_free(rp_scene **scene)
{
    size_t i;
    rp_scene *sc;

    if (!scene || !*scene)
        return;
    sc = *scene;
    for (i = 0; i < sc->n_events; i++)
        free((char *)sc->events[i].path);
    free(sc->events);
    free(sc->text);
    free(sc);
    *scene = NULL;
}

const rp_settings *rp_scene_settings(const rp_scene *scene)
{
    return &scene->settings;
}

void rp_scene_stats_get(const rp_scene *scene, rp_scene_stats *stats)
{
    *stats = scene->stats;
}

size_t rp_scene_event_count(const rp_scene *scene)
{
    return scene->n_events;
}

const rp_event *rp_scene_event(const rp_scene *scene, size_t i)
{
    return i < scene->n_events ? &scene->events[i] : NULL;
}
