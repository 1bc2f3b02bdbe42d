/* common.c - error strings and messages (text from files shown in them), the CPU count, a
 * memory probe, integer roots. */
#include "base/common.h"

#include <sched.h>
#include <unistd.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t rp_utf8_len(const unsigned char *s, size_t n)
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

/* Whether code point c shows as nothing or as a space in a message: controls, spaces other
 * than ' ', and format characters (a byte order mark, zero-width and direction marks). */
static int invisible(uint32_t c)
{
    return c < 0x20 || (c >= 0x7F && c <= 0xA0) || c == 0xAD || c == 0x34F || c == 0x61C ||
           c == 0x115F || c == 0x1160 || c == 0x180E || (c >= 0x2000 && c <= 0x200F) ||
           (c >= 0x2028 && c <= 0x202F) || (c >= 0x205F && c <= 0x206F) || c == 0x3000 ||
           c == 0x3164 || c == 0xFEFF || c == 0xFFA0 || (c >= 0xFFF9 && c <= 0xFFFB) ||
           (c >= 0xE0000 && c <= 0xE007F);
}

size_t rp_text_show(const char *s, size_t n, char *out, size_t max)
{
    size_t i = 0, o = 0;

    if (!out)
        return 0;
    while (s && i < n) {
        const unsigned char *u = (const unsigned char *)s + i;
        size_t k = rp_utf8_len(u, n - i);
        uint32_t c =
            k == 1   ? u[0]
            : k == 2 ? (uint32_t)(u[0] & 0x1F) << 6 | (u[1] & 0x3F)
            : k == 3 ? (uint32_t)(u[0] & 0x0F) << 12 | (uint32_t)(u[1] & 0x3F) << 6 | (u[2] & 0x3F)
            : k == 4 ? (uint32_t)(u[0] & 0x07) << 18 | (uint32_t)(u[1] & 0x3F) << 12 |
                           (uint32_t)(u[2] & 0x3F) << 6 | (u[3] & 0x3F)
                     : 0;
        char esc[16];
        const char *shown = (const char *)u;
        size_t m = k;
        if (k == 0) { /* an invalid byte or a NUL */
            shown = "?";
            m = 1;
        } else if (invisible(c)) {
            m = (size_t)snprintf(esc, sizeof esc, "<U+%04" PRIX32 ">", c);
            shown = esc;
        }
        if (o + m > max)
            break;
        memcpy(out + o, shown, m);
        o += m;
        i += k ? k : 1;
    }
    out[o] = '\0';
    return i;
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
    case RP_ERR_AGAIN: return "not done yet: call again";
    }
    return "unknown error";
}

/* Linux's cgroups (the WebAssembly build has no files to read, and its page no WASI file
 * calls to offer). */
#ifdef __linux__
/* Up to len - 1 bytes of file path into buf, NUL-terminated; -1 when it cannot be read. */
static int read_small(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = 0;
    return 0;
}

/* A plain decimal number of 1 to 18 digits at *s (read as data: nothing else is taken), and
 * *s past it; -1 when there is none. */
static int64_t decimal(const char **s)
{
    int64_t v = 0;
    int digits = 0;
    while (**s >= '0' && **s <= '9' && digits < 18) {
        v = 10 * v + (**s - '0');
        ++*s;
        digits++;
    }
    return digits && !(**s >= '0' && **s <= '9') ? v : -1;
}

/* The whole CPUs (rounded up) that the cgroup directory dir lets its processes use: cgroup
 * v2's cpu.max ("QUOTA PERIOD", or "max PERIOD" for none) or v1's cpu.cfs_quota_us (-1 for
 * none) over cpu.cfs_period_us. 0: no limit there, or nothing readable as one. */
