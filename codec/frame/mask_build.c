/* The mask section of a scanned array: its entries, their records and the stand-ins of the
 * blocks they cover (mask_build.h; FORMAT.md, "Mask"). */
#include <stdlib.h>
#include <string.h>

#include "array4.h"
#include "mask_build.h"
#include "table_endian.h"

static unsigned nvalues(const parz_mask_palette* pal) {
  return pal->npatterns + (unsigned)pal->fill_seen;
}

static uint64_t value_bits(const parz_mask_palette* pal, unsigned i) {
  return pal->fill_seen && i == 0 ? pal->fill_bits : pal->patterns[i - pal->fill_seen];
}

/* Room for `need` elements of `elem` bytes at p (capacity *cap, doubled as needed); NULL
 * without memory (p is then still valid). */
static void* grow(void* p, size_t* cap, size_t need, size_t elem) {
  size_t c = *cap ? *cap : 64;
  void* q;
  if (need <= *cap)
    return p;
  while (c < need)
    c *= 2;
  if (!(q = realloc(p, c * elem)))
    return NULL;
  *cap = c;
  return q;
}

/* Writes the records of groups of G blocks (starts: one u64 per group) into rec, or with rec
 * NULL only counts them; returns their bytes. Wholly masked blocks of one value next to each
 * other in a group become one run. */
static size_t serialize(const parz_mask_entries* m, uint64_t G, unsigned char* starts,
                        unsigned char* rec) {
  const unsigned bb = parz_mask_bitmap_bytes(m->dims);
  const uint64_t ngroups = (m->nblocks + G - 1) / G;
  uint64_t g = 0, cursor = 0;
  size_t i = 0, at = 0;
  if (starts)
    parz_store64(starts, 0);
  while (i < m->n) {
    const parz_mask_entry* e = &m->e[i];
    uint64_t skip, n = 1;
    for (; g < e->block / G; g++) { /* the next group: its records start here */
      cursor = (g + 1) * G;
      if (starts)
        parz_store64(starts + 8u * (g + 1), at);
    }
    skip = e->block - cursor;
    if (e->value >= 0) {
      while (i + n < m->n && m->e[i + n].value == e->value && m->e[i + n].block == e->block + n &&
             (e->block + n) / G == g)
        n++;
      at += parz_mask_put_varint(rec ? rec + at : NULL, skip << 1 | PARZ_MASK_RUN);
      at += parz_mask_put_varint(rec ? rec + at : NULL, n - 1);
      if (m->nvalues > 1) {
        if (rec)
          rec[at] = (unsigned char)e->value;
        at++;
      }
    } else {
      const unsigned char* x = m->bytes + e->extra;
      size_t extra = bb + (m->nvalues > 1 ? parz_mask_popcount(x, bb) : 0);
      at += parz_mask_put_varint(rec ? rec + at : NULL, skip << 1 | PARZ_MASK_BITMAP);
      if (rec)
        memcpy(rec + at, x, extra);
      at += extra;
    }
    cursor = e->block + n;
    i += n;
  }
  for (; g + 1 < ngroups; g++)
    if (starts)
      parz_store64(starts + 8u * (g + 1), at);
  return at;
}

size_t parz_mask_bound(const parz_array* a, uint64_t masked) {
  uint64_t nblocks = parz_block_count(a), blocks = masked < nblocks ? masked : nblocks;
  unsigned bb = parz_mask_bitmap_bytes(a->dims);
  /* a record's head is at most 2 bytes (skip < 4096), a run's count 2 more and its value 1 */
  uint64_t per_block = 2u + (bb > 3u ? bb : 3u);
  uint64_t fixed =
      PARZ_MASK_HEAD_BYTES + 8u * PARZ_MASK_MAX_VALUES + 8u * ((nblocks + 255u) / 256u) + 8u;
  if (blocks > (SIZE_MAX - fixed - masked) / per_block)
    return SIZE_MAX;
  return (size_t)(fixed + blocks * per_block + masked);
}

void parz_mask_entries_init(parz_mask_entries* m, const parz_mask_palette* pal,
                            const parz_array* a) {
  memset(m, 0, sizeof *m);
  m->dims = a->dims;
  m->nvalues = nvalues(pal);
  m->nblocks = parz_block_count(a);
}

void parz_mask_entries_free(parz_mask_entries* m) {
  free(m->e);
  free(m->bytes);
  m->e = NULL;
  m->bytes = NULL;
  m->n = m->cap = m->nbytes = m->bytes_cap = 0;
}

