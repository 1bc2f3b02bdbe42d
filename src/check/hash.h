/* hash.h - frame hashes chosen by name: FFmpeg's libavutil hashes (AVHashContext: MD5,
 * CRC32, adler32, murmur3, SHA-1/2, RIPEMD) and xxHash's XXH3 (64-bit), printed as hex
 * exactly as FFmpeg's framehash/framemd5 muxers print them.
 *
 * Hex forms (checked against independent tools in tests/unit/test_hash.c):
 * - every libavutil hash: av_hash_final_hex(), the digest bytes in order, lowercase.
 *   MD5 and SHA* equal md5sum/sha256sum; CRC32 and adler32 are the 32-bit value
 *   big-endian (printf "%08x" of zlib's crc32()/adler32()).
 * - XXH3: XXH3_64bits() of the bytes (seed 0), written big-endian as 16 lowercase hex
 *   digits (xxHash's canonical form), exactly what `xxhsum -H3` prints.
 *
 * One rp_hash per thread: a context holds the running state of one hash, so any number
 * of threads may hash at once with contexts of their own. Lookup functions are
 * thread-safe. */
#ifndef RP_HASH_H
#define RP_HASH_H

#include <stddef.h>
#include <stdint.h>

/** Longest hex digest plus its NUL (SHA512: 64 bytes). */
#define RP_HASH_HEX_MAX 129

/** The algorithm used when none is named. */
#define RP_HASH_DEFAULT "md5"

typedef struct rp_hash rp_hash;

/** Look an algorithm up by the name a user types: "md5", "crc32", "xxh3", or any of
 * libavutil's av_hash_names(), all ignoring case; NULL or "" means RP_HASH_DEFAULT.
 * On success *canonical (when not NULL) receives the name as a framehash "#hash:" header
 * spells it ("MD5", "CRC32", "adler32", "SHA256", "XXH3"; a static string) and *hex_len
 * (when not NULL) the number of hex digits of a digest. RP_ERR_INVALID for an unknown
 * name, RP_ERR_NOMEM if libavutil could not allocate its probe context. */
int rp_hash_lookup(const char *name, const char **canonical, int *hex_len);

/** The i-th known algorithm's canonical name (i from 0), NULL past the last: for
 * messages listing what --hash-algo accepts. */
const char *rp_hash_name_at(int i);

/** Write the known names, lowercase, separated by ", ", into buf (truncated to len). */
void rp_hash_list(char *buf, size_t len);

/** Allocate a context for an algorithm named as rp_hash_lookup() takes it; it starts
 * ready for rp_hash_update(). RP_ERR_INVALID for an unknown name, RP_ERR_NOMEM. *h is
 * NULL on failure. */
int rp_hash_new(rp_hash **h, const char *name);

/** Free a context and null *h. NULL and a NULL *h are no-ops. */
void rp_hash_free(rp_hash **h);

/** The canonical name ("MD5", "XXH3", ...) and hex digest length of a context. */
const char *rp_hash_name(const rp_hash *h);
int rp_hash_hex_len(const rp_hash *h);

/** Start a new digest (needed only after rp_hash_final_hex() or to drop data). */
void rp_hash_reset(rp_hash *h);

/** Add len bytes to the running digest. */
void rp_hash_update(rp_hash *h, const uint8_t *data, size_t len);

/** Finish the digest into hex (rp_hash_hex_len(h) + 1 bytes, lowercase, NUL-terminated;
 * RP_HASH_HEX_MAX always suffices) and reset the context for the next one. */
void rp_hash_final_hex(rp_hash *h, char *hex);

/** Reset, update with one buffer, final: the hash of one frame. */
void rp_hash_hex(rp_hash *h, const uint8_t *data, size_t len, char *hex);

/** Frames hashed on worker threads, results handed back in submission order on the
 * caller's thread, so hashing does not hold up the render: --hash, --verify and the
 * framemd5/framehash backends. */
typedef struct rp_hasher rp_hasher;

/** Called on the thread that calls rp_hasher_submit()/rp_hasher_flush(), once per frame,
 * in the order submitted, with the frame's bytes (the hasher's own copy with threads > 1 or
 * in batches, valid during the call) and its hex hash. A nonzero return stops the hasher: no
 * further callbacks; that value is returned by the submit/flush that made the call and by every
 * later one (a verify mismatch, a write error). */
typedef int (*rp_hasher_fn)(void *ctx, int64_t frame_index, const uint8_t *frame, const char *hex);

/** Most worker threads a hasher starts. */
#define RP_HASHER_MAX_THREADS 16

/** A hasher of frames of frame_size bytes with the named algorithm. threads <= 1 hashes
 * inline in rp_hasher_submit() (no copy); otherwise min(threads, RP_HASHER_MAX_THREADS)
 * workers, each with a context of its own, and 2 frame copies per worker (the memory to
 * budget: 2 * workers * frame_size).
 * MD5 on a CPU with AVX2 (rp_md5x8_available()) goes in batches instead: up to 8 frames
 * hashed in one pass (md5x8.h), with lanes = min(8, 128 MiB / frame_size) frames per
 * batch when that is 2 or more. threads <= 1 copies each frame and hashes on the caller's
 * thread when a batch is full (lanes copies); otherwise one worker hashes batches while
 * the next one is copied (2 * lanes copies). The digests are the same either way.
 * RP_ERR_INVALID for an unknown algorithm, RP_ERR_NOMEM (also when threads cannot be
 * started for want of memory), RP_ERR_UNSUPPORTED if they cannot for another reason. *out NULL on
 * failure. */
int rp_hasher_new(rp_hasher **out, const char *algo, size_t frame_size, int threads,
                  rp_hasher_fn done, void *ctx);

/** The most frame copies (of frame_size bytes each) that rp_hasher_new() with these
 * arguments holds on any CPU: MD5's batches are counted where md5x8.h is not available too,
 * so a memory estimate does not depend on the CPU or --simd. 0 for an unknown algorithm. */
size_t rp_hasher_copies(const char *algo, size_t frame_size, int threads);

/** The canonical name and hex length of the hasher's algorithm. */
const char *rp_hasher_name(const rp_hasher *hs);
int rp_hasher_hex_len(const rp_hasher *hs);

/** Hash one frame (frame_size bytes, copied before return with threads or in batches); calls back
 * for every earlier frame already hashed. Waits only when every copy is in use. */
int rp_hasher_submit(rp_hasher *hs, int64_t frame_index, const uint8_t *frame);

/** Wait for every submitted frame and call back for each. */
int rp_hasher_flush(rp_hasher *hs);

/** Stop the workers (frames not yet called back are dropped) and free; nulls *hs. NULL
 * and a NULL *hs are no-ops. */
void rp_hasher_free(rp_hasher **hs);

#endif
