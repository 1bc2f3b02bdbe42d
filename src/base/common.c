/* common.c - error strings and messages. */
#include "base/common.h"

#include <unistd.h>

#include <stdarg.h>
#include <stdio.h>

void rp_errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (!err || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

const char *rp_strerror(int err)
{
    switch (err) {
    case RP_OK: return "success";
    case RP_ERR_NOMEM: return "out of memory";
    case RP_ERR_INVALID: return "invalid argument";
    case RP_ERR_TOO_LARGE: return "size too large";
    case RP_ERR_IO: return "input/output error";
    case RP_ERR_FORMAT: return "malformed or unsupported file";
    case RP_ERR_ENCODER: return "encoder error";
    case RP_ERR_UNSUPPORTED: return "not supported by the installed libraries";
    case RP_ERR_MISMATCH: return "frame differs from the manifest";
    case RP_ERR_EXISTS: return "file exists";
    case RP_ERR_INTERRUPTED: return "interrupted";
    }
    return "unknown error";
}

int rp_online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

uint32_t rp_isqrt64(uint64_t v)
{
    uint64_t rem = v, root = 0, bit = (uint64_t)1 << 62;
    while (bit > v)
        bit >>= 2;
    while (bit) {
        if (rem >= root + bit) {
            rem -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    return (uint32_t)root;
}
