/* diag.h - a diagnostic: a message with the place in a file it is about (file:line:col and
 * the line's text for a caret display), as the scene parser reports it; and the error a
 * library call fills: its code, whose fault it was, and a message or a diagnostic. */
#ifndef RP_DIAG_H
#define RP_DIAG_H

/** A diagnostic: where (1-based; 0 = no position) and what. */
typedef struct rp_diag {
    char file[512];
    int line, col;
    char msg[512];
    char source_line[512]; /* the offending line's text, for a caret display; "" if none */
} rp_diag;

/** Why a call failed. msg is one line without a "rockpool: error: " prefix. When the
 * failure has a place in the scene (diag.line > 0) the message is diag.msg and diag
 * holds the file, line, column and source line for a caret display. */
typedef struct rp_error {
    int code;      /* enum rp_err */
    int bad_input; /* 1: bad usage or input (exit 2); 0: runtime failure (exit 1) */
    int has_diag;  /* diag is set (a scene diagnostic, maybe positioned) */
    rp_diag diag;
    char msg[1024];
} rp_error;

/** Fill err: code, whose fault, and a message. Returns code. */
int rp_error_set(rp_error *err, int code, int bad_input, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
