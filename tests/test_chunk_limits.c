/* zfp's limits (codec/FORMAT.md, "Exceptions"; docs/modes.md, "Limits"): no finite value comes back
 * non-finite or wrapped. Arrays of every type and rank hold values at and around the extremes
 * (INT32_MIN/MAX, +-2^30 and +-(2^30 - 1); INT64_MIN/MAX, +-2^62; +-FLT_MAX, +-2^126 and the
 * float just below it, 2^127, 1e38; the same for float64; NaN and Inf; blocks made only of
 * them) beside ordinary values, in every lossy mode and in reversible mode. For each chunk:
 *  - the payload is libzfp's stream of the cleaned array, the cleaned array computed here from
 *    FORMAT.md's stand-in rule, independently of the codec, with the exceptions of FORMAT.md's
 *    table and those the accuracy bound's check took out (read from the chunk: records of values
 *    the table does not name, each one a value that puts its block at risk);
 *  - every exception comes back bit for bit;
 *  - every finite value comes back finite, and within its mode's promise: precision p keeps
 *    |error| <= 2^(e - p + 2d + 3), e the exponent of the block's largest cleaned magnitude
 *    (2^e above it; 30 or 62 for integers); accuracy, and expert settings that amount to it,
 *    keep |error| <= 2^minexp <= the tolerance, whatever the block holds (integers, which zfp
 *    codes without minexp: the bound of precision 32 or 64); reversible is exact.
 * Then parameters that select zfp's reversible transform with too few planes or bits, such as
 * expert (64, 64, 64, -1075) which turned float32 values into NaN and Inf, are refused with a
 * message. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_chunk_common.h"

/* Value i of the array as a long double (exact for every int64), and whether it is finite. */
static long double value(const parz_array* a, const void* d, size_t i) {
  switch (a->type) {
    case PARZ_INT32: return ((const int32_t*)d)[i];
    case PARZ_INT64: return ((const int64_t*)d)[i];
    case PARZ_FLOAT: return ((const float*)d)[i];
    default: return ((const double*)d)[i];
  }
}

static uint64_t bits_at(const parz_array* a, const void* d, size_t i) {
  uint64_t b = 0;
  memcpy(&b, (const char*)d + i * parz_type_size(a->type), parz_type_size(a->type));
  return b;
}

/* FORMAT.md's table: exceptions of a lossy mode (reversible: NaN and Inf only). */
static int table_exception(parz_type t, long double x, int lossy) {
  if (t == PARZ_FLOAT || t == PARZ_DOUBLE) {
    if (!isfinite(x))
      return 1;
    return lossy && fabsl(x) >= ldexpl(1.0L, t == PARZ_FLOAT ? 126 : 1022);
  }
  return lossy && fabsl(x) >= ldexpl(1.0L, t == PARZ_INT32 ? 30 : 62);
}

/* The indices of the values of each 4^d block, in C order within the block: calls fn per block. */
typedef void (*block_fn)(const parz_array* a, const size_t* idx, unsigned n, void* ctx);
static void each_block(const parz_array* a, block_fn fn, void* ctx) {
  size_t n[4] = {1, 1, 1, 1}, b[4], i, j, k, x;
  unsigned d;
  for (d = 0; d < a->dims; d++)
    n[4 - a->dims + d] = a->shape[d];
  for (b[0] = 0; b[0] < n[0]; b[0] += 4)
    for (b[1] = 0; b[1] < n[1]; b[1] += 4)
      for (b[2] = 0; b[2] < n[2]; b[2] += 4)
        for (b[3] = 0; b[3] < n[3]; b[3] += 4) {
          size_t idx[256];
          unsigned m = 0;
          for (i = b[0]; i < b[0] + 4 && i < n[0]; i++)
            for (j = b[1]; j < b[1] + 4 && j < n[1]; j++)
              for (k = b[2]; k < b[2] + 4 && k < n[2]; k++)
                for (x = b[3]; x < b[3] + 4 && x < n[3]; x++)
                  idx[m++] = ((i * n[1] + j) * n[2] + k) * n[3] + x;
          fn(a, idx, m, ctx);
        }
}

/* The values the bound's check took out: bit patterns, ascending. */
typedef struct {
  uint64_t* bits;
  size_t n;
} taken_list;

static int among(const taken_list* t, uint64_t b) {
  size_t i;
  for (i = 0; i < t->n; i++)
    if (t->bits[i] == b)
      return 1;
  return 0;
}

/* Whether value i of d is an exception: by the table, or taken out. */
static int exception_at(const parz_array* a, const void* d, size_t i, int lossy,
                        const taken_list* t) {
  return table_exception(a->type, value(a, d, i), lossy) || among(t, bits_at(a, d, i));
}

