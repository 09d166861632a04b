/* Blocks and the integer Lorenzo predictor (lorenzo.h). */
#include "lorenzo.h"

#include <float.h>
#include <string.h>

#include "block_common.h"
#include "cpu_has.h"
#include "holt.h"
#include "lossless.h"
#include "lossless_forward.h"
#include "transform.h"
#include "transform_decode.h"

/* row_image takes two values at a time on SSE2 (every x86-64 CPU has it). */
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#define ROW_PAIRS 1
#else
#define ROW_PAIRS 0
#endif

/* The 32-bit image rows divide scaled integers (row_image32) only where the division is IEEE's:
 * -ffast-math or a wider evaluation would round otherwise (transform.h); there the scaled
 * transforms go through parz_ll_store_row, whose file keeps IEEE divisions in the test that
 * builds this one with -ffast-math (and a build so made refuses them). */
#if FLT_EVAL_METHOD != 0 || defined(__FAST_MATH__)
#define IMAGE_SCALES 0u
#else
#define IMAGE_SCALES PARZ_LL_SCALES
#endif

/* The block walk and the rows' loops start a cache line: where they start inside one depends on
 * all the code linked before them, and their decode speed with it. */
#if defined(__GNUC__)
#define LINE_ALIGNED __attribute__((aligned(64)))
#else
#define LINE_ALIGNED
#endif

int parz_ll_geometry_init(parz_ll_geometry* g, const parz_array* a, unsigned predictor,
                          parz_error* err) {
  static const size_t sides[5] = {1, 4096, 64, 16, 8};
  size_t ext[4];
  unsigned i, d = 0;
  if (!g || !a)
    return parz_fail(err, PARZ_ERR_ARG, "lossless: NULL geometry or array");
  if (a->type != PARZ_FLOAT && a->type != PARZ_DOUBLE && a->type != PARZ_INT32 &&
      a->type != PARZ_INT64)
    return parz_fail(err, PARZ_ERR_TYPE, "lossless: unknown value type %d", (int)a->type);
  const unsigned kind = PARZ_LL_PREDICTOR_KIND(predictor);
  const unsigned alpha = PARZ_LL_HOLT_ALPHA(predictor), beta = PARZ_LL_HOLT_BETA(predictor);
  if (kind > PARZ_LL_PREDICT_ROWS || predictor >> 24 ||
      (kind != PARZ_LL_PREDICT_HOLT && predictor != kind))
    return parz_fail(err, PARZ_ERR_PARAM, "lossless: unknown predictor %u", predictor);
  if (alpha > PARZ_LL_GAIN_MAX || beta > PARZ_LL_GAIN_MAX)
    return parz_fail(err, PARZ_ERR_PARAM, "lossless: Holt's gains %u/8 and %u/8 above 8/8", alpha,
                     beta);
  if (a->dims < 1 || a->dims > 4)
    return parz_fail(err, PARZ_ERR_DIMS, "lossless: rank %u outside 1..4", a->dims);
  for (i = 0; i < a->dims; i++) {
    if (a->shape[i] == 0)
      return parz_fail(err, PARZ_ERR_DIMS, "lossless: extent %u is 0", i);
    if (a->stride[i] != 0)
      return parz_fail(err, PARZ_ERR_ARG, "lossless: strided arrays are not coded here");
    if (a->shape[i] > 1)
      ext[d++] = a->shape[i];
  }
  if (kind == PARZ_LL_PREDICT_HOLT && d > 1)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "lossless: Holt's predictor takes series, not %u dimensions of extent above 1",
                     d);
  memset(g, 0, sizeof *g);
  g->holt = kind == PARZ_LL_PREDICT_HOLT;
  g->alpha = alpha;
  g->beta = beta;
  g->type = a->type;
  g->w = (a->type == PARZ_DOUBLE || a->type == PARZ_INT64) ? 64 : 32;
  g->d = d ? d : 1;
  g->blocks = 1;
  for (i = 0; i < 4; i++) {
    unsigned used = i >= 4 - d;
    g->n[i] = used ? ext[i - (4 - d)] : 1;
    g->side[i] = used ? sides[d] : 1;
    if (predictor == PARZ_LL_PREDICT_STACK && d == 4)
      g->side[i] = i == 0 ? 1 : sides[3];
    if (predictor == PARZ_LL_PREDICT_ROWS && used) /* the last dimension is the rows' */
      g->side[i] = i == 3 ? sides[1] : 1;
    g->grid[i] = (g->n[i] + g->side[i] - 1) / g->side[i];
    if (g->grid[i] && g->blocks > (size_t)-1 / g->grid[i])
      return parz_fail(err, PARZ_ERR_DIMS, "lossless: too many blocks");
    g->blocks *= g->grid[i];
  }
  return PARZ_OK;
}

