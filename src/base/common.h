/* common.h - error codes and small integer helpers shared by every rockpool module.
 *
 * The library never prints or exits: functions return RP_OK (0) or an enum rp_err,
 * and rp_strerror() turns the code into a phrase for the program to print. */
#ifndef RP_COMMON_H
#define RP_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "rpcore.h" /* enum rp_err, rp_strerror() */

/** floor(sqrt(v)), integer-only (the same on every machine). */
uint32_t rp_isqrt64(uint64_t v);

/** Fixed-point cos(pi * num / den) in Q16 (65536 = 1.0), for 0 <= num, 0 < den.
 * Integer-only (no libm), identical on every platform; error under 2/65536. */
int32_t rp_cos_pi_q16(int64_t num, int64_t den);

/** The CPUs this process may run on, 1..64: the default thread count. The online CPUs,
 * at most as many as its affinity mask holds, and at most its cgroup's CPU bandwidth
 * allows (rp_cgroup_cpus). */
int rp_online_cpus(void);

/** The whole CPUs (quota over period, rounded up) that the cgroups of the process described
 * by proc_cgroup (/proc/self/cgroup's format) allow under root (/sys/fs/cgroup): the
 * tightest of its own group and those above it, cgroup v2 (cpu.max, mounted at root or
 * root/unified) or v1 (cpu.cfs_quota_us and cpu.cfs_period_us under root/cpu). 0 when no
 * limit is set or none can be read; at most 1024. Every value is read as a plain decimal
 * number or not at all. Linux only: elsewhere (WebAssembly) 0, with no file opened. */
int rp_cgroup_cpus(const char *proc_cgroup, const char *root);

/** Whether a block of bytes cannot be allocated now (a probe, freed at once): how a
 * library's vague failure is told to be a want of memory. The allocation is really made
 * (compilers may not drop it). */
int rp_memory_short(size_t bytes);

/** A memory need and a limit as text for a message ("37.5 MiB" and "32.0 MiB"; GiB from
 * 1 GiB on, with two decimals): in MiB below a GiB, and with more digits (down to bytes)
 * when the two would otherwise read the same, so a need over a limit always shows it. */
void rp_bytes_pair(double need, double limit, char *need_text, char *limit_text, size_t len);

/** A frame rate as text for a message, exactly: "30" for a whole rate, else "30000/1001
 * (29.97003)" (the ratio, then its value to 9 digits). */
void rp_rate_text(int64_t num, int64_t den, char *text, size_t len);

/** Length of the valid UTF-8 sequence at s (n >= 1 bytes available), or 0 if it is
 * invalid or a NUL byte (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF). */
size_t rp_utf8_len(const unsigned char *s, size_t n);

/** What to do about an allocation or a thread that failed for want of memory (ENOMEM, or
 * EAGAIN from pthread_create under a ulimit -v): appended to "out of memory ..." messages,
 * in the program's words or the library's (rp_name). */
const char *rp_oom_hint(void);

/** Largest width or height rockpool accepts (rockpool-scene(5) LIMITS). */
#define RP_MAX_SIDE 16384

/** Saturate a 32-bit value to the int16 range. */
static inline int16_t rp_sat16(int32_t v)
{
    return (int16_t)(v > INT16_MAX ? INT16_MAX : v < INT16_MIN ? INT16_MIN : v);
}

/** Saturate to 0..255. */
static inline uint8_t rp_sat8(int32_t v)
{
    return (uint8_t)(v > 255 ? 255 : v < 0 ? 0 : v);
}

/** Clamp to lo..hi. */
static inline int rp_clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/** Clamp to lo..hi, 64-bit. */
static inline int64_t rp_clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/** n heights as little-endian int16 bytes (2n bytes at dst): the layout of checkpoints and
 * of --dump-heights. */
void rp_heights_to_le(uint8_t *dst, const int16_t *src, size_t n);

#endif
