/* The encoder's reads of the array cut into parts (parz_jobs, codec/parz_chunk.h; codec/frame/scan.c)
 * give what the uncut reads give: parz_chunk_bound_data_jobs equals parz_chunk_bound_data and
 * parz_chunk_encode_jobs writes parz_chunk_encode's bytes, for 2 to 300 parts run in reverse and
 * in interleaved order.
 *
 * One value the payload cannot carry as it is (a masked NaN or fill value, an Inf or an integer
 * beyond zfp's range as an exception, a NaN with the mask off) is put where a cut could lose or
 * misplace it: the first and last value, both sides of every boundary between runs of values,
 * and the first and last value of the blocks on both sides of every boundary between runs of
 * blocks; in a contiguous array (runs of values) and in a strided view (slabs). Then arrays with
 * many masked values and exceptions together, with exceptions alone, with a fill value that is a
 * NaN pattern beside other NaN, and with more NaN patterns than a mask holds (its palette fills
 * up in C order: the parts' scans cannot say which, and the encoder reads the array whole), and
 * with values that break the accuracy bound of their blocks: a region of -1e34, and huge values
 * of 400 patterns (more than a mask holds: the rest exceptions), which the bound's check, its
 * blocks cut into parts too, takes out. A value that breaks its block's bound is among the
 * single values above: taken out, masked or (mask off) an exception. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_chunk_common.h"

static const uint64_t part_counts[] = {2, 3, 7, 16, 64, 300};
#define NPARTS (sizeof part_counts / sizeof part_counts[0])

/* Runs the jobs backwards (order 0) or evens then odds (order 1), one after another, and notes
 * the largest n it was given. */
typedef struct {
  int order;
  uint64_t most;
} runner;

static void run_jobs(void* ctx, uint64_t n, void (*job)(void* arg, uint64_t i), void* arg) {
  runner* r = (runner*)ctx;
  uint64_t i;
  if (n > r->most)
    r->most = n;
  if (r->order == 0) {
    for (i = n; i-- > 0;)
      job(arg, i);
    return;
  }
  for (i = 0; i < n; i += 2)
    job(arg, i);
  for (i = 1; i < n; i += 2)
    job(arg, i);
}

/* The array under cfg, cut into every count of parts and whole: the same bound and bytes. */
static void compare(const char* what, const parz_array* a, const void* data,
                    const parz_chunk_config* cfg) {
  size_t ref_n = 0, ref_bound = parz_chunk_bound_data(a, data, cfg);
  unsigned char* ref = test_encode(a, data, cfg, &ref_n);
  unsigned char* c = (unsigned char*)malloc(ref_bound ? ref_bound : 1);
  size_t k;
  CHECK(ref && ref_bound, "%s: serial encode", what);
  for (k = 0; ref && c && k < 2 * NPARTS; k++) {
    runner r = {(int)(k % 2), 0};
    parz_jobs jobs = {run_jobs, &r, part_counts[k / 2]};
    size_t got = 0;
    parz_error err;
    int rc;
    CHECK(parz_chunk_bound_data_jobs(a, data, cfg, &jobs) == ref_bound, "%s, %llu parts: bound",
          what, (unsigned long long)jobs.parts);
    memset(c, 0xA5, ref_bound);
    rc = parz_chunk_encode_jobs(a, data, cfg, &jobs, c, ref_bound, &got, &err);
    CHECK(rc == PARZ_OK && got == ref_n && !memcmp(c, ref, got),
          "%s, %llu parts, order %d: chunk differs (rc %d, %zu vs %zu bytes)", what,
          (unsigned long long)jobs.parts, r.order, rc, got, ref_n);
    CHECK(r.most > 1, "%s: the jobs were not cut", what);
  }
  free(ref);
  free(c);
}

static void put(unsigned char* p, size_t size, uint64_t bits) {
  if (size == 4) {
    uint32_t u = (uint32_t)bits;
    memcpy(p, &u, 4);
  } else {
    memcpy(p, &bits, 8);
  }
}

/* [lo, hi) of part i of n over `units`, as scan.c cuts them. */
static uint64_t part_start(uint64_t units, uint64_t i, uint64_t n) {
  const uint64_t q = units / n, r = units % n;
  return q * i + (i < r ? i : r);
}

/* Adds position p (below n) to at[] unless full; returns the new count. */
static size_t add(size_t* at, size_t k, size_t max, uint64_t p, uint64_t n) {
  if (k < max && p < n)
    at[k++] = (size_t)p;
  return k;
}

/* C-order position of value (z, y, x) of a rank-3 shape, and of block b's first and last value. */
static uint64_t pos3(const size_t* s, uint64_t z, uint64_t y, uint64_t x) {
  return (z * s[1] + y) * s[2] + x;
}

/* Where a special value must be tried in an array of shape s (rank 3; rank 2 as 1 x s1 x s2):
 * value runs over `units` (values, or slabs of per values), block runs over the block grid. */