size_t parz_ll_block_values(const parz_ll_geometry* g, size_t b) {
  size_t o[4], e[4];
  return parz_ll_block_box(g, b, o, e);
}

/* The padded block: a zero halo of one before each used dimension. Strides q, the predictor's
 * terms (offsets back and signs) and the count of padded values. */
typedef struct {
  size_t o[4], e[4], q[4], padded, st[4];
  ptrdiff_t off[15];
  uint64_t neg[15]; /* all ones where the term is subtracted */
  int terms;
  unsigned pad[4];
} frame;

static void frame_init(const parz_ll_geometry* g, size_t b, frame* f) {
  /* per set of dimensions (bit i: dimension i): the sum of its strides, whether each of its
   * dimensions is padded, whether it has an odd count of them */
  ptrdiff_t sum[16];
  unsigned all_padded[16], odd[16];
  int i, j;
  parz_ll_block_box(g, b, f->o, f->e);
  for (i = 0; i < 4; i++)
    f->pad[i] = g->n[i] > 1 && g->side[i] > 1;
  f->q[3] = 1;
  for (i = 2; i >= 0; i--)
    f->q[i] = f->q[i + 1] * (f->e[i + 1] + f->pad[i + 1]);
  f->padded = f->q[0] * (f->e[0] + f->pad[0]);
  f->st[3] = 1;
  for (i = 2; i >= 0; i--)
    f->st[i] = f->st[i + 1] * g->n[i + 1];
  /* the terms: the sets of padded dimensions in increasing order of their bits, each set s =
   * 2^i + j (j < 2^i) from set j, the one without its highest dimension */
  f->terms = 0;
  sum[0] = 0;
  all_padded[0] = 1;
  odd[0] = 0;
  for (i = 0; i < 4; i++)
    for (j = 0; j < 1 << i; j++) {
      const int s = 1 << i | j;
      sum[s] = sum[j] + (ptrdiff_t)f->q[i];
      all_padded[s] = all_padded[j] & f->pad[i];
      odd[s] = odd[j] ^ 1u;
      if (!all_padded[s])
        continue;
      f->off[f->terms] = -sum[s];
      f->neg[f->terms++] = odd[s] ? 0 : ~(uint64_t)0;
    }
}

/* The prediction at v from its terms; inlined with terms a constant, so that each rank's row
 * loop below is its own straight sum. */
PARZ_HD uint64_t predict(const frame* f, int terms, const uint64_t* v) {
  uint64_t p = 0;
  int t;
  /* 1D to 3D spelled out, with the signs of frame_init's order of the sets of dimensions (2D:
   * +up, +left, -diagonal). */
  const ptrdiff_t* o = f->off;
  if (terms == 1)
    return v[o[0]];
  if (terms == 3)
    return v[o[0]] + v[o[1]] - v[o[2]];
  if (terms == 7)
    return v[o[0]] + v[o[1]] - v[o[2]] + v[o[3]] - v[o[4]] - v[o[5]] + v[o[6]];
  for (t = 0; t < terms; t++) {
    uint64_t x = v[f->off[t]];
    p += (x ^ f->neg[t]) - f->neg[t]; /* x or -x */
  }
  return p;
}

/* The prediction at v less its left neighbour's term (the set of the last dimension alone,
 * always term terms / 2 and added), for terms of 1, 3 or 7: the part that reads earlier rows. */
