/* Masks (codec/FORMAT.md, "Mask"): NaN of any bit pattern and values bit-equal to the fill
 * value come back bit for bit, in every type, rank and mode, from chunks whose payload is
 * exactly libzfp's stream of the array cleaned by FORMAT.md's stand-in rule for masked chunks,
 * computed here independently of the codec. For each chunk:
 *  - masked values and exceptions come back bit for bit; the exceptions are exactly the values
 *    FORMAT.md's table names that the mask does not take (infinities, lossy extremes, patterns
 *    past the 255th);
 *  - every other value keeps its mode's promise (the bound of test_chunk_limits: precision p
 *    within 2^(e - p + 2d + 3) of the block's largest cleaned magnitude, accuracy and its expert
 *    equals within 2^minexp, reversible exact);
 *  - the palette holds the fill value first, then the patterns in order of appearance: NaN, and
 *    the values the accuracy bound's check took out (read from the chunk: its mask values and
 *    exceptions that are neither the fill value, NaN nor in FORMAT.md's table, each one a value
 *    that puts its block at risk);
 *  - decoding any range of segments, in any order, gives the same values (the decoders' cursor
 *    starts anywhere in a mask group);
 *  - a strided array encodes to the same bytes as its contiguous copy.
 * Then sizes (a wholly masked chunk's payload is one bit a block in accuracy mode, one NaN costs
 * a small section) and refused settings. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_chunk_common.h"

enum { LAND, BLOCKS, SCATTER, ALL, NPATTERNS };
static const char* const pattern_names[] = {"land", "blocks", "scatter", "all"};

static uint64_t bits_at(const parz_array* a, const void* d, size_t i) {
  uint64_t b = 0;
  memcpy(&b, (const char*)d + i * parz_type_size(a->type), parz_type_size(a->type));
  return b;
}

static void set_bits(const parz_array* a, void* d, size_t i, uint64_t b) {
  memcpy((char*)d + i * parz_type_size(a->type), &b, parz_type_size(a->type));
}

static long double value(const parz_array* a, const void* d, size_t i) {
  switch (a->type) {
    case PARZ_INT32: return ((const int32_t*)d)[i];
    case PARZ_INT64: return ((const int64_t*)d)[i];
    case PARZ_FLOAT: return ((const float*)d)[i];
    default: return ((const double*)d)[i];
  }
}

static int floating(parz_type t) { return t == PARZ_FLOAT || t == PARZ_DOUBLE; }

/* The coordinates of value i, slowest first, in a 4-D view with leading unit extents. */
static void coords(const parz_array* a, size_t i, size_t n[4], size_t x[4]) {
  int k;
  for (k = 0; k < 4; k++)
    n[k] = 1;
  for (k = 0; k < (int)a->dims; k++)
    n[4 - a->dims + k] = a->shape[k];
  for (k = 3; k >= 0; k--) {
    x[k] = i % n[k];
    i /= n[k];
  }
}

static size_t block_of(const parz_array* a, size_t i) {
  size_t n[4], x[4], b = 0;
  int k;
  coords(a, i, n, x);
  for (k = 0; k < 4; k++)
    b = b * ((n[k] + 3) / 4) + x[k] / 4;
  return b;
}

static uint64_t fill_of(parz_type t) {
  float f = -1e10f;
  double d = -1e10;
  uint32_t u;
  uint64_t w;
  switch (t) {
    case PARZ_INT32: return (uint32_t)(int32_t)-9999;
    case PARZ_INT64: return (uint64_t)INT64_MIN; /* an exception in the lossy modes, masked here */
    case PARZ_FLOAT: memcpy(&u, &f, 4); return u;
    default: memcpy(&w, &d, 8); return w;
  }
}

static uint64_t nan_pattern(parz_type t, unsigned k) {
  static const uint32_t n32[] = {0x7fc00000u, 0xffc00001u, 0x7f800123u};
  static const uint64_t n64[] = {0x7ff8000000000000ull, 0xfff8000000000077ull,
                                 0x7ff0000000000001ull};
  return t == PARZ_FLOAT ? n32[k % 3] : n64[k % 3];
}

