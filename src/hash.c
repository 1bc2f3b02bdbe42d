/* hash.c - frame hashes by name through libraries: libavutil's AVHashContext for
 * FFmpeg's algorithms, libxxhash's XXH3_64bits for xxh3. No hash is written here; this
 * file only maps names and formats digests as hash.h describes. */
#include "hash.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libavutil/hash.h>
#include <xxhash.h>

#include "common.h"

#define XXH3_NAME "XXH3"

struct rp_hash {
    struct AVHashContext *av; /* NULL for XXH3 */
    XXH3_state_t *xxh3;
    const char *name;
    int hex_len;
};

/* libavutil's spelling of a name typed in any case, or NULL. */
static const char *av_canonical(const char *name)
{
    const char *n;

    for (int i = 0; (n = av_hash_names(i)); i++)
        if (strcasecmp(n, name) == 0)
            return n;
    return NULL;
}

int rp_hash_lookup(const char *name, const char **canonical, int *hex_len)
{
    struct AVHashContext *av = NULL;
    const char *n;

    if (!name || !*name)
        name = RP_HASH_DEFAULT;
    if (strcasecmp(name, XXH3_NAME) == 0) {
        if (canonical)
            *canonical = XXH3_NAME;
        if (hex_len)
            *hex_len = 16;
        return RP_OK;
    }
    n = av_canonical(name);
    if (!n)
        return RP_ERR_INVALID;
    if (av_hash_alloc(&av, n) < 0)
        return RP_ERR_NOMEM;
    if (canonical)
        *canonical = av_hash_get_name(av);
    if (hex_len)
        *hex_len = 2 * av_hash_get_size(av);
    av_hash_freep(&av);
    return RP_OK;
}

const char *rp_hash_name_at(int i)
{
    int n = 0;

    if (i < 0)
        return NULL;
    while (av_hash_names(n))
        n++;
    if (i < n)
        return av_hash_names(i);
    return i == n ? XXH3_NAME : NULL;
}

void rp_hash_list(char *buf, size_t len)
{
    size_t used = 0;
    const char *n;

    if (!len)
        return;
    buf[0] = '\0';
    for (int i = 0; (n = rp_hash_name_at(i)); i++) {
        for (const char *s = i ? ", " : ""; *s && used + 1 < len; s++)
            buf[used++] = *s;
        for (; *n && used + 1 < len; n++)
            buf[used++] = (char)(*n >= 'A' && *n <= 'Z' ? *n - 'A' + 'a' : *n);
        buf[used] = '\0';
    }
}

int rp_hash_new(rp_hash **out, const char *name)
{
    rp_hash *h;
    int ret;

    *out = NULL;
    h = calloc(1, sizeof(*h));
    if (!h)
        return RP_ERR_NOMEM;
    ret = rp_hash_lookup(name, &h->name, &h->hex_len);
    if (ret)
        goto fail;
    if (strcmp(h->name, XXH3_NAME) == 0) {
        h->xxh3 = XXH3_createState();
        if (!h->xxh3) {
            ret = RP_ERR_NOMEM;
            goto fail;
        }
    } else if (av_hash_alloc(&h->av, h->name) < 0) {
        ret = RP_ERR_NOMEM;
        goto fail;
    }
    rp_hash_reset(h);
    *out = h;
    return RP_OK;

fail:
    rp_hash_free(&h);
    return ret;
}

void rp_hash_free(rp_hash **h)
{
    if (!h || !*h)
        return;
    av_hash_freep(&(*h)->av);
    if ((*h)->xxh3)
        XXH3_freeState((*h)->xxh3);
    free(*h);
    *h = NULL;
}

const char *rp_hash_name(const rp_hash *h)
{
    return h->name;
}

int rp_hash_hex_len(const rp_hash *h)
{
    return h->hex_len;
}

void rp_hash_reset(rp_hash *h)
{
    if (h->av)
        av_hash_init(h->av);
    else
        XXH3_64bits_reset(h->xxh3);
}

void rp_hash_update(rp_hash *h, const uint8_t *data, size_t len)
{
    if (h->av)
        av_hash_update(h->av, data, len);
    else
        XXH3_64bits_update(h->xxh3, data, len);
}

void rp_hash_final_hex(rp_hash *h, char *hex)
{
    if (h->av) {
        /* The digest bytes in order, lowercase: what libavformat's framehash prints. */
        av_hash_final_hex(h->av, (uint8_t *)hex, h->hex_len + 1);
    } else {
        static const char digits[] = "0123456789abcdef";
        XXH64_canonical_t c; /* big-endian bytes, as xxhsum prints them */

        XXH64_canonicalFromHash(&c, XXH3_64bits_digest(h->xxh3));
        for (int i = 0; i < 8; i++) {
            hex[2 * i] = digits[c.digest[i] >> 4];
            hex[2 * i + 1] = digits[c.digest[i] & 15];
        }
        hex[16] = '\0';
    }
    rp_hash_reset(h);
}

void rp_hash_hex(rp_hash *h, const uint8_t *data, size_t len, char *hex)
{
    rp_hash_reset(h);
    rp_hash_update(h, data, len);
    rp_hash_final_hex(h, hex);
}
