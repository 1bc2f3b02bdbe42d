/* pngdeflate.c - deflate for filtered PNG rows (pngdeflate.h), in the spirit of fpnge: no
 * search, Huffman codes fitted to each block's own symbols, a bit writer with a 64-bit
 * buffer. Huffman codes alone (with runs at distance 1) are not enough: the grain of
 * rendered water repeats across a pixel's channels, and only matches capture that. So
 * matches are found, but cheaply and at pixels only:
 *
 * At the first byte of each pixel (rows are known: the filter type byte, then pixels of
 * bpp bytes) the next MIN_MATCH bytes are hashed; the table gives the last pixel with that
 * hash, tried once: a match of at least MIN_MATCH bytes is taken whole (greedy, up to 258
 * bytes and the block's end), and the pixels it covers enter the table, so each hash keeps
 * its latest pixel and distances stay short. Otherwise the pixel's bytes are literals.
 * Each block (whole rows, at most BLOCK bytes) is parsed into tokens with its counts, then
 * written with length-limited Huffman codes (14 bits for literals and lengths, so four
 * literals fit the bit buffer between flushes; 15 for distances, 7 for the code-length
 * code), or stored when that is smaller. The table starts empty for every stream.
 *
 * Plain C, no vector path, so the bytes are the same at every SIMD level and thread
 * count; loads and stores are little-endian on any machine, so the same on every machine. */
#include "output/pngdeflate.h"

#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

/* Input bytes per deflate block: each block's codes fit its own part of the picture. */
#define BLOCK 262144
/* The shortest match: 8 bytes (two pixels and two bytes of a third in RGB, two pixels in
 * RGBA), the whole of the 64-bit word the try compares. Against 7, on 1080p frames of
 * rain over the default bed, 4% less time for 1% more bytes; over a photo 7.5% less time
 * and 1.4% fewer bytes. 6 costs more time and more bytes on both. */
#define MIN_MATCH 8
#define MATCH_MASK (MIN_MATCH == 8 ? ~0ull : (1ull << (8 * (MIN_MATCH & 7))) - 1)
#define NDIST 30
#define LIT_LIMIT 14
#define CL_LIMIT 7
#define NLIT 286 /* literals 0..255, end of block 256, lengths 257..285 */
#define EOB 256

/* Match lengths 3..258: each length code's first length and extra bits (RFC 1951, 3.2.5). */
static const uint16_t len_base[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                      15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                      67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
/* The order the code-length code's lengths are sent in. */
static const uint8_t cl_order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                     11, 4,  12, 3, 13, 2, 14, 1, 15};

/* ---- the bit writer: a 64-bit buffer, flushed whole bytes at a time --------------------- */

typedef struct bits {
    uint8_t *out; /* next byte to write; 8 bytes of room past it at every flush */
    uint64_t acc; /* pending bits, the oldest lowest */
    unsigned n;   /* how many: at most 7 after a flush */
} bits;

static inline void store64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 8);
#else
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
#endif
}

/* Add n bits of v (no bits set above them); the caller keeps the total within 64. */
static inline void put(bits *w, uint64_t v, unsigned n)
{
    w->acc |= v << w->n;
    w->n += n;
}

static inline void flush(bits *w)
{
    store64(w->out, w->acc);
    w->out += w->n >> 3;
    w->acc >>= w->n & 56;
    w->n &= 7;
}

/* Pad to a whole byte (the padding bits are 0). */
static void align(bits *w)
{
    flush(w);
    if (w->n) {
        w->out++;
        w->acc = 0;
        w->n = 0;
    }
}

/* ---- Huffman codes ---------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Code lengths (at most `limit` bits) for the n symbols with counts freq: a Huffman tree
 * (ties to the lower count, then the lower symbol, leaves before merged nodes); while it is
 * too deep, every count c > 0 becomes (c + 1) / 2 and the tree is built again. A symbol
 * with count 0 gets no code. Fewer than two symbols used: the codes are made complete with
 * symbols 0 and 1 (inflaters want a complete code). n <= NLIT. */