/* Values with a pattern of masked positions (NaN of three patterns and the fill value, or only
 * the fill value for integers), infinities and, for the lossy modes, extremes elsewhere. */
static void* make(const parz_array* a, int pattern, unsigned seed) {
  size_t n = test_count(a), i;
  void* d = test_data(a, seed);
  for (i = 0; i < n; i++) {
    size_t nn[4], x[4];
    int masked;
    coords(a, i, nn, x);
    switch (pattern) {
      case LAND:
        masked = sin(0.7 * (double)x[3] + 0.3) + cos(0.5 * (double)(x[2] + x[1]) + x[0]) > 0.4;
        break;
      case BLOCKS: masked = block_of(a, i) % 3 == 0; break;
      case SCATTER: masked = i % 17 == 5; break;
      default: masked = 1; break;
    }
    if (masked) {
      unsigned k = (unsigned)(i / 5);
      set_bits(a, d, i,
               floating(a->type) && k % 4 != 0 ? nan_pattern(a->type, k) : fill_of(a->type));
    } else if (floating(a->type) && i % 29 == 7) {
      set_bits(a, d, i, a->type == PARZ_FLOAT ? 0xff800000u : 0x7ff0000000000000ull);
    } else if (i % 31 == 11) {
      switch (a->type) {
        case PARZ_INT32: ((int32_t*)d)[i] = INT32_MAX; break;
        case PARZ_INT64: ((int64_t*)d)[i] = INT64_MAX; break;
        case PARZ_FLOAT: ((float*)d)[i] = FLT_MAX; break;
        default: ((double*)d)[i] = -DBL_MAX; break;
      }
    }
  }
  return d;
}

/* FORMAT.md's table of exceptions (reversible: NaN and Inf only). */
static int exceptional(const parz_array* a, const void* d, size_t i, int lossy) {
  long double x = value(a, d, i);
  if (floating(a->type)) {
    if (!isfinite(x))
      return 1;
    return lossy && fabsl(x) >= ldexpl(1.0L, a->type == PARZ_FLOAT ? 126 : 1022);
  }
  return lossy && fabsl(x) >= ldexpl(1.0L, a->type == PARZ_INT32 ? 30 : 62);
}

static int among(const uint64_t* v, size_t n, uint64_t b) {
  size_t i;
  for (i = 0; i < n; i++)
    if (v[i] == b)
      return 1;
  return 0;
}

/* The values of a chunk the bound's check took out: its mask values and exceptions that are
 * neither the fill value (with `fill`), NaN nor in the table. Each must put its block at risk: a
 * magnitude of at least 2^(planes + minexp - 2d - 2), under parameters that promise the bound.
 * Returns how many (at most `cap`) went into `taken`. */
static size_t taken_of(const parz_array* a, const parz_chunk_view* v, int fill, int lossy,
                       uint64_t* taken, size_t cap, const char* what) {
  const int planes = (int)(8 * parz_type_size(a->type));
  const long double high = ldexpl(1.0L, planes + v->params.minexp - 2 * (int)a->dims - 2);
  size_t n = 0, k, j;
  for (k = 0; k < v->mask.nvalues + v->nexceptions; k++) {
    uint64_t b = 0;
    long double x;
    if (k < v->mask.nvalues)
      memcpy(&b, v->mask.values + 8 * k, 8); /* little-endian hosts only run these tests */
    else
      memcpy(&b, v->exceptions + 16 * (k - v->mask.nvalues) + 8, 8);
    x = value(a, &b, 0);
    if ((fill && b == fill_of(a->type)) || (floating(a->type) && isnan(x)) ||
        exceptional(a, &b, 0, lossy))
      continue;
    CHECK(parz_params_bounded(&v->params, a->type, a->dims) && fabsl(x) >= high,
          "%s: %s %La is neither the fill value, NaN, in the table nor a value at risk", what,
          k < v->mask.nvalues ? "mask value" : "exception", x);
    for (j = 0; j < n && taken[j] != b; j++)
      ;
    if (j == n && n < cap)
      taken[n++] = b;
  }
  return n;
}

