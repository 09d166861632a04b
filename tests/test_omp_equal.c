/* Every policy gives the same bytes: the OpenMP encoder writes exactly parz_chunk_encode's chunk
 * (and bounds it as parz_chunk_bound_data does) and the OpenMP decoder exactly
 * parz_chunk_decode's array, at 1, 2, 3, 4, 7 and 16 threads, over
 * every mode, type and rank, with table settings that leave partial segments and partitions and
 * with non-finite and masked values, and values the accuracy bound's check takes out, random
 * bits with stored chunks on and off; then on
 * the real arrays (slabs) in accuracy and precision modes.
 *
 * Arrays are above the OpenMP drivers' serial thresholds so that the parallel paths run.
 * Usage: test_omp_equal [DATA_DIR] */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parz_omp.h"
#include "team.h" /* the drivers with the serial cut-off as a parameter */
#include "test_chunk_common.h"
#include "real_arrays.h"

static const int thread_counts[] = {1, 2, 3, 4, 7, 16};
#define NTHREADS (int)(sizeof thread_counts / sizeof thread_counts[0])

/* The allocator given to parz_omp_chunk_encode_alloc: one buffer, the size asked recorded. */
typedef struct {
  void* p;
  size_t asked;
  int calls;
} one_buffer;

static void* give(void* arg, size_t bytes) {
  one_buffer* b = (one_buffer*)arg;
  b->calls++;
  b->asked = bytes;
  free(b->p);
  b->p = malloc(bytes ? bytes : 1);
  if (b->p)
    memset(b->p, 0xA5, bytes); /* stale bytes must not survive into the chunk */
  return b->p;
}

/* Slabs of the default size, slabs of 8 bytes that every piece outgrows, and no slabs. */
static const unsigned slab_shifts[] = {PARZ_OMP_SLAB_SHIFT, 62u, 0u};
#define NSHIFTS (int)(sizeof slab_shifts / sizeof slab_shifts[0])

/* Encodes serially and with every thread count, compares the chunks; decodes the serial chunk
 * serially and with every thread count, compares the arrays. Returns the number of comparisons. */
static int check_policies_above(const char* what, const parz_array* a, const void* data,
                                const parz_chunk_config* cfg, size_t min_bytes) {
  size_t cap = parz_chunk_bound(a, cfg), n_ser = 0, raw = test_count(a) * parz_type_size(a->type);
  unsigned char *ref = (unsigned char*)malloc(cap ? cap : 1),
                *chunk = (unsigned char*)malloc(cap ? cap : 1);
  unsigned char *dec_ref = (unsigned char*)malloc(raw), *dec = (unsigned char*)malloc(raw);
  parz_error err;
  int t, rc, compared = 0;
  CHECK(cap > 0, "%s: no bound", what);
  rc = parz_chunk_encode(a, data, cfg, ref, cap, &n_ser, &err);
  CHECK(rc == PARZ_OK, "%s: serial encode: %s", what, err.message);
  if (rc != PARZ_OK)
    goto done;
  rc = parz_chunk_decode(ref, n_ser, dec_ref, raw, &err);
  CHECK(rc == PARZ_OK, "%s: serial decode: %s", what, err.message);
  if (rc != PARZ_OK)
    goto done;
  for (t = 0; t < NTHREADS; t++) {
    size_t n = 0;
    CHECK(parz_omp_chunk_bound_data(a, data, cfg, thread_counts[t]) ==
              parz_chunk_bound_data(a, data, cfg),
          "%s: %d threads: bound differs", what, thread_counts[t]);
    memset(chunk, 0xA5, cap); /* stale bytes must not survive into the chunk */
    rc = parz_omp_chunk_encode_above(a, data, cfg, chunk, cap, &n, thread_counts[t], min_bytes,
                                     &err);
    CHECK(rc == PARZ_OK && n == n_ser && memcmp(chunk, ref, n) == 0,
          "%s: %d threads: encode rc %d, %zu vs %zu bytes, %s", what, thread_counts[t], rc, n,
          n_ser, rc == PARZ_OK ? (n == n_ser ? "bytes differ" : "sizes differ") : err.message);
    for (int k = 0; k < NSHIFTS; k++) {
      one_buffer b = {NULL, 0, 0};
      /* on a team the chunk's exact size is asked, once; serially the values' bound */
      const int team = thread_counts[t] > 1 && raw >= min_bytes;
      rc = parz_omp_chunk_encode_alloc_above(a, data, cfg, give, &b, &n, thread_counts[t],
                                             min_bytes, slab_shifts[k], &err);
      CHECK(rc == PARZ_OK && n == n_ser && b.calls == 1 && memcmp(b.p, ref, n) == 0 &&
                (team ? b.asked == n : b.asked == parz_chunk_bound_data(a, data, cfg)),
            "%s: %d threads, slabs >> %u: encode into an allocated buffer rc %d, %zu vs %zu "
            "bytes, %d calls asking %zu: %s",
            what, thread_counts[t], slab_shifts[k], rc, n, n_ser, b.calls, b.asked,
            rc == PARZ_OK ? "bytes or sizes differ" : err.message);
      free(b.p);
      compared++;
    }
    memset(dec, 0x5A, raw);
    rc = parz_omp_chunk_decode_above(ref, n_ser, dec, raw, thread_counts[t], min_bytes, 0, &err);
    CHECK(rc == PARZ_OK && memcmp(dec, dec_ref, raw) == 0, "%s: %d threads: decode rc %d %s", what,
          thread_counts[t], rc, rc == PARZ_OK ? "arrays differ" : err.message);
    compared += 2;
  }
done:
  free(ref);
  free(chunk);
  free(dec_ref);
  free(dec);
  return compared;
}