/* What the collector must do with a block: nothing (no hole), write it whole as one masked value
 * (every value the same bits, which the mask takes: the inside of a masked region), or the
 * general case, value by value. */
enum block_kind { BLOCK_CLEAN, BLOCK_UNIFORM, BLOCK_MIXED };

/* The extents e of the block with corner b in an array of extents N: 4, or less at its end. */
static inline void block_extents(const size_t N[4], const size_t b[4], size_t e[4]) {
  for (unsigned q = 0; q < 4; q++)
    e[q] = N[q] - b[q] < 4 ? N[q] - b[q] : 4;
}

/* The kind of the block with corner b of the contiguous array c (extents N, values of W bytes):
 * one branch-free test per value, row by row, for a hole (the fill value, or a value of `rule`:
 * an exception, and where the bound's check took patterns out, any value at risk, a superset of
 * the taken ones that the general case sorts out) and for bits unlike the first's. Most blocks
 * hold no hole and the collector passes them by at this cost. Inlined once per width. *bits:
 * the first value's bits. */
static inline enum block_kind block_kind_of(const parz_exception_rule* rule, unsigned fill,
                                            uint64_t fill_bits, const unsigned char* c, size_t W,
                                            const size_t N[4], const size_t b[4], uint64_t* bits) {
  const parz_exception_rule r = *rule;
  const unsigned char* corner = c + W * parz_block4_first(N, b);
  const uint64_t first = parz_load_bits(corner, W);
  size_t e[4], i, j, k, x;
  unsigned holes = 0, unlike = 0;
  block_extents(N, b, e);
  for (i = 0; i < e[0]; i++)
    for (j = 0; j < e[1]; j++)
      for (k = 0; k < e[2]; k++) {
        const unsigned char* row = corner + W * (((i * N[1] + j) * N[2] + k) * N[3]);
        for (x = 0; x < e[3]; x++) {
          const uint64_t v = parz_load_bits(row + W * x, W);
          holes |= (fill & (unsigned)(v == fill_bits)) | parz_exception_test(&r, v);
          unlike |= (unsigned)(v != first);
        }
      }
  *bits = first;
  return !holes ? BLOCK_CLEAN : unlike ? BLOCK_MIXED : BLOCK_UNIFORM;
}

/* block_kind_of for 4-byte values where the rule (parz_rule32_of) and the fill value fit 32-bit
 * words, with vectors of 4 lanes: a block's row at once. Without vectors (PARZ_VECTOR, block_common.h) block_kind_of takes every width. */
typedef struct {
  parz_rule32 rule;
  uint32_t fill, fill_bits;
} narrow_rule;

static int narrow_rule_of(const parz_exception_rule* r, unsigned fill, uint64_t fill_bits,
                          narrow_rule* out) {
  if (!PARZ_VECTOR || fill_bits >> 32 || !parz_rule32_of(r, &out->rule))
    return 0;
  out->fill = fill ? ~0u : 0u;
  out->fill_bits = (uint32_t)fill_bits;
  return 1;
}

#if PARZ_VECTOR
typedef uint32_t lanes32 __attribute__((vector_size(16)));

static lanes32 lanes_of(uint32_t x) {
  lanes32 v = {x, x, x, x};
  return v;
}

/* Row (i, j, k) of a block of extents e (block_extents) from its corner in a contiguous array of
 * extents N and 4-byte values, as 4 lanes: those past the array's edge keep pad's. */
static inline lanes32 block_row(const unsigned char* corner, const size_t N[4], const size_t e[4],
                                size_t i, size_t j, size_t k, lanes32 pad) {
  const unsigned char* row = corner + 4 * (((i * N[1] + j) * N[2] + k) * N[3]);
  if (e[3] == 4)
    memcpy(&pad, row, 16);
  else
    memcpy(&pad, row, 4 * e[3]);
  return pad;
}