PARZ_HD uint64_t predict_above(const frame* f, int terms, const uint64_t* v) {
  const ptrdiff_t* o = f->off;
  if (terms == 1)
    return 0;
  if (terms == 3)
    return v[o[0]] - v[o[2]];
  return v[o[0]] + v[o[1]] - v[o[2]] - v[o[4]] - v[o[5]] + v[o[6]];
}

/* Value i of a padded block of 64-bit words (narrow 0) or of 32-bit ones (narrow 1). */
PARZ_HD uint64_t block_value(const void* v, ptrdiff_t i, int narrow) {
  return narrow ? ((const uint32_t*)v)[i] : ((const uint64_t*)v)[i];
}

/* The terms of the prediction at value x of the padded block v (of 64-bit or 32-bit words: the
 * sum modulo 2^32 of the second is the first's low half) that read earlier rows and not the
 * row's own earlier values (the sets of dimensions without the last), for terms of 1, 3 or 7:
 * predict_above(x) is predict_rows(x) - predict_rows(x - 1). */
PARZ_HD uint64_t predict_rows(const frame* f, int terms, const void* v, ptrdiff_t x, int narrow) {
  const ptrdiff_t* o = f->off;
  if (terms == 1)
    return 0;
  if (terms == 3)
    return block_value(v, x + o[0], narrow);
  return block_value(v, x + o[0], narrow) + block_value(v, x + o[1], narrow) -
         block_value(v, x + o[2], narrow);
}

/* A row's residuals: the values only read, the residuals written elsewhere (restrict), so that
 * the loop runs on vectors. */
static void residual_row(const frame* f, int terms, size_t n, uint64_t mask, uint64_t top,
                         const uint64_t* restrict v, uint64_t* restrict z) {
  size_t x;
  for (x = 0; x < n; x++) {
    z[x] = parz_ll_zigzag((v[x] - predict(f, terms, v + x)) & mask, mask, top);
  }
}

/* One row of n values: residuals from the values in v (z_in NULL) or values from residuals. */
PARZ_HD void row(const frame* f, int terms, size_t n, uint64_t mask, uint64_t top, uint64_t* v,
                 uint64_t* z_out, const uint64_t* z_in) {
  size_t x;
  if (!z_in) {
    residual_row(f, terms, n, mask, top, v, z_out);
  } else if (terms == 1 || terms == 3 || terms == 7) {
    /* the left neighbour kept in a register: the row's only chain is one addition per value
     * (modulo 2^64, which is modulo 2^w too; the mask applies where the value is stored) */
    uint64_t left = v[-1];
    for (x = 0; x < n; x++) {
      const uint64_t r = (z_in[x] >> 1) ^ (0 - (z_in[x] & 1));
      left += predict_above(f, terms, v + x) + r;
      v[x] = left & mask;
    }
  } else {
    for (x = 0; x < n; x++) {
      uint64_t r = (z_in[x] >> 1) ^ (0 - (z_in[x] & 1));
      v[x] = (predict(f, terms, v + x) + r) & mask;
    }
  }
}

/* Decoding a row of float64 integer images (transform 0) under 1, 3 or 7 terms: the values into
 * the padded block, as row() writes them, and in the same pass their bit patterns into the array
 * at out, as parz_ll_store_row writes them, with no second pass over the row and no call per
 * row: in three dimensions a row is 16 values. */