static void huffman_lengths(const uint32_t *freq_in, int n, int limit, uint8_t *len)
{
    uint32_t freq[NLIT];
    uint64_t key[NLIT];
    uint64_t node_w[2 * NLIT];
    int parent[2 * NLIT], depth[2 * NLIT];

    memcpy(freq, freq_in, (size_t)n * sizeof *freq);
    memset(len, 0, (size_t)n);
    for (;;) {
        int m = 0;
        for (int s = 0; s < n; s++)
            if (freq[s])
                key[m++] = (uint64_t)freq[s] << 16 | (uint64_t)s;
        if (m < 2) {
            int used = m ? (int)(key[0] & 0xffff) : 0;
            len[used] = 1;
            len[used ? 0 : 1] = 1;
            return;
        }
        qsort(key, (size_t)m, sizeof *key, cmp_u64);
        /* Leaves 0..m-1 in order of weight; merged nodes m.. are made in order of weight
         * too, so the two lightest are always at the fronts of the two lists. */
        for (int i = 0; i < m; i++)
            node_w[i] = key[i] >> 16;
        int leaf = 0, inner = m, made = m;
        for (int k = 0; k < m - 1; k++) {
            int pick[2];
            for (int t = 0; t < 2; t++) {
                if (leaf < m && (inner >= made || node_w[leaf] <= node_w[inner]))
                    pick[t] = leaf++;
                else
                    pick[t] = inner++;
            }
            node_w[made] = node_w[pick[0]] + node_w[pick[1]];
            parent[pick[0]] = parent[pick[1]] = made;
            made++;
        }
        int maxd = 0;
        depth[made - 1] = 0;
        for (int i = made - 2; i >= 0; i--) {
            depth[i] = depth[parent[i]] + 1;
            if (i < m && depth[i] > maxd)
                maxd = depth[i];
        }
        if (maxd <= limit) {
            for (int i = 0; i < m; i++)
                len[key[i] & 0xffff] = (uint8_t)depth[i];
            return;
        }
        for (int s = 0; s < n; s++)
            if (freq[s])
                freq[s] = (freq[s] + 1) / 2;
    }
}

/* The canonical codes of lengths len (RFC 1951, 3.2.2), bit-reversed as deflate sends
 * them (first bit lowest). */
static void canonical_codes(const uint8_t *len, int n, uint16_t *code)
{
    uint16_t count[16] = {0}, next[16];
    unsigned c = 0;
    for (int s = 0; s < n; s++)
        count[len[s]]++;
    count[0] = 0;
    for (int b = 1; b < 16; b++) {
        c = (c + count[b - 1]) << 1;
        next[b] = (uint16_t)c;
    }
    for (int s = 0; s < n; s++) {
        unsigned l = len[s], v = l ? next[l]++ : 0, r = 0;
        for (unsigned b = 0; b < l; b++)
            r |= ((v >> b) & 1) << (l - 1 - b);
        code[s] = (uint16_t)r;
    }
}

/* ---- one block ------------------------------------------------------------------------- */

/* A token: lits_dc & 0xffffff literals (at most BLOCK), then a match of `len` bytes at
 * distance `dist` (len 0: none), whose distance code is lits_dc >> 24: the parse has worked
 * it out, and the writer takes it from here rather than again with the branches of
 * dist_code (on rendered water, 6% of the whole coder's time). */
typedef struct token {
    uint32_t lits_dc;
    uint16_t len, dist;
} token;

/* 2^17 slots (512 KiB): against 2^15, over a photo 18% less time (a slot more often empty or
 * stale, a try not made), on rain over the default bed 2% fewer bytes in the same time;
 * 2^18 is slower on rain. */
#define HASH_BITS 17
#define MAX_TOKENS (BLOCK / MIN_MATCH + 2)

/* The two-pass parse: its candidates for positions q in ring[q % RING], worked out FILL
 * positions at a time ahead of the parse (so at most FILL + 258 + 1 ahead: within RING). */
#define RING 16384
#define FILL 4096

struct rp_pngz {
    uint32_t head[1 << HASH_BITS]; /* the last position of each hash of MIN_MATCH bytes */
    uint32_t ring[RING];           /* the two-pass parse's candidates */
    int dense;                     /* the last block matched at more than half its tries */
    token tok[MAX_TOKENS];
    int ntok;
    uint32_t freq[NLIT], dfreq[NDIST];
    uint64_t extra_bits;  /* of the block's lengths and distances */
    uint8_t len_lut[259]; /* the length code of each match length 3..258 */
    uint8_t mod[9][259];  /* mod[b][v]: v % b */
};