static inline enum block_kind block_kind_narrow(const narrow_rule* r, const unsigned char* c,
                                                const size_t N[4], const size_t b[4],
                                                uint64_t* bits) {
  const lanes32 add = lanes_of(r->rule.add), mask = lanes_of(r->rule.mask);
  const lanes32 min = lanes_of(r->rule.min);
  const lanes32 fill = lanes_of(r->fill), fill_bits = lanes_of(r->fill_bits);
  const unsigned char* corner = c + 4 * parz_block4_first(N, b);
  uint32_t first;
  memcpy(&first, corner, 4);
  const lanes32 firsts = lanes_of(first);
  lanes32 holes = lanes_of(0), unlike = lanes_of(0);
  size_t e[4], i, j, k;
  block_extents(N, b, e);
  for (i = 0; i < e[0]; i++)
    for (j = 0; j < e[1]; j++)
      for (k = 0; k < e[2]; k++) {
        /* past the array's edge: the first value, neither a hole nor unlike */
        const lanes32 u = block_row(corner, N, e, i, j, k, firsts);
        holes |=
            (lanes32)((((u + add) & mask) >> r->rule.shift) >= min) | (fill & (lanes32)(u == fill_bits));
        unlike |= (lanes32)(u != firsts);
      }
  *bits = first;
  if (!(holes[0] | holes[1] | holes[2] | holes[3]))
    return BLOCK_CLEAN;
  return unlike[0] | unlike[1] | unlike[2] | unlike[3] ? BLOCK_MIXED : BLOCK_UNIFORM;
}

/* The places of the fill value in the block with corner b of the contiguous array c (extents N,
 * 4-byte values) set in the bitmap x (parz_mask_bitmap_bytes, zeroed by the caller), a row of 4
 * values at a time: a row's 4 bits are a nibble of the bitmap, whose positions are C order in a
 * block of 4 along every axis. Returns how many. */
static inline unsigned block_fill_bitmap(const narrow_rule* r, const unsigned char* c,
                                         const size_t N[4], const size_t b[4], unsigned char* x) {
  const lanes32 fill = lanes_of(r->fill), fill_bits = lanes_of(r->fill_bits);
  const unsigned char* corner = c + 4 * parz_block4_first(N, b);
  size_t e[4], i, j, k;
  unsigned count = 0;
  block_extents(N, b, e);
  for (i = 0; i < e[0]; i++)
    for (j = 0; j < e[1]; j++)
      for (k = 0; k < e[2]; k++) {
        const unsigned nibble = (unsigned)(16 * i + 4 * j + k); /* the row's first value / 4 */
        /* past the array's edge: not the fill value */
        const lanes32 u = block_row(corner, N, e, i, j, k, lanes_of(~r->fill_bits));
        const lanes32 at = fill & (lanes32)(u == fill_bits) & lanes_of(1);
        const unsigned bits = at[0] | at[1] << 1 | at[2] << 2 | at[3] << 3;
        x[nibble >> 1] |= (unsigned char)(bits << (4 * (nibble & 1u)));
        count += at[0] + at[1] + at[2] + at[3];
      }
  return count;
}
#else
static inline unsigned block_fill_bitmap(const narrow_rule* r, const unsigned char* c,
                                         const size_t N[4], const size_t b[4], unsigned char* x) {
  (void)r, (void)c, (void)N, (void)b, (void)x;
  return 0; /* never called: narrow_rule_of refuses every rule */
}

static inline enum block_kind block_kind_narrow(const narrow_rule* r, const unsigned char* c,
                                                const size_t N[4], const size_t b[4],
                                                uint64_t* bits) {
  (void)r, (void)c, (void)N, (void)b, (void)bits;
  return BLOCK_MIXED; /* never called: narrow_rule_of refuses every rule */
}
#endif

/* parz_mask_lookup of a value of the collector's general case, the values the palette can take
 * told apart without a call: the fill value, and the patterns (NaN, values at risk where the
 * bound's check took some out) that it looks up. */
static inline int code_of(const parz_mask_palette* pal, const parz_exception_rule* high,
                          uint64_t bits) {
  if (pal->fill && bits == pal->fill_bits)
    return 0;
  if (!(pal->nan && parz_mask_is_nan(pal->type, bits)) &&
      !(pal->taken && pal->exc.ntaken && parz_exception_test(high, bits)))
    return -1;
  return parz_mask_lookup(pal, bits);
}

/* A mask entry for the next block, NULL without memory. */
static parz_mask_entry* new_entry(parz_mask_entries* m) {
  parz_mask_entry* e = (parz_mask_entry*)grow(m->e, &m->cap, m->n + 1, sizeof *m->e);
  if (!e)
    return NULL;
  m->e = e;
  return &m->e[m->n++];
}