/* The expected palette: the fill value first when the array holds it, then the patterns (NaN,
 * and the ntaken values taken out) in order of appearance, at most 255 of them. code[i]: the
 * value index of a masked value, -1 for an exception, -2 otherwise. Returns the palette's
 * size. */
static unsigned classify(const parz_array* a, const void* d, int fill, int lossy,
                         const uint64_t* taken, size_t ntaken, uint64_t* palette, int* code) {
  size_t n = test_count(a), i;
  unsigned nnan = 0, j, fill_seen = 0;
  uint64_t nans[255];
  for (i = 0; i < n; i++)
    if (fill && bits_at(a, d, i) == fill_of(a->type))
      fill_seen = 1;
  for (i = 0; i < n; i++) {
    uint64_t b = bits_at(a, d, i);
    code[i] = -2;
    if (fill && b == fill_of(a->type)) {
      code[i] = 0;
    } else if ((floating(a->type) && isnan(value(a, d, i))) || among(taken, ntaken, b)) {
      for (j = 0; j < nnan && nans[j] != b; j++)
        ;
      if (j == nnan && nnan < 255)
        nans[nnan++] = b;
      code[i] = j < nnan ? (int)(j + fill_seen) : -1;
    } else if (exceptional(a, d, i, lossy)) {
      code[i] = -1;
    }
  }
  if (fill_seen)
    palette[0] = fill_of(a->type);
  for (j = 0; j < nnan; j++)
    palette[j + fill_seen] = nans[j];
  return nnan + fill_seen;
}

/* FORMAT.md's stand-ins for a masked chunk, block by block: a block with no other value gets
 * zeros; otherwise along x, then y, z, w, each line of the block holding values known before it
 * gives its holes the value of the nearest of them (the lower on a tie). */
static void clean(const parz_array* a, const void* in, const int* code, void* out) {
  size_t n[4], x[4], nb[4], b, nblocks = 1;
  int k;
  memcpy(out, in, test_count(a) * parz_type_size(a->type));
  coords(a, 0, n, x);
  for (k = 0; k < 4; k++) {
    nb[k] = (n[k] + 3) / 4;
    nblocks *= nb[k];
  }
  for (b = 0; b < nblocks; b++) {
    size_t bc[4], e[4], rem = b, w, z, y, xx;
    long at[4][4][4][4]; /* the array index of each position, -1 outside */
    int known[4][4][4][4], any = 0, axis;
    for (k = 3; k >= 0; k--) {
      bc[k] = rem % nb[k];
      rem /= nb[k];
      e[k] = n[k] - 4 * bc[k] < 4 ? n[k] - 4 * bc[k] : 4;
    }
    for (w = 0; w < 4; w++)
      for (z = 0; z < 4; z++)
        for (y = 0; y < 4; y++)
          for (xx = 0; xx < 4; xx++) {
            at[w][z][y][xx] = -1;
            known[w][z][y][xx] = 0;
            if (w < e[0] && z < e[1] && y < e[2] && xx < e[3]) {
              size_t idx =
                  (((4 * bc[0] + w) * n[1] + 4 * bc[1] + z) * n[2] + 4 * bc[2] + y) * n[3] +
                  4 * bc[3] + xx;
              at[w][z][y][xx] = (long)idx;
              known[w][z][y][xx] = code[idx] == -2;
              any |= known[w][z][y][xx];
            }
          }
    if (!any) {
      for (w = 0; w < e[0]; w++)
        for (z = 0; z < e[1]; z++)
          for (y = 0; y < e[2]; y++)
            for (xx = 0; xx < e[3]; xx++)
              set_bits(a, out, (size_t)at[w][z][y][xx], 0);
      continue;
    }
    for (axis = 3; axis >= 0; axis--) { /* x is dimension 3 of the 4-D view */
      size_t p[4];
      for (p[0] = 0; p[0] < e[0]; p[0]++)
        for (p[1] = 0; p[1] < e[1]; p[1]++)
          for (p[2] = 0; p[2] < e[2]; p[2]++)
            for (p[3] = 0; p[3] < e[3]; p[3]++) {
              size_t c, t, q[4];
              int had[4];
              uint64_t v[4];
              if (p[axis] != 0)
                continue;
              memcpy(q, p, sizeof q);
              for (c = 0; c < e[axis]; c++) {
                q[axis] = c;
                had[c] = known[q[0]][q[1]][q[2]][q[3]];
                v[c] = bits_at(a, out, (size_t)at[q[0]][q[1]][q[2]][q[3]]);
              }
              for (c = 0; c < e[axis]; c++) {
                size_t best = 9, dist = 9;
                if (had[c])
                  continue;
                for (t = 0; t < e[axis]; t++)
                  if (had[t] && (t > c ? t - c : c - t) < dist) {
                    dist = t > c ? t - c : c - t;
                    best = t;
                  }
                if (best == 9)
                  continue; /* a line with nothing known yet */
                q[axis] = c;
                set_bits(a, out, (size_t)at[q[0]][q[1]][q[2]][q[3]], v[best]);
                known[q[0]][q[1]][q[2]][q[3]] = 1;
              }
            }
    }
  }
}

