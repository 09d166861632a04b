/* The accuracy bound (codec/FORMAT.md, "The accuracy bound"; docs/modes.md, "What each mode promises"):
 *  - which parameters promise it (parz_params_bounded): accuracy mode and expert settings that
 *    amount to it, for float32 and float64; not integers, precision, rate or reversible mode;
 *  - blocks not at risk keep it by themselves: random blocks of every float type and rank whose
 *    largest exponent leaves zfp every plane down to minexp (emax - minexp + 2d + 2 <= 32 or 64),
 *    huge and tiny values, signs alternating, decode within 2^minexp through the bare codec,
 *    which checks nothing; the risk rule (parz_risk_rule_of) calls each of them safe, and each
 *    one plane further at risk; blocks of magnitudes below 2^-97 (2^-961), which zfp decodes
 *    as -2^(emax + 1) once they get a plane, are at risk at such tolerances, and kept;
 *  - every chunk keeps it whatever the data: huge values beside small ones in one block
 *    (regions of -1e34, huge values of many patterns scattered, mixed exponents from 1e-30 to
 *    1e30, subnormals beside normal values at a tolerance below them), float32 and float64,
 *    rank 1 to 4 with partial blocks, tolerances from 1e-7 to 10, an expert setting, the mask on
 *    (the fill value named or not) and off: every finite value within 2^minexp (decided
 *    exactly), NaN, infinities and masked values bit for bit, from parz_chunk_encode and from the
 *    encoder's reads cut into parts (the same bytes);
 *  - what the check takes out is what breaks the bound, and it costs what naming it would: a
 *    region of -1e34 beside smooth values, its fill value not named, encodes byte for byte as
 *    with -1e34 named (one mask value, no exception); with the mask off exactly the -1e34
 *    values are exceptions;
 *  - blocks at risk that keep the bound are left alone: float32 values near 1000 at a tolerance
 *    below their spacing give libzfp's stream of the array itself;
 *  - precision p keeps every value within 2^(e - min(p, planes) + 2d + 2) of its block's largest
 *    magnitude below 2^e, and rate R within the same at p = floor((R 4^d - 1 - ebits) / 4^d) - 1,
 *    the planes its budget always completes (random blocks, the bare codec);
 *  - real data: the COADS sea surface temperature excerpt in data/ (-1e34 over land, no fill
 *    value named, as nccopy leaves netCDF-4 files), at 0.037: within the bound, the chunk of -1e34
 *    named as the fill value.
 * Usage: test_chunk_bound [DATA_DIR] (the repository's data/, for the real excerpt) */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "real_arrays.h"
#include "zfp_rules.h"
#include "test_chunk_common.h"

static uint64_t state = 0x2545F4914F6CDD1Dull;
static uint64_t next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}
static double uniform(void) { return (double)(next() >> 11) / 9007199254740992.0; }

static double value_at(const parz_array* a, const void* d, size_t i) {
  return a->type == PARZ_FLOAT ? (double)((const float*)d)[i] : ((const double*)d)[i];
}

static void set_value(const parz_array* a, void* d, size_t i, double v) {
  if (a->type == PARZ_FLOAT)
    ((float*)d)[i] = (float)v;
  else
    ((double*)d)[i] = v;
}

static uint64_t bits_at(const parz_array* a, const void* d, size_t i) {
  uint64_t b = 0;
  memcpy(&b, (const char*)d + i * parz_type_size(a->type), parz_type_size(a->type));
  return b;
}

/* Whether |x - y| <= 2^e, exactly: x - y = s + r (TwoSum, exact in binary64 without
 * overflow), |s| decides unless it is 2^e, where r's sign does. */
static int within(double x, double y, int e) {
  const double t = ldexp(1.0, e), s = x - y, yy = s - x, r = (x - (s - yy)) + (-y - yy);
  const double m = fabs(s);
  return m < t || (m == t && (r == 0 || (r > 0) != (s > 0)));
}

/* ---- which parameters promise the bound --------------------------------------------------- */