static size_t places(const size_t* s, uint64_t units, uint64_t per, size_t* at, size_t max) {
  const uint64_t n = s[0] * s[1] * s[2], nb[3] = {(s[0] + 3) / 4, (s[1] + 3) / 4, (s[2] + 3) / 4};
  const uint64_t nblocks = nb[0] * nb[1] * nb[2];
  size_t k = 0, i;
  k = add(at, k, max, 0, n);
  k = add(at, k, max, n - 1, n);
  for (i = 0; i < NPARTS; i++) {
    const uint64_t mv = part_counts[i] < units ? part_counts[i] : units;
    const uint64_t mb = part_counts[i] < nblocks ? part_counts[i] : nblocks;
    /* about 16 boundaries of each count at most: the test stays short */
    for (uint64_t j = 1; j < mv; j += 1 + mv / 16) {
      uint64_t v = part_start(units, j, mv) * per;
      k = add(at, k, max, v, n);
      k = add(at, k, max, v - 1, n);
    }
    for (uint64_t j = 1; j < mb; j += 1 + mb / 16) { /* the blocks on both sides of one */
      uint64_t b = part_start(nblocks, j, mb);
      uint64_t bz = b / (nb[1] * nb[2]), by = b / nb[2] % nb[1], bx = b % nb[2];
      uint64_t pz = (b - 1) / (nb[1] * nb[2]), py = (b - 1) / nb[2] % nb[1], px = (b - 1) % nb[2];
      k = add(at, k, max, pos3(s, 4 * bz, 4 * by, 4 * bx), n);
      k = add(at, k, max,
              pos3(s, 4 * pz + 3 < s[0] ? 4 * pz + 3 : s[0] - 1,
                   4 * py + 3 < s[1] ? 4 * py + 3 : s[1] - 1,
                   4 * px + 3 < s[2] ? 4 * px + 3 : s[2] - 1),
              n);
    }
  }
  return k;
}

typedef struct {
  const char* name;
  parz_type type;
  int mask_off, fill;
  uint64_t bits;
} special_case;

static const special_case cases[] = {
    {"float NaN, masked", PARZ_FLOAT, 0, 0, 0x7fc00001u},
    {"float Inf, exception", PARZ_FLOAT, 0, 0, 0x7f800000u},
    {"float NaN, mask off", PARZ_FLOAT, 1, 0, 0xffc00000u},
    {"double -Inf, exception", PARZ_DOUBLE, 0, 0, 0xfff0000000000000ull},
    {"double fill value", PARZ_DOUBLE, 0, 1, 0x4059000000000000ull}, /* 100.0 */
    {"int32 beyond 2^30, exception", PARZ_INT32, 0, 0, 0x7ffffff0u},
    {"int32 fill value", PARZ_INT32, 0, 1, 0xfffffc17u}, /* -1001 */
    {"int64 beyond 2^62, exception", PARZ_INT64, 0, 0, 0x8000000000000001ull},
    /* values that break their block's accuracy bound, which the check takes out */
    {"float -1e34, taken out, masked", PARZ_FLOAT, 0, 0, 0xf7f684dfu},
    {"double 1e300, taken out, mask off", PARZ_DOUBLE, 1, 0, 0x7e37e43c8800759cull},
};
#define NCASES (sizeof cases / sizeof cases[0])

static parz_chunk_config config_of(const special_case* s) {
  parz_chunk_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.params = test_params(2, s->type, 2); /* accuracy: lossy, so big integers are exceptions */
  cfg.segment_blocks = 3;
  cfg.mask = s->mask_off ? PARZ_MASK_OFF : PARZ_MASK_DEFAULT;
  cfg.fill = s->fill;
  cfg.fill_bits = s->fill ? s->bits : 0;
  return cfg;
}

/* One special value at every place, contiguous 2D and strided 3D. */
static void one_value(const special_case* s, unsigned seed) {
  const size_t size = parz_type_size(s->type);
  const parz_chunk_config cfg = config_of(s);
  size_t at[512], nat, i;
  char what[200];
  { /* contiguous: runs of values */
    const size_t shape[3] = {1, 61, 67};
    parz_array a = test_array(s->type, 2, 61, 67, 0, 0);
    unsigned char* data = (unsigned char*)test_data(&a, seed);
    snprintf(what, sizeof what, "%s, contiguous, none", s->name);
    compare(what, &a, data, &cfg);
    nat = places(shape, 61 * 67, 1, at, sizeof at / sizeof at[0]);
    for (i = 0; i < nat; i++) {
      unsigned char keep[8];
      memcpy(keep, data + at[i] * size, size);
      put(data + at[i] * size, size, s->bits);
      snprintf(what, sizeof what, "%s, contiguous, at %zu", s->name, at[i]);
      compare(what, &a, data, &cfg);
      memcpy(data + at[i] * size, keep, size);
    }
    free(data);
  }
  { /* strided: slabs along the first dimension, every other value of every other row */
    const size_t shape[3] = {37, 9, 11};
    parz_array full = test_array(s->type, 3, 37, 18, 22, 0);
    unsigned char* buf = (unsigned char*)test_data(&full, seed + 1);
    parz_array view = test_array(s->type, 3, 37, 9, 11, 0);
    view.stride[0] = 18 * 22;
    view.stride[1] = 2 * 22;
    view.stride[2] = 2;
    snprintf(what, sizeof what, "%s, strided, none", s->name);
    compare(what, &view, buf, &cfg);
    nat = places(shape, 37, 9 * 11, at, sizeof at / sizeof at[0]);
    for (i = 0; i < nat; i++) {
      const size_t z = at[i] / 99, y = at[i] / 11 % 9, x = at[i] % 11;
      const size_t off = z * 18 * 22 + y * 44 + x * 2;
      unsigned char keep[8];
      memcpy(keep, buf + off * size, size);
      put(buf + off * size, size, s->bits);
      snprintf(what, sizeof what, "%s, strided, at %zu", s->name, at[i]);
      compare(what, &view, buf, &cfg);
      memcpy(buf + off * size, keep, size);
    }
    free(buf);
  }
}