PARZ_HD void row_image(const frame* f, int terms, size_t n, const uint64_t* z, uint64_t* v,
                       uint64_t* out) {
  const uint64_t top = (uint64_t)1 << 63;
  /* the prediction less the left neighbour is a(x) - a(x - 1), a the terms that read earlier
   * rows alone (predict_rows): a value is a(x) plus the residuals summed along the row from
   * the value before it less a there, so the row's chain is one addition of a residual */
  uint64_t sum = v[-1] - predict_rows(f, terms, v, -1, 0);
  size_t x = 0;
#if ROW_PAIRS
  {
    /* the residuals of a pair summed across it, then added to the sum so far in both lanes
     * (carry): the chain is two operations per pair; the terms of earlier rows read two at a
     * time; the bit patterns under the sign of each lane */
    const uint64_t* a0 = terms >= 3 ? v + f->off[0] : v; /* terms past f->terms are unset */
    const uint64_t* a1 = terms == 7 ? v + f->off[1] : v;
    const uint64_t* a2 = terms == 7 ? v + f->off[2] : v;
    const __m128i one = _mm_set1_epi64x(1), ones = _mm_set1_epi32(-1),
                  sign = _mm_set1_epi64x((long long)top);
    __m128i carry = _mm_set1_epi64x((long long)sum);
    for (; x + 2 <= n; x += 2) {
      const __m128i zz = _mm_loadu_si128((const __m128i*)(z + x));
      const __m128i r = _mm_xor_si128(_mm_srli_epi64(zz, 1),
                                      _mm_sub_epi64(_mm_setzero_si128(), _mm_and_si128(zz, one)));
      __m128i u = _mm_add_epi64(_mm_add_epi64(r, _mm_slli_si128(r, 8)), carry), m;
      carry = _mm_unpackhi_epi64(u, u);
      if (terms == 3)
        u = _mm_add_epi64(u, _mm_loadu_si128((const __m128i*)(a0 + x)));
      if (terms == 7)
        u = _mm_add_epi64(u, _mm_sub_epi64(_mm_add_epi64(_mm_loadu_si128((const __m128i*)(a0 + x)),
                                                         _mm_loadu_si128((const __m128i*)(a1 + x))),
                                           _mm_loadu_si128((const __m128i*)(a2 + x))));
      _mm_storeu_si128((__m128i*)(v + x), u);
      /* all ones where the sign is set: u less its sign, else ~u */
      m = _mm_shuffle_epi32(_mm_srai_epi32(u, 31), _MM_SHUFFLE(3, 3, 1, 1));
      _mm_storeu_si128((__m128i*)(out + x),
                       _mm_xor_si128(u, _mm_or_si128(_mm_xor_si128(m, ones), sign)));
    }
    sum = (uint64_t)_mm_cvtsi128_si64(carry);
  }
#endif
#pragma GCC unroll 4
  for (; x < n; x++) {
    sum += (z[x] >> 1) ^ (0 - (z[x] & 1));
    v[x] = predict_rows(f, terms, v, (ptrdiff_t)x, 0) + sum;
    out[x] = parz_ll_unimage(v[x], top, ~(uint64_t)0);
  }
}

/* Decoding a row of float32 values as row_image decodes float64's, in 32-bit lanes (a float32's
 * image is its residuals' sum modulo 2^32, so no lane needs more): the values into a padded
 * block of 32-bit words, their bit patterns into out. Under transform k (scale s) a value is
 * its integer divided by s as a float32, the lanes' IEEE division giving the bits of
 * parz_ll_float_bits; under k = 0 the integer image's bit pattern. */