/* The bound of test_chunk_limits for the values of one block (indices idx of the array). */
static void check_values(const parz_array* a, const void* in, const void* cleaned, const void* out,
                         const int* code, int lossy, int prec, long double tolerance,
                         const char* what) {
  size_t n[4], x[4], nb[4], nblocks = 1, b, i, count = test_count(a);
  long double* big;
  int k;
  coords(a, 0, n, x);
  for (k = 0; k < 4; k++) {
    nb[k] = (n[k] + 3) / 4;
    nblocks *= nb[k];
  }
  big = calloc(nblocks, sizeof *big);
  for (i = 0; i < count; i++) {
    long double m = fabsl(value(a, cleaned, i));
    b = block_of(a, i);
    big[b] = m > big[b] ? m : big[b];
  }
  for (i = 0; i < count; i++) {
    long double xv = value(a, in, i), y = value(a, out, i), bound = 0;
    int e = a->type == PARZ_INT32 ? 30 : 62;
    if (code[i] != -2) {
      CHECK(bits_at(a, in, i) == bits_at(a, out, i), "%s: %s value %zu: %llx came back as %llx",
            what, code[i] >= 0 ? "masked" : "exception", i, (unsigned long long)bits_at(a, in, i),
            (unsigned long long)bits_at(a, out, i));
      continue;
    }
    if (!lossy) {
      CHECK(bits_at(a, in, i) == bits_at(a, out, i), "%s: reversible changed value %zu", what, i);
      continue;
    }
    CHECK(isfinite(y), "%s: value %zu came back as %La", what, i, y);
    if (floating(a->type))
      frexpl(big[block_of(a, i)], &e);
    if (prec)
      bound = ldexpl(1.0L, e - prec + 2 * (int)a->dims + 3);
    if (tolerance > 0)
      bound = tolerance;
    if (bound > 0)
      CHECK(fabsl(y - xv) <= bound, "%s: value %zu %La came back as %La (error %La, bound %La)",
            what, i, xv, y, fabsl(y - xv), bound);
  }
  free(big);
}

/* Decodes the chunk segment range by segment range, last first. */
static void decode_pieces(const unsigned char* c, size_t bytes, void* out, const char* what) {
  parz_chunk_view v;
  parz_error err;
  uint64_t step, s;
  if (parz_chunk_parse(c, bytes, &v, &err) != PARZ_OK)
    return;
  step = v.nsegments / 5 + 1;
  for (s = (v.nsegments - 1) / step * step;; s -= step) {
    uint64_t cnt = v.nsegments - s < step ? v.nsegments - s : step;
    CHECK(parz_chunk_decode_segments(&v, out, s, cnt, &err) == PARZ_OK, "%s: segments %llu: %s",
          what, (unsigned long long)s, err.message);
    if (s == 0)
      break;
  }
  CHECK(parz_chunk_patch_exceptions(&v, out, &err) == PARZ_OK, "%s: patch", what);
}