static void which_params(void) {
  parz_params p;
  unsigned d;
  for (d = 1; d <= 4; d++) {
    parz_params_accuracy(&p, 1e-3, NULL, NULL);
    CHECK(parz_params_bounded(&p, PARZ_FLOAT, d) && parz_params_bounded(&p, PARZ_DOUBLE, d),
          "accuracy %uD promises the bound", d);
    CHECK(!parz_params_bounded(&p, PARZ_INT32, d) && !parz_params_bounded(&p, PARZ_INT64, d),
          "accuracy on integers (zfp ignores minexp for them) promises no bound");
    parz_params_precision(&p, 64, NULL);
    CHECK(!parz_params_bounded(&p, PARZ_FLOAT, d), "precision 64 promises no absolute bound");
    parz_params_rate(&p, 40, PARZ_DOUBLE, d, NULL, NULL);
    CHECK(!parz_params_bounded(&p, PARZ_DOUBLE, d), "rate promises no absolute bound");
    parz_params_reversible(&p);
    CHECK(!parz_params_bounded(&p, PARZ_FLOAT, d), "reversible is exact, not bounded");
    parz_params_expert(&p, 8, PARZ_MAX_BITS, 32, -20, NULL);
    CHECK(parz_params_bounded(&p, PARZ_FLOAT, d) && !parz_params_bounded(&p, PARZ_DOUBLE, d),
          "expert maxprec 32: every plane of float32, not of float64");
    parz_params_expert(&p, 1, parz_block_max_bits(PARZ_DOUBLE, d, &p) - 1, 64, -20, NULL);
    CHECK(!parz_params_bounded(&p, PARZ_DOUBLE, d), "expert maxbits below a block's: no bound");
    parz_params_expert(&p, 1, PARZ_MAX_BITS, 64, PARZ_MIN_EXP, NULL);
    CHECK(!parz_params_bounded(&p, PARZ_DOUBLE, d), "zfp's default expert: no bound");
  }
}

static unsigned char* encode_checked(const char* what, const parz_array* a, const void* in,
                                     const parz_chunk_config* cfg, size_t* n);

/* ---- blocks not at risk ------------------------------------------------------------------- */

/* One 4^d block of type t as an array of its own, its values as doubles (float32 ones rounded to
 * the type), for the bare codec. */
typedef struct {
  parz_array a;
  unsigned n;
  double v[256];
  float f[256];
} block;

static void block_init(block* b, parz_type t, unsigned d) {
  unsigned k;
  memset(b, 0, sizeof *b);
  b->a.type = t;
  b->a.dims = d;
  for (k = 0; k < d; k++)
    b->a.shape[k] = 4;
  b->n = 1u << (2 * d);
}

static void block_set(block* b, unsigned i, double x) {
  b->f[i] = (float)x;
  b->v[i] = b->a.type == PARZ_FLOAT ? (double)b->f[i] : x;
}

static const void* block_data(const block* b) {
  return b->a.type == PARZ_FLOAT ? (const void*)b->f : (const void*)b->v;
}

/* Whether the risk rule of p calls a value of the block at risk. */
static int block_at_risk(const block* b, const parz_params* p) {
  const parz_type t = b->a.type;
  const unsigned d = b->a.dims;
  const parz_exception_rule risk = parz_risk_rule_of(t, d, p, parz_params_bounded(p, t, d));
  unsigned i, at = 0;
  for (i = 0; i < b->n; i++)
    at |= parz_exception_test(&risk, bits_at(&b->a, block_data(b), i));
  return at != 0;
}

/* The block through the bare codec (no check) under p, its decoded values into out. */
static void block_round_trip(const block* b, const parz_params* p, double* out) {
  unsigned char buf[1 << 16];
  float fo[256];
  size_t written = 0;
  unsigned i;
  const int narrow = b->a.type == PARZ_FLOAT;
  CHECK(
      parz_compress(&b->a, block_data(b), p, buf, sizeof buf, &written, NULL) == PARZ_OK &&
          parz_decompress(&b->a, narrow ? (void*)fo : (void*)out, p, buf, written, NULL) == PARZ_OK,
      "bare codec");
  for (i = 0; i < b->n && narrow; i++)
    out[i] = fo[i];
}

/* The first value of the block that out holds beyond 2^e of it, or -1. */
static int block_miss(const block* b, const double* out, int e) {
  unsigned i;
  for (i = 0; i < b->n; i++)
    if (!within(b->v[i], out[i], e))
      return (int)i;
  return -1;
}

/* Random blocks `cap` planes beyond what zfp codes (cap <= 0: none missing): within 2^minexp
 * when cap <= 0 through the bare codec; the risk rule says at risk exactly when cap > 0. */