PARZ_HD void row_image32(const frame* f, int terms, unsigned k, double s, size_t n,
                         const uint64_t* z, uint32_t* v, uint32_t* out) {
  uint32_t sum = v[-1] - (uint32_t)predict_rows(f, terms, v, -1, 1);
  size_t x = 0;
#if ROW_PAIRS
  {
    /* four residuals summed across the vector in two steps, then the sum so far added in every
     * lane (carry): the chain is two operations per four values */
    const uint32_t* a0 = terms >= 3 ? v + f->off[0] : v; /* terms past f->terms are unset */
    const uint32_t* a1 = terms == 7 ? v + f->off[1] : v;
    const uint32_t* a2 = terms == 7 ? v + f->off[2] : v;
    const __m128i one = _mm_set1_epi32(1), ones = _mm_set1_epi32(-1),
                  sign = _mm_set1_epi32(INT32_MIN);
    const __m128 scale = _mm_set1_ps((float)s); /* as parz_ll_scaled_float divides */
    __m128i carry = _mm_set1_epi32((int)sum);
    for (; x + 4 <= n; x += 4) {
      /* the residuals' low halves: a float32's residuals fit 32 bits */
      const __m128 lo = _mm_castsi128_ps(_mm_loadu_si128((const __m128i*)(z + x)));
      const __m128 hi = _mm_castsi128_ps(_mm_loadu_si128((const __m128i*)(z + x + 2)));
      const __m128i zz = _mm_castps_si128(_mm_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0)));
      __m128i u, r = _mm_xor_si128(_mm_srli_epi32(zz, 1),
                                   _mm_sub_epi32(_mm_setzero_si128(), _mm_and_si128(zz, one)));
      r = _mm_add_epi32(r, _mm_slli_si128(r, 4));
      u = _mm_add_epi32(_mm_add_epi32(r, _mm_slli_si128(r, 8)), carry);
      carry = _mm_shuffle_epi32(u, _MM_SHUFFLE(3, 3, 3, 3));
      if (terms == 3)
        u = _mm_add_epi32(u, _mm_loadu_si128((const __m128i*)(a0 + x)));
      if (terms == 7)
        u = _mm_add_epi32(u, _mm_sub_epi32(_mm_add_epi32(_mm_loadu_si128((const __m128i*)(a0 + x)),
                                                         _mm_loadu_si128((const __m128i*)(a1 + x))),
                                           _mm_loadu_si128((const __m128i*)(a2 + x))));
      _mm_storeu_si128((__m128i*)(v + x), u);
      if (k) {
        _mm_storeu_ps((float*)(out + x), _mm_div_ps(_mm_cvtepi32_ps(u), scale));
      } else {
        /* all ones where the sign is set: u less its sign, else ~u */
        const __m128i m = _mm_srai_epi32(u, 31);
        _mm_storeu_si128((__m128i*)(out + x),
                         _mm_xor_si128(u, _mm_or_si128(_mm_xor_si128(m, ones), sign)));
      }
    }
    sum = (uint32_t)_mm_cvtsi128_si32(carry);
  }
#endif
  for (; x < n; x++) {
    sum += (uint32_t)((z[x] >> 1) ^ (0 - (z[x] & 1)));
    v[x] = (uint32_t)predict_rows(f, terms, v, (ptrdiff_t)x, 1) + sum;
    out[x] = (uint32_t)parz_ll_float_bits(0, k, s, v[x]);
  }
}

LINE_ALIGNED static void row_any(const frame* f, size_t n, uint64_t mask, uint64_t top, uint64_t* v,
                                 uint64_t* z_out, const uint64_t* z_in) {
  switch (f->terms) {
    case 1: row(f, 1, n, mask, top, v, z_out, z_in); break;
    case 3: row(f, 3, n, mask, top, v, z_out, z_in); break;
    case 7: row(f, 7, n, mask, top, v, z_out, z_in); break;
    default: row(f, f->terms, n, mask, top, v, z_out, z_in); break;
  }
}

/* The encoder's residual rows of 1, 3 or 7 terms have a build for AVX2 (residual_rows_avx2),
 * chosen at run time: four 64-bit lanes a step, where SSE2's two lack the compare of the
 * zigzag's sign and gcc keeps residual_row scalar. PARZ_LL_NO_AVX2 leaves it out, so that a
 * test runs on an AVX2 host the rows other CPUs take. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(PARZ_LL_NO_AVX2)
#define ROWS_AVX2 1
#else
#define ROWS_AVX2 0
#endif

#if ROWS_AVX2
typedef uint64_t lanes4 __attribute__((vector_size(32)));
/* The steps of residual_rows_avx2, built for AVX2 as it is (a 32-byte vector passed between
 * functions of other builds would change their ABI). */
#define AVX2_STEP static inline __attribute__((always_inline, target("avx2")))

AVX2_STEP lanes4 load4(const uint64_t* p) {
  lanes4 a;
  memcpy(&a, p, sizeof a);
  return a;
}

/* residual_row four values a step: the same terms summed modulo 2^64, the zigzag's sign the
 * masked residual's top bit (bit w - 1) shifted down, the last n % 4 values by residual_row. */
AVX2_STEP void residual_row4(const frame* f, int terms, size_t n, uint64_t mask, uint64_t top,
                             const uint64_t* v, uint64_t* z) {
  const ptrdiff_t* o = f->off;
  const unsigned sh = top >> 63 ? 63u : 31u;
  size_t x;
  for (x = 0; x + 4 <= n; x += 4) {
    const uint64_t* p = v + x;
    lanes4 q = load4(p + o[0]), r;
    if (terms >= 3)
      q = q + load4(p + o[1]) - load4(p + o[2]);
    if (terms == 7)
      q = q + load4(p + o[3]) - load4(p + o[4]) - load4(p + o[5]) + load4(p + o[6]);
    r = (load4(p) - q) & mask;
    r = ((r << 1) ^ (0 - (r >> sh))) & mask;
    memcpy(z + x, &r, sizeof r);
  }
  if (x < n)
    residual_row(f, terms, n - x, mask, top, v + x, z + x);
}

