/* provenance.c - the key/value record of how a file was made (provenance.h). The hash
 * is libavutil's SHA-256 (av_sha); nothing here reads a clock. */
#include "check/provenance.h"
#include "rockpool.h" /* rp_job_line_valid */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <libavutil/mem.h>
#include <libavutil/sha.h>

#include "base/common.h"

int rp_sha256_hex(const void *data, size_t len, char hex[65])
{
    static const char digits[] = "0123456789abcdef";
    struct AVSHA *sha = av_sha_alloc();
    uint8_t digest[32];

    hex[0] = '\0';
    if (!sha)
        return RP_ERR_NOMEM;
    av_sha_init(sha, 256);
    av_sha_update(sha, data, len);
    av_sha_final(sha, digest);
    av_free(sha);
    for (int i = 0; i < 32; i++) {
        hex[2 * i] = digits[digest[i] >> 4];
        hex[2 * i + 1] = digits[digest[i] & 15];
    }
    hex[64] = '\0';
    return RP_OK;
}

/* Whether s can be a value: 1..VALUE_MAX-1 printable ASCII bytes. */
static int good_value(const char *s)
{
    size_t n = strlen(s);

    if (n == 0 || n >= RP_PROVENANCE_VALUE_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
            return 0;
    return 1;
}

static void add(rp_provenance *p, const char *key, const char *value)
{
    rp_provenance_entry *e = &p->entries[p->count++];

    e->key = key;
    snprintf(e->value, sizeof(e->value), "%s", value);
}

/* The entries again as the NULL-terminated key, value list. */
static void list(rp_provenance *p)
{
    for (size_t i = 0; i < p->count; i++) {
        p->kv[2 * i] = p->entries[i].key;
        p->kv[2 * i + 1] = p->entries[i].value;
    }
    p->kv[2 * p->count] = NULL;
}

int rp_provenance_build(rp_provenance *p, const char *version, const char *preset, uint64_t seed,
                        const void *scene, size_t scene_len)
{
    char text[RP_PROVENANCE_VALUE_MAX];

    memset(p, 0, sizeof(*p));
    if (!version || !good_value(version) || (preset && !good_value(preset)))
        return RP_ERR_INVALID;
    add(p, RP_PROV_VERSION, version);
    if (preset)
        add(p, RP_PROV_PRESET, preset);
    snprintf(text, sizeof(text), "%" PRIu64, seed);
    add(p, RP_PROV_SEED, text);
    if (scene) {
        int ret = rp_sha256_hex(scene, scene_len, text);

        if (ret) {
            memset(p, 0, sizeof(*p));
            return ret;
        }
        add(p, RP_PROV_SCENE_SHA256, text);
    }
    list(p);
    return RP_OK;
}

int rp_provenance_add_frames(rp_provenance *p, int64_t first, int64_t end, int64_t total)
{
    char text[RP_PROVENANCE_VALUE_MAX];

    if (first < 0 || first >= end || end > total || p->count >= RP_PROVENANCE_MAX)
        return RP_ERR_INVALID;
    snprintf(text, sizeof(text), "%" PRId64 "-%" PRId64 "/%" PRId64, first, end - 1, total);
    add(p, RP_PROV_FRAMES, text);
    list(p);
    return RP_OK;
}

int rp_job_line_valid(const char *text)
{
    static const char *const names[] = {"scene=", "inputs=", "options=", "build="};
    const char *p = text;
    if (!p)
        return 0;
    for (int i = 0; i < 4; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(p, names[i], n))
            return 0;
        p += n;
        for (int k = 0; k < 16; k++, p++)
            if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
                return 0;
        if (*p != (i < 3 ? ',' : '\0'))
            return 0;
        p++;
    }
    return 1;
}

int rp_provenance_add_sound(rp_provenance *p, int has, int64_t from, int64_t to)
{
    char text[RP_PROVENANCE_VALUE_MAX] = "none";

    if ((has && from >= to) || p->count >= RP_PROVENANCE_MAX)
        return RP_ERR_INVALID;
    if (has)
        snprintf(text, sizeof(text), "%" PRId64 "..%" PRId64, from, to);
    add(p, RP_PROV_SOUND, text);
    list(p);
    return RP_OK;
}
