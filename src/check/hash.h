/* hash.h - frame hashes chosen by name: FFmpeg's libavutil hashes (AVHashContext: MD5,
 * CRC32, adler32, murmur3, SHA-1/2, RIPEMD) and xxHash's XXH3 (64-bit), printed as hex
 * exactly as FFmpeg's framehash/framemd5 muxers print them. One hash by name (rp_hash) is
 * public, in rockpool.h; the hasher on worker threads (rp_hasher) is the library's own.
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

#include "rockpool.h" /* rp_hash: one hash by name */

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