static void safe_blocks(parz_type t, unsigned d, int cap) {
  const int planes = t == PARZ_FLOAT ? 32 : 64;
  block b;
  int it;
  unsigned i;
  block_init(&b, t, d);
  for (it = 0; it < 3000; it++) {
    const int minexp = (int)(next() % 60) - 40, emax = planes + cap - 2 * (int)d - 2 + minexp;
    const int kind = (int)(next() % 4);
    parz_params p;
    double out[256];
    int miss;
    for (i = 0; i < b.n; i++) {
      /* one value just below 2^emax; the others at any exponent down to far below minexp,
       * near emax, or a checkerboard of signs at the top */
      const int e = i == 0      ? emax
                    : kind == 0 ? emax - (int)(next() % (unsigned)(planes + 8))
                    : kind == 1 ? emax - (int)(next() % 3)
                                : emax - (int)(next() % 12);
      double m = i == 0 ? 0.99 : 0.5 + 0.499 * uniform();
      if (kind == 3)
        m = ((i ^ (i >> 2) ^ (i >> 4)) & 1) ? -m : m;
      else if (next() & 1)
        m = -m;
      block_set(&b, i, ldexp(m, e));
    }
    parz_params_expert(&p, 1, PARZ_MAX_BITS, PARZ_MAX_PREC, minexp, NULL);
    CHECK(block_at_risk(&b, &p) == (cap > 0), "%s %uD %d planes missing: the rule says %sat risk",
          parz_type_name(t), d, cap, cap > 0 ? "not " : "");
    if (cap > 0)
      continue;
    block_round_trip(&b, &p, out);
    miss = block_miss(&b, out, minexp);
    CHECK(miss < 0, "%s %uD, %d planes to spare: %a came back as %a, beyond 2^%d",
          parz_type_name(t), d, -cap, b.v[miss < 0 ? 0 : miss], out[miss < 0 ? 0 : miss], minexp);
    if (miss >= 0)
      break;
  }
}

/* Blocks of magnitudes below 2^-97 (float32) or 2^-961 (float64), where zfp's scale of the block
 * overflows the type: at a tolerance low enough to give them a plane, the bare codec decodes
 * every value as -2^(emax + 1), the risk rule calls every nonzero value at risk, and the chunk
 * keeps the bound. */
static void tiny_blocks(parz_type t, unsigned d) {
  const int emax = t == PARZ_FLOAT ? -100 : -970;
  parz_chunk_config cfg;
  unsigned char* c;
  size_t bytes = 0;
  double out[256];
  char what[96];
  block b;
  unsigned i;
  block_init(&b, t, d);
  for (i = 0; i < b.n; i++)
    block_set(&b, i, ldexp(0.5 + 0.4 * (double)(i % 5) / 5.0, emax));
  memset(&cfg, 0, sizeof cfg);
  parz_params_expert(&cfg.params, 1, PARZ_MAX_BITS, PARZ_MAX_PREC, emax - 20, NULL);
  snprintf(what, sizeof what, "%s %uD below 2^%d", parz_type_name(t), d, emax);
  CHECK(block_at_risk(&b, &cfg.params), "%s: at risk", what);
  block_round_trip(&b, &cfg.params, out);
  CHECK(out[1] == -ldexp(1.0, emax + 1), "%s: zfp decodes %a as %a", what, b.v[1], out[1]);
  c = encode_checked(what, &b.a, block_data(&b), &cfg, &bytes);
  free(c);
}

/* ---- chunks ------------------------------------------------------------------------------- */

/* Checks a chunk of `in` against the bound: NaN, infinities, masked values and exceptions bit
 * for bit, every other value within 2^minexp. */
static void check_chunk(const char* what, const parz_array* a, const void* in,
                        const unsigned char* c, size_t n) {
  const size_t count = test_count(a), raw = count * parz_type_size(a->type);
  void* out = malloc(raw);
  parz_chunk_view v;
  parz_error err;
  size_t i, bad = 0;
  int minexp;
  CHECK(parz_chunk_parse(c, n, &v, &err) == PARZ_OK, "%s: parse: %s", what, err.message);
  minexp = v.params.minexp;
  CHECK(parz_chunk_decode(c, n, out, raw, &err) == PARZ_OK, "%s: decode: %s", what, err.message);
  for (i = 0; i < count; i++) {
    const double x = value_at(a, in, i), y = value_at(a, out, i);
    const int ok = isfinite(x) ? within(x, y, minexp) : bits_at(a, in, i) == bits_at(a, out, i);
    if (!ok && bad++ < 3)
      CHECK(0, "%s: value %zu %a came back as %a (bound 2^%d)", what, i, x, y, minexp);
  }
  CHECK(!bad, "%s: %zu of %zu values off", what, bad, count);
  free(out);
}