static int64_t cgroup_dir_cpus(const char *dir, int v2)
{
    char path[4200 + 32], buf[64]; /* a directory of up to 4199 bytes, and a name */
    const char *s;
    int64_t quota, period;
    if (v2) {
        snprintf(path, sizeof path, "%s/cpu.max", dir);
        if (read_small(path, buf, sizeof buf) || (s = buf, quota = decimal(&s)) <= 0 || *s++ != ' ')
            return 0;
        period = decimal(&s);
    } else {
        snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
        if (read_small(path, buf, sizeof buf) || (s = buf, quota = decimal(&s)) <= 0)
            return 0;
        snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
        if (read_small(path, buf, sizeof buf))
            return 0;
        s = buf;
        period = decimal(&s);
    }
    if (period <= 0 || (*s && *s != '\n'))
        return 0;
    return (quota + period - 1) / period;
}

/* The tightest CPU limit of cgroup directory dir (mount point plus the process's path,
 * the mount point's part base bytes long) and of each group above it up to the mount
 * point, or best where that is tighter (0: none yet). */
static int64_t cgroup_path_cpus(char *dir, size_t base, int v2, int64_t best)
{
    for (size_t end = strlen(dir);;) {
        dir[end] = 0;
        int64_t k = cgroup_dir_cpus(dir, v2);
        if (k > 0 && (best == 0 || k < best))
            best = k;
        if (end <= base)
            return best;
        while (end > base && dir[end - 1] != '/')
            end--;
        if (end > base)
            end--; /* and the '/' */
    }
}

int rp_cgroup_cpus(const char *proc_cgroup, const char *root)
{
    /* where each hierarchy is mounted: v1's CPU controller; v2 alone, or a hybrid's */
    static const char *const mounts[2][3] = {{"/cpu", "/cpu,cpuacct", "/cpuacct,cpu"},
                                             {"", "/unified", NULL}};
    char text[8192], dir[4200];
    int64_t best = 0;
    if (read_small(proc_cgroup, text, sizeof text))
        return 0;
    /* each line "ID:CONTROLLERS:PATH": ID 0 and no controllers for cgroup v2, controllers
     * that include "cpu" for v1's CPU controller */
    for (char *line = text, *next; *line; line = next) {
        next = line + strcspn(line, "\n");
        if (*next)
            *next++ = 0;
        char *c = strchr(line, ':'), *p = c ? strchr(c + 1, ':') : NULL;
        if (!p || p[1] != '/')
            continue;
        *c = *p = 0;
        const char *ctl = c + 1, *path = p + 1;
        int v2 = !strcmp(line, "0") && !*ctl, cpu = 0;
        for (const char *t = ctl; *t; t += *t == ',') {
            size_t n = strcspn(t, ",");
            cpu |= n == 3 && !strncmp(t, "cpu", 3);
            t += n;
        }
        if (!v2 && !cpu)
            continue;
        for (int m = 0; m < 3 && mounts[v2][m]; m++) {
            size_t base = strlen(root) + strlen(mounts[v2][m]);
            int all = snprintf(dir, sizeof dir, "%s%s%s", root, mounts[v2][m], path);
            if (all > 0 && (size_t)all < sizeof dir)
                best = cgroup_path_cpus(dir, base, v2, best);
        }
    }
    return best > 1024 ? 1024 : (int)best;
}
#else
int rp_cgroup_cpus(const char *proc_cgroup, const char *root)
{
    (void)proc_cgroup;
    (void)root;
    return 0;
}
#endif

int rp_online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
#if defined(__linux__) && defined(CPU_COUNT)
    /* A process limited to some CPUs (taskset, a batch system's cpuset, a container's
     * --cpuset-cpus) gets one thread for each of those: more threads than CPUs only wait
     * for one another (1000 frames of --preset elias at 1080p on one CPU: 64 threads take
     * 2.2 times one thread's time). Counted as nproc(1) counts them, from the affinity
     * mask where it can be read (not past 1024 CPUs: there, the online count). */
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int k = CPU_COUNT(&set);
        if (k >= 1 && (n < 1 || k < n))
            n = k;
    }