/* The chunk's records of values the table does not name: what the bound's check took out (the
 * mask is off here). Each must put its block at risk: a magnitude of at least
 * 2^(planes + minexp - 2d - 2), and the parameters must promise the bound. */
static taken_list taken_of(const parz_array* a, const parz_chunk_view* v, int lossy,
                           const char* what) {
  const unsigned planes = (unsigned)(8 * parz_type_size(a->type));
  const long double high = ldexpl(1.0L, (int)planes + v->params.minexp - 2 * (int)a->dims - 2);
  taken_list t = {NULL, 0};
  uint64_t r;
  t.bits = malloc((v->nexceptions + 1) * sizeof *t.bits);
  for (r = 0; r < v->nexceptions; r++) {
    uint64_t b;
    long double x;
    memcpy(&b, v->exceptions + 16 * r + 8, 8); /* little-endian hosts only run these tests */
    x = value(a, &b, 0);
    if (table_exception(a->type, x, lossy))
      continue;
    CHECK(parz_params_bounded(&v->params, a->type, a->dims) && fabsl(x) >= high,
          "%s: exception %La is neither in the table nor a value at risk", what, x);
    if (!among(&t, b))
      t.bits[t.n++] = b;
  }
  return t;
}

typedef struct {
  const void* in;
  void* cleaned;
  int lossy;
  const taken_list* taken;
} clean_ctx;

/* FORMAT.md's stand-in: the mean in binary64 of the block's other values, each divided first,
 * converted to the type (floats rounded, integers truncated), or 0. */
static void clean_block(const parz_array* a, const size_t* idx, unsigned n, void* p) {
  clean_ctx* c = (clean_ctx*)p;
  double mean = 0;
  unsigned i, kept = 0;
  for (i = 0; i < n; i++)
    kept += !exception_at(a, c->in, idx[i], c->lossy, c->taken);
  for (i = 0; i < n; i++) {
    long double x = value(a, c->in, idx[i]);
    if (!exception_at(a, c->in, idx[i], c->lossy, c->taken))
      mean += (double)x / kept;
  }
  for (i = 0; i < n; i++) {
    if (!exception_at(a, c->in, idx[i], c->lossy, c->taken))
      continue;
    switch (a->type) {
      case PARZ_FLOAT: {
        float f = (float)mean;
        ((float*)c->cleaned)[idx[i]] =
            isfinite(mean) && !table_exception(a->type, f, c->lossy) ? f : 0;
        break;
      }
      case PARZ_DOUBLE:
        ((double*)c->cleaned)[idx[i]] =
            isfinite(mean) && !table_exception(a->type, mean, c->lossy) ? mean : 0;
        break;
      case PARZ_INT32:
        ((int32_t*)c->cleaned)[idx[i]] =
            fabs(mean) < 2147483648.0 && !table_exception(a->type, (int32_t)mean, c->lossy)
                ? (int32_t)mean
                : 0;
        break;
      default:
        ((int64_t*)c->cleaned)[idx[i]] =
            fabs(mean) < 9223372036854775808.0 &&
                    !table_exception(a->type, (long double)(int64_t)mean, c->lossy)
                ? (int64_t)mean
                : 0;
        break;
    }
  }
}

typedef struct {
  const void *in, *cleaned, *out;
  const char* what;
  int lossy, prec;       /* prec: the bound's p, 0 for no bound */
  long double tolerance; /* the bound of accuracy mode and its expert equals, else 0 */
  const taken_list* taken;
  unsigned long checked;
} check_ctx;

static void check_block(const parz_array* a, const size_t* idx, unsigned n, void* p) {
  check_ctx* c = (check_ctx*)p;
  long double big = 0, bound = 0;
  int e = a->type == PARZ_INT32 ? 30 : 62;
  unsigned i;
  for (i = 0; i < n; i++) {
    long double x = fabsl(value(a, c->cleaned, idx[i]));
    big = x > big ? x : big;
  }
  if (a->type == PARZ_FLOAT || a->type == PARZ_DOUBLE)
    frexpl(big, &e);
  if (c->prec)
    bound = ldexpl(1.0L, e - c->prec + 2 * (int)a->dims + 3);
  if (c->tolerance > 0)
    bound = c->tolerance;
  for (i = 0; i < n; i++) {
    size_t k = idx[i];
    long double x = value(a, c->in, k), y = value(a, c->out, k);
    c->checked++;
    if (exception_at(a, c->in, k, c->lossy, c->taken)) {
      CHECK(bits_at(a, c->in, k) == bits_at(a, c->out, k),
            "%s: exception at %zu not restored: %La -> %La", c->what, k, x, y);
      continue;
    }
    CHECK(isfinite(y), "%s: finite value %La at %zu came back as %La", c->what, x, k, y);
    if (!c->lossy)
      CHECK(bits_at(a, c->in, k) == bits_at(a, c->out, k), "%s: reversible changed %zu", c->what,
            k);
    else if (bound > 0)
      CHECK(fabsl(y - x) <= bound, "%s: value %La at %zu came back as %La (error %La, bound %La)",
            c->what, x, k, y, fabsl(y - x), bound);
  }
}

