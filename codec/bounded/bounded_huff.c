/* Canonical Huffman coding of the codes, one codebook per chunk, the codes cut into segments that
 * decode independently (a run of zeros never crosses a segment's end, each segment's bit length
 * goes into the chunk's table). Bits are written LSB first; code words are stored bit-reversed so
 * the decoder looks them up in the low bits of a 64-bit window. */
#include <stdlib.h>
#include <string.h>

#include "bounded.h"

#define SYM_ESCAPE 0u
#define SYM_ZERO (1u + PARZ_BOUNDED_RUNS + PARZ_BOUNDED_RADIUS)
#define TABLE_BITS 12

/* One token of the code stream: a symbol and the raw bits after it. */
typedef struct {
  uint32_t sym;
  uint32_t extra;
  unsigned extra_bits;
  size_t advance; /* codes consumed */
} token;

static token next_token(const int32_t* codes, size_t i, size_t end, int runs) {
  token t;
  int32_t v = codes[i];
  t.advance = 1;
  t.extra = 0;
  t.extra_bits = 0;
  if (v == 0 && runs) {
    size_t j = i + 1;
    while (j < end && codes[j] == 0)
      j++;
    size_t len = j - i;
    if (len >= 2) {
      unsigned k = 0;
      while ((len >> (k + 1)) != 0)
        k++;
      if (k > PARZ_BOUNDED_RUNS)
        k = PARZ_BOUNDED_RUNS;
      if (len >= ((size_t)2 << k))
        len = ((size_t)2 << k) - 1; /* longest run of symbol k */
      t.sym = k;
      t.extra = (uint32_t)(len - ((size_t)1 << k));
      t.extra_bits = k;
      t.advance = len;
      return t;
    }
  }
  if (v >= -PARZ_BOUNDED_RADIUS && v <= PARZ_BOUNDED_RADIUS) {
    t.sym = (uint32_t)((int64_t)SYM_ZERO + v);
  } else {
    t.sym = SYM_ESCAPE;
    t.extra = v < 0 ? ~((uint32_t)v << 1) : (uint32_t)v << 1; /* zig-zag */
    t.extra_bits = 32;
  }
  return t;
}

void parz_bounded_count_symbols(const int32_t* codes, size_t n, size_t seg, uint64_t* plain,
                                uint64_t* runs) {
  if (plain)
    memset(plain, 0, PARZ_BOUNDED_SYMBOLS * sizeof *plain);
  if (runs)
    memset(runs, 0, PARZ_BOUNDED_SYMBOLS * sizeof *runs);
  for (size_t s0 = 0; s0 < n; s0 += seg) {
    size_t end = s0 + seg < n ? s0 + seg : n;
    for (size_t i = s0; i < end;) {
      token t = next_token(codes, i, end, 1);
      if (runs)
        runs[t.sym]++;
      if (plain) {
        if (t.sym >= 1 && t.sym <= PARZ_BOUNDED_RUNS)
          plain[SYM_ZERO] += t.advance;
        else
          plain[t.sym]++;
      }
      i += t.advance;
    }
  }
}

/* ---------------- building the code ---------------- */

typedef struct {
  uint64_t w;
  uint32_t sym;
} weighted;

static int by_weight(const void* a, const void* b) {
  const weighted *x = (const weighted*)a, *y = (const weighted*)b;
  if (x->w != y->w)
    return x->w < y->w ? -1 : 1;
  return x->sym < y->sym ? -1 : (x->sym > y->sym);
}