/* One row's residuals under f's 1, 3 or 7 terms where the CPU has AVX2. */
__attribute__((target("avx2"))) static void residual_rows_avx2(const frame* f, size_t n,
                                                               uint64_t mask, uint64_t top,
                                                               const uint64_t* v, uint64_t* z) {
  switch (f->terms) {
    case 1: residual_row4(f, 1, n, mask, top, v, z); break;
    case 3: residual_row4(f, 3, n, mask, top, v, z); break;
    default: residual_row4(f, 7, n, mask, top, v, z); break;
  }
}

#endif

static uint64_t mask_of(unsigned w) { return w == 64 ? ~(uint64_t)0 : 0xffffffffu; }

/* Zeros the padded block's halo, the values at index 0 along each padded dimension: what the
 * predictor reads outside the block. The rows write every other value before it is read. The
 * block's values are `size` bytes each (8, or 4 for the 32-bit lanes of row_image32). */
static void zero_halo(const frame* f, void* block, size_t size) {
  unsigned char* v = (unsigned char*)block;
  int i;
  for (i = 0; i < 4; i++) {
    /* along dimension i: runs of q[i] values, one per step of the dimensions before it */
    const size_t outer = i ? f->padded / f->q[i - 1] : 1, step = i ? f->q[i - 1] : f->padded;
    size_t o;
    if (!f->pad[i])
      continue;
    if (f->q[i] == 1 && size == 8)
      for (o = 0; o < outer; o++)
        ((uint64_t*)block)[o * step] = 0;
    else if (f->q[i] == 1)
      for (o = 0; o < outer; o++)
        ((uint32_t*)block)[o * step] = 0;
    else
      for (o = 0; o < outer; o++)
        memset(v + o * step * size, 0, f->q[i] * size);
  }
}

#if defined(__GNUC__)
#define PREFETCH(p, write) __builtin_prefetch((p), (write))
#else
#define PREFETCH(p, write) ((void)(p))
#endif

/* Rows a walk asks the caches for ahead of the one it codes: a block's rows lie a row of the
 * array apart, often pages apart, where the hardware's prefetchers do not follow. */
#define ROWS_AHEAD 8u

/* The lines of row (x0, x1, x2) of f's block in the array (values of `size` bytes at base), for
 * reading or (write) writing. */
static void prefetch_row(const frame* f, size_t x0, size_t x1, size_t x2, const void* base,
                         size_t size, int write) {
  const size_t at =
      (f->o[0] + x0) * f->st[0] + (f->o[1] + x1) * f->st[1] + (f->o[2] + x2) * f->st[2] + f->o[3];
  const char* p = (const char*)base + at * size;
  size_t b;
  for (b = 0; b < f->e[3] * size; b += 64)
    if (write)
      PREFETCH(p + b, 1);
    else
      PREFETCH(p + b, 0);
}

/* Row y of f's block (C order) prefetched, then y moved to the next row; y[0] reaching e[0] once
 * the block has no row left. */
static void prefetch_next(const frame* f, size_t y[3], const void* base, size_t size, int write) {
  prefetch_row(f, y[0], y[1], y[2], base, size, write);
  if (++y[2] == f->e[2]) {
    y[2] = 0;
    if (++y[1] == f->e[1]) {
      y[1] = 0;
      y[0]++;
    }
  }
}

/* A block's rows in C order: a row's place in the array (at) and in the padded block (v), both
 * in values, stepped from row to row by the steps of steps_init, with no multiplication per
 * row. */
typedef struct {
  size_t x1, x2, at, v;
} row_cursor;

/* The steps from a row to the next: along dimension 2, at the end of a dimension 2 (to the next
 * along dimension 1), at the end of a dimension 1 (to the next along dimension 0). */