static void run_jobs(void* ctx, uint64_t n, void (*job)(void* arg, uint64_t i), void* arg) {
  uint64_t i;
  (void)ctx;
  for (i = n; i-- > 0;)
    job(arg, i);
}

/* Encodes whole and with the reads cut into 7 parts (the same bytes), checks the bound; the
 * chunk is returned (malloc'd, *n bytes). */
static unsigned char* encode_checked(const char* what, const parz_array* a, const void* in,
                                     const parz_chunk_config* cfg, size_t* n) {
  parz_jobs jobs = {run_jobs, NULL, 7};
  size_t bound = parz_chunk_bound_data(a, in, cfg), got = 0;
  unsigned char* c = test_encode(a, in, cfg, n);
  unsigned char* d = (unsigned char*)malloc(bound ? bound : 1);
  parz_error err;
  CHECK(c != NULL, "%s: encode", what);
  if (c) {
    CHECK(parz_chunk_encode_jobs(a, in, cfg, &jobs, d, bound, &got, &err) == PARZ_OK && got == *n &&
              !memcmp(c, d, got),
          "%s: the reads in parts write other bytes", what);
    check_chunk(what, a, in, c, *n);
  }
  free(d);
  return c;
}

/* Smooth values about 15 (sea temperatures), then what puts blocks at risk. kind 0: a region
 * of -1e34; 1: scattered huge values of 40 patterns (float32 and 3e200 for float64 among them);
 * 2: magnitudes from 1e-30 to 1e30 side by side; 3: subnormals beside FLT_MIN / DBL_MIN and
 * values 2^20 times larger; 4: a region of -1e34 with NaN, infinities and the fill value -9999
 * inside and beside it. */
static void* make(const parz_array* a, int kind) {
  const size_t n = test_count(a);
  void* d = malloc(n * parz_type_size(a->type));
  const double tiny = a->type == PARZ_FLOAT ? FLT_MIN : DBL_MIN;
  size_t i;
  for (i = 0; i < n; i++) {
    const double x = (double)i / (double)n;
    double v = 15.0 + 10.0 * sin(40.0 * x) + 3.0 * cos(7.0 * x * x) + 1e-3 * (double)(next() % 97);
    const int region = sin(90.0 * x + 1.0) > 0.3;
    switch (kind) {
      case 0: v = region ? -1e34 : v; break;
      case 1:
        if (next() % 11 == 0)
          v = (a->type == PARZ_DOUBLE && next() % 2 ? 3e200 : 1e30) * (1.0 + (double)(i % 40));
        break;
      case 2: v *= pow(10.0, (double)(int)(next() % 61) - 30.0); break;
      case 3:
        v = next() % 3 == 0   ? tiny * (double)(next() % 7) / 8.0
            : next() % 2 == 0 ? tiny * (1.0 + uniform())
                              : tiny * 1048576.0 * (1.0 + uniform());
        break;
      default:
        if (region)
          v = next() % 13 == 0 ? NAN : next() % 17 == 0 ? -9999.0 : -1e34;
        else if (next() % 31 == 0)
          v = next() % 2 ? INFINITY : -9999.0;
        break;
    }
    set_value(a, d, i, v);
  }
  return d;
}

static const char* const kind_names[] = {"-1e34 region", "huge values of 40 patterns",
                                         "1e-30 to 1e30", "subnormals", "-1e34, NaN, fill"};

static void chunks(parz_type t, unsigned d) {
  static const size_t shapes[4][4] = {{203}, {22, 37}, {9, 10, 13}, {5, 6, 7, 9}};
  /* tolerances; the expert setting: minbits padding, maxprec beyond the type's planes */
  static const double tols[] = {1e-7, 0.037, 10.0};
  parz_array a =
      test_array(t, d, shapes[d - 1][0], shapes[d - 1][1], shapes[d - 1][2], shapes[d - 1][3]);
  int kind, m, mask;
  char what[200];
  for (kind = 0; kind < 5; kind++) {
    void* in = make(&a, kind);
    for (m = 0; m < 4; m++)
      for (mask = 0; mask < 3; mask++) {
        parz_chunk_config cfg;
        unsigned char* c;
        size_t n;
        memset(&cfg, 0, sizeof cfg);
        if (m < 3)
          parz_params_accuracy(&cfg.params, kind == 3 ? tols[m] * 1e-30 : tols[m], NULL, NULL);
        else
          parz_params_expert(&cfg.params, 64, PARZ_MAX_BITS, 64, -12, NULL);
        if (kind == 3 && t == PARZ_DOUBLE && m < 3) /* below DBL_MIN, not only FLT_MIN */
          parz_params_accuracy(&cfg.params, tols[m] * 1e-300, NULL, NULL);
        cfg.mask = mask == 2 ? PARZ_MASK_OFF : PARZ_MASK_DEFAULT;
        cfg.fill = mask == 1;
        set_value(&a, &cfg.fill_bits, 0, -9999.0);
        snprintf(what, sizeof what, "%s %uD %s, minexp %d, mask %s", parz_type_name(t), d,
                 kind_names[kind], cfg.params.minexp,
                 mask == 2   ? "off"
                 : mask == 1 ? "on, fill -9999"
                             : "on");
        c = encode_checked(what, &a, in, &cfg, &n);
        free(c);
      }
    free(in);
  }
}