static int check_policies(const char* what, const parz_array* a, const void* data,
                          const parz_chunk_config* cfg) {
  return check_policies_above(what, a, data, cfg, PARZ_OMP_DECODE_MIN_BYTES);
}

/* Tiny arrays (one block, one partial block, fewer segments than threads) through the parallel
 * paths, the serial cut-off turned off. */
static void tiny(void) {
  static const size_t shapes[][4] = {{1, 0, 0, 0}, {3, 0, 0, 0}, {9, 0, 0, 0},
                                     {1, 1, 0, 0}, {5, 7, 0, 0}, {4, 4, 4, 0},
                                     {2, 3, 5, 0}, {1, 2, 1, 3}, {6, 5, 4, 3}};
  static const unsigned ranks[] = {1, 1, 1, 2, 2, 3, 3, 4, 4};
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  size_t k;
  int ti, m, compared = 0;
  for (k = 0; k < sizeof ranks / sizeof ranks[0]; k++)
    for (ti = 0; ti < 4; ti++) {
      parz_array a =
          test_array(types[ti], ranks[k], shapes[k][0], shapes[k][1], shapes[k][2], shapes[k][3]);
      void* data = test_data(&a, (unsigned)k);
      if (types[ti] == PARZ_DOUBLE && test_count(&a) > 2)
        ((double*)data)[1] = -INFINITY;
      for (m = 0; m < TEST_MODES; m++) {
        parz_chunk_config cfg;
        char what[128];
        memset(&cfg, 0, sizeof cfg);
        cfg.params = test_params(m, a.type, a.dims);
        cfg.segment_blocks = 1 + (uint32_t)(k % 2);
        cfg.partition_segments = 2;
        snprintf(what, sizeof what, "tiny %s %uD #%zu %s", parz_type_name(a.type), a.dims, k,
                 test_mode_name(m));
        compared += check_policies_above(what, &a, data, &cfg, 0);
      }
      free(data);
    }
  printf("tiny: %d comparisons\n", compared);
}

/* Shapes with partial blocks in every dimension, each above 64 KiB of int32/float. */
static parz_array shape_for(parz_type type, unsigned dims) {
  switch (dims) {
    case 1: return test_array(type, 1, 17001, 0, 0, 0);
    case 2: return test_array(type, 2, 131, 133, 0, 0);
    case 3: return test_array(type, 3, 27, 25, 26, 0);
    default: return test_array(type, 4, 13, 11, 12, 10);
  }
}

/* Table settings: defaults (one partial partition), tiny C and P (many partitions, partial last
 * segment and partition), C = 1, and the other table kinds. */
typedef struct {
  const char* name;
  parz_table_kind table;
  uint32_t c, p;
} table_setting;
static const table_setting settings[] = {
    {"default", PARZ_TABLE_AUTO, 0, 0},        {"hybrid C7 P5", PARZ_TABLE_HYBRID, 7, 5},
    {"hybrid C1 P3", PARZ_TABLE_HYBRID, 1, 3}, {"offsets C5", PARZ_TABLE_OFFSETS, 5, 0},
    {"lengths C9", PARZ_TABLE_LENGTHS, 9, 0},
};
#define NSETTINGS (int)(sizeof settings / sizeof settings[0])

