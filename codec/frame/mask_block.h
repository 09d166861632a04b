/* Mask records (internal, header-only; C99 and CUDA C++ like block_common.h, so that the CUDA
 * decoder reads and applies records with this very code). codec/FORMAT.md, "Mask", is the spec.
 *
 * A record covers one or more blocks of one mask group: a run of blocks whose every value is
 * masked with one value, or one block with a bitmap of its masked values. Decoders apply a record
 * to a decoded block (4^d raw values, zfp's order) before storing it, so the masked values land
 * with the rest of the block (the CPU decoders with parz_mask_apply). Readers of a validated section (parz_mask_validate) may trust
 * every record; the reader below still never reads past `end`. */
#ifndef PARZ_MASK_BLOCK_H
#define PARZ_MASK_BLOCK_H

#include "block_common.h"

/* The section's own header: u32 G (blocks per group), u32 V (values), u64 R (record bytes). */
#define PARZ_MASK_HEAD_BYTES 16u
#define PARZ_MASK_MAX_GROUP_BLOCKS 65536u
#define PARZ_MASK_RUN 0u    /* record kind: a run of wholly masked blocks */
#define PARZ_MASK_BITMAP 1u /* record kind: one block and the bitmap of its masked values */
#define PARZ_MASK_MAX_VALUES 256u
#define PARZ_MASK_VARINT_MAX 10u

/* Bytes of `records` bytes of records with the zero padding that ends them on a multiple of 8. */
PARZ_HD size_t parz_mask_records_padded(size_t records) { return (records + 7u) & ~(size_t)7u; }

/* Bytes of a rank-dims block's bitmap: 4^dims bits, at least one byte. */
PARZ_HD unsigned parz_mask_bitmap_bytes(unsigned dims) {
  return dims == 1 ? 1u : 1u << (2 * dims - 3);
}

/* An unsigned LEB128 varint at *p, at most 10 bytes, none at or past end: its value in *v, *p
 * moved past it. 0 (nothing moved) when it runs past end, is longer, or exceeds 64 bits. */
PARZ_HD int parz_mask_varint(const unsigned char** p, const unsigned char* end, uint64_t* v) {
  const unsigned char* q = *p;
  uint64_t x = 0;
  unsigned i;
  for (i = 0; i < PARZ_MASK_VARINT_MAX && q < end; i++, q++) {
    const uint64_t b = *q;
    if (i == PARZ_MASK_VARINT_MAX - 1 && b > 1u)
      return 0; /* bits beyond the 64th */
    x |= (b & 0x7fu) << (7 * i);
    if (!(b & 0x80u)) {
      *p = q + 1;
      *v = x;
      return 1;
    }
  }
  return 0;
}

/* Set bits among the first n bytes of a bitmap. */
PARZ_HD unsigned parz_mask_popcount(const unsigned char* bitmap, unsigned n) {
  unsigned i, c = 0;
  for (i = 0; i < n; i++) {
    unsigned b = bitmap[i];
    b = b - ((b >> 1) & 0x55u);
    b = (b & 0x33u) + ((b >> 2) & 0x33u);
    c += (b + (b >> 4)) & 0x0fu;
  }
  return c;
}

/* One record, as read at `at`. */
typedef struct {
  uint64_t skip;               /* blocks between the group's cursor and the record's first */
  uint64_t count;              /* blocks it covers (1 for a bitmap record) */
  unsigned kind;               /* PARZ_MASK_RUN or PARZ_MASK_BITMAP */
  const unsigned char* bitmap; /* PARZ_MASK_BITMAP: parz_mask_bitmap_bytes(dims) bytes */
  const unsigned char* index;  /* with more than one value: the value index byte(s) */
  const unsigned char* next;   /* the byte after the record */
} parz_mask_record;

/* Reads the record at `at` (none of it at or past end) of a mask with nvalues values; 0 when it
 * does not fit before end or its fields are malformed (the limits on skip and count are the
 * caller's). */