/* The region of -1e34: taken out as a whole, at the cost of naming it as the fill value. */
static void sentinel(parz_type t, unsigned d) {
  static const size_t shapes[4][4] = {{301}, {40, 53}, {11, 14, 17}, {6, 7, 9, 10}};
  parz_array a =
      test_array(t, d, shapes[d - 1][0], shapes[d - 1][1], shapes[d - 1][2], shapes[d - 1][3]);
  void* in = make(&a, 0);
  const size_t count = test_count(&a);
  parz_chunk_config cfg;
  parz_chunk_view v;
  unsigned char *c, *named;
  size_t n = 0, n_named = 0, i, sentinels = 0;
  char what[160];
  memset(&cfg, 0, sizeof cfg);
  parz_params_accuracy(&cfg.params, 0.037, NULL, NULL);
  snprintf(what, sizeof what, "%s %uD -1e34 not named", parz_type_name(t), d);
  c = encode_checked(what, &a, in, &cfg, &n);
  cfg.fill = 1;
  set_value(&a, &cfg.fill_bits, 0, -1e34);
  named = test_encode(&a, in, &cfg, &n_named);
  CHECK(c && named && n == n_named && !memcmp(c, named, n),
        "%s: %zu bytes, %zu with -1e34 named as the fill value", what, n, n_named);
  CHECK(
      c && parz_chunk_parse(c, n, &v, NULL) == PARZ_OK && v.mask.nvalues == 1 && v.nexceptions == 0,
      "%s: one mask value, no exception", what);
  free(c);
  free(named);
  cfg.fill = 0;
  cfg.mask = PARZ_MASK_OFF;
  snprintf(what, sizeof what, "%s %uD -1e34, mask off", parz_type_name(t), d);
  c = encode_checked(what, &a, in, &cfg, &n);
  for (i = 0; i < count; i++)
    sentinels += value_at(&a, in, i) == -1e34 || (t == PARZ_FLOAT && ((float*)in)[i] == -1e34f);
  CHECK(c && parz_chunk_parse(c, n, &v, NULL) == PARZ_OK && v.nexceptions == sentinels &&
            !v.mask.nvalues,
        "%s: %llu exceptions, %zu values of -1e34", what, (unsigned long long)v.nexceptions,
        sentinels);
  free(c);
  free(in);
}

/* float32 values near 1000 at 1e-7: every block at risk, every one kept exactly by zfp, so
 * nothing is taken out and the payload is libzfp's stream of the array itself. */
static void risk_kept(void) {
  parz_array a = test_array(PARZ_FLOAT, 2, 24, 36, 0, 0);
  float* in = (float*)malloc(24 * 36 * sizeof *in);
  parz_chunk_config cfg;
  parz_chunk_view v;
  unsigned char* c;
  size_t n = 0, zbytes = 0, i;
  void* z;
  for (i = 0; i < 24 * 36; i++)
    in[i] = 1000.0f + (float)(i % 9) * 0.25f - (float)(i % 5) * 0.125f;
  memset(&cfg, 0, sizeof cfg);
  parz_params_accuracy(&cfg.params, 1e-7, NULL, NULL);
  c = encode_checked("float 2D near 1000 at 1e-7", &a, in, &cfg, &n);
  CHECK(c && parz_chunk_parse(c, n, &v, NULL) == PARZ_OK && !v.nexceptions && !v.mask.nvalues,
        "near 1000 at 1e-7: nothing taken out");
  z = zfp_oracle_compress(&a, in, &cfg.params, &zbytes);
  CHECK(c && test_payload_is_zfp(v.payload, v.payload_bytes, z, zbytes),
        "near 1000 at 1e-7: the payload is libzfp's stream of the array");
  free(z);
  free(c);
  free(in);
}