/* Huffman code lengths of m weights sorted ascending (two-queue method); returns the longest. */
static unsigned huffman_lengths(const weighted* leaf, size_t m, uint8_t* out_len, uint64_t* nw,
                                size_t* parent) {
  /* nodes 0..m-1 leaves, m..2m-2 internal (created in order of increasing weight) */
  size_t li = 0, ni = m, nn = m;
  for (size_t k = 0; k + 1 < m; k++) {
    size_t pick[2];
    for (int j = 0; j < 2; j++) {
      if (li < m && (ni >= nn || leaf[li].w <= nw[ni])) {
        pick[j] = li++;
      } else {
        pick[j] = ni++;
      }
    }
    uint64_t wa = pick[0] < m ? leaf[pick[0]].w : nw[pick[0]];
    uint64_t wb = pick[1] < m ? leaf[pick[1]].w : nw[pick[1]];
    nw[nn] = wa + wb;
    parent[pick[0]] = nn;
    parent[pick[1]] = nn;
    nn++;
  }
  /* depths: root is 2m-2; parents have higher indices than their children */
  uint8_t* depth = (uint8_t*)calloc(2 * m, 1);
  unsigned longest = 0;
  if (!depth)
    return 255;
  for (size_t v = 2 * m - 2; v-- > 0;) {
    unsigned d = depth[parent[v]] + 1u;
    depth[v] = (uint8_t)(d > 255 ? 255 : d);
  }
  for (size_t i = 0; i < m; i++) {
    out_len[i] = depth[i];
    if (depth[i] > longest)
      longest = depth[i];
  }
  free(depth);
  return longest;
}

/* Canonical codes from lengths: shorter first, then by symbol. */
static void assign_codes(parz_bounded_book* book) {
  unsigned count[PARZ_BOUNDED_MAX_LEN + 1] = {0};
  uint32_t next[PARZ_BOUNDED_MAX_LEN + 2];
  for (uint32_t s = 0; s < PARZ_BOUNDED_SYMBOLS; s++)
    if (book->len[s])
      count[book->len[s]]++;
  uint32_t code = 0;
  for (unsigned l = 1; l <= PARZ_BOUNDED_MAX_LEN; l++) {
    code = (code + count[l - 1]) << 1;
    next[l] = code;
  }
  for (uint32_t s = 0; s < PARZ_BOUNDED_SYMBOLS; s++) {
    unsigned l = book->len[s];
    if (!l) {
      book->code[s] = 0;
      continue;
    }
    uint32_t c = next[l]++, r = 0;
    for (unsigned b = 0; b < l; b++)
      r |= ((c >> b) & 1u) << (l - 1 - b);
    book->code[s] = r;
  }
}

int parz_bounded_book_build(const uint64_t* freq, parz_bounded_book* book, parz_error* err) {
  size_t m = 0;
  for (uint32_t s = 0; s < PARZ_BOUNDED_SYMBOLS; s++)
    m += freq[s] != 0;
  memset(book->len, 0, PARZ_BOUNDED_SYMBOLS);
  if (m == 0)
    return parz_fail(err, PARZ_ERR_ARG, "bounded: no symbol to code");
  weighted* leaf = (weighted*)malloc(m * sizeof *leaf);
  uint64_t* nw = (uint64_t*)malloc(2 * m * sizeof *nw);
  size_t* parent = (size_t*)malloc(2 * m * sizeof *parent);
  uint8_t* len = (uint8_t*)malloc(m);
  if (!leaf || !nw || !parent || !len) {
    free(leaf), free(nw), free(parent), free(len);
    return parz_fail(err, PARZ_ERR_NOMEM, "bounded: no memory for a code of %zu symbols", m);
  }
  size_t j = 0;
  for (uint32_t s = 0; s < PARZ_BOUNDED_SYMBOLS; s++)
    if (freq[s])
      leaf[j++] = (weighted){freq[s], s};
  if (m == 1) {
    len[0] = 1;
  } else {
    /* Flatten the weights until the longest code fits: each round halves the spread. */
    for (;;) {
      qsort(leaf, m, sizeof *leaf, by_weight);
      if (huffman_lengths(leaf, m, len, nw, parent) <= PARZ_BOUNDED_MAX_LEN)
        break;
      for (size_t i = 0; i < m; i++)
        leaf[i].w = (leaf[i].w >> 1) | 1u;
    }
  }
  for (size_t i = 0; i < m; i++)
    book->len[leaf[i].sym] = len[i];
  free(leaf), free(nw), free(parent), free(len);
  assign_codes(book);
  return PARZ_OK;
}

/* ---------------- encoding ---------------- */