/* Ordinary values with the extremes sprinkled in, and one block made only of extremes. */
static void* make(const parz_array* a, unsigned seed) {
  static const int64_t i32[] = {INT32_MIN,     INT32_MAX,      1 << 30,      -(1 << 30),
                                (1 << 30) - 1, -(1 << 30) + 1, (1 << 30) + 1};
  static const int64_t i64[] = {INT64_MIN,
                                INT64_MAX,
                                (int64_t)1 << 62,
                                -((int64_t)1 << 62),
                                ((int64_t)1 << 62) - 1,
                                -((int64_t)1 << 62) + 1};
  static const float f32[] = {FLT_MAX,          -FLT_MAX, 0x1p126f, -0x1p126f,   0x1.fffffep125f,
                              -0x1.fffffep125f, 0x1p127f, 1e38f,    1.0f / 0.0f, 0.0f / 0.0f};
  static const double f64[] = {DBL_MAX,  -DBL_MAX, 0x1p1022,  -0x1p1022, 0x1.fffffffffffffp1021,
                               0x1p1023, 1e308,    -1.0 / 0.0};
  size_t n = test_count(a), i;
  void* d = test_data(a, seed);
  for (i = 0; i < n; i++) {
    size_t j = (i * 2654435761u) % 23;
    int extreme = i % 7 == 3 || i < (size_t)(1u << (2 * a->dims)); /* block 0: all extremes */
    if (!extreme)
      continue;
    switch (a->type) {
      case PARZ_INT32: ((int32_t*)d)[i] = (int32_t)i32[j % 7]; break;
      case PARZ_INT64: ((int64_t*)d)[i] = i64[j % 6]; break;
      case PARZ_FLOAT: ((float*)d)[i] = f32[j % 10]; break;
      default: ((double*)d)[i] = f64[j % 8]; break;
    }
  }
  return d;
}

/* prec: the bound of precision p to check (0: none), unless p promises an absolute bound. */
static void one(const parz_array* a, const void* in, const parz_params* p, int prec,
                const char* what) {
  const int bounded = parz_params_bounded(p, a->type, a->dims);
  parz_chunk_config cfg;
  parz_chunk_view v;
  taken_list taken = {NULL, 0};
  clean_ctx cc;
  check_ctx ck;
  size_t n = 0, raw = test_count(a) * parz_type_size(a->type), zbytes = 0;
  unsigned char* c;
  void *cleaned = malloc(raw), *out = malloc(raw), *z;
  memset(&cfg, 0, sizeof cfg);
  cfg.params = *p;
  cfg.mask = PARZ_MASK_OFF; /* NaN as exceptions too; test_chunk_mask covers masks */
  c = test_encode(a, in, &cfg, &n);
  CHECK(c != NULL, "%s: encode", what);
  if (!c) {
    free(cleaned), free(out);
    return;
  }
  memcpy(cleaned, in, raw);
  cc.in = in;
  cc.cleaned = cleaned;
  cc.lossy = p->minexp >= PARZ_MIN_EXP;
  CHECK(parz_chunk_parse(c, n, &v, NULL) == PARZ_OK, "%s: parse", what);
  taken = taken_of(a, &v, cc.lossy, what);
  cc.taken = &taken;
  each_block(a, clean_block, &cc);
  z = zfp_oracle_compress(a, cleaned, p, &zbytes);
  CHECK(test_payload_is_zfp(v.payload, v.payload_bytes, z, zbytes),
        "%s: payload is not libzfp's stream of the cleaned array", what);
  CHECK(parz_chunk_decode(c, n, out, raw, NULL) == PARZ_OK, "%s: decode", what);
  ck.in = in;
  ck.cleaned = cleaned;
  ck.out = out;
  ck.what = what;
  ck.lossy = cc.lossy;
  ck.prec = bounded ? 0 : prec;
  ck.tolerance = bounded ? ldexpl(1.0L, p->minexp) : 0;
  ck.taken = &taken;
  ck.checked = 0;
  each_block(a, check_block, &ck);
  CHECK(ck.checked == test_count(a), "%s: every value checked", what);
  free(taken.bits);
  free(z);
  free(c);
  free(cleaned);
  free(out);
}