/* 8 bytes, the first lowest, on any machine (the hash and the match length read them so). */
static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline int ctz64(uint64_t v)
{
    return __builtin_ctzll(v);
}

/* The table's slot for the MIN_MATCH bytes at the start of v. */
static inline uint32_t hash(uint64_t v)
{
    return (uint32_t)(((v & MATCH_MASK) * 0x9e3779b97f4a7c15ull) >> (64 - HASH_BITS));
}

/* The distance code (0..29) of a distance 1..32768, and its number of extra bits. */
static inline unsigned dist_code(unsigned d)
{
    unsigned d1 = d - 1;
    if (d1 < 4)
        return d1;
    unsigned nb = 31 - (unsigned)__builtin_clz(d1);
    return 2 * nb + ((d1 >> (nb - 1)) & 1);
}

static inline unsigned dist_extra(unsigned code)
{
    return code < 4 ? 0 : code / 2 - 1;
}

static inline unsigned dist_base(unsigned code)
{
    return code < 4 ? code + 1 : ((2u + (code & 1)) << (code / 2 - 1)) + 1;
}

/* The length of the match of i against earlier j (x: their first 8 bytes xor-ed, nonzero
 * only past MIN_MATCH), at most max. */
static inline __attribute__((always_inline)) size_t match_length(const uint8_t *p, size_t i,
                                                                 size_t j, uint64_t x, size_t max)
{
    size_t len = 8;
    if (x) {
        len = (size_t)ctz64(x) >> 3;
    } else {
        while (len + 8 <= max && (x = load64(p + j + len) ^ load64(p + i + len)) == 0)
            len += 8;
        if (len + 8 <= max)
            len += (size_t)ctz64(x) >> 3;
        else
            while (len < max && p[j + len] == p[i + len])
                len++;
    }
    return len > max ? max : len;
}

/* Count the literals p[from..to) into four histograms (summed at the block's end). */
static inline __attribute__((always_inline)) void
count_literals(uint32_t h[4][256], const uint8_t *p, size_t from, size_t to)
{
    size_t k = from;
    for (; k + 4 <= to; k += 4) {
        h[0][p[k]]++;
        h[1][p[k + 1]]++;
        h[2][p[k + 2]]++;
        h[3][p[k + 3]]++;
    }
    for (; k < to; k++)
        h[0][p[k]]++;
}

/* From byte *i, `skip` bytes on (col: *i's offset in its row), to the first pixel at or
 * after it: the next row's first pixel past its filter type byte. phase: where the new
 * position lies in a pixel when it is in the same row (else worked out from col). */
static inline __attribute__((always_inline)) void
to_pixel(size_t *i, size_t *col, size_t skip, const uint8_t *mod, size_t row_bytes, unsigned bpp)
{
    unsigned phase;
    *i += skip;
    *col += skip;
    if (*col < row_bytes) {
        phase = mod[skip];
    } else {
        do
            *col -= row_bytes;
        while (*col >= row_bytes);
        phase = *col ? mod[*col - 1] : 0;
        if (!*col) { /* the filter type byte */
            ++*i;
            *col = 1;
        }
    }
    if (phase) {
        *i += bpp - phase;
        *col += bpp - phase;
        if (*col >= row_bytes) {
            ++*i;
            *col = 1;
        }
    }
}

/* Pass 1 of the two-pass parse: the candidates of the pixels from *fq (its column *fcol)
 * up to target, while 8 bytes fit before hi: each pixel's is the last earlier pixel with the
 * same hash, and every pixel enters the table. Its pixels are the parse's (the same steps
 * from the same first pixel). */
static void fill(rp_pngz *z, const uint8_t *p, size_t *fq, size_t *fcol, size_t target, size_t hi,
                 size_t row_bytes, unsigned bpp)
{
    size_t q = *fq, col = *fcol;
    while (q < target && q + 8 <= hi) {
        uint32_t key = hash(load64(p + q));
        z->ring[q % RING] = z->head[key];
        z->head[key] = (uint32_t)q;
        q += bpp;
        col += bpp;
        if (col >= row_bytes) {
            q++;
            col = 1;
        }
    }
    *fq = q;
    *fcol = col;
}