typedef struct {
  uint8_t* out;
  size_t cap, at; /* bytes */
  uint64_t acc;
  unsigned fill;
  int overflow;
  uint64_t bits;
} bit_writer;

/* Bytes of the accumulator out, little-endian. */
static void put_bytes(bit_writer* w, unsigned bytes) {
  if (w->at + bytes > w->cap) {
    w->overflow = 1;
    return;
  }
  for (unsigned i = 0; i < bytes; i++)
    w->out[w->at++] = (uint8_t)(w->acc >> (8 * i));
}

/* v has at most n <= 32 bits; the accumulator holds fewer than 32 between calls. */
static void put_bits(bit_writer* w, uint64_t v, unsigned n) {
  w->acc |= v << w->fill;
  w->fill += n;
  w->bits += n;
  if (w->fill >= 32) {
    put_bytes(w, 4);
    w->acc >>= 32;
    w->fill -= 32;
  }
}

/* The bits left, zero-padded to a byte. */
static void flush_bits(bit_writer* w) {
  put_bytes(w, (w->fill + 7) / 8);
  w->acc = 0;
  w->fill = 0;
}

size_t parz_bounded_encode(const int32_t* codes, size_t n, size_t seg, int runs,
                           const parz_bounded_book* book, uint8_t* out, size_t cap,
                           uint64_t* seg_bits) {
  bit_writer w = {out, cap, 0, 0, 0, 0, 0};
  size_t si = 0;
  for (size_t s0 = 0; s0 < n; s0 += seg, si++) {
    uint64_t start = w.bits;
    size_t end = s0 + seg < n ? s0 + seg : n;
    for (size_t i = s0; i < end;) {
      token t = next_token(codes, i, end, runs);
      unsigned l = book->len[t.sym];
      if (!l)
        return (size_t)-1; /* the book was not built from these codes */
      put_bits(&w, book->code[t.sym], l);
      if (t.extra_bits)
        put_bits(&w, t.extra, t.extra_bits);
      i += t.advance;
    }
    seg_bits[si] = w.bits - start;
  }
  uint64_t total = w.bits;
  flush_bits(&w);
  if (w.overflow)
    return (size_t)-1;
  return (size_t)total;
}

/* ---------------- decoding ---------------- */

struct parz_bounded_decoder {
  uint32_t table[1u << TABLE_BITS]; /* sym << 5 | len; len 0: longer than TABLE_BITS */
  uint32_t first[PARZ_BOUNDED_MAX_LEN + 2];
  uint32_t count[PARZ_BOUNDED_MAX_LEN + 2];
  uint32_t index[PARZ_BOUNDED_MAX_LEN + 2];
  uint32_t* sorted; /* symbols by (length, symbol) */
};

parz_bounded_decoder* parz_bounded_decoder_new(const parz_bounded_book* book, parz_error* err) {
  parz_bounded_decoder* d = (parz_bounded_decoder*)calloc(1, sizeof *d);
  size_t m = 0;
  for (uint32_t s = 0; s < PARZ_BOUNDED_SYMBOLS; s++)
    m += book->len[s] != 0;
  if (d)
    d->sorted = (uint32_t*)malloc((m ? m : 1) * sizeof *d->sorted);
  if (!d || !d->sorted) {
    if (d)
      free(d);
    parz_fail(err, PARZ_ERR_NOMEM, "bounded: no memory for a decoder of %zu symbols", m);
    return NULL;
  }
  for (uint32_t s = 0; s < PARZ_BOUNDED_SYMBOLS; s++)
    if (book->len[s])
      d->count[book->len[s]]++;
  uint32_t code = 0, idx = 0;
  for (unsigned l = 1; l <= PARZ_BOUNDED_MAX_LEN; l++) {
    code = l == 1 ? 0 : (code + d->count[l - 1]) << 1;
    d->first[l] = code;
    d->index[l] = idx;
    idx += d->count[l];
  }
  uint32_t fillpos[PARZ_BOUNDED_MAX_LEN + 2];
  memcpy(fillpos, d->index, sizeof fillpos);
  for (uint32_t s = 0; s < PARZ_BOUNDED_SYMBOLS; s++) {
    unsigned l = book->len[s];
    if (!l)
      continue;
    d->sorted[fillpos[l]++] = s;
    if (l <= TABLE_BITS)
      for (uint32_t hi = 0; hi < (1u << (TABLE_BITS - l)); hi++)
        d->table[book->code[s] | (hi << l)] = s << 5 | l;
  }
  return d;
}

