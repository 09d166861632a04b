/* Which values are masked: the palette of a configuration and the scan that fills it (mask.h;
 * FORMAT.md, "Mask"). */
#include <stdlib.h>
#include <string.h>

#include "array4.h"
#include "codecs.h"
#include "mask.h"

int parz_chunk_config_masks(const parz_chunk_config* cfg, parz_type type) {
  return cfg && cfg->mask != PARZ_MASK_OFF &&
         (cfg->fill || type == PARZ_FLOAT || type == PARZ_DOUBLE);
}

int parz_mask_palette_init(parz_mask_palette* pal, const parz_codec* codec, parz_type type,
                           unsigned dims, const parz_params* p, const parz_chunk_config* cfg,
                           parz_error* err) {
  memset(pal, 0, sizeof *pal);
  pal->type = type;
  pal->standins = !codec->scratch;
  pal->exc = parz_exception_set_of(codec, type, dims, p);
  if (cfg->mask != PARZ_MASK_DEFAULT && cfg->mask != PARZ_MASK_ON && cfg->mask != PARZ_MASK_OFF)
    return parz_fail(err, PARZ_ERR_PARAM, "unknown mask setting %d", (int)cfg->mask);
  if (cfg->mask == PARZ_MASK_OFF || codec->exact) /* an exact codec's payload holds them */
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

/* Values of a contiguous row the scan looks at as one group first. */
#define SCAN_GROUP 16u

/* A group of n <= SCAN_GROUP contiguous values of W bytes at once, without a branch per value
 * (inlined once per width, so that it vectorizes): *any, the values the scan's loop must look
 * at (a hole of quick, the fill value, NaN); *same, those bit-equal to `last`. */
static inline void group_summary(const unsigned char* group, size_t n, size_t W,
                                 const parz_exception_rule* quick, unsigned fill,
                                 uint64_t fill_bits, unsigned nan, uint64_t magnitude,
                                 uint64_t infinity, uint64_t last, unsigned* any, unsigned* same) {
  const parz_exception_rule r = *quick;
  unsigned a = 0, e = 0;
  for (size_t x = 0; x < n; x++) {
    const uint64_t bits = parz_load_bits(group + W * x, W);
    a += parz_exception_test(&r, bits) | (fill & (unsigned)(bits == fill_bits)) |
         (nan & (unsigned)((bits & magnitude) > infinity));
    e += (unsigned)(bits == last);
  }
  *any = a;
  *same = e;
}

/* The same for 4-byte values where the rule (parz_rule32_of) and the fill value fit 32-bit words:
 * 4 values a vector. */
typedef struct {
  parz_rule32 rule;
  uint32_t fill, fill_bits, nan;
} scan32;

static int scan32_of(const parz_exception_rule* r, unsigned fill, uint64_t fill_bits, unsigned nan,
                     scan32* out) {
  if (fill_bits >> 32 || !parz_rule32_of(r, &out->rule))
    return 0;
  out->fill = fill;
  out->fill_bits = (uint32_t)fill_bits;
  out->nan = nan;
  return 1;
}

static inline void group_summary32(const unsigned char* group, size_t n, const scan32* r,
                                   uint32_t last, unsigned* any, unsigned* same) {
  const scan32 q = *r;
  uint32_t a = 0, e = 0;
  for (size_t x = 0; x < n; x++) {
    uint32_t u;
    memcpy(&u, group + 4 * x, 4);
    a += parz_rule32_test(&q.rule, u) | (q.fill & (uint32_t)(u == q.fill_bits)) |
         (q.nan & (uint32_t)((u & 0x7fffffffu) > 0x7f800000u));
    e += (uint32_t)(u == last);
  }
  *any = a;
  *same = e;
}

/* Values the test for special values reads as one piece: the test stops at the first piece that
 * holds one, the scan below then reading every value anyway. */
#define SPECIAL_PIECE 4096u

/* Whether a holds a value the scan must look at (an exception or value at risk of `quick`, the
 * fill value): pieces of a contiguous array in order, else the whole array at once. */
static int any_special(const parz_array* a, const void* data, const parz_exception_rule* quick,
                       int fill, uint64_t fill_bits) {
  const parz_view4 v = parz_as_4d(a);
  const size_t size = parz_type_size(a->type);
  if (!parz_view4_contiguous(&v))
    return parz_exceptions_count_special(a, data, quick, fill, fill_bits) != 0;
  const size_t n = v.n[0] * v.n[1] * v.n[2] * v.n[3];
  parz_array piece = *a;
  piece.dims = 1;
  for (unsigned k = 0; k < 4; k++) {
    piece.shape[k] = 0;
    piece.stride[k] = 0; /* contiguous, whatever strides a names */
  }
  for (size_t lo = 0; lo < n; lo += SPECIAL_PIECE) {
    piece.shape[0] = n - lo < SPECIAL_PIECE ? n - lo : SPECIAL_PIECE;
    if (parz_exceptions_count_special(&piece, (const unsigned char*)data + size * lo, quick, fill,
                                      fill_bits))
      return 1;
  }
  return 0;
}

void parz_mask_scan(parz_mask_palette* pal, const parz_array* a, const void* data, uint64_t* masked,
                    uint64_t* exceptions, uint64_t* high) {
  size_t size = parz_type_size(a->type), i, j, k, x;
  const parz_exception_rule quick = parz_rule_union(&pal->exc.rule, &pal->exc.high);
  parz_view4 v;
  *masked = *exceptions = *high = 0;
  /* the usual array holds none of them: branch-free counts, piece by piece, say so */
  if (!any_special(a, data, &quick, pal->fill, pal->fill_bits))
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
  scan32 q32 = {{0, 0, 0, 0}, 0, 0, 0};
  const int narrow = size == 4 && scan32_of(&quick, fill, fill_bits, nan, &q32);
  /* the bits the palette took last: a masked region repeats one pattern, which the palette,
   * having taken it once, always takes (no search) */
  uint64_t last = 0;
  unsigned have_last = 0;
  for (i = 0; i < v.n[0]; i++)
    for (j = 0; j < v.n[1]; j++)
      for (k = 0; k < v.n[2]; k++) {
        const unsigned char* row = parz_view4_row(&v, data, size, i, j, k);
        const ptrdiff_t step = (ptrdiff_t)size * v.s[3];
        /* a contiguous row in groups of G values, each looked at whole first: most groups hold
         * nothing to look at, or nothing but the pattern taken last (inside a masked region, or
         * along its edge), which the loop below would count as masked one by one */
        const int groups = step == (ptrdiff_t)size;
        const size_t G = groups ? SCAN_GROUP : v.n[3];
        for (size_t x0 = 0; x0 < v.n[3]; x0 += G) {
          const size_t len = v.n[3] - x0 < G ? v.n[3] - x0 : G;
          if (groups) {
            const unsigned char* group = row + size * x0;
            unsigned any, same;
            if (narrow)
              group_summary32(group, len, &q32, (uint32_t)last, &any, &same);
            else if (size == 4)
              group_summary(group, len, 4, &quick, fill, fill_bits, nan, magnitude, infinity, last,
                            &any, &same);
            else
              group_summary(group, len, 8, &quick, fill, fill_bits, nan, magnitude, infinity, last,
                            &any, &same);
            if (!any)
              continue;
            if (have_last && same == any) {
              nmasked += same;
              continue;
            }
          }
          for (x = x0; x < x0 + len; x++) {
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
      }
  *masked = nmasked;
  *exceptions = nexceptions;
  *high = nhigh;
}