/* The parse's loop from pixel i (column col): dense or sparse (see parse_block), a constant
 * in each call, so each is a loop of its own. Returns where the last literals start. */
static inline __attribute__((always_inline)) size_t
parse_loop(rp_pngz *z, const uint8_t *p, size_t lo, size_t hi, size_t last, size_t i, size_t col,
           size_t row_bytes, unsigned bpp, uint32_t h[4][256], size_t counts[2], const int dense)
{
    const uint8_t *mod = z->mod[bpp];
    size_t lit_start = lo, tries = 0, matches = 0;
    size_t fq = i, fcol = col; /* the next pixel fill works out */
    while (i < last) {
        uint64_t v = load64(p + i);
        size_t j;
        if (dense) {
            if (i >= fq)
                fill(z, p, &fq, &fcol, i + FILL, hi, row_bytes, bpp);
            j = z->ring[i % RING];
        } else {
            /* The slot of the pixel 9 bytes on, into the cache ahead of its try: where a
             * match of 8 or 9 bytes ends (the commonest, in RGB) and the next try is. A
             * hint only. */
            if (i + 17 <= hi)
                __builtin_prefetch(&z->head[hash(load64(p + i + 9))]);
            uint32_t key = hash(v);
            j = z->head[key];
            z->head[key] = (uint32_t)i;
        }
        tries++;
        /* j earlier and within the window, or no try: a stale slot's pixel lies far back,
         * out of the cache, and is not loaded */
        uint64_t x = 1;
        if (i - j - 1 < 32768)
            x = load64(p + j) ^ v;
        if (x & MATCH_MASK) {
            i += bpp;
            col += bpp;
            if (col >= row_bytes) { /* the next row's filter type byte, then its first pixel */
                i++;
                col = 1;
            }
            continue;
        }
        matches++;
        size_t len = match_length(p, i, j, x, hi - i < 258 ? hi - i : 258), at = i;
        count_literals(h, p, lit_start, i); /* the literals before it */
        unsigned d = (unsigned)(i - j), dc = dist_code(d), lc = z->len_lut[len];
        z->tok[z->ntok++] =
            (token){(uint32_t)(i - lit_start) | dc << 24, (uint16_t)len, (uint16_t)d};
        z->freq[257 + lc]++;
        z->dfreq[dc]++;
        z->extra_bits += len_extra[lc] + dist_extra(dc);
        /* the pixels inside the match, into the table (dense: fill has done so) */
        if (!dense)
            for (size_t q = at + bpp; q + bpp <= at + len && q + 8 <= hi; q += bpp)
                z->head[hash(load64(p + q))] = (uint32_t)q;
        lit_start = at + len;
        /* to the first pixel at or after the match's end; at was a pixel's first byte, so
         * the end's phase in a pixel is len's, or col's in the next row */
        to_pixel(&i, &col, len, mod, row_bytes, bpp);
    }
    counts[0] = tries;
    counts[1] = matches;
    return lit_start;
}

/* Tokens and counts of bytes [lo, hi) of the stream p, rows of row_bytes bytes from 0 (the
 * filter type byte, then pixels of bpp bytes): at the first byte of each pixel, the last
 * earlier pixel with the same hash of its MIN_MATCH bytes is tried once; a match of at
 * least MIN_MATCH bytes is taken whole (greedy, up to 258 bytes and the block's end), else
 * the pixel's bytes are literals, and the next try is at the first pixel after the match.
 *
 * Two ways to the same kind of parse, chosen by how the last block went (the first block
 * of a stream as dense), so by the stream's bytes alone:
 * - dense (more than half the tries matched, as on rendered water): every pixel's
 *   candidate first (fill), then the parse, which then waits on no table: rain's 1080p
 *   frames take 8% less time than one pass;
 * - sparse (as over a photo, where most tries find nothing): one pass, the tried pixels
 *   and those inside matches entering the table as the parse goes, 5% faster there.
 * The candidates differ a little (dense: every pixel's latest), so the bytes do too. */