/* Every mode and table setting on one array (cfg: its fill value), the per-combination sweep
 * thinned to keep the test short on 2 cores; returns the comparisons. */
static int sweep(const char* label, const parz_array* a, const void* data,
                 const parz_chunk_config* base) {
  int m, s, compared = 0;
  for (m = 0; m < TEST_MODES; m++)
    for (s = 0; s < NSETTINGS; s++) {
      parz_chunk_config cfg = *base;
      char what[160];
      /* the NONE table needs fixed rate, the other kinds run in every mode */
      if (s >= 2 && (m + s + (int)a->dims) % 2)
        continue;
      cfg.params = test_params(m, a->type, a->dims);
      cfg.table = settings[s].table;
      cfg.segment_blocks = settings[s].c;
      cfg.partition_segments = settings[s].p;
      snprintf(what, sizeof what, "%s%s %uD %s %s", label, parz_type_name(a->type), a->dims,
               test_mode_name(m), settings[s].name);
      compared += check_policies(what, a, data, &cfg);
    }
  return compared;
}

static void synthetic(void) {
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  parz_chunk_config cfg;
  int ti, compared = 0;
  unsigned dims;
  memset(&cfg, 0, sizeof cfg);
  for (ti = 0; ti < 4; ti++)
    for (dims = 1; dims <= 4; dims++) {
      parz_array a = shape_for(types[ti], dims);
      void* data = test_data(&a, 3u * dims + (unsigned)ti);
      compared += sweep("", &a, data, &cfg);
      free(data);
    }
  printf("synthetic: %d comparisons\n", compared);
}

/* Non-finite values: a few scattered ones, and so many that exceptions are patched in
 * parallel. */
static void nonfinite(void) {
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE};
  int ti, m, compared = 0;
  for (ti = 0; ti < 2; ti++)
    for (m = 0; m < TEST_MODES; m++) {
      parz_array a = test_array(types[ti], 2, 203, 199, 0, 0);
      size_t n = test_count(&a), i;
      void* data = test_data(&a, 11u + (unsigned)m);
      parz_chunk_config cfg;
      char what[128];
      for (i = 0; i < n; i += (m % 2 ? 3 : 997)) {
        double v = (i / 3) % 3 == 0 ? NAN : (i % 2 ? INFINITY : -INFINITY);
        if (a.type == PARZ_FLOAT)
          ((float*)data)[i] = (float)v;
        else
          ((double*)data)[i] = v;
      }
      memset(&cfg, 0, sizeof cfg);
      cfg.params = test_params(m, a.type, a.dims);
      cfg.segment_blocks = 6;
      cfg.partition_segments = 7;
      snprintf(what, sizeof what, "%s non-finite every %d %s", parz_type_name(a.type),
               m % 2 ? 3 : 997, test_mode_name(m));
      compared += check_policies(what, &a, data, &cfg);
      free(data);
    }
  printf("non-finite: %d comparisons\n", compared);
}

/* Masked values over regions of every size (NaN for floats, the fill value for every type, as
 * land under an ocean field): work units start inside mask groups and partitions. */
static void masked(void) {
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  int ti, compared = 0;
  unsigned dims;
  for (ti = 0; ti < 4; ti++)
    for (dims = 2; dims <= 3; dims++) {
      parz_array a = shape_for(types[ti], dims);
      size_t n = test_count(&a), size = parz_type_size(a.type), i;
      unsigned char* data = (unsigned char*)test_data(&a, 5u + (unsigned)ti);
      parz_chunk_config cfg;
      memset(&cfg, 0, sizeof cfg);
      cfg.fill = 1; /* the bits of -16 (integers), of a NaN (floats) */
      cfg.fill_bits = size == 4 ? 0xfffffff0u : 0xfffffffffffffff0ull;
      for (i = 0; i < n; i++) {
        double land = sin(0.003 * (double)i) + cos(0.0005 * (double)i * (double)(i % 7));
        if (land > 0.6 || i % 1009 == 5)
          memcpy(data + i * size, &cfg.fill_bits, size);
      }
      compared += sweep("masked ", &a, data, &cfg);
      free(data);
    }
  printf("masked: %d comparisons\n", compared);
}

/* Values that break the accuracy bound of their blocks (a region of -1e34, huge values of 400
 * patterns), which the bound's check takes out in parts on the team, the mask on and off. */