/* prec, tolerance: the promise to check (0: none), unless p promises an absolute bound, which is
 * what is checked then. */
static void one(const parz_array* a, const void* in, const parz_params* p, int fill,
                parz_table_kind table, uint32_t C, int prec, double tolerance, const char* what) {
  const size_t count = test_count(a), raw = count * parz_type_size(a->type);
  const int lossy = p->minexp >= PARZ_MIN_EXP;
  parz_chunk_config cfg;
  parz_chunk_view v;
  parz_error err;
  uint64_t palette[256], *taken = NULL;
  size_t ntaken = 0;
  int* code = malloc(count * sizeof *code);
  void *cleaned = malloc(raw), *out = malloc(raw), *pieces = malloc(raw), *z;
  size_t n = 0, zbytes = 0, i, nexc = 0;
  unsigned nval, k;
  unsigned char* c;
  memset(&cfg, 0, sizeof cfg);
  cfg.params = *p;
  cfg.table = table;
  cfg.segment_blocks = C;
  cfg.partition_segments = 3;
  cfg.fill = fill;
  cfg.fill_bits = fill_of(a->type);
  if (parz_params_bounded(p, a->type, a->dims)) { /* the mode's promise: 2^minexp */
    prec = 0;
    tolerance = ldexp(1.0, p->minexp);
  }
  c = test_encode(a, in, &cfg, &n);
  CHECK(c != NULL, "%s: encode", what);
  if (!c)
    goto done;
  CHECK(parz_chunk_parse(c, n, &v, &err) == PARZ_OK, "%s: parse: %s", what, err.message);
  taken = malloc((v.mask.nvalues + v.nexceptions + 1) * sizeof *taken);
  ntaken = taken_of(a, &v, fill, lossy, taken, v.mask.nvalues + v.nexceptions, what);
  nval = classify(a, in, fill, lossy, taken, ntaken, palette, code);
  for (i = 0; i < count; i++)
    nexc += code[i] == -1;
  CHECK(v.nexceptions == nexc && v.mask.nvalues == nval,
        "%s: %llu exceptions, %u mask values; "
        "expected %zu and %u",
        what, (unsigned long long)v.nexceptions, v.mask.nvalues, nexc, nval);
  for (k = 0; k < nval && k < v.mask.nvalues; k++) {
    uint64_t got = 0;
    memcpy(&got, v.mask.values + 8 * k, 8); /* little-endian hosts only run these tests */
    CHECK(got == palette[k], "%s: mask value %u is %llx, expected %llx", what, k,
          (unsigned long long)got, (unsigned long long)palette[k]);
  }
  if (nval) {
    clean(a, in, code, cleaned);
    z = zfp_oracle_compress(a, cleaned, p, &zbytes);
    CHECK(test_payload_is_zfp(v.payload, v.payload_bytes, z, zbytes),
          "%s: payload is not libzfp's stream of the cleaned array", what);
    free(z);
  } else {
    memcpy(cleaned, in, raw);
  }
  CHECK(parz_chunk_decode(c, n, out, raw, &err) == PARZ_OK, "%s: decode: %s", what, err.message);
  check_values(a, in, nval ? cleaned : in, out, code, lossy, prec, tolerance, what);
  memset(pieces, 0x5a, raw);
  decode_pieces(c, n, pieces, what);
  CHECK(!memcmp(pieces, out, raw), "%s: segment ranges decode to other values", what);
  { /* the same values every other element of a buffer (strides twice the contiguous ones) */
    parz_array s = *a;
    size_t es = parz_type_size(a->type), n2 = 0, st = 2;
    unsigned char* t = calloc(2, raw);
    unsigned char* c2;
    for (i = 0; i < count; i++)
      memcpy(t + 2 * i * es, (const char*)in + i * es, es);
    for (k = a->dims; k-- > 0;) {
      s.stride[k] = (ptrdiff_t)st;
      st *= a->shape[k];
    }
    c2 = test_encode(&s, t, &cfg, &n2);
    CHECK(c2 && n2 == n && !memcmp(c2, c, n), "%s: strided array encodes differently", what);
    free(c2);
    free(t);
  }
  free(c);
done:
  free(taken);
  free(code);
  free(cleaned);
  free(out);
  free(pieces);
}