static void parse_block(rp_pngz *z, const uint8_t *p, size_t lo, size_t hi, size_t row_bytes,
                        unsigned bpp)
{
    uint32_t h[4][256];
    size_t lit_start;
    /* Positions from which 8 bytes can be read and a match of MIN_MATCH fits the block. */
    size_t last = hi >= lo + 8 ? hi - 8 : lo;
    size_t i = lo, col = lo % row_bytes; /* col: i's offset in its row */
    const int dense = z->dense;

    /* to the first pixel at or after lo */
    if (col == 0) {
        i++;
        col = 1;
    } else if ((col - 1) % bpp) {
        size_t skip = bpp - (col - 1) % bpp;
        i += skip;
        col += skip;
        if (col >= row_bytes) {
            col -= row_bytes;
            i += col == 0;
            col += col == 0;
        }
    }
    memset(h, 0, sizeof h);
    memset(z->freq, 0, sizeof z->freq);
    memset(z->dfreq, 0, sizeof z->dfreq);
    z->ntok = 0;
    z->extra_bits = 0;
    size_t counts[2] = {0, 0}; /* tries, matches */
    if (dense)
        lit_start = parse_loop(z, p, lo, hi, last, i, col, row_bytes, bpp, h, counts, 1);
    else
        lit_start = parse_loop(z, p, lo, hi, last, i, col, row_bytes, bpp, h, counts, 0);
    for (size_t k = lit_start; k < hi; k++)
        h[0][p[k]]++;
    z->tok[z->ntok++] = (token){(uint32_t)(hi - lit_start), 0, 0};
    for (int s = 0; s < 256; s++)
        z->freq[s] = h[0][s] + h[1][s] + h[2][s] + h[3][s];
    z->freq[EOB] = 1;
    z->dense = 2 * counts[1] > counts[0];
}

/* The code-length code's items: symbol (0..18) and its extra bits' value. */
typedef struct cl_item {
    uint8_t sym, extra;
} cl_item;

/* Run-length code lengths as RFC 1951 3.2.7 allows (16: repeat the last 3-6 times, 17: 3-10
 * zeros, 18: 11-138 zeros); returns the number of items. */
static int rle_lengths(const uint8_t *lens, int n, cl_item *items)
{
    int k = 0;
    for (int i = 0; i < n;) {
        int v = lens[i], r = 1;
        while (i + r < n && lens[i + r] == v)
            r++;
        i += r;
        if (v == 0) {
            while (r >= 11) {
                int t = r < 138 ? r : 138;
                items[k++] = (cl_item){18, (uint8_t)(t - 11)};
                r -= t;
            }
            if (r >= 3) {
                items[k++] = (cl_item){17, (uint8_t)(r - 3)};
                r = 0;
            }
        } else {
            items[k++] = (cl_item){(uint8_t)v, 0};
            r--;
            while (r >= 3) {
                int t = r < 6 ? r : 6;
                items[k++] = (cl_item){16, (uint8_t)(t - 3)};
                r -= t;
            }
        }
        while (r-- > 0)
            items[k++] = (cl_item){(uint8_t)v, 0};
    }
    return k;
}

static const uint8_t cl_extra_bits[19] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 7};

/* Write bytes [lo, hi) of p as stored blocks (the last one final when `final`). */
static void write_stored(bits *w, const uint8_t *p, size_t lo, size_t hi, int final)
{
    do {
        size_t n = hi - lo < 65535 ? hi - lo : 65535;
        put(w, (uint64_t)(final && lo + n == hi), 3); /* BFINAL, BTYPE 00 */
        align(w);
        w->out[0] = (uint8_t)n;
        w->out[1] = (uint8_t)(n >> 8);
        w->out[2] = (uint8_t)~n;
        w->out[3] = (uint8_t)(~n >> 8);
        memcpy(w->out + 4, p + lo, n);
        w->out += 4 + n;
        lo += n;
    } while (lo < hi);
}

/* n literals of p with codes tab (code | length << 16): four a flush, and at most three
 * more left in the buffer (42 bits, so the caller flushes before adding more than 15). */
static inline void put_literals(bits *w, const uint8_t *p, size_t n, const uint32_t *tab)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t a = tab[p[i]], b = tab[p[i + 1]], c = tab[p[i + 2]], d = tab[p[i + 3]];
        put(w, a & 0xffff, a >> 16);
        put(w, b & 0xffff, b >> 16);
        put(w, c & 0xffff, c >> 16);
        put(w, d & 0xffff, d >> 16);
        flush(w);
    }
    for (; i < n; i++)
        put(w, tab[p[i]] & 0xffff, tab[p[i]] >> 16);
}

