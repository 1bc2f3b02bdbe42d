/* diag.c - errors with their diagnostic (see diag.h). */
#include "base/diag.h"
#include "base/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int rp_error_vset(rp_error *err, int code, int bad_input, const char *fmt, va_list ap)
{
    char msg[sizeof err->msg]; /* the arguments may point into err->msg */
    vsnprintf(msg, sizeof msg, fmt, ap);
    err->code = code;
    err->bad_input = bad_input;
    err->has_diag = 0;
    memcpy(err->msg, msg, sizeof msg);
    return code;
}

int rp_error_set(rp_error *err, int code, int bad_input, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    code = rp_error_vset(err, code, bad_input, fmt, ap);
    va_end(ap);
    return code;
}

int rp_error_diag(rp_error *err, int code)
{
    err->code = code;
    /* a stop asked for is no one's bad input, as running out of memory is not */
    err->bad_input = code != RP_ERR_NOMEM && code != RP_ERR_INTERRUPTED;
    err->has_diag = 1;
    /* A path or word from the file (a wall mask's, a background's) may hold characters that
     * do not show, such as a zero-width space: said as <U+XXXX>, as the parser says them. */
    char shown[sizeof err->diag.msg];
    rp_text_show(err->diag.msg, strlen(err->diag.msg), shown, sizeof shown - 1);
    memcpy(err->diag.msg, shown, sizeof shown);
    snprintf(err->msg, sizeof err->msg, "%s", err->diag.msg);
    return code;
}

/* Set once, by the program before its first session (rockpool.h). */
static volatile int name_options;

void rp_messages_name_options(int options);
void rp_messages_name_options(int options)
{
    name_options = options != 0;
}

const char *rp_name(const char *option, const char *field)
{
    return name_options ? option : field;
}

const char *rp_oom_hint(void)
{
    return rp_name(
        "lower --size or -j, or raise the memory limit (ulimit -v)",
        "lower the output size or rp_run.threads, or raise the memory limit (ulimit -v)");
}

int rp_name_options(void)
{
    return name_options;
}