typedef struct {
  size_t e1, e2;
  ptrdiff_t at[3], v[3];
} row_steps;

static void steps_init(const frame* f, row_steps* s) {
  s->e1 = f->e[1];
  s->e2 = f->e[2];
  s->at[2] = (ptrdiff_t)f->st[2];
  s->at[1] = (ptrdiff_t)f->st[1] - (ptrdiff_t)(f->e[2] - 1) * s->at[2];
  s->at[0] = (ptrdiff_t)f->st[0] - (ptrdiff_t)(f->e[1] - 1) * (ptrdiff_t)f->st[1] -
             (ptrdiff_t)(f->e[2] - 1) * s->at[2];
  s->v[2] = (ptrdiff_t)f->q[2];
  s->v[1] = (ptrdiff_t)f->q[1] - (ptrdiff_t)(f->e[2] - 1) * s->v[2];
  s->v[0] = (ptrdiff_t)f->q[0] - (ptrdiff_t)(f->e[1] - 1) * (ptrdiff_t)f->q[1] -
            (ptrdiff_t)(f->e[2] - 1) * s->v[2];
}

static inline void cursor_next(row_cursor* c, const row_steps* s) {
  int d = 2;
  if (++c->x2 == s->e2) {
    c->x2 = 0;
    d = 1;
    if (++c->x1 == s->e1) {
      c->x1 = 0;
      d = 0;
    }
  }
  c->at += (size_t)s->at[d];
  c->v += (size_t)s->v[d];
}

/* Decoding block b's rows as row_image (float64, narrow 0) or row_image32 (float32, narrow 1;
 * transform k of scale s) writes them into the padded block at scratch (f: its frame, terms and
 * narrow fixed by the caller), each row's lines asked of the caches ROWS_AHEAD rows before it. */
PARZ_HD void image_rows(const frame* f, int terms, int narrow, unsigned k, double s,
                        const uint64_t* z, void* scratch, unsigned char* out) {
  const size_t size = narrow ? 4 : 8, rows = f->e[0] * f->e[1] * f->e[2], bytes = f->e[3] * size;
  row_steps st;
  row_cursor c, ahead;
  size_t r, b;
  steps_init(f, &st);
  c.x1 = c.x2 = 0;
  c.at = f->o[0] * f->st[0] + f->o[1] * f->st[1] + f->o[2] * f->st[2] + f->o[3];
  c.v = f->pad[0] * f->q[0] + f->pad[1] * f->q[1] + f->pad[2] * f->q[2] + f->pad[3];
  zero_halo(f, scratch, size);
  ahead = c;
  for (r = 0; r < ROWS_AHEAD && r < rows; r++) {
    for (b = 0; b < bytes; b += 64)
      PREFETCH(out + ahead.at * size + b, 1);
    cursor_next(&ahead, &st);
  }
  for (r = 0; r < rows; r++) {
    if (r + ROWS_AHEAD < rows) {
      for (b = 0; b < bytes; b += 64)
        PREFETCH(out + ahead.at * size + b, 1);
      cursor_next(&ahead, &st);
    }
    if (narrow)
      row_image32(f, terms, k, s, f->e[3], z, (uint32_t*)scratch + c.v,
                  (uint32_t*)(void*)(out + c.at * size));
    else
      row_image(f, terms, f->e[3], z, (uint64_t*)scratch + c.v,
                (uint64_t*)(void*)(out + c.at * size));
    z += f->e[3];
    cursor_next(&c, &st);
  }
}

/* Walks block b in C order: encoding (z_in NULL) reads the values and writes residuals to z_out;
 * decoding reads residuals from z_in and writes the values. A row of the block at a time goes
 * through the value transform. */