/* A block's header with dynamic codes (RFC 1951, 3.2.7): BFINAL and BTYPE, the counts of
 * codes, the code-length code's lengths in cl_order, then the literal/length and distance
 * code lengths as the code-length code's items. */
static void write_header(bits *w, int final, int nlit, int ndist, int ncl, const uint8_t *cl_len,
                         const uint16_t *cl_code, const cl_item *items, int nitems)
{
    put(w, (uint64_t)(final ? 5 : 4), 3); /* BFINAL, BTYPE 10 */
    put(w, (uint64_t)(nlit - 257), 5);
    put(w, (uint64_t)(ndist - 1), 5);
    put(w, (uint64_t)(ncl - 4), 4);
    flush(w);
    for (int i = 0; i < ncl; i++) {
        put(w, cl_len[cl_order[i]], 3);
        flush(w);
    }
    for (int i = 0; i < nitems; i++) {
        int s = items[i].sym;
        put(w, cl_code[s], cl_len[s]);
        put(w, items[i].extra, cl_extra_bits[s]);
        flush(w);
    }
}

/* Write bytes [lo, hi) of the stream p as one block, the last when `final`. */
static void write_block(rp_pngz *z, bits *wp, const uint8_t *p, size_t lo, size_t hi, int final,
                        size_t row_bytes, unsigned bpp)
{
    /* The writer's state in a local: through wp, every byte stored (a uint8_t may alias
     * anything) would make the next bits wait for it to be read back from memory. */
    bits wl = *wp, *w = &wl;
    uint8_t lens[NLIT + NDIST], cl_len[19];
    uint16_t codes[NLIT], dcodes[NDIST], cl_code[19];
    uint32_t cl_freq[19] = {0}, lit[256], lenbits[259];
    cl_item items[NLIT + NDIST];

    parse_block(z, p, lo, hi, row_bytes, bpp);
    huffman_lengths(z->freq, NLIT, LIT_LIMIT, lens);
    int nlit = NLIT;
    while (nlit > 257 && lens[nlit - 1] == 0)
        nlit--;
    uint8_t *dlens = lens + nlit;
    huffman_lengths(z->dfreq, NDIST, 15, dlens);
    int ndist = NDIST;
    while (ndist > 1 && dlens[ndist - 1] == 0)
        ndist--;
    int nitems = rle_lengths(lens, nlit + ndist, items);
    for (int i = 0; i < nitems; i++)
        cl_freq[items[i].sym]++;
    huffman_lengths(cl_freq, 19, CL_LIMIT, cl_len);
    canonical_codes(cl_len, 19, cl_code);
    int ncl = 19;
    while (ncl > 4 && cl_len[cl_order[ncl - 1]] == 0)
        ncl--;

    /* The coded size in bits, against the stored one. */
    uint64_t cost = 3 + 5 + 5 + 4 + 3 * (uint64_t)ncl + z->extra_bits;
    for (int i = 0; i < nitems; i++)
        cost += cl_len[items[i].sym] + cl_extra_bits[items[i].sym];
    for (int s = 0; s < nlit; s++)
        cost += (uint64_t)z->freq[s] * lens[s];
    for (int s = 0; s < ndist; s++)
        cost += (uint64_t)z->dfreq[s] * dlens[s];
    size_t n = hi - lo;
    uint64_t stored = 8 * ((uint64_t)n + 5 * ((n + 65534) / 65535)) + 7;
    if (cost >= stored) {
        write_stored(w, p, lo, hi, final);
        *wp = wl;
        return;
    }

    write_header(w, final, nlit, ndist, ncl, cl_len, cl_code, items, nitems);

    canonical_codes(lens, nlit, codes);
    canonical_codes(dlens, ndist, dcodes);
    for (int s = 0; s < 256; s++)
        lit[s] = codes[s] | (uint32_t)lens[s] << 16;
    /* Each length's code and extra bits as one value (at most 19 bits), its size above. */
    for (unsigned len = 3; len <= 258; len++) {
        unsigned lc = z->len_lut[len];
        lenbits[len] = (codes[257 + lc] | (len - len_base[lc]) << lens[257 + lc]) |
                       (uint32_t)(lens[257 + lc] + len_extra[lc]) << 24;
    }
    /* Each distance code's code, its length and its length with the extra bits, and the
     * code's first distance, for the tokens' codes. */
    uint32_t distbits[NDIST];
    uint16_t dbase[NDIST];
    for (int c = 0; c < NDIST; c++) {
        unsigned l = c < ndist ? dlens[c] : 0;
        distbits[c] = (c < ndist ? dcodes[c] : 0) | l << 16 | (l + dist_extra((unsigned)c)) << 24;
        dbase[c] = (uint16_t)dist_base((unsigned)c);
    }
    const uint8_t *b = p + lo;
    for (int t = 0; t < z->ntok; t++) {
        const token *tk = &z->tok[t];
        uint32_t lits = tk->lits_dc & 0xffffff, dc = tk->lits_dc >> 24;
        put_literals(w, b, lits, lit);
        b += lits;
        if (!tk->len)
            break;
        flush(w);
        /* the length's bits (at most 19), then the distance's (at most 28), in one put: with
         * at most 7 bits left by the flush, 54 */
        uint32_t lb = lenbits[tk->len], db = distbits[dc];
        uint64_t dv = (db & 0xffff) | (uint64_t)(tk->dist - dbase[dc]) << ((db >> 16) & 0xff);
        put(w, (lb & 0xffffff) | dv << (lb >> 24), (lb >> 24) + (db >> 24));
        flush(w);
        b += tk->len;
    }
    flush(w);
    put(w, codes[EOB], lens[EOB]);
    flush(w);
    *wp = wl;
}