static void at_risk(void) {
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE};
  int ti, off, compared = 0;
  unsigned dims;
  for (ti = 0; ti < 2; ti++)
    for (dims = 2; dims <= 3; dims++)
      for (off = 0; off < 2; off++) {
        parz_array a = shape_for(types[ti], dims);
        size_t n = test_count(&a), i;
        void* data = test_data(&a, 13u + dims);
        parz_chunk_config cfg;
        char what[128];
        for (i = 0; i < n; i++) {
          double land = sin(0.004 * (double)i) + cos(0.0006 * (double)i * (double)(i % 5));
          double v = land > 0.7 ? -1e34 : i % 13 == 2 ? 1e30 * (double)(1 + i % 400) : NAN;
          if (v == v) {
            if (a.type == PARZ_FLOAT)
              ((float*)data)[i] = (float)v;
            else
              ((double*)data)[i] = v;
          }
        }
        memset(&cfg, 0, sizeof cfg);
        parz_params_accuracy(&cfg.params, 1e-2, NULL, NULL);
        cfg.mask = off ? PARZ_MASK_OFF : PARZ_MASK_DEFAULT;
        cfg.segment_blocks = 4;
        cfg.partition_segments = 5;
        snprintf(what, sizeof what, "%s %uD -1e34 and huge values, mask %s", parz_type_name(a.type),
                 dims, off ? "off" : "on");
        compared += check_policies(what, &a, data, &cfg);
        free(data);
      }
  printf("at risk: %d comparisons\n", compared);
}

/* Uniformly random bit patterns: every exponent, and NaN and Inf wherever the bits say so. */
static void random_bits(void) {
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  int ti, m, compared = 0;
  uint64_t r = 0x9E3779B97F4A7C15ull;
  for (ti = 0; ti < 4; ti++)
    for (m = 0; m < TEST_MODES; m++) {
      parz_array a = test_array(types[ti], 3, 23, 29, 31, 0);
      size_t bytes = test_count(&a) * parz_type_size(a.type), i;
      unsigned char* data = (unsigned char*)malloc(bytes);
      parz_chunk_config cfg;
      char what[128];
      for (i = 0; i < bytes; i++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17; /* xorshift64 */
        data[i] = (unsigned char)(r >> 24);
      }
      memset(&cfg, 0, sizeof cfg);
      cfg.params = test_params(m, a.type, a.dims);
      cfg.segment_blocks = 5;
      cfg.partition_segments = 3;
      snprintf(what, sizeof what, "%s random bits %s", parz_type_name(a.type), test_mode_name(m));
      compared += check_policies(what, &a, data, &cfg);
      /* with stored chunks on, most of these are stored (codec/stored/stored.h) */
      cfg.stored = PARZ_STORED_WHEN_SMALLER;
      strncat(what, ", stored chunks on", sizeof what - strlen(what) - 1);
      compared += check_policies(what, &a, data, &cfg);
      free(data);
    }
  printf("random bits: %d comparisons\n", compared);
}

/* Real arrays, slabs of at most 3 MiB, in accuracy and precision modes. */
static void realdata(const char* dir) {
  size_t n = 0, i;
  real_array* list = real_arrays_load(dir, (size_t)3 << 20, &n);
  int compared = 0;
  if (!list) {
    printf("real data: none in %s, skipped\n", dir ? dir : "(no directory given)");
    return;
  }
  for (i = 0; i < n; i++) {
    parz_chunk_config cfg;
    char what[160];
    int m;
    for (m = 0; m < 2; m++) {
      memset(&cfg, 0, sizeof cfg);
      if (m == 0)
        parz_params_accuracy(&cfg.params, 1e-2, NULL, NULL);
      else
        parz_params_precision(&cfg.params, 16, NULL);
      cfg.segment_blocks = i % 2 ? 0 : 48; /* default, and C = 48 with a partial partition */
      snprintf(what, sizeof what, "%s %s C%u", list[i].name, m ? "precision 16" : "accuracy 1e-2",
               cfg.segment_blocks);
      compared += check_policies(what, &list[i].array, list[i].data, &cfg);
    }
  }
  printf("real data: %zu arrays, %d comparisons\n", n, compared);
  real_arrays_free(list, n);
}

int main(int argc, char** argv) {
  printf("OpenMP %s\n", parz_omp_enabled() ? "enabled" : "disabled (serial fallback)");
  tiny();
  synthetic();
  nonfinite();
  masked();
  at_risk();
  random_bits();
  realdata(argc > 1 ? argv[1] : NULL);
  return test_finish("test_omp_equal");
}
