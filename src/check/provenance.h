/* provenance.h - what a rendered file records about how it was made: the rockpool
 * version, the preset, the seed and the SHA-256 of the scene text (libavutil's av_sha),
 * as key/value strings for PNG text chunks (tEXt, the key as keyword) and container
 * metadata (av_dict_set on the AVFormatContext's metadata). Never a date or a host name:
 * the same inputs give the same bytes. */
#ifndef RP_PROVENANCE_H
#define RP_PROVENANCE_H

#include <stddef.h>
#include <stdint.h>

/** Keys, in the order rp_provenance_build() lists them. Lowercase ASCII with
 * underscores: valid PNG keywords (1-79 Latin-1 bytes) and Matroska/MP4 tag names. */
#define RP_PROV_VERSION "rockpool_version"
#define RP_PROV_PRESET "rockpool_preset"
#define RP_PROV_SEED "rockpool_seed"
#define RP_PROV_SCENE_SHA256 "rockpool_scene_sha256"
#define RP_PROV_FRAMES "rockpool_frames"
#define RP_PROV_SOUND "rockpool_sound"

#define RP_PROVENANCE_MAX 6
#define RP_PROVENANCE_VALUE_MAX 80 /* bytes of a value with its NUL */

typedef struct rp_provenance_entry {
    const char *key; /* one of the RP_PROV_* strings */
    char value[RP_PROVENANCE_VALUE_MAX];
} rp_provenance_entry;

typedef struct rp_provenance {
    size_t count;
    rp_provenance_entry entries[RP_PROVENANCE_MAX];
    /* The same as a NULL-terminated list key, value, key, value, ..., pointing into
     * entries (valid while this struct is, and not moved). */
    const char *kv[2 * RP_PROVENANCE_MAX + 1];
} rp_provenance;

/** Fill p for a render: version (e.g. RP_VERSION), preset name (NULL: left out), seed,
 * and the scene file's bytes exactly as read (NULL: left out, e.g. no scene file).
 * Values: "0.1.0", "rockpool", "42" (decimal), 64 lowercase hex digits. RP_ERR_INVALID
 * if version is NULL or a string is empty, too long (RP_PROVENANCE_VALUE_MAX - 1 bytes)
 * or holds bytes outside printable ASCII (PNG tEXt and container tags must carry it);
 * RP_ERR_NOMEM. On failure p->count is 0 and p->kv[0] NULL. */
int rp_provenance_build(rp_provenance *p, const char *version, const char *preset, uint64_t seed,
                        const void *scene, size_t scene_len);

/** Add the frames a file holds to p (after rp_provenance_build): RP_PROV_FRAMES, "A-L/N"
 * for frames A..L (both included) of a timeline of N frames, so that a chunk of a clip
 * says which part it is; a file cut short by a signal still says the range it was asked
 * for, and its frame count tells it is incomplete. RP_ERR_INVALID unless
 * 0 <= first < end <= total, or if p is full. */
int rp_provenance_add_frames(rp_provenance *p, int64_t first, int64_t end, int64_t total);

/** Add where the background's sound lies to p (after rp_provenance_add_frames), for a
 * video file, which may carry it: RP_PROV_SOUND, "FROM..TO" in whole microseconds of the
 * clip's timeline (its frame 0 at 0; FROM may be negative), or "none" (has 0: no sound to
 * carry, or --no-audio). A chunk of a clip holds sound exactly where its span meets that
 * extent (but for less than one audio packet at its edges), so the farm's join tells a
 * chunk whose sound was removed from one whose span has none. RP_ERR_INVALID if from >= to
 * or p is full. */
int rp_provenance_add_sound(rp_provenance *p, int has, int64_t from, int64_t to);

/** SHA-256 of len bytes as 64 lowercase hex digits and a NUL (sha256sum's form).
 * RP_ERR_NOMEM (hex is "") if libavutil cannot allocate its context. */
int rp_sha256_hex(const void *data, size_t len, char hex[65]);

#endif