int parz_mask_collect(const parz_mask_palette* pal, const parz_array* a, void* cleaned,
                      uint64_t first, uint64_t count, parz_mask_entries* m) {
  const size_t size = parz_type_size(a->type);
  const unsigned bb = parz_mask_bitmap_bytes(a->dims);
  const parz_exception_rule rule =
      pal->exc.ntaken ? parz_rule_union(&pal->exc.rule, &pal->exc.high) : pal->exc.rule;
  const unsigned fill = pal->fill != 0;
  narrow_rule nr = {{0, 0, 0, 0}, 0, 0};
  const int narrow = size == 4 && narrow_rule_of(&rule, fill, pal->fill_bits, &nr);
  /* With no pattern met (no NaN, no taken value), the fill value is the only value the mask
   * takes (code_of: 0 for it, -1 for every other), and without stand-ins a block's entry is its
   * bitmap alone */
  const int fill_only = narrow && !pal->standins && pal->npatterns == 0;
  unsigned char* c = (unsigned char*)cleaned;
  parz_view4 v = parz_as_4d(a);
  size_t b[4], i;
  uint64_t block;
  unsigned e[4], k;
  parz_block4_corner(&v, first, b);
  for (block = first; block < first + count; block++, parz_block4_next(&v, b)) {
    size_t idx[256];
    unsigned char local[256], st[256];
    uint64_t val[256];
    int code[256], first_code = -2, same = 1, uniform_code;
    unsigned n, nmask = 0, nhole = 0;
    uint64_t first;
    const enum block_kind kind =
        narrow      ? block_kind_narrow(&nr, c, v.n, b, &first)
        : size == 4 ? block_kind_of(&rule, fill, pal->fill_bits, c, 4, v.n, b, &first)
                    : block_kind_of(&rule, fill, pal->fill_bits, c, 8, v.n, b, &first);
    if (kind == BLOCK_CLEAN)
      continue;
    if (kind == BLOCK_UNIFORM && (uniform_code = code_of(pal, &pal->exc.high, first)) >= 0) {
      /* what the general case makes of it: a run candidate, and every value a hole with no
       * known value to fill it from, so 0 */
      parz_mask_entry* me = new_entry(m);
      if (!me)
        return PARZ_ERR_NOMEM;
      me->block = block;
      me->value = uniform_code;
      me->extra = m->nbytes;
      if (pal->standins) {
        n = parz_block4_values(v.n, b, idx, NULL);
        for (i = 0; i < n; i++)
          parz_store_bits(c + size * idx[i], size, 0);
      }
      continue;
    }
    if (fill_only) { /* the general case below, a row of 4 at a time */
      unsigned char x[32];
      memset(x, 0, bb);
      nmask = block_fill_bitmap(&nr, c, v.n, b, x);
      if (!nmask)
        continue;
      size_t ext[4];
      block_extents(v.n, b, ext);
      n = (unsigned)(ext[0] * ext[1] * ext[2] * ext[3]);
      parz_mask_entry* me = new_entry(m);
      if (!me)
        return PARZ_ERR_NOMEM;
      me->block = block;
      me->value = nmask == n ? 0 : -1;
      me->extra = m->nbytes;
      if (me->value < 0) { /* the bitmap; one value (m->nvalues is 1), so no index */
        unsigned char* y = (unsigned char*)grow(m->bytes, &m->bytes_cap, m->nbytes + bb, 1);
        if (!y)
          return PARZ_ERR_NOMEM;
        m->bytes = y;
        memcpy(y + m->nbytes, x, bb);
        m->nbytes += bb;
      }
      continue;
    }
    n = parz_block4_values(v.n, b, idx, local);
    if (pal->standins)
      memset(st, PARZ_MASK_ABSENT, (size_t)1 << (2 * a->dims));
    for (i = 0; i < n; i++) {
      uint64_t bits = parz_load_bits(c + size * idx[i], size);
      code[i] = code_of(pal, &pal->exc.high, bits);
      if (code[i] >= 0) {
        nmask++;
        same = same && (first_code == -2 || first_code == code[i]);
        first_code = code[i];
      }
      if (pal->standins) {
        st[local[i]] =
            code[i] >= 0 || parz_exception_in(&pal->exc, bits) ? PARZ_MASK_HOLE : PARZ_MASK_KNOWN;
        val[local[i]] = bits;
        nhole += st[local[i]] == PARZ_MASK_HOLE;
      }
    }
    if (nmask) {
      parz_mask_entry* me = new_entry(m);
      if (!me)
        return PARZ_ERR_NOMEM;
      me->block = block;
      me->value = nmask == n && same ? first_code : -1;
      me->extra = m->nbytes;
      if (me->value < 0) { /* the bitmap, then (several values) an index per masked value */
        unsigned char* x = (unsigned char*)grow(m->bytes, &m->bytes_cap, m->nbytes + bb + nmask, 1);
        if (!x)
          return PARZ_ERR_NOMEM;
        m->bytes = x;
        x += m->nbytes;
        memset(x, 0, bb);
        m->nbytes += bb;
        for (i = 0; i < n; i++) /* C order in a block is increasing position */
          if (code[i] >= 0) {
            x[local[i] >> 3] |= (unsigned char)(1u << (local[i] & 7u));
            if (m->nvalues > 1)
              m->bytes[m->nbytes++] = (unsigned char)code[i];
          }
      }
    }
    if (nhole) { /* stand-ins: a masked value is a hole, so nhole holds nmask */
      for (k = 0; k < 4; k++)
        e[k] = (unsigned)(v.n[3 - k] - b[3 - k] < 4 ? v.n[3 - k] - b[3 - k] : 4);
      parz_mask_fill_holes(val, st, e, a->dims);
      for (i = 0; i < n; i++)
        parz_store_bits(c + size * idx[i], size, val[local[i]]);
    }
  }
  return PARZ_OK;
}

