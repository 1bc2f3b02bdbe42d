/* scene_lex.c - the scene language's lexer and word readers (see scene_lex.h).
 *
 * Columns count characters (UTF-8 code points) from 1; a tab counts as one. Numbers are
 * read digit by digit into int64 with explicit limits, so any input, however long, gives
 * a value or an "out of range" message, never undefined behaviour. There is no floating
 * point: decimals are kept exactly as integers (microseconds, millionths of a percent,
 * milli-drops per second, Q16). */
#include "scene/scene_lex.h"

#include "base/common.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- diagnostics ---------------------------------------------------------------------- */

/* Copy a line for a caret display: at most cap-1 bytes, cut at a character boundary,
 * invalid bytes and NULs replaced by '?'. */
static void copy_line(char *dst, size_t cap, const char *src, size_t n)
{
    size_t i = 0, o = 0;

    while (i < n) {
        size_t k = rp_utf8_len((const unsigned char *)src + i, n - i);
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

void rp_lex_copy_line(char *dst, size_t cap, const char *src, size_t n)
{
    copy_line(dst, cap, src, n);
}

/* A word for a message: at most 40 bytes shown (cut at a character boundary), then "...",
 * invisible characters as <U+XXXX> and invalid bytes as '?' (rp_text_show). */
const char *rp_lex_show(const char *s, size_t n, char buf[64])
{
    if (rp_text_show(s, n, buf, 40) < n)
        strcat(buf, "...");
    return buf;
}

/* Fill d with the current line, col and the message. */
static void vdiag(const parser *ps, rp_diag *d, int col, const char *fmt, va_list ap)
{
    d->line = ps->line;
    d->col = col;
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    copy_line(d->source_line, sizeof d->source_line, ps->ls, ps->llen);
}

/* Report an error at col of the current line; returns RP_ERR_INVALID. */
int rp_lex_fail(parser *ps, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag(ps, ps->diag, col, fmt, ap);
    va_end(ap);
    return RP_ERR_INVALID;
}

void rp_lex_note(parser *ps, rp_diag *d, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag(ps, d, col, fmt, ap);
    va_end(ap);
    snprintf(d->file, sizeof d->file, "%s", ps->diag->file);
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

/* Whether the '#' at ps->p is a colour word (#8a8578): six hex digits, then white space or
 * the line's end, after another word of the line. Any other '#' starts a comment. */
static int colour_word(const parser *ps, const char *end)
{
    const char *q = ps->p, *s = ps->ls;

    while (s < q && is_space(*s))
        s++;
    if (s == q || end - q < 7 || (q + 7 < end && !is_space(q[7])))
        return 0;
    for (int i = 1; i <= 6; i++)
        if (!((q[i] >= '0' && q[i] <= '9') || (q[i] >= 'a' && q[i] <= 'f') ||
              (q[i] >= 'A' && q[i] <= 'F')))
            return 0;
    return 1;
}

/* The next word of the line. A word runs to whitespace or '#'; a word starting with '"'
 * is a quoted string running to the next unescaped '"' (\" and \\ escape); '#' and six
 * hex digits after the line's first word is a colour word (colour_word). */
int rp_lex_next(parser *ps, tok *t)
{
    const char *end = ps->ls + ps->llen;

    t->s = NULL;
    t->n = 0;
    t->col = ps->end_col;
    while (ps->p < end && is_space(*ps->p))
        advance(ps);
    if (ps->p == end || (*ps->p == '#' && !colour_word(ps, end)))
        return RP_OK;
    t->s = ps->p;
    t->col = ps->col;
    if (*ps->p == '#') {
        for (int i = 0; i < 7; i++)
            advance(ps);
    } else if (*ps->p == '"') {
        advance(ps);
        while (ps->p < end && *ps->p != '"') {
            if (*ps->p == '\\' && ps->p + 1 < end) {
                /* Only \" and \\: any other backslash would vanish from the path unseen
                 * ("C:\pics\a.png" read as C:picsa.png), so it is refused where it is. */
                if (ps->p[1] != '"' && ps->p[1] != '\\') {
                    size_t n =
                        rp_utf8_len((const unsigned char *)ps->p + 1, (size_t)(end - ps->p - 1));
                    return rp_lex_fail(ps, ps->col,
                                       "unknown escape '\\%.*s' in a quoted string (only \\\" "
                                       "and \\\\: write a backslash as \\\\)",
                                       (int)(n ? n : 1), ps->p + 1);
                }
                advance(ps);
            }
            advance(ps);
        }
        if (ps->p == end)
            return rp_lex_fail(ps, t->col, "unterminated quoted string (expected a closing '\"')");
        advance(ps);
        if (ps->p < end && !is_space(*ps->p) && *ps->p != '#')
            return rp_lex_fail(ps, ps->col, "unexpected text after the closing quote");
    } else {
        while (ps->p < end && !is_space(*ps->p) && *ps->p != '#')
            advance(ps);
    }
    t->n = (size_t)(ps->p - t->s);
    ps->end_col = ps->col;
    return RP_OK;
}

int rp_lex_is(tok t, const char *word)
{
    size_t n = strlen(word);
    return t.s && t.n == n && memcmp(t.s, word, n) == 0;
}

/* The word after the statement must be the end of the line. */
int rp_lex_want_end(parser *ps, const char *what)
{
    tok t;
    char b[64];
    int ret = rp_lex_next(ps, &t);

    if (ret)
        return ret;
    if (t.s)
        return rp_lex_fail(ps, t.col, "unexpected '%s' after %s", SHOW(t, b), what);
    return RP_OK;
}

/* ---- numbers -------------------------------------------------------------------------- */

/* s[0..n) as a decimal number (optional sign, digits, optional point and digits) times
 * 10^scale, exactly. NUM_SYNTAX if it is not a number, NUM_RANGE if its magnitude passes
 * 10^18 (any number of digits is safe), NUM_PRECISION if nonzero digits lie beyond
 * `scale` decimal places. */
int rp_lex_decimal(const char *s, size_t n, int scale, int64_t *out)
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

part rp_lex_whole(tok t)
{
    part p = {t.s, t.n, t.col};
    return p;
}

/* Split p at the first occurrence of sep into a and b; 0 if sep is absent. */
int rp_lex_split(const parser *ps, part p, const char *sep, part *a, part *b)
{
    size_t k = strlen(sep), i;

    /* A quoted word is a string, never split: the caller's message shows it whole ('"64x48"',
     * not '"64') */
    if (p.n && p.s[0] == '"')
        return 0;
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
int rp_lex_int_part(parser *ps, part p, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
    char b[64];
    int64_t v = 0;
    int r = rp_lex_decimal(p.s, p.n, 0, &v);

    if (r == NUM_SYNTAX)
        return rp_lex_fail(ps, p.col, "expected a number for %s, got '%s'", what,
                           rp_lex_show(p.s, p.n, b));
    if (r == NUM_PRECISION)
        return rp_lex_fail(ps, p.col, "%s %s is not a whole number", what,
                           rp_lex_show(p.s, p.n, b));
    if (r == NUM_RANGE || v < lo || v > hi)
        return rp_lex_fail(ps, p.col, "%s %s is out of range (%lld..%lld)", what,
                           rp_lex_show(p.s, p.n, b), (long long)lo, (long long)hi);
    *out = v;
    return RP_OK;
}

/* The next word, which must exist: else "expected <expect> after '<after>'". */
int rp_lex_want_word(parser *ps, const char *expect, const char *after, tok *t)
{
    int ret = rp_lex_next(ps, t);

    if (ret)
        return ret;
    if (!t->s)
        return rp_lex_fail(ps, t->col, "expected %s after '%s'", expect, after);
    return RP_OK;
}

/* The next word as an integer in lo..hi. */
int rp_lex_want_int(parser *ps, const char *after, const char *what, int64_t lo, int64_t hi,
                    int64_t *out)
{
    tok t;
    char b[64];
    int64_t v;
    int ret = rp_lex_want_word(ps, "a number", after, &t);

    if (ret)
        return ret;
    if (rp_lex_decimal(t.s, t.n, 0, &v) == NUM_SYNTAX)
        return rp_lex_fail(ps, t.col, "expected a number after '%s', got '%s'", after, SHOW(t, b));
    return rp_lex_int_part(ps, rp_lex_whole(t), what, lo, hi, out);
}

/* An integer or a range "A..B" (A <= B) of integers in lo..hi. */
int rp_lex_want_range(parser *ps, const char *after, int64_t lo, int64_t hi, int64_t *a, int64_t *b)
{
    tok t;
    part pa, pb;
    char buf[64];
    int64_t v;
    int ret = rp_lex_want_word(ps, "a number or a range A..B", after, &t);

    if (ret)
        return ret;
    if (!rp_lex_split(ps, rp_lex_whole(t), "..", &pa, &pb)) {
        if (rp_lex_decimal(t.s, t.n, 0, &v) == NUM_SYNTAX)
            return rp_lex_fail(ps, t.col, "expected a number or a range A..B after '%s', got '%s'",
                               after, SHOW(t, buf));
        ret = rp_lex_int_part(ps, rp_lex_whole(t), after, lo, hi, a);
        *b = *a;
        return ret;
    }
    if ((ret = rp_lex_int_part(ps, pa, after, lo, hi, a)) ||
        (ret = rp_lex_int_part(ps, pb, after, lo, hi, b)))
        return ret;
    if (*a > *b)
        return rp_lex_fail(ps, t.col, "reversed range '%s' (write the smaller value first)",
                           SHOW(t, buf));
    return RP_OK;
}

/* ---- times, coordinates, paths -------------------------------------------------------- */

int rp_lex_ends_with(part p, const char *suffix)
{
    size_t k = strlen(suffix);
    return p.n >= k && memcmp(p.s + p.n - k, suffix, k) == 0;
}

/* A time: "1.5s" (seconds, up to 6 decimals), "250ms" (up to 3 decimals) or "45f" (a
 * frame number), kept exactly as microseconds or frames. */
static int time_part_in(parser *ps, part p, rp_time *out, int duration)
{
    char b[64];
    part num = p;
    int scale, r;
    int64_t v = 0, max;

    out->is_frames = 0;
    if (rp_lex_ends_with(p, "ms")) {
        num.n -= 2;
        scale = 3;
    } else if (rp_lex_ends_with(p, "s")) {
        num.n -= 1;
        scale = 6;
    } else if (rp_lex_ends_with(p, "f")) {
        num.n -= 1;
        scale = 0;
        out->is_frames = 1;
    } else {
        if (rp_lex_decimal(p.s, p.n, 18, &v) != NUM_SYNTAX)
            return rp_lex_fail(ps, p.col, "time '%s' needs a unit (s, ms or f)",
                               rp_lex_show(p.s, p.n, b));
        return rp_lex_fail(ps, p.col, "expected a time like 1.5s, 250ms or 45f, got '%s'",
                           rp_lex_show(p.s, p.n, b));
    }
    r = rp_lex_decimal(num.s, num.n, scale, &v);
    if (r == NUM_SYNTAX)
        return rp_lex_fail(ps, p.col, "expected a time like 1.5s, 250ms or 45f, got '%s'",
                           rp_lex_show(p.s, p.n, b));
    if (r == NUM_PRECISION)
        return rp_lex_fail(ps, p.col,
                           out->is_frames ? "time %s: a frame number is a whole number"
                                          : "time %s is finer than a microsecond",
                           rp_lex_show(p.s, p.n, b));
    max = out->is_frames ? RP_TIME_MAX_FRAMES : RP_TIME_MAX_US;
    /* a duration of 0 is refused by its caller: its range starts at the smallest step, and
     * in frames ends at -n's limit (which the caller checks below this one) */
    if (r == NUM_RANGE || v < 0 || v > max)
        return rp_lex_fail(ps, p.col, "time %s is out of range (%s)", rp_lex_show(p.s, p.n, b),
                           out->is_frames ? (duration ? "1f..100000000f, as -n" : "0f..1000000000f")
                                          : (duration ? "0.000001s..1000000s" : "0s..1000000s"));
    out->value = v;
    return RP_OK;
}

int rp_lex_time_part(parser *ps, part p, rp_time *out)
{
    return time_part_in(ps, p, out, 0);
}

/* A length (the setting "duration"): as a time, its range said as a length's. */
int rp_lex_duration_part(parser *ps, part p, rp_time *out)
{
    return time_part_in(ps, p, out, 1);
}

/* A time or a span "A..B" (B after A when both use the same unit; mixed units are
 * compared at rp_timeline_build time, when fps is final). */
int rp_lex_time_or_span(parser *ps, tok t, rp_event *ev)
{
    part a, b;
    char buf[64];
    int ret;

    ev->time_col = t.col;
    ev->time_text = t.s;
    ev->time_len = t.n;
    if (!rp_lex_split(ps, rp_lex_whole(t), "..", &a, &b))
        return rp_lex_time_part(ps, rp_lex_whole(t), &ev->start);
    ev->is_span = 1;
    if (a.n == 0)
        return rp_lex_fail(ps, a.col, "expected a time before '..' in the span");
    if (b.n == 0)
        return rp_lex_fail(ps, b.col, "expected a time after '..' in the span");
    if ((ret = rp_lex_time_part(ps, a, &ev->start)) || (ret = rp_lex_time_part(ps, b, &ev->end)))
        return ret;
    if (ev->start.is_frames == ev->end.is_frames && ev->end.value <= ev->start.value)
        return rp_lex_fail(ps, t.col, "reversed span '%s': the end must be after the start",
                           SHOW(t, buf));
    return RP_OK;
}

/* A coordinate: pixels (0..16383, checked against the final size later) or a percentage
 * "50%" / "12.5%" (0..100, up to 6 decimals), or, when `length`, a size in pixels
 * (1..16384) or a percentage above 0. */
int rp_lex_coord_part(parser *ps, part p, const char *what, int length, rp_coord *c)
{
    char b[64];
    int64_t v = 0;
    int r;

    c->col = p.col;
    if (rp_lex_ends_with(p, "%")) {
        r = rp_lex_decimal(p.s, p.n - 1, 6, &v);
        if (r == NUM_SYNTAX)
            return rp_lex_fail(ps, p.col, "expected a number or a percentage for %s, got '%s'",
                               what, rp_lex_show(p.s, p.n, b));
        if (r == NUM_PRECISION)
            return rp_lex_fail(ps, p.col, "%s %s has more than 6 decimals", what,
                               rp_lex_show(p.s, p.n, b));
        if (r == NUM_RANGE || v < (length ? 1 : 0) || v > PCT_FULL)
            return rp_lex_fail(ps, p.col, "%s %s is out of range (%s..100%%)", what,
                               rp_lex_show(p.s, p.n, b), length ? "above 0%" : "0%");
        c->is_percent = 1;
        c->value = v;
        return RP_OK;
    }
    r = rp_lex_decimal(p.s, p.n, 0, &v);
    if (r == NUM_SYNTAX)
        return rp_lex_fail(ps, p.col, "expected a number or a percentage for %s, got '%s'", what,
                           rp_lex_show(p.s, p.n, b));
    if (r == NUM_PRECISION)
        return rp_lex_fail(ps, p.col, "%s %s is not a whole number of pixels", what,
                           rp_lex_show(p.s, p.n, b));
    if (length && (r == NUM_RANGE || v < 1 || v > RP_MAX_SIDE))
        return rp_lex_fail(ps, p.col, "%s %s is out of range (1..%d)", what,
                           rp_lex_show(p.s, p.n, b), RP_MAX_SIDE);
    if (!length && (r == NUM_RANGE || v < 0 || v >= RP_MAX_SIDE))
        return rp_lex_fail(ps, p.col, "%s %s is off the grid (0..%d)", what,
                           rp_lex_show(p.s, p.n, b), RP_MAX_SIDE - 1);
    c->is_percent = 0;
    c->value = v;
    return RP_OK;
}

int rp_lex_want_coord(parser *ps, const char *after, const char *what, int length, rp_coord *c)
{
    tok t;
    int ret = rp_lex_want_word(
        ps, length ? "a size in pixels or a percentage" : "a coordinate (pixels or a percentage)",
        after, &t);
    if (ret)
        return ret;
    return rp_lex_coord_part(ps, rp_lex_whole(t), what, length, c);
}

/* A point "X,Y". */
int rp_lex_want_point(parser *ps, const char *after, rp_coord *x, rp_coord *y)
{
    tok t;
    part a, b;
    char buf[64];
    int ret = rp_lex_want_word(ps, "a point X,Y", after, &t);

    if (ret)
        return ret;
    /* a point in quotes ("40,400"): the quotes are what is wrong, spaces or none */
    if (t.n >= 2 && t.s[0] == '"')
        return rp_lex_fail(ps, t.col,
                           "expected a point X,Y after '%s', got the quoted '%s': a point is "
                           "written without quotes%s, like 40,400",
                           after, SHOW(t, buf),
                           memchr(t.s, ' ', t.n) || memchr(t.s, '\t', t.n) ? " or spaces" : "");
    if (!rp_lex_split(ps, rp_lex_whole(t), ",", &a, &b))
        return rp_lex_fail(ps, t.col, "expected a point X,Y (no spaces) after '%s', got '%s'",
                           after, SHOW(t, buf));
    if (b.n == 0)
        return rp_lex_fail(ps, t.col,
                           "expected a point X,Y after '%s', got '%s' and a space: a point is "
                           "written X,Y without spaces, like 40,400",
                           after, SHOW(t, buf));
    if ((ret = rp_lex_coord_part(ps, a, "x coordinate", 0, x)))
        return ret;
    return rp_lex_coord_part(ps, b, "y coordinate", 0, y);
}

/* The next word as a path (bare, or quoted with \" and \\ escapes), resolved against the
 * scene's directory unless absolute, into out (cap bytes). */
/* Whether s[0..n) has a ".." path component. */
static int has_dotdot(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == '.' && s[i + 1] == '.' && (i == 0 || s[i - 1] == '/') &&
            (i + 2 == n || s[i + 2] == '/'))
            return 1;
    return 0;
}

/* Whether path, every symbolic link in it followed, lands outside the scene's directory
 * (its links followed too): a link inside the directory cannot lead out of it. A path
 * that does not resolve (missing, unreadable) names nothing yet and is judged by its text;
 * opening it later fails or finds what the check saw. */
static int resolves_outside(const parser *ps, const char *path)
{
    char *dir_text = ps->dir_len ? strndup(ps->dir, ps->dir_len) : strdup(".");
    char *dir = dir_text ? realpath(dir_text, NULL) : NULL;
    char *real = dir ? realpath(path, NULL) : NULL;
    int outside = 0;
    if (real) {
        size_t n = strlen(dir);
        if (n > 1) /* the root holds everything */
            outside = strncmp(real, dir, n) != 0 || (real[n] != '/' && real[n] != '\0');
    }
    free(real);
    free(dir);
    free(dir_text);
    return outside;
}

int rp_lex_want_path(parser *ps, const char *after, char *out, size_t cap, int *col)
{
    tok t;
    size_t o = 0, i, n;
    const char *s;
    int ret = rp_lex_want_word(ps, "a path", after, &t);

    if (ret)
        return ret;
    if (col)
        *col = t.col;
    s = t.s;
    n = t.n;
    if (s[0] == '"') {
        s++;
        n -= 2;
    }
    if (n == 0)
        return rp_lex_fail(ps, t.col, "empty path after '%s'", after);
    if (s[0] != '/' && ps->dir_len > 0) {
        if (ps->dir_len >= cap)
            return rp_lex_fail(ps, t.col, "path is too long (at most %zu bytes)", cap - 1);
        memcpy(out, ps->dir, ps->dir_len);
        o = ps->dir_len;
    }
    for (i = 0; i < n; i++) {
        char c = s[i];
        if (t.s[0] == '"' && c == '\\' && i + 1 < n)
            c = s[++i];
        if (o + 1 >= cap)
            return rp_lex_fail(ps, t.col, "path is too long (at most %zu bytes)", cap - 1);
        out[o++] = c;
    }
    out[o] = '\0';
    rp_diag *d = strcmp(after, "background") ? &ps->outside_mask : &ps->outside_bg;
    const char *why = s[0] == '/'                 ? "an absolute path"
                      : has_dotdot(s, n)          ? "a '..' component"
                      : resolves_outside(ps, out) ? "a symbolic link leads out of it"
                                                  : NULL;
    if (!d->line && why) {
        rp_lex_note(ps, d, t.col,
                    "%s path '%s' reaches outside the scene's directory (%s): a scene may only "
                    "name files under its own directory unless %s",
                    after, out, why,
                    rp_name("rockpool is run with --allow-outside-paths",
                            "the caller allows it (rp_run's or rp_core_config's "
                            "allow_outside_paths)"));
    }
    return RP_OK;
}

/* One of the words names[0..n), as its index. */
int rp_lex_want_choice(parser *ps, const char *after, const char *const *names, int n,
                       const char *list, int *out)
{
    tok t;
    char b[64];
    int i, ret;

    *out = 0; /* defined on every path, so callers never read an unset index */
    if ((ret = rp_lex_want_word(ps, list, after, &t)))
        return ret;
    for (i = 0; i < n; i++) {
        if (rp_lex_is(t, names[i])) {
            *out = i;
            return RP_OK;
        }
    }
    return rp_lex_fail(ps, t.col, "unknown %s '%s' (expected %s)", after, SHOW(t, b), list);
}

int rp_lex_check_utf8(parser *ps)
{
    const unsigned char *s = (const unsigned char *)ps->ls;
    size_t i = 0;
    int col = 1;

    while (i < ps->llen) {
        size_t k = rp_utf8_len(s + i, ps->llen - i);
        if (k == 0) {
            if (s[i] == 0)
                return rp_lex_fail(ps, col, "NUL byte in the scene (a scene is UTF-8 text)");
            return rp_lex_fail(ps, col, "invalid UTF-8 byte 0x%02x (a scene is UTF-8 text)", s[i]);
        }
        i += k;
        col++;
    }
    return RP_OK;
}