/* ---- what precision and rate modes promise ------------------------------------------------ */

static void mode_promises(parz_type t, unsigned d, int rate) {
  const int planes = t == PARZ_FLOAT ? 32 : 64, ebits = t == PARZ_FLOAT ? 8 : 11;
  block b;
  int it;
  unsigned i;
  block_init(&b, t, d);
  for (it = 0; it < 3000; it++) {
    const int emax = (int)(next() % 80) - 40, kind = (int)(next() % 3);
    double out[256], big = 0;
    parz_params p;
    int e, prec, miss;
    if (rate) {
      parz_params_rate(&p, 1.0 + (double)(next() % (unsigned)(planes + 2)), t, d, NULL, NULL);
      prec = (int)(p.maxbits - 1u - (unsigned)ebits) / (int)b.n - 1;
    } else {
      prec = 1 + (int)(next() % (unsigned)(planes == 64 ? 64 : planes + 8));
      parz_params_precision(&p, (unsigned)prec, NULL);
    }
    if (prec > planes)
      prec = planes;
    for (i = 0; i < b.n; i++) {
      const int ex = kind == 0   ? emax - (int)(next() % (unsigned)(planes + 4))
                     : kind == 1 ? emax - (int)(next() % 3)
                                 : emax - (int)(next() % 10);
      block_set(&b, i, ldexp((next() & 1 ? -1 : 1) * (0.5 + 0.499 * uniform()), ex));
      big = fabs(b.v[i]) > big ? fabs(b.v[i]) : big;
    }
    frexp(big, &e);
    block_round_trip(&b, &p, out);
    miss = block_miss(&b, out, e - prec + 2 * (int)d + 2);
    CHECK(miss < 0, "%s %uD %s (%d planes): %a came back as %a, beyond 2^(%d - %d + %u)",
          parz_type_name(t), d, rate ? "rate" : "precision", prec, b.v[miss < 0 ? 0 : miss],
          out[miss < 0 ? 0 : miss], e, prec, 2 * d + 2);
    if (miss >= 0)
      break;
  }
}

/* ---- real data ---------------------------------------------------------------------------- */

static void real_sst(const char* dir) {
  size_t count = 0, i, n = 0, n_named = 0;
  real_array* list = dir ? real_arrays_load(dir, 0, &count) : NULL;
  for (i = 0; i < count; i++) {
    parz_chunk_config cfg;
    unsigned char *c, *named;
    if (strcmp(list[i].name, "coads_sst"))
      continue;
    memset(&cfg, 0, sizeof cfg);
    parz_params_accuracy(&cfg.params, 0.037, NULL, NULL);
    c = encode_checked("COADS SST at 0.037", &list[i].array, list[i].data, &cfg, &n);
    cfg.fill = 1;
    set_value(&list[i].array, &cfg.fill_bits, 0, -1e34);
    named = test_encode(&list[i].array, list[i].data, &cfg, &n_named);
    CHECK(c && named && n == n_named && !memcmp(c, named, n),
          "COADS SST: %zu bytes, %zu with -1e34 named as the fill value", n, n_named);
    printf("COADS SST %zux%zux%zu at 0.037: ratio %.3f\n", list[i].array.shape[0],
           list[i].array.shape[1], list[i].array.shape[2], (double)list[i].bytes / (double)n);
    free(c);
    free(named);
    break;
  }
  CHECK(i < count, "the COADS SST excerpt (coads_sst_f32le_*.bin) in %s", dir ? dir : "(none)");
  real_arrays_free(list, count);
}

int main(int argc, char** argv) {
  unsigned d;
  int t, cap;
  which_params();
  for (t = PARZ_FLOAT; t <= PARZ_DOUBLE; t++)
    for (d = 1; d <= 4; d++) {
      for (cap = -3; cap <= 1; cap++)
        safe_blocks((parz_type)t, d, cap);
      tiny_blocks((parz_type)t, d);
      chunks((parz_type)t, d);
      sentinel((parz_type)t, d);
      mode_promises((parz_type)t, d, 0);
      mode_promises((parz_type)t, d, 1);
    }
  risk_kept();
  real_sst(argc > 1 ? argv[1] : NULL);
  return test_finish("test_chunk_bound");
}