int parz_mask_append(parz_mask_entries* into, const parz_mask_entries* part) {
  parz_mask_entry* e;
  unsigned char* x;
  size_t i;
  if (!part->n)
    return PARZ_OK;
  if (!(e = (parz_mask_entry*)grow(into->e, &into->cap, into->n + part->n, sizeof *into->e)))
    return PARZ_ERR_NOMEM;
  into->e = e;
  if (part->nbytes) {
    if (!(x = (unsigned char*)grow(into->bytes, &into->bytes_cap, into->nbytes + part->nbytes, 1)))
      return PARZ_ERR_NOMEM;
    into->bytes = x;
    memcpy(into->bytes + into->nbytes, part->bytes, part->nbytes);
  }
  for (i = 0; i < part->n; i++) {
    into->e[into->n + i] = part->e[i];
    into->e[into->n + i].extra += into->nbytes;
  }
  into->n += part->n;
  into->nbytes += part->nbytes;
  return PARZ_OK;
}

/* Groups of the smallest power-of-two size from 256 to 4096 blocks whose index (8 bytes a
 * group) is no larger than their records: an index entry per 256 blocks where masks are dense,
 * fewer for sparse ones. */
#define GROUP_MIN 256u
#define GROUP_MAX 4096u

int parz_mask_finish(const parz_mask_palette* pal, const parz_mask_entries* m,
                     unsigned char** section, size_t* bytes) {
  size_t R = 0, total;
  uint64_t G, ngroups;
  unsigned char* s;
  unsigned k;
  for (G = GROUP_MIN;; G *= 2) {
    ngroups = (m->nblocks + G - 1) / G;
    R = serialize(m, G, NULL, NULL);
    if (8u * ngroups <= R || G == GROUP_MAX)
      break;
  }
  total = PARZ_MASK_HEAD_BYTES + 8u * (size_t)m->nvalues + 8u * (size_t)ngroups +
          parz_mask_records_padded(R);
  if (!(s = (unsigned char*)calloc(1, total)))
    return PARZ_ERR_NOMEM;
  parz_store32(s, (uint32_t)G);
  parz_store32(s + 4, m->nvalues);
  parz_store64(s + 8, R);
  for (k = 0; k < m->nvalues; k++)
    parz_store64(s + PARZ_MASK_HEAD_BYTES + 8u * k, value_bits(pal, k));
  serialize(m, G, s + PARZ_MASK_HEAD_BYTES + 8u * m->nvalues,
            s + PARZ_MASK_HEAD_BYTES + 8u * m->nvalues + 8u * ngroups);
  *section = s;
  *bytes = total;
  return PARZ_OK;
}

int parz_mask_build(const parz_mask_palette* pal, const parz_array* a, void* cleaned,
                    unsigned char** section, size_t* bytes, parz_error* err) {
  parz_mask_entries m;
  int rc;
  parz_mask_entries_init(&m, pal, a);
  rc = parz_mask_collect(pal, a, cleaned, 0, m.nblocks, &m);
  if (rc == PARZ_OK)
    rc = parz_mask_finish(pal, &m, section, bytes);
  parz_mask_entries_free(&m);
  return rc == PARZ_OK ? PARZ_OK
                       : parz_fail(err, PARZ_ERR_NOMEM, "out of memory for the mask of %llu blocks",
                                   (unsigned long long)parz_block_count(a));
}