PARZ_HD int parz_mask_read(const unsigned char* at, const unsigned char* end, unsigned dims,
                           unsigned nvalues, parz_mask_record* r) {
  uint64_t h, m;
  size_t left, need;
  const unsigned char* p = at;
  if (!parz_mask_varint(&p, end, &h))
    return 0;
  r->skip = h >> 1;
  r->kind = (unsigned)(h & 1u);
  r->bitmap = 0;
  if (r->kind == PARZ_MASK_RUN) {
    if (!parz_mask_varint(&p, end, &m) || m == ~(uint64_t)0)
      return 0;
    r->count = m + 1u;
    need = nvalues > 1 ? 1u : 0u;
  } else {
    const unsigned n = parz_mask_bitmap_bytes(dims);
    if ((size_t)(end - p) < n)
      return 0;
    r->count = 1;
    r->bitmap = p;
    p += n;
    need = nvalues > 1 ? parz_mask_popcount(r->bitmap, n) : 0u;
  }
  left = (size_t)(end - p);
  if (left < need)
    return 0;
  r->index = p;
  r->next = p + need;
  return 1;
}

/* A varint of at most three bytes from b[0..2] (the bytes at its place, zero past the
 * records): its value, and its length in *len; 0 in *len when it is longer. */
PARZ_HD uint32_t parz_mask_varint3(const uint32_t* b, uint32_t* len) {
  const uint32_t c0 = b[0] >> 7, c1 = c0 & (b[1] >> 7);
  *len = (c1 & (b[2] >> 7)) ? 0u : 1u + c0 + c1;
  return (b[0] & 0x7fu) | (c0 ? (b[1] & 0x7fu) << 7 : 0u) | (c1 ? (b[2] & 0x7fu) << 14 : 0u);
}

/* One step of a walk over a group's records: the record at offset `at` of recs (n bytes, none
 * read at or past n) skips *skip blocks and covers *count; returns the offset of the next
 * record. Returns 0 (no record ends there) where parz_mask_read must decide: a varint of more
 * than three bytes (values from 2^21, beyond any group's blocks), or a record that does not fit.
 * The same fields as parz_mask_read's, in fewer dependent steps: the bytes that the varints can
 * take are read at once and the record's length follows from them by selects. A walk's records
 * follow one another, so the GPU's expansion of a group (gpu/mask.cuh) lasts as long as this
 * step's chain times the group's records. */
PARZ_HD uint32_t parz_mask_hop(const unsigned char* recs, uint32_t n, uint32_t at, unsigned dims,
                               unsigned nvalues, uint32_t* skip, uint32_t* count) {
  uint32_t b[6], hl, cl, h, i, next;
  for (i = 0; i < 6; i++)
    b[i] = at + i < n ? recs[at + i] : 0u;
  h = parz_mask_varint3(b, &hl);
  if (!hl)
    return 0;
  *skip = h >> 1;
  if (h & 1u) { /* PARZ_MASK_BITMAP */
    const uint32_t nb = parz_mask_bitmap_bytes(dims);
    next = at + hl + nb;
    if (next > n || next < at)
      return 0;
    if (nvalues > 1)
      next += parz_mask_popcount(recs + at + hl, nb);
    *count = 1;
  } else { /* PARZ_MASK_RUN: the count's varint right after the header's */
    const uint32_t c[3] = {hl == 1   ? b[1]
                           : hl == 2 ? b[2]
                                     : b[3],
                           hl == 1   ? b[2]
                           : hl == 2 ? b[3]
                                     : b[4],
                           hl == 1   ? b[3]
                           : hl == 2 ? b[4]
                                     : b[5]};
    *count = parz_mask_varint3(c, &cl) + 1u;
    if (!cl)
      return 0;
    next = at + hl + cl + (nvalues > 1 ? 1u : 0u);
  }
  return next <= n && next > at ? next : 0u;
}

/* Whether bits is a NaN of the type (every exponent bit set, a nonzero fraction); integers have
 * none. */
PARZ_HD int parz_mask_is_nan(parz_type type, uint64_t bits) {
  return type == PARZ_FLOAT ? (bits & 0x7fffffffu) > 0x7f800000u
         : type == PARZ_DOUBLE
             ? (bits & UINT64_C(0x7fffffffffffffff)) > UINT64_C(0x7ff0000000000000)
             : 0;
}

/* Writes v as a varint at p (p NULL: only counts); returns its bytes. */
PARZ_HD unsigned parz_mask_put_varint(unsigned char* p, uint64_t v) {
  unsigned n = 0;
  do {
    unsigned char b = (unsigned char)(v & 0x7fu);
    v >>= 7;
    if (v)
      b |= 0x80u;
    if (p)
      p[n] = b;
    n++;
  } while (v);
  return n;
}