static void modes(parz_type t, unsigned d) {
  static const size_t shapes[4][4] = {{93}, {13, 22}, {6, 9, 16}, {3, 5, 6, 7}};
  const unsigned planes = (unsigned)(8 * parz_type_size(t));
  parz_array a =
      test_array(t, d, shapes[d - 1][0], shapes[d - 1][1], shapes[d - 1][2], shapes[d - 1][3]);
  int pattern, m;
  char what[160];
  for (pattern = 0; pattern < NPATTERNS; pattern++) {
    void* in = make(&a, pattern, 7 * (unsigned)t + d);
    for (m = 0; m < TEST_MODES; m++) {
      parz_params p = test_params(m, t, d);
      /* accuracy on integers, which zfp codes without minexp: precision's bound at every plane */
      int prec = m == 1 ? 20 : m == 2 ? (int)planes : 0;
      int fill;
      for (fill = 0; fill < 2; fill++) {
        snprintf(what, sizeof what, "%s %uD %s %s%s", parz_type_name(t), d, pattern_names[pattern],
                 test_mode_name(m), fill ? " fill" : "");
        one(&a, in, &p, fill, PARZ_TABLE_AUTO, 0, prec, 0, what);
      }
    }
    { /* other tables and segment sizes */
      parz_params p = test_params(1, t, d);
      snprintf(what, sizeof what, "%s %uD %s lengths C 3", parz_type_name(t), d,
               pattern_names[pattern]);
      one(&a, in, &p, 1, PARZ_TABLE_LENGTHS, 3, 20, 0, what);
      snprintf(what, sizeof what, "%s %uD %s offsets C 1", parz_type_name(t), d,
               pattern_names[pattern]);
      one(&a, in, &p, 1, PARZ_TABLE_OFFSETS, 1, 20, 0, what);
      p = test_params(0, t, d);
      snprintf(what, sizeof what, "%s %uD %s rate none", parz_type_name(t), d,
               pattern_names[pattern]);
      one(&a, in, &p, 1, PARZ_TABLE_NONE, 0, 0, 0, what);
    }
    free(in);
  }
}

/* More distinct NaN patterns than a mask holds: the first 255 masked, the rest exceptions. */
static void many_nans(void) {
  parz_array a = test_array(PARZ_FLOAT, 2, 40, 50, 0, 0);
  float* in = test_data(&a, 5);
  parz_params p = test_params(2, PARZ_FLOAT, 2);
  unsigned i;
  for (i = 0; i < 600; i++) {
    uint32_t u = 0x7fc00000u + (i % 300);
    memcpy(&in[3 * i + 1], &u, 4);
  }
  one(&a, in, &p, 1, PARZ_TABLE_AUTO, 0, 32, 1e-3, "300 NaN patterns");
  free(in);
}

/* What masks cost: a wholly masked chunk is one bit a block (accuracy mode), its section a few
 * bytes a group; one NaN a small section; a chunk without masked values none. */
static void sizes(void) {
  parz_array a = test_array(PARZ_FLOAT, 2, 64, 64, 0, 0);
  float* in = test_data(&a, 9);
  parz_chunk_config cfg;
  parz_chunk_view v;
  size_t n = 0, i;
  unsigned char* c;
  memset(&cfg, 0, sizeof cfg);
  parz_params_accuracy(&cfg.params, 1e-3, NULL, NULL);
  c = test_encode(&a, in, &cfg, &n);
  CHECK(c && parz_chunk_parse(c, n, &v, NULL) == PARZ_OK && !v.mask.section_bytes && v.version == 2,
        "no masked values: no mask section");
  free(c);
  in[100] = (float)NAN;
  c = test_encode(&a, in, &cfg, &n);
  CHECK(c && parz_chunk_parse(c, n, &v, NULL) == PARZ_OK && v.mask.nvalues == 1 &&
            v.mask.section_bytes <= 40 && v.nexceptions == 0,
        "one NaN: a section of %llu bytes", (unsigned long long)v.mask.section_bytes);
  free(c);
  for (i = 0; i < 64 * 64; i++)
    in[i] = (float)NAN;
  c = test_encode(&a, in, &cfg, &n);
  CHECK(c && parz_chunk_parse(c, n, &v, NULL) == PARZ_OK && v.payload_bits == v.nblocks &&
            v.mask.record_bytes <= 4 * v.mask.ngroups,
        "all masked: %llu payload bits for %llu blocks, %llu record bytes",
        (unsigned long long)v.payload_bits, (unsigned long long)v.nblocks,
        (unsigned long long)v.mask.record_bytes);
  free(c);
  free(in);
}