#endif
    /* a container's or batch job's CPU bandwidth (docker --cpus, a Kubernetes limit):
     * threads past it are throttled together */
    int q = rp_cgroup_cpus("/proc/self/cgroup", "/sys/fs/cgroup");
    if (q >= 1 && (n < 1 || q < n))
        n = q;
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

int rp_memory_short(size_t bytes)
{
    /* through a volatile, so that the malloc and free pair is not elided (clang does) */
    void *volatile p = malloc(bytes);
    int none = p == NULL;
    free(p);
    return none;
}

uint32_t rp_isqrt64(uint64_t v)
{
    if (!v)
        return 0;
    /* digit by digit from the highest power of 4 not above v, without branches: ge is all
     * ones where the digit is 1 */
    uint64_t rem = v, root = 0, bit = (uint64_t)1 << ((63 - __builtin_clzll(v)) & ~1);
    while (bit) {
        uint64_t t = root + bit, ge = (uint64_t)0 - (uint64_t)(rem >= t);
        rem -= t & ge;
        root = (root >> 1) + (bit & ge);
        bit >>= 2;
    }
    return (uint32_t)root;
}

/* bytes as "%.*f MiB" or "%.*f GiB" with digits decimals (-1: whole bytes). */
static void bytes_text(double bytes, int digits, char *text, size_t len)
{
    if (digits < 0 || bytes < 1024)
        snprintf(text, len, "%.0f byte%s", bytes, bytes == 1 ? "" : "s");
    else if (bytes < (double)(1 << 20))
        snprintf(text, len, "%.*f KiB", digits, bytes / 1024);
    else if (bytes >= (double)(1 << 30))
        snprintf(text, len, "%.*f GiB", digits + 1, bytes / (1 << 30));
    else
        snprintf(text, len, "%.*f MiB", digits, bytes / (1 << 20));
}

void rp_rate_text(int64_t num, int64_t den, char *text, size_t len)
{
    if (den <= 1)
        snprintf(text, len, "%" PRId64, num);
    else
        snprintf(text, len, "%" PRId64 "/%" PRId64 " (%.9g)", num, den, (double)num / (double)den);
}

void rp_bytes_pair(double need, double limit, char *need_text, char *limit_text, size_t len)
{
    for (int digits = 1; digits <= 7; digits += 2) {
        bytes_text(need, digits, need_text, len);
        bytes_text(limit, digits, limit_text, len);
        if (strcmp(need_text, limit_text) || need == limit)
            return;
    }
    bytes_text(need, -1, need_text, len);
    bytes_text(limit, -1, limit_text, len);
}

/* cos(x) for 0 <= x <= pi/2 with x in Q30, result in Q30: the Taylor series to x^14
 * in Horner form (truncation error below 2e-10), all in int64. */
static int64_t cos_q30(int64_t x)
{
    static const int64_t div[] = {182, 132, 90, 56, 30, 12, 2};
    const int64_t one = (int64_t)1 << 30;
    int64_t x2 = (x * x) >> 30;
    int64_t term = one;
    for (size_t i = 0; i < sizeof div / sizeof div[0]; i++)
        term = one - ((x2 * term) >> 30) / div[i];
    return term;
}

int32_t rp_cos_pi_q16(int64_t num, int64_t den)
{
    /* round(pi * 2^30) */
    const int64_t pi_q30 = 3373259426LL;
    int sign = 1;
    int64_t t;
    if (den <= 0 || num < 0)
        return 0;
    t = num % (2 * den);
    if (t > den)
        t = 2 * den - t; /* cos(2pi - a) = cos(a) */
    if (2 * t > den) {
        t = den - t; /* cos(pi - a) = -cos(a) */
        sign = -1;
    }
    int64_t c = cos_q30(pi_q30 * t / den);
    return (int32_t)(sign * ((c + (1 << 13)) >> 14));
}

void rp_heights_to_le(uint8_t *dst, const int16_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint16_t v = (uint16_t)src[i];
        dst[2 * i] = (uint8_t)v;
        dst[2 * i + 1] = (uint8_t)(v >> 8);
    }
}