void parz_bounded_decoder_free(parz_bounded_decoder* d) {
  if (d)
    free(d->sorted);
  free(d);
}

/* 57 or more bits from bit position pos; bytes past the payload read as zeros. */
static uint64_t peek(const uint8_t* p, size_t bytes, uint64_t pos) {
  size_t b = (size_t)(pos >> 3);
  uint64_t w = 0;
  if (b + 8 <= bytes) {
    memcpy(&w, p + b, 8); /* little-endian hosts; the byte loop below is the portable form */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
  } else {
    for (size_t i = 0; i < 8 && b + i < bytes; i++)
      w |= (uint64_t)p[b + i] << (8 * i);
  }
  return w >> (pos & 7);
}

int parz_bounded_decode_segment(const parz_bounded_decoder* d, const uint8_t* payload,
                                size_t payload_bytes, uint64_t bit0, uint64_t nbits, int32_t* codes,
                                size_t count, size_t index, parz_error* err) {
  uint64_t end = bit0 + nbits;
  if (nbits > (uint64_t)payload_bytes * 8 || bit0 > (uint64_t)payload_bytes * 8 - nbits)
    return parz_fail(err, PARZ_ERR_STREAM,
                     "bounded: segment %zu's bits %llu+%llu pass the payload's %zu bytes", index,
                     (unsigned long long)bit0, (unsigned long long)nbits, payload_bytes);
  uint64_t pos = bit0;
  size_t i = 0;
  while (i < count) {
    if (pos >= end)
      return parz_fail(err, PARZ_ERR_STREAM, "bounded: segment %zu ends after %zu of its %zu codes",
                       index, i, count);
    uint64_t w = peek(payload, payload_bytes, pos);
    uint32_t e = d->table[w & ((1u << TABLE_BITS) - 1)];
    uint32_t sym;
    unsigned l = e & 31u;
    if (l) {
      sym = e >> 5;
    } else {
      uint32_t code = 0;
      sym = UINT32_MAX;
      for (l = 1; l <= PARZ_BOUNDED_MAX_LEN; l++) {
        code = code << 1 | (uint32_t)((w >> (l - 1)) & 1u);
        if (code - d->first[l] < d->count[l]) {
          sym = d->sorted[d->index[l] + code - d->first[l]];
          break;
        }
      }
      if (sym == UINT32_MAX)
        return parz_fail(err, PARZ_ERR_STREAM,
                         "bounded: segment %zu, code %zu: bits not a code word of the book", index,
                         i);
    }
    pos += l;
    w >>= l;
    if (sym == SYM_ESCAPE) {
      uint32_t z = (uint32_t)(peek(payload, payload_bytes, pos) & 0xFFFFFFFFu);
      pos += 32;
      int64_t v = (z & 1u) ? -(int64_t)(z >> 1) - 1 : (int64_t)(z >> 1);
      codes[i++] = (int32_t)v;
    } else if (sym <= PARZ_BOUNDED_RUNS) {
      size_t run = ((size_t)1 << sym) + (size_t)(sym ? (w & (((uint64_t)1 << sym) - 1)) : 0);
      pos += sym;
      if (sym == 0 || run > count - i)
        return parz_fail(err, PARZ_ERR_STREAM,
                         "bounded: segment %zu, code %zu: run of %zu zeros passes its %zu codes",
                         index, i, run, count);
      memset(codes + i, 0, run * sizeof *codes);
      i += run;
    } else {
      codes[i++] = (int32_t)((int64_t)sym - SYM_ZERO);
    }
  }
  if (pos != end)
    return parz_fail(err, PARZ_ERR_STREAM,
                     "bounded: segment %zu's codes end at bit %llu of its %llu", index,
                     (unsigned long long)(pos - bit0), (unsigned long long)nbits);
  return PARZ_OK;
}