/* Arrays full of them: land and sea with exceptions, exceptions alone, a NaN fill value beside
 * other NaN, 300 NaN patterns (more than the 255 a mask holds beside a fill value), and values
 * the accuracy bound's check takes out. */
static void many(void) {
  parz_array a = test_array(PARZ_FLOAT, 3, 23, 29, 31, 0);
  const size_t n = test_count(&a);
  float* d = (float*)test_data(&a, 99);
  float* e = (float*)malloc(n * sizeof *e);
  parz_chunk_config cfg;
  size_t i;
  memset(&cfg, 0, sizeof cfg);
  cfg.params = test_params(2, PARZ_FLOAT, 3);
  for (i = 0; i < n; i++) { /* land (NaN of two patterns), and Inf here and there at sea */
    double land = sin(0.01 * (double)i) + cos(0.0007 * (double)i * (double)(i % 5));
    uint32_t u = land > 0.7 ? (i % 3 ? 0x7fc00000u : 0xffc00123u) : 0;
    memcpy(&e[i], u ? &u : (const void*)&d[i], 4);
    if (!u && i % 211 == 7)
      e[i] = i % 2 ? INFINITY : -INFINITY;
  }
  compare("land of two NaN patterns, Inf at sea", &a, e, &cfg);
  for (i = 0; i < n; i++)
    e[i] = i % 97 == 3 ? INFINITY : d[i];
  compare("Inf alone, mask on", &a, e, &cfg);
  cfg.mask = PARZ_MASK_OFF;
  for (i = 0; i < n; i++)
    if (i % 89 == 1)
      e[i] = NAN;
  compare("NaN and Inf, mask off", &a, e, &cfg);
  cfg.mask = PARZ_MASK_DEFAULT;
  cfg.fill = 1;
  cfg.fill_bits = 0xfffffff0u; /* a NaN pattern as the fill value */
  for (i = 0; i < n; i++) {
    uint32_t u = i % 13 == 0 ? 0xfffffff0u : i % 17 == 0 ? 0x7fc00042u : 0;
    if (u)
      memcpy(&e[i], &u, 4);
    else
      e[i] = d[i];
  }
  compare("a NaN fill value beside another NaN", &a, e, &cfg);
  for (i = 0; i < n; i++) {
    uint32_t u = 0x7fc00000u | (uint32_t)(i / 7 % 300); /* 300 patterns, the later ones last */
    if (i % 7 == 0)
      memcpy(&e[i], &u, 4);
  }
  compare("300 NaN patterns beside a fill value", &a, e, &cfg);
  cfg.fill = 0;
  for (i = 0; i < n; i++) { /* a region of -1e34, huge values of 400 patterns at sea */
    double land = sin(0.013 * (double)i) + cos(0.0009 * (double)i * (double)(i % 3));
    e[i] = land > 0.8 ? -1e34f : i % 11 == 4 ? 1e30f * (float)(1 + i % 400) : d[i];
  }
  compare("-1e34 and 400 huge patterns, taken out", &a, e, &cfg);
  { /* far more parts than values: the codec cuts no finer than it can */
    size_t ref_n = 0, got = 0;
    unsigned char* ref = test_encode(&a, e, &cfg, &ref_n);
    unsigned char* c = (unsigned char*)malloc(ref_n ? ref_n : 1);
    runner r = {0, 0};
    parz_jobs jobs = {run_jobs, &r, UINT64_MAX};
    parz_error err;
    int rc = ref && c ? parz_chunk_encode_jobs(&a, e, &cfg, &jobs, c, ref_n, &got, &err) : -1;
    CHECK(rc == PARZ_OK && got == ref_n && !memcmp(c, ref, got) && r.most > 1 && r.most <= 4096,
          "2^64 - 1 parts: rc %d, %zu vs %zu bytes, %llu jobs at most", rc, got, ref_n,
          (unsigned long long)r.most);
    free(ref);
    free(c);
  }
  free(d);
  free(e);
}

int main(void) {
  size_t k;
  for (k = 0; k < NCASES; k++)
    one_value(&cases[k], 7u + (unsigned)k);
  many();
  return test_finish("test_chunk_jobs");
}
