/* diag.h - a diagnostic: a message with the place in a file it is about (file:line:col and
 * the line's text for a caret display), as the scene parser reports it; and the error a
 * library call fills: its code, whose fault it was, and a message or a diagnostic. */
#ifndef RP_DIAG_H
#define RP_DIAG_H

#include <stdarg.h>

#include "rpcore.h" /* rp_diag, rp_error */

/** Fill err: code, whose fault, and a message. Returns code. */
int rp_error_set(rp_error *err, int code, int bad_input, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/** rp_error_set with the message's arguments in ap. */
int rp_error_vset(rp_error *err, int code, int bad_input, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

/** Fill err from the diagnostic a parser left in err->diag: code, bad input unless it is
 * RP_ERR_NOMEM or RP_ERR_INTERRUPTED, has_diag, and the diagnostic's message as msg, its
 * characters that do not show written <U+XXXX> in both (rp_text_show). Returns code. */
int rp_error_diag(rp_error *err, int code);

/** How a message names a setting the program gives as an option and a library caller as a
 * field: option ("--crf") after rp_messages_name_options(1) (rockpool.h; the program calls
 * it), else field ("rp_run.out.crf"). */
const char *rp_name(const char *option, const char *field);

/** Whether messages name options (rp_messages_name_options(1) was called). */
int rp_name_options(void);

#endif
