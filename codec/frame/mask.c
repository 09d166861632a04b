/* Masks: the scan that finds masked values, the section builder with its stand-ins, the
 * parser's validation and the decoders' cursor (mask.h; FORMAT.md, "Mask"). */
#include <stdlib.h>
#include <string.h>

#include "array4.h"
#include "mask.h"
#include "table_endian.h"

/* ---- which values are masked -------------------------------------------------------------- */

int parz_chunk_config_masks(const parz_chunk_config* cfg, parz_type type) {
  return cfg && cfg->mask != PARZ_MASK_OFF &&
         (cfg->fill || type == PARZ_FLOAT || type == PARZ_DOUBLE);
}

int parz_mask_palette_init(parz_mask_palette* pal, parz_type type, unsigned dims,
                           const parz_params* p, const parz_chunk_config* cfg, parz_error* err) {
  memset(pal, 0, sizeof *pal);
  pal->type = type;
  pal->exc = parz_exception_set_of(type, dims, p);
  if (cfg->mask != PARZ_MASK_DEFAULT && cfg->mask != PARZ_MASK_ON && cfg->mask != PARZ_MASK_OFF)
    return parz_fail(err, PARZ_ERR_PARAM, "unknown mask setting %d", (int)cfg->mask);
  if (cfg->mask == PARZ_MASK_OFF)
    return PARZ_OK;
  pal->nan = pal->taken = type == PARZ_FLOAT || type == PARZ_DOUBLE;
  pal->fill = cfg->fill != 0;
  pal->fill_bits = cfg->fill_bits;
  if (pal->fill && parz_type_size(type) == 4 && cfg->fill_bits >> 32)
    return parz_fail(err, PARZ_ERR_PARAM, "fill value 0x%llx has more bits than a 32-bit %s value",
                     (unsigned long long)cfg->fill_bits, parz_type_name(type));
  return PARZ_OK;
}