/* One masked value anywhere in a chunk of several thousand values is found: the NaN or the fill
 * value alone at the first value, around multiples of 4096 and at the last, masked (one mask
 * value, no exception) and back bit for bit. */
static void one_late(void) {
  parz_array a = test_array(PARZ_FLOAT, 2, 110, 113, 0, 0);
  const size_t count = 110 * 113;
  const size_t at[] = {0, 4095, 4096, 8191, 8192, 12287, 12288, count - 1};
  float* in = test_data(&a, 11);
  float* out = malloc(count * sizeof *out);
  parz_chunk_config cfg;
  parz_chunk_view v;
  parz_error err;
  memset(&cfg, 0, sizeof cfg);
  parz_params_accuracy(&cfg.params, 1e-3, NULL, NULL);
  cfg.fill_bits = fill_of(PARZ_FLOAT);
  for (int fill = 0; fill < 2; fill++)
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
      const size_t i = at[k];
      const float keep = in[i];
      uint32_t want = 0x7fc00123u, got;
      size_t n = 0;
      if (fill)
        want = (uint32_t)cfg.fill_bits;
      cfg.fill = fill;
      memcpy(&in[i], &want, 4);
      unsigned char* c = test_encode(&a, in, &cfg, &n);
      CHECK(c && parz_chunk_parse(c, n, &v, &err) == PARZ_OK && v.mask.nvalues == 1 &&
                v.nexceptions == 0,
            "one %s at %zu: %u mask values, %llu exceptions", fill ? "fill value" : "NaN", i,
            c ? v.mask.nvalues : 0u, c ? (unsigned long long)v.nexceptions : 0ull);
      CHECK(c && parz_chunk_decode(c, n, out, count * sizeof *out, &err) == PARZ_OK &&
                (memcpy(&got, &out[i], 4), got == want),
            "one %s at %zu: not back bit for bit", fill ? "fill value" : "NaN", i);
      free(c);
      in[i] = keep;
    }
  free(out);
  free(in);
}

/* Settings the encoder refuses. */
static void refused(void) {
  parz_array a = test_array(PARZ_FLOAT, 1, 16, 0, 0, 0);
  float* in = test_data(&a, 1);
  parz_chunk_config cfg;
  parz_error err;
  unsigned char buf[4096];
  size_t n;
  memset(&cfg, 0, sizeof cfg);
  parz_params_reversible(&cfg.params);
  cfg.fill = 1;
  cfg.fill_bits = 0x1ffffffffull;
  CHECK(parz_chunk_encode(&a, in, &cfg, buf, sizeof buf, &n, &err) == PARZ_ERR_PARAM &&
            strstr(err.message, "fill value"),
        "a 33-bit fill value for float32: %s", err.message);
  cfg.fill = 0;
  cfg.mask = (parz_mask_mode)7;
  CHECK(parz_chunk_encode(&a, in, &cfg, buf, sizeof buf, &n, &err) == PARZ_ERR_PARAM,
        "mask setting 7");
  free(in);
}

int main(void) {
  int t;
  unsigned d;
  for (t = PARZ_INT32; t <= PARZ_DOUBLE; t++)
    for (d = 1; d <= 4; d++)
      modes((parz_type)t, d);
  many_nans();
  sizes();
  one_late();
  refused();
  return test_finish("test_chunk_mask");
}
