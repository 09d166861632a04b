/* Hostile chunks against the decoders, deterministic, for ctest and the sanitizer run:
 *  - every truncation of valid chunks is refused;
 *  - every single bit flip of header, table, exceptions and payload, with the checksum left as
 *    is and recomputed, gives an error or a decoded array, and never a write past the array
 *    (guard bytes after it, besides AddressSanitizer in scripts/sanitize.sh);
 *  - headers whose sizes overflow when multiplied or added, or claim arrays of petabytes, are
 *    refused by the parser before anything is allocated: the test counts every malloc of the
 *    process (glibc builds without ASan) and caps the address space (RLIMIT_AS);
 *  - decoding a valid chunk allocates nothing on the serial path and O(chunk) at most with
 *    OpenMP.
 * The OpenMP decoder must agree with the serial one on every input (status and bytes). Among
 * the valid chunks, two whose -1e34 the accuracy bound's check took out (a mask value that is
 * neither NaN nor a fill value; with the mask off, exceptions of finite values). */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "array_of.h"
#include "check.h"
#include "fuzz_common.h"
#ifdef PARZ_TEST_OMP
#include "parz_omp.h"
#endif

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PARZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define PARZ_ASAN 1
#endif

/* ---- allocation counter (glibc without ASan: the test's malloc interposes the process's) ---- */
#if !defined(PARZ_ASAN) && defined(__GLIBC__)
#define COUNT_ALLOCS 1
extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void __libc_free(void*);
static volatile size_t alloc_bytes, alloc_calls;
void* malloc(size_t n) {
  __atomic_add_fetch(&alloc_bytes, n, __ATOMIC_RELAXED);
  __atomic_add_fetch(&alloc_calls, 1, __ATOMIC_RELAXED);
  return __libc_malloc(n);
}
void* calloc(size_t a, size_t b) {
  __atomic_add_fetch(&alloc_bytes, a * b, __ATOMIC_RELAXED);
  __atomic_add_fetch(&alloc_calls, 1, __ATOMIC_RELAXED);
  return __libc_calloc(a, b);
}
void* realloc(void* p, size_t n) {
  __atomic_add_fetch(&alloc_bytes, n, __ATOMIC_RELAXED);
  __atomic_add_fetch(&alloc_calls, 1, __ATOMIC_RELAXED);
  return __libc_realloc(p, n);
}
void free(void* p) { __libc_free(p); }
#endif

#define GUARD 64u
#define GUARD_BYTE 0xC3

static void wr64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}
static void wr32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

typedef struct {
  unsigned char* chunk;
  size_t bytes;
  size_t raw;
  const char* name;
} sample;

/* Whether the chunk holds the bits of -1e34f among its mask values or exception records. */
static int holds_sentinel(const unsigned char* c, size_t n) {
  const float f = -1e34f;
  uint32_t u;
  parz_chunk_view v;
  memcpy(&u, &f, 4);
  if (parz_chunk_parse(c, n, &v, NULL) != PARZ_OK)
    return 0;
  for (uint32_t k = 0; k < v.mask.nvalues; k++)
    if (parz_fuzz_rd64(v.mask.values + 8u * k) == u)
      return 1;
  for (uint64_t r = 0; r < v.nexceptions; r++)
    if (parz_fuzz_rd64(v.exceptions + 16u * r + 8u) == u)
      return 1;
  return 0;
}

/* A valid chunk of smooth values with NaN (float32) or -Inf (float64) among them: mode 0 rate,
 * 1 accuracy, 2 reversible, 3 accuracy with regions of -1e34 (float32), which the accuracy
 * bound's check takes out into the mask, 4 the same with the mask off (exceptions). */