uint64_t parz_bounded_coded_bits(const uint64_t* freq, const parz_bounded_book* book) {
  uint64_t bits = freq[SYM_ESCAPE] * (book->len[SYM_ESCAPE] + 32u);
  for (uint32_t s = 1; s < PARZ_BOUNDED_SYMBOLS; s++)
    bits += freq[s] * (book->len[s] + (s <= PARZ_BOUNDED_RUNS ? s : 0u));
  return bits;
}

/* ---------------- codebook bytes ---------------- */

static size_t put_varint(uint8_t* out, size_t cap, size_t at, uint32_t v) {
  do {
    if (at >= cap)
      return 0;
    out[at++] = (uint8_t)((v & 0x7Fu) | (v >= 0x80u ? 0x80u : 0u));
    v >>= 7;
  } while (v);
  return at;
}

static int get_varint(const uint8_t* in, size_t size, size_t* at, uint32_t* v) {
  uint64_t r = 0;
  for (unsigned shift = 0; shift < 35; shift += 7) {
    if (*at >= size)
      return 0;
    uint8_t b = in[(*at)++];
    r |= (uint64_t)(b & 0x7Fu) << shift;
    if (!(b & 0x80u)) {
      if (r > 0xFFFFFFFFu)
        return 0;
      *v = (uint32_t)r;
      return 1;
    }
  }
  return 0;
}

/* The codebook: a varint span (symbols 0..span-1 are described), then each symbol's code length
 * as a bit code relative to the previous length, LSB first, padded to a byte:
 *   0                 the previous length again
 *   1 0 s             the previous length + 1 (s = 0) or - 1 (s = 1)
 *   1 1 0 l[5]        length l (0 = unused)
 *   1 1 1 k[5] r[k]   2^k + r unused symbols (the previous length is kept)
 * Lengths change slowly over the residuals, so most symbols cost 1 to 3 bits. */
size_t parz_bounded_book_write(const parz_bounded_book* book, uint8_t* out, size_t cap) {
  uint32_t span = 0;
  for (uint32_t s = 0; s < PARZ_BOUNDED_SYMBOLS; s++)
    if (book->len[s])
      span = s + 1;
  size_t at = put_varint(out, cap, 0, span);
  if (!at)
    return 0;
  bit_writer w = {out, cap, at, 0, 0, 0, 0};
  unsigned prev = 0;
  for (uint32_t s = 0; s < span;) {
    unsigned l = book->len[s];
    if (l == 0) {
      uint32_t r = 1;
      while (s + r < span && book->len[s + r] == 0)
        r++;
      unsigned k = 0;
      while ((r >> (k + 1)) != 0)
        k++;
      put_bits(&w, 7u, 3);
      put_bits(&w, k, 5);
      put_bits(&w, r - (1u << k), k);
      s += r;
      continue;
    }
    if (l == prev) {
      put_bits(&w, 0u, 1);
    } else if (l == prev + 1 || l + 1 == prev) {
      put_bits(&w, l == prev + 1 ? 1u : 5u, 3);
    } else {
      put_bits(&w, 3u, 3);
      put_bits(&w, l, 5);
    }
    prev = l;
    s++;
  }
  flush_bits(&w);
  return w.overflow ? 0 : w.at;
}

/* Bits of the codebook, refused past its end. */
typedef struct {
  const uint8_t* p;
  size_t bytes;
  uint64_t pos;
} book_reader;

static int book_bits(book_reader* r, unsigned n, uint32_t* v) {
  if (r->pos + n > (uint64_t)r->bytes * 8)
    return 0;
  *v = n ? (uint32_t)(peek(r->p, r->bytes, r->pos) & ((1ull << n) - 1)) : 0;
  r->pos += n;
  return 1;
}