/* States of a block's positions while its stand-ins are found. */
#define PARZ_MASK_ABSENT 0u /* outside the array */
#define PARZ_MASK_HOLE 1u   /* masked or an exception */
#define PARZ_MASK_KNOWN 2u

/* Fills the holes of one rank-dims block (val and st indexed by position x + 4y + 16z + 64w,
 * 4^dims of each; e[a] the block's extent along axis a, x first): with no known value every
 * hole is 0; otherwise, axis by axis from x, each line holding a known value gives each of its
 * holes the value of the nearest entry known before the line was done (the lower one on a tie).
 * After the last axis every entry is known (a line along an axis holds a known value whenever
 * the block does). Every encoder's stand-ins (FORMAT.md, "Mask"). */
PARZ_HD void parz_mask_fill_holes(uint64_t* val, unsigned char* st, const unsigned* e,
                                  unsigned dims) {
  const unsigned n = 1u << (2 * dims);
  unsigned a, i, known = 0;
  for (i = 0; i < n; i++)
    known += st[i] == PARZ_MASK_KNOWN;
  if (!known) {
    for (i = 0; i < n; i++)
      if (st[i] == PARZ_MASK_HOLE)
        val[i] = 0;
    return;
  }
  for (a = 0; a < dims; a++) {
    const unsigned step = 1u << (2 * a);
    for (i = 0; i < n; i++) {
      unsigned c, t, have[4], k = 0, base = i;
      uint64_t v[4];
      if ((i >> (2 * a)) & 3u)
        continue; /* lines start at coordinate 0 along a */
      for (c = 0; c < e[a]; c++) {
        unsigned q = base + c * step;
        if (st[q] == PARZ_MASK_ABSENT)
          break; /* the line lies outside the block's values */
        have[c] = st[q] == PARZ_MASK_KNOWN;
        v[c] = val[q];
        k += have[c];
      }
      if (c < e[a] || k == 0 || k == e[a])
        continue;
      for (c = 0; c < e[a]; c++) {
        unsigned best = 4, dist = 4;
        if (have[c])
          continue;
        for (t = 0; t < e[a]; t++) {
          unsigned d = t < c ? c - t : t - c;
          if (have[t] && d < dist) {
            dist = d;
            best = t;
          }
        }
        val[base + c * step] = v[best];
        st[base + c * step] = PARZ_MASK_KNOWN;
      }
    }
  }
}

/* The bit pattern of mask value i (values: the section's u64 little-endian patterns). */
PARZ_HD uint64_t parz_mask_value(const unsigned char* values, unsigned i) {
  return parz_word_load(values + 8u * i);
}

/* Writes a record's masked values into a decoded block: buf holds 4^dims raw values, uint32_t
 * entries when wide is 0, uint64_t ones otherwise. A run masks the whole block (entries of a
 * partial block outside the array are dropped when the block is stored). With more than one
 * value the index bytes choose each value; else every masked value is value 0. A bitmap's set
 * bits are visited one by one: partially masked blocks along a region's edge hold few. (The CUDA
 * decoder applies records with code of its own that keeps a block in registers, mask.cuh.) */
PARZ_HD void parz_mask_apply(const parz_mask_record* r, const unsigned char* values,
                             unsigned nvalues, unsigned dims, int wide, void* buf) {
  const unsigned n = 1u << (2 * dims);
  const unsigned char* q = r->index;
  uint64_t v = parz_mask_value(values, nvalues > 1 ? q[0] : 0u);
  unsigned i, j;
  if (r->kind == PARZ_MASK_RUN) {
    if (wide)
      for (i = 0; i < n; i++)
        ((uint64_t*)buf)[i] = v;
    else
      for (i = 0; i < n; i++)
        ((uint32_t*)buf)[i] = (uint32_t)v;
    return;
  }
  for (j = 0; j < parz_mask_bitmap_bytes(dims); j++)
    for (uint64_t bits = r->bitmap[j]; bits; bits &= bits - 1u) {
      i = 8 * j + parz_ctz64(bits);
      if (nvalues > 1)
        v = parz_mask_value(values, *q++);
      if (wide)
        ((uint64_t*)buf)[i] = v;
      else
        ((uint32_t*)buf)[i] = (uint32_t)v;
    }
}

#endif