static sample make_sample(const char* name, parz_type t, unsigned dims, const size_t* shape,
                          int mode, parz_table_kind table, uint32_t c, uint32_t p) {
  sample s = {NULL, 0, 0, name};
  parz_array a = parz_test_array(t, dims, shape);
  size_t n = parz_array_count(&a), vs = parz_type_size(t);
  unsigned char* data = malloc(n * vs);
  for (size_t i = 0; i < n; i++) {
    double x = sin(0.1 * (double)i) * 50.0 + (double)(i % 7);
    if (t == PARZ_FLOAT) {
      float f = (i % 41 == 9) ? NAN : (float)x;
      if (mode >= 3 && sin(0.05 * (double)i) > 0.5)
        f = -1e34f; /* the bound's check takes it out: a mask value, or exceptions */
      memcpy(data + 4 * i, &f, 4);
    } else if (t == PARZ_DOUBLE) {
      double d = (i % 53 == 11) ? -INFINITY : x;
      memcpy(data + 8 * i, &d, 8);
    } else if (t == PARZ_INT32) {
      int32_t v = (int32_t)(x * 1000);
      memcpy(data + 4 * i, &v, 4);
    } else {
      int64_t v = (int64_t)(x * 1e6);
      memcpy(data + 8 * i, &v, 8);
    }
  }
  parz_chunk_config cfg;
  memset(&cfg, 0, sizeof cfg);
  if (mode == 0)
    parz_params_rate(&cfg.params, 12.0, t, dims, NULL, NULL);
  if (mode == 1 || mode >= 3)
    parz_params_accuracy(&cfg.params, 1e-2, NULL, NULL);
  if (mode == 4)
    cfg.mask = PARZ_MASK_OFF;
  if (mode == 2)
    parz_params_reversible(&cfg.params);
  cfg.table = table;
  cfg.segment_blocks = c;
  cfg.partition_segments = p;
  size_t bound = parz_chunk_bound(&a, &cfg);
  s.chunk = malloc(bound);
  parz_error e;
  if (parz_chunk_encode(&a, data, &cfg, s.chunk, bound, &s.bytes, &e) != PARZ_OK) {
    fprintf(stderr, "cannot encode sample %s: %s\n", name, e.message);
    exit(2);
  }
  s.raw = n * vs;
  if (mode >= 3 && !holds_sentinel(s.chunk, s.bytes)) {
    fprintf(stderr, "sample %s: -1e34 was not taken out\n", name);
    exit(2);
  }
  free(data);
  return s;
}

/* Decodes with every decoder into a guarded buffer; checks guards, status agreement and that a
 * failure explains itself. Returns the serial status. */
static int decode_all(const unsigned char* c, size_t n, size_t raw, const char* what) {
  unsigned char* buf = malloc(raw + GUARD);
  parz_error e = {0, ""};
  memset(buf, GUARD_BYTE, raw + GUARD);
  int rc = parz_chunk_decode(c, n, buf, raw, &e);
  for (size_t i = 0; i < GUARD; i++)
    if (buf[raw + i] != GUARD_BYTE) {
      CHECK(0, "%s: serial decoder wrote past the array (guard byte %zu)", what, i);
      break;
    }
  if (rc != PARZ_OK)
    CHECK(e.code == rc && e.message[0], "%s: error without a message", what);
#ifdef PARZ_TEST_OMP
  unsigned char* obuf = malloc(raw + GUARD);
  parz_error oe = {0, ""};
  memset(obuf, GUARD_BYTE, raw + GUARD);
  int orc = parz_omp_chunk_decode(c, n, obuf, raw, 2, &oe);
  for (size_t i = 0; i < GUARD; i++)
    if (obuf[raw + i] != GUARD_BYTE) {
      CHECK(0, "%s: OpenMP decoder wrote past the array (guard byte %zu)", what, i);
      break;
    }
  CHECK(orc == rc, "%s: OpenMP status %d, serial %d", what, orc, rc);
  if (orc == PARZ_OK && rc == PARZ_OK)
    CHECK(memcmp(obuf, buf, raw) == 0, "%s: OpenMP and serial arrays differ", what);
  free(obuf);
#endif
  free(buf);
  return rc;
}

static void truncations(const sample* s) {
  char what[128];
  for (size_t cut = 0; cut < s->bytes; cut++) {
    unsigned char* t = malloc(cut ? cut : 1);
    memcpy(t, s->chunk, cut);
    snprintf(what, sizeof what, "%s truncated to %zu", s->name, cut);
    CHECK(decode_all(t, cut, s->raw, what) != PARZ_OK, "%s: decoded", what);
    free(t);
  }
  /* zero-length and NULL */
  parz_error e;
  unsigned char one[8];
  CHECK(parz_chunk_decode(s->chunk, 0, one, sizeof one, &e) == PARZ_ERR_FORMAT,
        "%s: zero-length chunk not refused as FORMAT", s->name);
  CHECK(parz_chunk_decode(NULL, s->bytes, one, sizeof one, &e) != PARZ_OK,
        "%s: NULL chunk accepted", s->name);
  CHECK(parz_chunk_decode(s->chunk, s->bytes, NULL, s->raw, &e) != PARZ_OK,
        "%s: NULL destination accepted", s->name);
}

