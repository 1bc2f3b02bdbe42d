/* scene_lex.h - the scene language's lexer and word readers, shared by the statement
 * parser (scene.c) and implemented in scene_lex.c: words of a line with their columns,
 * exact decimal numbers, times, spans, coordinates, paths, and the diagnostic that stops
 * the parse at the first error. Private to the scene parser. */
#ifndef RP_SCENE_LEX_H
#define RP_SCENE_LEX_H

#include <stddef.h>
#include <stdint.h>

#include "scene/scene.h"

/* Largest magnitude the number reader accepts before calling a number out of range. */
#define NUM_LIMIT INT64_C(1000000000000000000)
#define PCT_ONE INT64_C(1000000) /* 1% in millionths of a percent */
#define PCT_FULL (100 * PCT_ONE) /* 100% */

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

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
    rp_settings given;         /* explicitly given settings, merged over the defaults at the end */
    int set_line[RP_SET_BITS]; /* line of each setting, by bit index; 0 = not given */
    tok light_a, light_e;      /* the words of `light`, checked at the end (check_light) */
    int light_line;
    const char *light_ls; /* that statement's line, light_llen bytes */
    size_t light_llen;
    const char *dir; /* the scene's directory prefix (with the '/'), dir_len bytes */
    size_t dir_len;
    int line;       /* current line, 1-based */
    const char *ls; /* current line's text (no newline) */
    size_t llen;
    const char *p; /* lexer cursor in the line */
    int col;       /* column of *p */
    int end_col;   /* column just past the last word read */
    /* The first background and the first mask path that reach outside the scene's
     * directory (absolute, or with a '..' component); line 0 = none. */
    rp_diag outside_bg, outside_mask;
    rp_diag sky_at;        /* where `sky PATH` names its image (for errors in the image) */
    rp_diag background_at; /* where `background PATH` names it */
    /* where the last `preset`, `render` and `look` statements are (line 0: none) */
    rp_diag preset_at, render_at, look_at;
    int64_t max_bytes; /* what the scene's text and events may take; 0: no limit */
} parser;

/* A part of a word (for "640x480", "3..9", "40,400"): its text and column. */
typedef struct part {
    const char *s;
    size_t n;
    int col;
} part;

/* What rp_lex_decimal says of a number. */
enum { NUM_OK, NUM_SYNTAX, NUM_RANGE, NUM_PRECISION };

/* A word for a message: at most 40 bytes shown (cut at a character boundary), then "...";
 * invisible characters (a BOM, zero-width spaces, controls) as <U+XXXX>, invalid bytes as ?. */
const char *rp_lex_show(const char *s, size_t n, char buf[64]);
#define SHOW(t, buf) rp_lex_show((t).s, (t).n, buf)

/* A line's n bytes as a diagnostic shows them (rp_diag.source_line): at most cap-1 bytes,
 * cut at a character boundary, invalid bytes and NULs as '?'. */
void rp_lex_copy_line(char *dst, size_t cap, const char *src, size_t n);

/* Report an error at col of the current line; returns RP_ERR_INVALID. */
int rp_lex_fail(parser *ps, int col, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Record a diagnostic at col of the current line in d (with the scene's file name) without
 * failing: for what is checked later, such as paths and images the session opens. */
void rp_lex_note(parser *ps, rp_diag *d, int col, const char *fmt, ...) PRINTF_LIKE(4, 5);

/* The next word of the line. A word runs to whitespace or '#'; a word starting with '"'
 * is a quoted string running to the next unescaped '"' (\" and \\ escape). */
int rp_lex_next(parser *ps, tok *t);

int rp_lex_is(tok t, const char *word);

/* The word after the statement must be the end of the line. */
int rp_lex_want_end(parser *ps, const char *what);

/* s[0..n) as a decimal number (optional sign, digits, optional point and digits) times
 * 10^scale, exactly. NUM_SYNTAX if it is not a number, NUM_RANGE if its magnitude passes
 * 10^18 (any number of digits is safe), NUM_PRECISION if nonzero digits lie beyond
 * `scale` decimal places. */
int rp_lex_decimal(const char *s, size_t n, int scale, int64_t *out);

part rp_lex_whole(tok t);

/* Split p at the first occurrence of sep into a and b; 0 if sep is absent. */
int rp_lex_split(const parser *ps, part p, const char *sep, part *a, part *b);

/* An integer in lo..hi; `what` names the value in messages. */
int rp_lex_int_part(parser *ps, part p, const char *what, int64_t lo, int64_t hi, int64_t *out);

/* The next word, which must exist: else "expected <expect> after '<after>'". */
int rp_lex_want_word(parser *ps, const char *expect, const char *after, tok *t);

/* The next word as an integer in lo..hi. */
int rp_lex_want_int(parser *ps, const char *after, const char *what, int64_t lo, int64_t hi,
                    int64_t *out);

/* An integer or a range "A..B" (A <= B) of integers in lo..hi. */
int rp_lex_want_range(parser *ps, const char *after, int64_t lo, int64_t hi, int64_t *a,
                      int64_t *b);

int rp_lex_ends_with(part p, const char *suffix);

/* A time: "1.5s" (seconds, up to 6 decimals), "250ms" (up to 3 decimals) or "45f" (a
 * frame number), kept exactly as microseconds or frames. */
int rp_lex_time_part(parser *ps, part p, rp_time *out);
int rp_lex_duration_part(parser *ps, part p, rp_time *out);

/* A time or a span "A..B" (B after A when both use the same unit; mixed units are
 * compared at rp_timeline_build time, when fps is final). */
int rp_lex_time_or_span(parser *ps, tok t, rp_event *ev);

/* A coordinate: pixels (0..16383, checked against the final size later) or a percentage
 * "50%" / "12.5%" (0..100, up to 6 decimals), or, when `length`, a size in pixels
 * (1..16384) or a percentage above 0. */
int rp_lex_coord_part(parser *ps, part p, const char *what, int length, rp_coord *c);

int rp_lex_want_coord(parser *ps, const char *after, const char *what, int length, rp_coord *c);

/* A point "X,Y". */
int rp_lex_want_point(parser *ps, const char *after, rp_coord *x, rp_coord *y);

/* The next word as a path (bare, or quoted with \" and \\ escapes), resolved against the
 * scene's directory unless absolute, into out (cap bytes); its column into *col (if not
 * NULL), for errors found in the file later. */
int rp_lex_want_path(parser *ps, const char *after, char *out, size_t cap, int *col);

/* One of the words names[0..n), as its index. */
int rp_lex_want_choice(parser *ps, const char *after, const char *const *names, int n,
                       const char *list, int *out);

int rp_lex_check_utf8(parser *ps);

/* Paths and keys, kept by scene.c for the statements of scene_motion.c. */
int rp_scene_find_path(const rp_scene *sc, const char *name, size_t n); /* 1-based, 0: none */
/* RP_ERR_TOO_LARGE when the scene has RP_SCENE_PATHS_MAX already, RP_ERR_NOMEM */
int rp_scene_add_path(rp_scene *sc, const rp_path *p);
rp_keys *rp_scene_keys_slot(rp_scene *sc, enum rp_key_what what, rp_diag **at);

/* The statements of motion (scene_motion.c). */
int rp_scene_parse_path(parser *ps, tok kw);
int rp_scene_parse_key(parser *ps, tok kw);
int rp_scene_parse_along(parser *ps, rp_event *ev);
int rp_scene_parse_push(parser *ps, rp_event *ev);
int rp_scene_parse_emit(parser *ps, rp_event *ev);

#endif