/* Position of bits among the sorted patterns, or where it would go (binary search). */
static unsigned slot(const parz_mask_palette* pal, uint64_t bits) {
  unsigned lo = 0, hi = pal->npatterns;
  while (lo < hi) {
    unsigned mid = (lo + hi) / 2;
    if (pal->sorted[mid] < bits)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Whether bits is a pattern the palette may hold: a NaN, or a taken pattern. */
static inline int pattern(const parz_mask_palette* pal, uint64_t bits) {
  if (pal->nan && parz_mask_is_nan(pal->type, bits))
    return 1;
  return pal->exc.ntaken && pal->taken && parz_exception_taken(&pal->exc, bits);
}

/* Whether the palette takes bits, adding a pattern met for the first time while there is room
 * (the scan's rule: the first PARZ_MASK_MAX_PATTERNS patterns in C order). */
static int take(parz_mask_palette* pal, uint64_t bits) {
  unsigned s;
  if (pal->fill && bits == pal->fill_bits) {
    pal->fill_seen = 1;
    return 1;
  }
  if (!pattern(pal, bits))
    return 0;
  s = slot(pal, bits);
  if (s < pal->npatterns && pal->sorted[s] == bits)
    return 1;
  if (pal->npatterns == PARZ_MASK_MAX_PATTERNS)
    return 0;
  memmove(pal->sorted + s + 1, pal->sorted + s, (pal->npatterns - s) * sizeof *pal->sorted);
  memmove(pal->order + s + 1, pal->order + s, (pal->npatterns - s) * sizeof *pal->order);
  pal->sorted[s] = bits;
  pal->order[s] = (unsigned char)pal->npatterns;
  pal->patterns[pal->npatterns++] = bits;
  return 1;
}

int parz_mask_lookup(const parz_mask_palette* pal, uint64_t bits) {
  unsigned s;
  if (pal->fill && bits == pal->fill_bits)
    return 0; /* only asked after the scan, which saw it wherever it is */
  if (!pattern(pal, bits))
    return -1;
  s = slot(pal, bits);
  return s < pal->npatterns && pal->sorted[s] == bits ? pal->order[s] + pal->fill_seen : -1;
}

int parz_mask_claims(void* ctx, uint64_t bits) {
  return parz_mask_lookup((const parz_mask_palette*)ctx, bits) >= 0;
}

int parz_mask_palette_merge(parz_mask_palette* into, const parz_mask_palette* part) {
  unsigned i;
  into->fill_seen |= part->fill_seen;
  for (i = 0; i < part->npatterns; i++)
    if (!take(into, part->patterns[i]))
      return 0;
  return 1;
}

static unsigned nvalues(const parz_mask_palette* pal) {
  return pal->npatterns + (unsigned)pal->fill_seen;
}

static uint64_t value_bits(const parz_mask_palette* pal, unsigned i) {
  return pal->fill_seen && i == 0 ? pal->fill_bits : pal->patterns[i - pal->fill_seen];
}

void parz_mask_scan(parz_mask_palette* pal, const parz_array* a, const void* data, uint64_t* masked,
                    uint64_t* exceptions, uint64_t* high) {
  size_t size = parz_type_size(a->type), i, j, k, x;
  const parz_exception_rule quick = parz_rule_union(&pal->exc.rule, &pal->exc.high);
  parz_view4 v;
  *masked = *exceptions = *high = 0;
  /* the usual array holds none of them: one branch-free count says so */
  if (!parz_exceptions_count_special(a, data, &quick, pal->fill, pal->fill_bits))
    return;
  v = parz_as_4d(a);
  /* copies of what the loop reads (take() writes the palette, which would reload them), and a
   * NaN test without the type's switch: a magnitude above the infinity's */
  const parz_exception_set exc = pal->exc;
  const unsigned fill = pal->fill != 0, nan = pal->nan != 0;
  const unsigned taken = exc.ntaken != 0, taken_masked = pal->taken && taken;
  const uint64_t fill_bits = pal->fill_bits;
  const uint64_t magnitude = size == 4 ? 0x7fffffffu : UINT64_C(0x7fffffffffffffff);
  const uint64_t infinity = size == 4 ? 0x7f800000u : UINT64_C(0x7ff0000000000000);
  uint64_t nmasked = 0, nexceptions = 0, nhigh = 0;
  /* the bits the palette took last: a masked region repeats one pattern, which the palette,
   * having taken it once, always takes (no search) */
  uint64_t last = 0;
  unsigned have_last = 0;
  for (i = 0; i < v.n[0]; i++)
    for (j = 0; j < v.n[1]; j++)
      for (k = 0; k < v.n[2]; k++) {
        const unsigned char* row = parz_view4_row(&v, data, size, i, j, k);
        const ptrdiff_t step = (ptrdiff_t)size * v.s[3];
        for (x = 0; x < v.n[3]; x++) {
          const uint64_t bits = parz_load_bits(row + step * (ptrdiff_t)x, size);
          /* the palette is asked only about the values it may take: the fill value, NaN and,
           * after the bound's check, values at risk (a taken pattern is one) */
          if (((fill & (unsigned)(bits == fill_bits)) |
                   (nan & (unsigned)((bits & magnitude) > infinity)) ||
               (taken_masked && parz_exception_test(&exc.high, bits))) &&
              ((have_last & (unsigned)(bits == last)) || take(pal, bits))) {
            last = bits;
            have_last = 1;
            nmasked++;
          } else if (parz_exception_test(&quick, bits)) { /* an exception or a value at risk */
            const unsigned risk = parz_exception_test(&exc.high, bits);
            unsigned e = parz_exception_test(&exc.rule, bits);
            if (risk & taken & !e)
              e = parz_exception_among(exc.taken, exc.ntaken, bits);
            nexceptions += e;
            nhigh += risk & !e;
          }
        }
      }
  *masked = nmasked;
  *exceptions = nexceptions;
  *high = nhigh;
}

/* ---- the section ---------------------------------------------------------------------------- */

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

static size_t pad8(size_t n) { return (n + 7u) & ~(size_t)7u; }

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

/* The kind of the block with corner b of the contiguous array c (extents N, values of `size`
 * bytes): one branch-free test per value, row by row, for a hole (a value the mask takes or an
 * exception) and for bits unlike the first's. Most blocks hold no hole and the collector passes
 * them by at this cost. Where the bound's check took patterns out, any value at risk counts as
 * a hole here (a superset of the taken ones: the general case sorts them out). *bits: the first
 * value's bits. */
static enum block_kind block_kind_of(const parz_mask_palette* pal, const unsigned char* c,
                                     size_t size, const size_t N[4], const size_t b[4],
                                     uint64_t* bits) {
  const unsigned fill = pal->fill != 0;
  const parz_exception_rule rule =
      pal->exc.ntaken ? parz_rule_union(&pal->exc.rule, &pal->exc.high) : pal->exc.rule;
  const unsigned char* corner = c + size * parz_block4_first(N, b);
  const uint64_t first = parz_load_bits(corner, size);
  size_t e[4], i, j, k, x;
  unsigned q, holes = 0, unlike = 0;
  for (q = 0; q < 4; q++)
    e[q] = N[q] - b[q] < 4 ? N[q] - b[q] : 4;
  for (i = 0; i < e[0]; i++)
    for (j = 0; j < e[1]; j++)
      for (k = 0; k < e[2]; k++) {
        const unsigned char* row = corner + size * (((i * N[1] + j) * N[2] + k) * N[3]);
        for (x = 0; x < e[3]; x++) {
          const uint64_t v = parz_load_bits(row + size * x, size);
          holes |= (fill & (unsigned)(v == pal->fill_bits)) | parz_exception_test(&rule, v);
          unlike |= (unsigned)(v != first);
        }
      }
  *bits = first;
  return !holes ? BLOCK_CLEAN : unlike ? BLOCK_MIXED : BLOCK_UNIFORM;
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
    const enum block_kind kind = block_kind_of(pal, c, size, v.n, b, &first);
    if (kind == BLOCK_CLEAN)
      continue;
    n = parz_block4_values(v.n, b, idx, local);
    if (kind == BLOCK_UNIFORM && (uniform_code = parz_mask_lookup(pal, first)) >= 0) {
      /* what the general case makes of it: a run candidate, and every value a hole with no
       * known value to fill it from, so 0 */
      parz_mask_entry* me = new_entry(m);
      if (!me)
        return PARZ_ERR_NOMEM;
      me->block = block;
      me->value = uniform_code;
      me->extra = m->nbytes;
      for (i = 0; i < n; i++)
        parz_store_bits(c + size * idx[i], size, 0);
      continue;
    }
    memset(st, PARZ_MASK_ABSENT, (size_t)1 << (2 * a->dims));
    for (i = 0; i < n; i++) {
      uint64_t bits = parz_load_bits(c + size * idx[i], size);
      code[i] = parz_mask_lookup(pal, bits);
      if (code[i] >= 0) {
        nmask++;
        same = same && (first_code == -2 || first_code == code[i]);
        first_code = code[i];
      }
      st[local[i]] =
          code[i] >= 0 || parz_exception_in(&pal->exc, bits) ? PARZ_MASK_HOLE : PARZ_MASK_KNOWN;
      val[local[i]] = bits;
      nhole += st[local[i]] == PARZ_MASK_HOLE;
    }
    if (nhole) {
      if (nmask) {
        parz_mask_entry* me = new_entry(m);
        if (!me)
          return PARZ_ERR_NOMEM;
        me->block = block;
        me->value = nmask == n && same ? first_code : -1;
        me->extra = m->nbytes;
        if (me->value < 0) { /* the bitmap, then (several values) an index per masked value */
          unsigned char* x =
              (unsigned char*)grow(m->bytes, &m->bytes_cap, m->nbytes + bb + nmask, 1);
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
  total = PARZ_MASK_HEAD_BYTES + 8u * (size_t)m->nvalues + 8u * (size_t)ngroups + pad8(R);
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

/* ---- validation ---------------------------------------------------------------------------- */

/* Whether every set bit of a bitmap lies at a value of block `block` inside the array. Only
 * blocks at the array's upper edges (and 1-D blocks, whose byte has 4 unused bits) need the
 * bits looked at one by one. */
static int bitmap_inside(const parz_chunk_view* v, uint64_t block, const unsigned char* bitmap) {
  const unsigned d = v->array.dims, n = 1u << (2 * d), bytes = parz_mask_bitmap_bytes(d);
  unsigned e[4], a, i, edge = d == 1;
  for (a = 0; a < 4; a++) { /* the block's extent along axis a (x first) */
    e[a] = 1;
    if (a < d) {
      uint64_t len = v->array.shape[d - 1 - a], nb = (len + 3u) / 4u,
               left = len - 4u * (block % nb);
      e[a] = left < 4u ? (unsigned)left : 4u;
      edge |= e[a] < 4u;
      block /= nb;
    }
  }
  for (i = 0; edge && i < 8u * bytes; i++) {
    if (!((bitmap[i >> 3] >> (i & 7u)) & 1u))
      continue;
    if (i >= n)
      return 0;
    for (a = 0; a < 4; a++)
      if (((i >> (2 * a)) & 3u) >= e[a])
        return 0;
  }
  return 1;
}

int parz_mask_parse(parz_chunk_view* v, const unsigned char* s, uint64_t bytes, parz_error* err) {
  const unsigned dims = v->array.dims;
  parz_chunk_mask m;
  uint64_t G, V, R, g, k, room;
  memset(&m, 0, sizeof m);
  if (bytes < PARZ_MASK_HEAD_BYTES)
    return parz_fail(err, PARZ_ERR_FORMAT, "mask section of %llu bytes", (unsigned long long)bytes);
  G = parz_load32(s);
  V = parz_load32(s + 4);
  R = parz_load64(s + 8);
  if (G < 1 || G > PARZ_MASK_MAX_GROUP_BLOCKS || V < 1 || V > PARZ_MASK_MAX_VALUES)
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "mask of %llu values in groups of %llu blocks (1..%u values, groups of "
                     "1..%u blocks)",
                     (unsigned long long)V, (unsigned long long)G, PARZ_MASK_MAX_VALUES,
                     PARZ_MASK_MAX_GROUP_BLOCKS);
  m.ngroups = v->nblocks / G + (v->nblocks % G != 0);
  room = (bytes - PARZ_MASK_HEAD_BYTES) / 8u;
  if (V > room || m.ngroups > room - V || R > 8u * (room - V - m.ngroups) ||
      bytes != PARZ_MASK_HEAD_BYTES + 8u * (V + m.ngroups) + pad8((size_t)R))
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "mask section of %llu bytes for %llu values, %llu groups and %llu bytes of "
                     "records",
                     (unsigned long long)bytes, (unsigned long long)V,
                     (unsigned long long)m.ngroups, (unsigned long long)R);
  m.values = s + PARZ_MASK_HEAD_BYTES;
  m.starts = m.values + 8u * V;
  m.records = m.starts + 8u * m.ngroups;
  m.record_bytes = R;
  m.group_blocks = (uint32_t)G;
  m.nvalues = (uint32_t)V;
  m.section_bytes = bytes;
  for (k = R; k < pad8((size_t)R); k++)
    if (m.records[k])
      return parz_fail(err, PARZ_ERR_FORMAT, "nonzero padding after the mask's records");
  for (k = 0; k < V; k++) {
    uint64_t bits = parz_load64(m.values + 8u * k);
    if (parz_type_size(v->array.type) == 4 && bits >> 32)
      return parz_fail(err, PARZ_ERR_FORMAT,
                       "mask value %llu is 0x%llx, wider than the chunk's 32-bit %s values",
                       (unsigned long long)k, (unsigned long long)bits,
                       parz_type_name(v->array.type));
  }
  for (g = 0; g < m.ngroups; g++) {
    uint64_t at = parz_load64(m.starts + 8u * g);
    uint64_t stop = g + 1 < m.ngroups ? parz_load64(m.starts + 8u * (g + 1)) : R;
    uint64_t cursor = g * G, end = cursor + G < v->nblocks ? cursor + G : v->nblocks;
    const unsigned char* p;
    if ((g == 0 && at != 0) || at > stop || stop > R)
      return parz_fail(err, PARZ_ERR_FORMAT,
                       "mask group %llu's records at bytes %llu to %llu of %llu",
                       (unsigned long long)g, (unsigned long long)at, (unsigned long long)stop,
                       (unsigned long long)R);
    for (p = m.records + at; p < m.records + stop;) {
      parz_mask_record r;
      uint64_t first, i, nidx;
      if (!parz_mask_read(p, m.records + stop, dims, m.nvalues, &r))
        return parz_fail(err, PARZ_ERR_FORMAT,
                         "mask record at byte %llu runs past its group's records (group %llu)",
                         (unsigned long long)(p - m.records), (unsigned long long)g);
      if (r.skip >= end - cursor || r.count > end - cursor - r.skip)
        return parz_fail(err, PARZ_ERR_FORMAT,
                         "mask record at byte %llu covers %llu blocks from block %llu + %llu, "
                         "past group %llu's last block %llu",
                         (unsigned long long)(p - m.records), (unsigned long long)r.count,
                         (unsigned long long)cursor, (unsigned long long)r.skip,
                         (unsigned long long)g, (unsigned long long)(end - 1));
      first = cursor + r.skip;
      if (r.kind == PARZ_MASK_BITMAP &&
          (!parz_mask_popcount(r.bitmap, parz_mask_bitmap_bytes(dims)) ||
           !bitmap_inside(v, first, r.bitmap)))
        return parz_fail(err, PARZ_ERR_FORMAT,
                         "mask bitmap of block %llu is empty or marks values outside the array",
                         (unsigned long long)first);
      nidx = m.nvalues > 1 ? (uint64_t)(r.next - r.index) : 0;
      for (i = 0; i < nidx; i++)
        if (r.index[i] >= V)
          return parz_fail(err, PARZ_ERR_FORMAT, "mask record of block %llu names value %u of %llu",
                           (unsigned long long)first, (unsigned)r.index[i], (unsigned long long)V);
      cursor = first + r.count;
      p = r.next;
    }
  }
  v->mask = m;
  return PARZ_OK;
}

/* ---- the decoders' cursor ------------------------------------------------------------------- */

static void none_left(parz_mask_cursor* c) {
  c->first = c->last = UINT64_MAX;
  c->at = c->end;
}

void parz_mask_next(parz_mask_cursor* c) {
  const parz_chunk_mask* m = c->m;
  /* past the records of the current group: the next group holding some */
  while (c->group + 1 < m->ngroups &&
         c->at >= m->records + parz_load64(m->starts + 8u * (c->group + 1))) {
    c->group++;
    c->cursor = c->group * m->group_blocks;
  }
  if (c->at >= c->end || !parz_mask_read(c->at, c->end, c->dims, m->nvalues, &c->rec)) {
    none_left(c);
    return;
  }
  c->first = c->cursor + c->rec.skip;
  c->last = c->first + c->rec.count;
  c->cursor = c->last;
  c->at = c->rec.next;
}

void parz_mask_seek(parz_mask_cursor* c, const parz_chunk_mask* m, const parz_array* a,
                    uint64_t block) {
  memset(c, 0, sizeof *c);
  c->m = m;
  c->dims = a->dims;
  c->wide = parz_type_size(a->type) == 8;
  if (!m || !m->nvalues) {
    none_left(c);
    return;
  }
  c->end = m->records + m->record_bytes;
  c->group = block / m->group_blocks;
  if (c->group >= m->ngroups) {
    none_left(c);
    return;
  }
  c->cursor = c->group * m->group_blocks;
  c->at = m->records + parz_load64(m->starts + 8u * c->group);
  do
    parz_mask_next(c);
  while (c->last <= block);
}