static void bit_flips(const sample* s) {
  unsigned char* t = malloc(s->bytes);
  char what[128];
  size_t ok_after_flip = 0, refused = 0;
  parz_chunk_view sv;
  if (parz_chunk_parse(s->chunk, s->bytes, &sv, NULL) != PARZ_OK)
    abort();
  size_t head_bits = 8 * (size_t)(sv.payload - s->chunk);
  /* Every bit in front of the payload, every 13th payload bit (payload flips all take the same
   * paths: the bounded bit reader and the segment end checks). */
  for (int fix = 0; fix < 2; fix++)
    for (size_t bit = 0; bit < 8 * s->bytes; bit += bit < head_bits ? 1 : 13) {
      memcpy(t, s->chunk, s->bytes);
      t[bit / 8] ^= (unsigned char)(1u << (bit % 8));
      if (fix)
        parz_fuzz_fix_checksum(t, s->bytes);
      snprintf(what, sizeof what, "%s bit %zu flipped%s", s->name, bit,
               fix ? ", checksum fixed" : "");
      int rc = decode_all(t, s->bytes, s->raw, what);
      if (rc == PARZ_OK)
        ok_after_flip++;
      else
        refused++;
      /* Without the fix, any flip before the payload must be caught by the checksum or the
       * magic/version/size checks in front of it. */
      if (!fix && bit < head_bits)
        CHECK(rc != PARZ_OK, "%s: header/table flip not detected", what);
    }
  printf("  %-28s %6zu bytes: %zu flips refused, %zu decoded (payload flips may decode)\n", s->name,
         s->bytes, refused, ok_after_flip);
  free(t);
}

/* A header rewritten field by field, checksum recomputed: every variant must be refused by the
 * parser, before any allocation. */
typedef struct {
  const char* what;
  size_t offset;
  int width;
  uint64_t value;
} field_edit;

static void oversized_headers(const sample* s) {
  static const field_edit edits[] = {
      {"shape[0] = 2^62", 16, 8, (uint64_t)1 << 62},
      {"shape[0] = 2^64 - 1", 16, 8, UINT64_MAX},
      {"shape[0] * shape[1] overflows 64 bits", 16, 8, (uint64_t)1 << 40},
      {"shape[0] = 2^31 (count * size ok, payload too small)", 16, 8, (uint64_t)1 << 31},
      {"table_bytes = 2^64 - 8", 72, 8, UINT64_MAX - 7},
      {"table_bytes = 2^63", 72, 8, (uint64_t)1 << 63},
      {"nexceptions = 2^60 (x16 overflows)", 80, 8, (uint64_t)1 << 60},
      {"nexceptions = 2^64 - 1", 80, 8, UINT64_MAX},
      {"payload_bytes = 2^64 - 8", 88, 8, UINT64_MAX - 7},
      {"payload_bits = 2^64 - 1", 96, 8, UINT64_MAX},
      {"payload_bits = 0", 96, 8, 0},
      {"segment_blocks = 0", 64, 4, 0},
      {"segment_blocks = 2^32 - 1", 64, 4, UINT32_MAX},
      {"partition_segments = 2^32 - 1", 68, 4, UINT32_MAX},
      {"minbits > maxbits", 48, 4, UINT32_MAX},
      {"maxprec = 0", 56, 4, 0},
      {"rank = 9", 11, 1, 9},
      {"type = 7", 10, 1, 7},
      {"length width = 3", 13, 1, 3},
      {"table kind = 9", 12, 1, 9},
      {"format version 3", 4, 2, 3},
      {"codec version 9", 8, 2, 9},
      {"flags = 1", 14, 2, 1},
  };
  for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
    unsigned char* t = malloc(s->bytes);
    memcpy(t, s->chunk, s->bytes);
    const field_edit* f = &edits[i];
    if (f->width == 8)
      wr64(t + f->offset, f->value);
    if (f->width == 4)
      wr32(t + f->offset, (uint32_t)f->value);
    if (f->width == 2) {
      t[f->offset] = (unsigned char)f->value;
      t[f->offset + 1] = (unsigned char)(f->value >> 8);
    }
    if (f->width == 1)
      t[f->offset] = (unsigned char)f->value;
    if (i == 2)
      wr64(t + 24, (uint64_t)1 << 40); /* both extents */
    parz_fuzz_fix_checksum(t, s->bytes);
    parz_chunk_view v;
    parz_error e = {0, ""};
    unsigned char small[16];
#ifdef COUNT_ALLOCS
    size_t before = alloc_bytes, calls = alloc_calls;
#endif
    int rc = parz_chunk_parse(t, s->bytes, &v, &e);
    int drc = parz_chunk_decode(t, s->bytes, small, sizeof small, NULL);
#ifdef PARZ_TEST_OMP
    int orc = parz_omp_chunk_decode(t, s->bytes, small, sizeof small, 2, NULL);
#else
    int orc = drc;
#endif
#ifdef COUNT_ALLOCS
    CHECK(alloc_bytes == before && alloc_calls == calls,
          "%s / %s: %zu bytes allocated before refusing", s->name, f->what, alloc_bytes - before);
#endif
    CHECK(rc != PARZ_OK && rc != PARZ_ERR_NOMEM, "%s / %s: parse gave %d", s->name, f->what, rc);
    CHECK(drc == rc && orc == rc, "%s / %s: decoders gave %d / %d, parser %d", s->name, f->what,
          drc, orc, rc);
    if (i == 0)
      printf("  e.g. %s: %s\n", f->what, e.message);
    free(t);
  }
}