static void modes(parz_type t, unsigned d) {
  static const size_t shapes[4][4] = {{61}, {9, 13}, {5, 6, 7}, {3, 5, 4, 6}};
  static const unsigned precs[] = {1, 4, 8, 20, 32, 64};
  static const double rates[] = {2, 8, 16, 32};
  parz_array a =
      test_array(t, d, shapes[d - 1][0], shapes[d - 1][1], shapes[d - 1][2], shapes[d - 1][3]);
  const unsigned planes = (unsigned)(8 * parz_type_size(t));
  void* in = make(&a, 11 * (unsigned)t + d);
  parz_params p;
  char what[128];
  size_t i;
  for (i = 0; i < sizeof precs / sizeof precs[0]; i++) {
    if (precs[i] > planes)
      continue;
    parz_params_precision(&p, precs[i], NULL);
    snprintf(what, sizeof what, "%s %uD precision %u", parz_type_name(t), d, precs[i]);
    one(&a, in, &p, (int)precs[i], what);
  }
  for (i = 0; i < sizeof rates / sizeof rates[0]; i++) {
    parz_params_rate(&p, rates[i], t, d, NULL, NULL);
    snprintf(what, sizeof what, "%s %uD rate %g", parz_type_name(t), d, rates[i]);
    one(&a, in, &p, 0, what);
  }
  {
    double tol = t == PARZ_FLOAT || t == PARZ_DOUBLE ? 1e-3 : 4.0;
    parz_params_accuracy(&p, tol, NULL, NULL);
    snprintf(what, sizeof what, "%s %uD accuracy %g", parz_type_name(t), d, tol);
    one(&a, in, &p, (int)planes, what);
  }
  parz_params_expert(&p, 8, 600, 40, -30, NULL);
  snprintf(what, sizeof what, "%s %uD expert (8, 600, 40, -30)", parz_type_name(t), d);
  one(&a, in, &p, 0, what);
  parz_params_reversible(&p);
  snprintf(what, sizeof what, "%s %uD reversible", parz_type_name(t), d);
  one(&a, in, &p, 0, what);
  free(in);
}

/* The reversible transform cut short is refused for encoding, with a message; whole, accepted. */
static void refused(void) {
  static const struct {
    parz_type type;
    unsigned minbits, maxbits, maxprec;
    int ok;
  } cases[] = {
      {PARZ_FLOAT, 64, 64, 64, 0},   /* the reported case */
      {PARZ_FLOAT, 1, 16658, 31, 0}, /* one plane short */
      {PARZ_DOUBLE, 1, 16658, 63, 0},
      {PARZ_DOUBLE, 1, 1000, 64, 0},   /* too few bits for a 2D float64 block */
      {PARZ_INT32, 1, 16658, 32, 1},   /* all of int32's planes */
      {PARZ_FLOAT, 100, 16658, 64, 1}, /* minbits only pads */
      {PARZ_DOUBLE, 1, 16658, 64, 1},
  };
  parz_array a = test_array(PARZ_FLOAT, 2, 60, 50, 0, 0);
  size_t i, n;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    parz_chunk_config cfg;
    parz_error err;
    unsigned char* c;
    void* in;
    a.type = cases[i].type;
    in = test_data(&a, 3);
    memset(&cfg, 0, sizeof cfg);
    parz_params_expert(&cfg.params, cases[i].minbits, cases[i].maxbits, cases[i].maxprec, -1075,
                       NULL);
    c = malloc(parz_chunk_bound(&a, &cfg));
    int rc = parz_chunk_encode(&a, in, &cfg, c, parz_chunk_bound(&a, &cfg), &n, &err);
    if (cases[i].ok)
      CHECK(rc == PARZ_OK, "case %zu: whole reversible transform refused: %s", i, err.message);
    else
      CHECK(rc == PARZ_ERR_PARAM && strstr(err.message, "reversible transform") &&
                strstr(err.message, "maxprec >="),
            "case %zu: reversible transform cut short: rc %d (%s)", i, rc,
            rc ? err.message : "accepted");
    free(c);
    free(in);
  }
}

int main(void) {
  int t;
  unsigned d;
  for (t = PARZ_INT32; t <= PARZ_DOUBLE; t++)
    for (d = 1; d <= 4; d++)
      modes((parz_type)t, d);
  refused();
  return test_finish("test_chunk_limits");
}