/* ---- the stream ------------------------------------------------------------------------- */

rp_pngz *rp_pngz_new(void)
{
    rp_pngz *z = malloc(sizeof *z);
    if (!z)
        return NULL;
    for (unsigned len = 3, c = 0; len <= 258; len++) {
        while (c < 28 && len_base[c + 1] <= len)
            c++;
        z->len_lut[len] = (uint8_t)c;
    }
    for (unsigned b = 1; b <= 8; b++)
        for (unsigned v = 0; v < 259; v++)
            z->mod[b][v] = (uint8_t)(v % b);
    return z;
}

void rp_pngz_free(rp_pngz **z)
{
    if (z) {
        free(*z);
        *z = NULL;
    }
}

size_t rp_pngz_bound(size_t n)
{
    /* zlib's 2 + 4 bytes; a block at most its stored size: 5 bytes of header for each
     * stored block of up to 65535 bytes, fewer than n / 32768 + 1 of them however rows cut
     * the blocks; 8 bytes of room for the bit writer's last store. */
    return n + 12 * (n / 32768 + 1) + 32;
}

size_t rp_pngz_compress(rp_pngz *z, const uint8_t *rows, size_t row_bytes, size_t height,
                        unsigned bpp, uint8_t *out, size_t cap)
{
    size_t n = row_bytes * height;
    bits w = {out + 2, 0, 0};

    if (height && row_bytes > SIZE_MAX / height)
        return 0;
    if (n > UINT32_MAX || cap < rp_pngz_bound(n) || bpp < 1 || bpp > 8)
        return 0;
    /* nothing from an earlier stream (which a thread compressed before): no match into it,
     * no candidate left in the ring, the first block parsed as dense */
    memset(z->head, 0, sizeof z->head);
    memset(z->ring, 0, sizeof z->ring);
    z->dense = 1;
    out[0] = 0x78; /* deflate, 32 KiB window */
    out[1] = 0x01; /* fastest; (0x78 << 8 | 0x01) % 31 == 0 */
    if (n == 0)
        write_stored(&w, rows, 0, 0, 1);
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        /* whole rows where they fit, BLOCK bytes at most */
        hi = n - lo > BLOCK ? lo + BLOCK : n;
        if (hi < n && hi / row_bytes * row_bytes > lo)
            hi = hi / row_bytes * row_bytes;
        write_block(z, &w, rows, lo, hi, hi == n, row_bytes, bpp);
    }
    align(&w);
    uint32_t adler = libdeflate_adler32(1, rows, n);
    w.out[0] = (uint8_t)(adler >> 24);
    w.out[1] = (uint8_t)(adler >> 16);
    w.out[2] = (uint8_t)(adler >> 8);
    w.out[3] = (uint8_t)adler;
    return (size_t)(w.out + 4 - out);
}