/* Valid chunks: the serial decoder allocates nothing, OpenMP at most O(chunk). */
static void allocation_bounds(const sample* s) {
#ifdef COUNT_ALLOCS
  unsigned char* buf = malloc(s->raw);
  size_t before = alloc_bytes;
  CHECK(parz_chunk_decode(s->chunk, s->bytes, buf, s->raw, NULL) == PARZ_OK, "%s", s->name);
  CHECK(alloc_bytes == before, "%s: serial decode allocated %zu bytes", s->name,
        alloc_bytes - before);
#ifdef PARZ_TEST_OMP
  before = alloc_bytes;
  CHECK(parz_omp_chunk_decode(s->chunk, s->bytes, buf, s->raw, 2, NULL) == PARZ_OK, "%s", s->name);
  CHECK(alloc_bytes - before <= s->bytes + 65536, "%s: OpenMP decode allocated %zu bytes", s->name,
        alloc_bytes - before);
#endif
  free(buf);
#else
  (void)s;
#endif
}

int main(void) {
  static const size_t s1[] = {300}, s2[] = {17, 23}, s3[] = {9, 10, 11}, s4[] = {5, 6, 7, 9},
                      big[] = {160, 128};
  sample samples[] = {
      make_sample("f32 1d accuracy hybrid", PARZ_FLOAT, 1, s1, 1, PARZ_TABLE_HYBRID, 2, 3),
      make_sample("f64 2d reversible lengths", PARZ_DOUBLE, 2, s2, 2, PARZ_TABLE_LENGTHS, 3, 0),
      make_sample("i32 3d reversible offsets", PARZ_INT32, 3, s3, 2, PARZ_TABLE_OFFSETS, 4, 0),
      make_sample("i64 4d rate none", PARZ_INT64, 4, s4, 0, PARZ_TABLE_AUTO, 0, 0),
      make_sample("f32 2d accuracy big", PARZ_FLOAT, 2, big, 1, PARZ_TABLE_HYBRID, 8, 4),
      make_sample("f32 2d accuracy, -1e34 taken out", PARZ_FLOAT, 2, s2, 3, PARZ_TABLE_HYBRID, 2,
                  3),
      make_sample("f32 3d accuracy, -1e34 taken out, mask off", PARZ_FLOAT, 3, s3, 4,
                  PARZ_TABLE_HYBRID, 1, 2),
  };
  size_t nsamples = sizeof samples / sizeof samples[0];
#ifdef PARZ_TEST_OMP
  /* Warm the OpenMP runtime up (its thread pool allocates once) before counting. */
  {
    sample* b = &samples[nsamples - 1];
    unsigned char* buf = malloc(b->raw);
    parz_omp_chunk_decode(b->chunk, b->bytes, buf, b->raw, 2, NULL);
    free(buf);
  }
#endif
#ifndef PARZ_ASAN
  /* Address space capped near what the test uses: a decoder that believed a header's size and
   * tried to allocate it would fail here rather than succeed on a big machine. */
  struct rlimit lim;
  FILE* st = fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  if (st && fscanf(st, "%lu", &pages) == 1 && getrlimit(RLIMIT_AS, &lim) == 0) {
    lim.rlim_cur = (rlim_t)pages * 4096 + ((rlim_t)256 << 20);
    setrlimit(RLIMIT_AS, &lim);
  }
  if (st)
    fclose(st);
#endif
  for (size_t i = 0; i < nsamples; i++) {
    sample* s = &samples[i];
    CHECK(decode_all(s->chunk, s->bytes, s->raw, s->name) == PARZ_OK, "%s: valid chunk", s->name);
    allocation_bounds(s);
    oversized_headers(s);
    if (s->bytes < 20000) {
      truncations(s);
      bit_flips(s);
    }
  }
  for (size_t i = 0; i < nsamples; i++)
    free(samples[i].chunk);
#ifdef COUNT_ALLOCS
  printf("allocations counted\n");
#else
  printf("allocations not counted in this build\n");
#endif
  return test_finish("test_hostile_chunk");
}