LINE_ALIGNED static size_t walk(const parz_ll_geometry* g, unsigned transform, size_t b,
                                uint64_t* scratch, const void* values_in, uint64_t* z_out,
                                const uint64_t* z_in, void* values_out) {
  frame f;
  size_t x0, x1, x2, n = 0;
  uint64_t mask = mask_of(g->w), top = (uint64_t)1 << (g->w - 1);
  const size_t size = g->w / 8;
  const void* base = z_in ? values_out : values_in;
  size_t y[3] = {0, 0, 0}, ahead = 0; /* the row ROWS_AHEAD after the one coded */
  int image;
#if ROWS_AVX2
  int avx2; /* the encoder's rows by residual_rows_avx2 */
#endif
  frame_init(g, b, &f);
  /* decoding floats under the Lorenzo predictor of 1 to 3 predicted dimensions: float64's
   * integer images, float32's images or scaled integers; each row stored as it is rebuilt */
  image = z_in && !g->holt && (f.terms == 1 || f.terms == 3 || f.terms == 7) &&
          ((g->type == PARZ_DOUBLE && transform == 0) ||
           (g->type == PARZ_FLOAT && transform <= IMAGE_SCALES));
  if (image) {
    /* each pair of terms and width its own loop */
    unsigned char* out = (unsigned char*)values_out;
    const double s = parz_ll_scale_of(transform);
    switch (f.terms + (g->w == 64)) {
      case 1: image_rows(&f, 1, 1, transform, s, z_in, scratch, out); break;
      case 2: image_rows(&f, 1, 0, 0, 1.0, z_in, scratch, out); break;
      case 3: image_rows(&f, 3, 1, transform, s, z_in, scratch, out); break;
      case 4: image_rows(&f, 3, 0, 0, 1.0, z_in, scratch, out); break;
      case 7: image_rows(&f, 7, 1, transform, s, z_in, scratch, out); break;
      default: image_rows(&f, 7, 0, 0, 1.0, z_in, scratch, out); break;
    }
    return f.e[0] * f.e[1] * f.e[2] * f.e[3];
  }
#if ROWS_AVX2
  avx2 = !z_in && (f.terms == 1 || f.terms == 3 || f.terms == 7) && PARZ_CPU_HAS("avx2");
#endif
  zero_halo(&f, scratch, 8);
  for (; ahead < ROWS_AHEAD && y[0] < f.e[0]; ahead++)
    prefetch_next(&f, y, base, size, z_in != NULL);
  for (x0 = 0; x0 < f.e[0]; x0++)
    for (x1 = 0; x1 < f.e[1]; x1++)
      for (x2 = 0; x2 < f.e[2]; x2++) {
        uint64_t* v = scratch + (x0 + f.pad[0]) * f.q[0] + (x1 + f.pad[1]) * f.q[1] +
                      (x2 + f.pad[2]) * f.q[2] + f.pad[3];
        if (y[0] < f.e[0])
          prefetch_next(&f, y, base, size, z_in != NULL);
        size_t at =
            (f.o[0] + x0) * f.st[0] + (f.o[1] + x1) * f.st[1] + (f.o[2] + x2) * f.st[2] + f.o[3];
        if (!z_in) {
          /* the row's values first: predictions read only earlier rows and earlier columns */
          parz_ll_load_row(g->type, values_in, at, f.e[3], transform, v);
          if (g->holt)
            parz_ll_holt_row(f.e[3], g->w, g->alpha, g->beta, v, z_out + n, NULL);
#if ROWS_AVX2
          else if (avx2)
            residual_rows_avx2(&f, f.e[3], mask, top, v, z_out + n);
#endif
          else
            row_any(&f, f.e[3], mask, top, v, z_out + n, NULL);
        } else {
          if (g->holt)
            parz_ll_holt_row(f.e[3], g->w, g->alpha, g->beta, v, NULL, z_in + n);
          else
            row_any(&f, f.e[3], mask, top, v, NULL, z_in + n);
          parz_ll_store_row(g->type, values_out, at, f.e[3], transform, v);
        }
        n += f.e[3];
      }
  return n;
}

size_t parz_ll_predict_block(const parz_ll_geometry* g, unsigned transform, const void* values,
                             size_t b, uint64_t* scratch, uint64_t* z) {
  return walk(g, transform, b, scratch, values, z, NULL, NULL);
}

void parz_ll_rebuild_block(const parz_ll_geometry* g, unsigned transform, const uint64_t* z,
                           size_t b, uint64_t* scratch, void* values) {
  walk(g, transform, b, scratch, NULL, NULL, z, values);
}