int parz_bounded_book_read(const uint8_t* in, size_t size, parz_bounded_book* book, size_t* used,
                           parz_error* err) {
  size_t at = 0;
  uint32_t span = 0;
  memset(book->len, 0, PARZ_BOUNDED_SYMBOLS);
  if (!get_varint(in, size, &at, &span))
    return parz_fail(err, PARZ_ERR_STREAM, "bounded codebook: span cut off (%zu bytes)", size);
  if (span == 0 || span > PARZ_BOUNDED_SYMBOLS)
    return parz_fail(err, PARZ_ERR_STREAM, "bounded codebook: span %u, not 1..%u", span,
                     (unsigned)PARZ_BOUNDED_SYMBOLS);
  book_reader r = {in + at, size - at, 0};
  unsigned prev = 0;
  uint32_t m = 0, v = 0;
  uint64_t kraft = 0; /* sum of 2^(MAX_LEN - len) */
  for (uint32_t s = 0; s < span;) {
    if (!book_bits(&r, 1, &v))
      return parz_fail(err, PARZ_ERR_STREAM, "bounded codebook: cut off at symbol %u of %u", s,
                       span);
    unsigned l = prev;
    if (v) {
      uint32_t kind, sign;
      if (!book_bits(&r, 1, &kind))
        return parz_fail(err, PARZ_ERR_STREAM, "bounded codebook: cut off at symbol %u", s);
      if (!kind) {
        if (!book_bits(&r, 1, &sign))
          return parz_fail(err, PARZ_ERR_STREAM, "bounded codebook: cut off at symbol %u", s);
        l = sign ? prev - 1 : prev + 1;
        if ((sign && prev < 2) || l > PARZ_BOUNDED_MAX_LEN)
          return parz_fail(err, PARZ_ERR_STREAM,
                           "bounded codebook: symbol %u's length steps from %u out of 1..%u", s,
                           prev, (unsigned)PARZ_BOUNDED_MAX_LEN);
      } else {
        uint32_t run, x;
        if (!book_bits(&r, 1, &run) || !book_bits(&r, 5, &x))
          return parz_fail(err, PARZ_ERR_STREAM, "bounded codebook: cut off at symbol %u", s);
        if (run) {
          uint32_t extra;
          if (x > 24 || !book_bits(&r, x, &extra))
            return parz_fail(err, PARZ_ERR_STREAM,
                             "bounded codebook: run at symbol %u with %u bits refused", s, x);
          uint64_t count = ((uint64_t)1 << x) + extra;
          if (count > span - s)
            return parz_fail(err, PARZ_ERR_STREAM,
                             "bounded codebook: run of %llu unused symbols at %u passes span %u",
                             (unsigned long long)count, s, span);
          s += (uint32_t)count;
          continue;
        }
        if (x > PARZ_BOUNDED_MAX_LEN)
          return parz_fail(err, PARZ_ERR_STREAM, "bounded codebook: length %u of symbol %u > %u", x,
                           s, (unsigned)PARZ_BOUNDED_MAX_LEN);
        l = x;
      }
    }
    book->len[s] = (uint8_t)l;
    if (l) {
      m++;
      kraft += (uint64_t)1 << (PARZ_BOUNDED_MAX_LEN - l);
    }
    prev = l;
    s++;
  }
  uint64_t full = (uint64_t)1 << PARZ_BOUNDED_MAX_LEN;
  if (m == 0)
    return parz_fail(err, PARZ_ERR_STREAM, "bounded codebook: no symbol is used");
  if (kraft > full)
    return parz_fail(err, PARZ_ERR_STREAM,
                     "bounded codebook: over-subscribed (Kraft sum %llu/%llu)",
                     (unsigned long long)kraft, (unsigned long long)full);
  if (kraft < full && !(m == 1 && kraft == full / 2))
    return parz_fail(err, PARZ_ERR_STREAM, "bounded codebook: incomplete (Kraft sum %llu/%llu)",
                     (unsigned long long)kraft, (unsigned long long)full);
  assign_codes(book);
  *used = at + (size_t)((r.pos + 7) / 8);
  return PARZ_OK;
}
