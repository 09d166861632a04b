/* Writes the seed corpora of the fuzz harnesses: valid chunks of every mode (rate, precision,
 * accuracy, expert, reversible), scalar type, rank 1-4 and table kind, some with non-finite
 * values, some with masks, some with values the accuracy bound's check took out, in the input
 * format of each harness (see the harness sources and README.md).
 *
 *   gen_corpus OUTDIR      -> OUTDIR/{chunk_parse,chunk_decode,omp_decode,decode_blocks,filter}/
 *
 * Deterministic, so regenerating gives the same files. Kept small (< 2 MB in all): chunks of a
 * few hundred values, plus for the OpenMP harness a few smooth chunks above its 64 KiB threshold
 * that compress to little. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../array_of.h"
#include "../vectors/chunk_v1_lossless_rows.h"
#include "../vectors/chunk_v1_lossless_runs.h"
#include "../vectors/chunk_v1_lossless_zero_runs.h"
#include "filter_config.h"
#include "parz_chunk.h"

static const char* outdir;
static size_t files, total_bytes;

static void die(const char* what, const parz_error* e) {
  fprintf(stderr, "gen_corpus: %s: %s\n", what, e ? e->message : strerror(errno));
  exit(1);
}

static void write_seed(const char* harness, const char* name, const void* a, size_t na,
                       const void* b, size_t nb) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", outdir, harness);
  mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/%s/%s", outdir, harness, name);
  FILE* f = fopen(path, "wb");
  if (!f)
    die(path, NULL);
  if ((na && fwrite(a, 1, na, f) != na) || (nb && fwrite(b, 1, nb, f) != nb))
    die(path, NULL);
  fclose(f);
  files++;
  total_bytes += na + nb;
}

/* A smooth field with a little deterministic noise; optional exceptions sprinkled in. */
static void* make_data(const parz_array* a, unsigned seed, int nonfinite) {
  size_t n = parz_array_count(a);
  void* d = malloc(n * parz_type_size(a->type));
  uint32_t r = 2463534242u ^ seed;
  for (size_t i = 0; i < n; i++) {
    r ^= r << 13;
    r ^= r >> 17;
    r ^= r << 5;
    double x = sin(0.05 * (double)i) * 100.0 + (double)(r % 1000) / 500.0;
    switch (a->type) {
      case PARZ_INT32: ((int32_t*)d)[i] = (int32_t)(x * 1000); break;
      case PARZ_INT64: ((int64_t*)d)[i] = (int64_t)(x * 100000); break;
      case PARZ_FLOAT: ((float*)d)[i] = (float)x; break;
      case PARZ_DOUBLE: ((double*)d)[i] = x; break;
    }
  }
  /* exceptions: NaN, +-Inf and values beyond the lossy range (floats near their maximum,
   * integers at their extremes), which version 2 stores exactly */
  for (size_t i = 3; nonfinite && i < n; i += 29) {
    double v = (i % 4 == 0) ? NAN : (i % 4 == 1) ? INFINITY : (i % 4 == 2) ? -INFINITY : 0;
    switch (a->type) {
      case PARZ_FLOAT: ((float*)d)[i] = i % 4 == 3 ? FLT_MAX : (float)v; break;
      case PARZ_DOUBLE: ((double*)d)[i] = i % 4 == 3 ? -DBL_MAX : v; break;
      case PARZ_INT32: ((int32_t*)d)[i] = i % 2 ? INT32_MIN : INT32_MAX; break;
      case PARZ_INT64: ((int64_t*)d)[i] = i % 2 ? INT64_MIN : INT64_MAX; break;
    }
  }
  return d;
}

static unsigned char* encode(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                             size_t* n) {
  parz_error e;
  size_t bound = parz_chunk_bound(a, cfg);
  unsigned char* c = malloc(bound);
  if (!c || parz_chunk_encode(a, data, cfg, c, bound, n, &e) != PARZ_OK)
    die("encode", &e);
  return c;
}

static const char* type_name(parz_type t) {
  static const char* const n[] = {"?", "i32", "i64", "f32", "f64"};
  return n[t];
}

/* Chunk seeds for the parse, serial-decode and OpenMP-decode harnesses (control byte first). */
static void chunk_seeds(void) {
  static const size_t shapes[4][4] = {{37}, {9, 13}, {5, 6, 7}, {3, 4, 5, 6}};
  static const char* const modes[] = {"rate", "prec", "acc", "expert", "rev"};
  for (int t = PARZ_INT32; t <= PARZ_DOUBLE; t++)
    for (unsigned d = 1; d <= 4; d++) {
      parz_array a = parz_test_array((parz_type)t, d, shapes[d - 1]);
      for (int m = 0; m < 5; m++) {
        parz_chunk_config cfg;
        memset(&cfg, 0, sizeof cfg);
        parz_error e;
        int rc = PARZ_OK;
        if (m == 0)
          rc = parz_params_rate(&cfg.params, 8.0 + 4 * d, a.type, d, NULL, &e);
        if (m == 1)
          rc = parz_params_precision(&cfg.params, 14, &e);
        if (m == 2)
          rc = parz_params_accuracy(&cfg.params, 1e-2, NULL, &e);
        if (m == 3)
          rc = parz_params_expert(&cfg.params, 4, 900, 20, -30, &e);
        if (m == 4)
          parz_params_reversible(&cfg.params);
        if (rc != PARZ_OK)
          die("params", &e);
        /* Table kinds: NONE/AUTO for rate; HYBRID with small C and P (several partitions),
         * OFFSETS, LENGTHS otherwise; 4-byte lengths with a large C for reversible. */
        static const parz_table_kind kinds[] = {PARZ_TABLE_AUTO, PARZ_TABLE_HYBRID,
                                                PARZ_TABLE_OFFSETS, PARZ_TABLE_LENGTHS};
        for (int k = 0; k < 4; k++) {
          if (m == 0 && k > 1)
            continue;
          if (m != 0 && k == 0 && t != PARZ_FLOAT)
            continue;
          cfg.table = kinds[k];
          cfg.segment_blocks = k == 0 ? 0 : (m == 4 && k == 3) ? 64 : 2;
          cfg.partition_segments = kinds[k] == PARZ_TABLE_HYBRID ? 2 : 0;
          int nonfinite = (m + k) % 2 == 0;
          void* data = make_data(&a, (unsigned)(t * 100 + d * 10 + m), nonfinite);
          /* every fourth chunk without payload checksums: format version 1 */
          int v1 = (t + d + m + k) % 4 == 0;
          cfg.checksum = v1 ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_DEFAULT;
          cfg.mask = v1 ? PARZ_MASK_OFF : PARZ_MASK_DEFAULT; /* version 1: NaN as exceptions */
          size_t n;
          unsigned char* c = encode(&a, data, &cfg, &n);
          char name[128];
          snprintf(name, sizeof name, "%s_%ud_%s_t%d%s%s", type_name(a.type), d, modes[m], k,
                   nonfinite ? "_nf" : "", v1 ? "_v1" : "");
          /* decode seeds fix the payload checksums (bit 7) half the time, so that payload
           * mutations reach the decoder as well as the verification */
          unsigned char fix = (k & 2) ? 0x81 : 1, nofix = 0, small = (k & 2) ? 0x83 : 3;
          write_seed("chunk_parse", name, &nofix, 1, c, n);
          write_seed("chunk_decode", name, (k & 1) ? &small : &fix, 1, c, n);
          if (d == (unsigned)(1 + (t + m) % 4))
            write_seed("omp_decode", name, &fix, 1, c, n);
          free(c);
          free(data);
        }
      }
    }
}

/* A chunk as the seed of the parse harness (its checksum as it is) and of the decode harnesses
 * (control byte `fix`), the OpenMP one only when `omp`. */
static void chunk_seeds_of(const char* name, const unsigned char* c, size_t bytes,
                           unsigned char fix, int omp) {
  unsigned char nofix = 0;
  write_seed("chunk_parse", name, &nofix, 1, c, bytes);
  write_seed("chunk_decode", name, &fix, 1, c, bytes);
  if (omp)
    write_seed("omp_decode", name, &fix, 1, c, bytes);
}

/* Stored chunks (codec 2, codec/FORMAT.md "Stored chunks"): random bits in every type and rank,
 * with and without payload checksums, several segments and partitions in the larger ones. */
static void stored_seeds(void) {
  static const size_t shapes[4][4] = {{9000}, {9, 13}, {5, 6, 7}, {3, 4, 5, 6}};
  for (int t = PARZ_INT32; t <= PARZ_DOUBLE; t++)
    for (unsigned d = 1; d <= 4; d++) {
      parz_array a = parz_test_array((parz_type)t, d, shapes[d - 1]);
      const size_t bytes = parz_array_count(&a) * parz_type_size(a.type);
      unsigned char* data = (unsigned char*)malloc(bytes);
      uint64_t r = 0x9E3779B97F4A7C15ull * (uint64_t)(t * 10 + (int)d);
      parz_chunk_config cfg;
      for (size_t i = 0; i < bytes; i++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        data[i] = (unsigned char)(r >> 29);
      }
      memset(&cfg, 0, sizeof cfg);
      parz_params_reversible(&cfg.params);
      cfg.stored = PARZ_STORED_WHEN_SMALLER;
      cfg.checksum = d % 2 ? PARZ_CHECKSUM_DEFAULT : PARZ_CHECKSUM_OFF;
      size_t n;
      unsigned char* c = encode(&a, data, &cfg, &n);
      char name[96];
      snprintf(name, sizeof name, "stored_%s_%ud", type_name(a.type), d);
      chunk_seeds_of(name, c, n, 0x81, 1);
      free(c);
      free(data);
    }
}

/* Error-bounded chunks (codec 4, codec/FORMAT.md "Error-bounded chunks"): both float types,
 * every rank and predictor, with runs of zero codes (a flat region), escapes (a jump), NaN,
 * infinities and a fill value (mask and exceptions), segments of a few codes so that the table
 * has several partitions; a smooth chunk of 80000 values for the OpenMP harness. */
static void bounded_seeds(void) {
  static const size_t shapes[4][4] = {{300}, {13, 22}, {6, 9, 10}, {3, 5, 6, 7}};
  for (int t = PARZ_FLOAT; t <= PARZ_DOUBLE; t++)
    for (unsigned d = 1; d <= 4; d++)
      for (unsigned p = 0; p <= 5; p++) {
        parz_array a = parz_test_array((parz_type)t, d, shapes[d - 1]);
        size_t n = parz_array_count(&a), size = parz_type_size(a.type);
        unsigned char* data = make_data(&a, (unsigned)(t * 10 + d + p), p % 2);
        uint64_t fill = size == 4 ? 0xc61c3c00u : 0xc0c3878000000000ull; /* -9999.0 */
        parz_chunk_config cfg;
        for (size_t i = 0; i < n; i++) {
          if (i % 50 < 12) /* flat: zero codes */
            memcpy(data + i * size, data, size);
          else if (i % 61 == 7)
            memcpy(data + i * size, &fill, size);
          if (i == n / 2) { /* a jump: an escape */
            double big = 1e7;
            float fbig = 1e7f;
            memcpy(data + i * size, size == 4 ? (const void*)&fbig : (const void*)&big, size);
          }
        }
        memset(&cfg, 0, sizeof cfg);
        cfg.codec = PARZ_CODEC_BOUNDED;
        cfg.settings.error_bound = 1e-2;
        cfg.settings.predictor = p;
        cfg.segment_blocks = 16 + 8 * p;
        cfg.partition_segments = 3;
        cfg.fill = 1;
        cfg.fill_bits = fill;
        cfg.checksum = p == 3 ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_DEFAULT;
        size_t bytes;
        unsigned char* c = encode(&a, data, &cfg, &bytes);
        char name[64];
        snprintf(name, sizeof name, "bounded_%s_%ud_p%u", type_name(a.type), d, p);
        chunk_seeds_of(name, c, bytes, (unsigned char)(p % 2 ? 0x81 : 1), 0);
        free(c);
        free(data);
      }
  /* above the OpenMP harness's serial cut-off: its team's steps run */
  {
    static const size_t shape[2] = {200, 400};
    parz_array a = parz_test_array(PARZ_FLOAT, 2, shape);
    unsigned char* data = make_data(&a, 99, 1);
    unsigned char fix = 0x81;
    parz_chunk_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.codec = PARZ_CODEC_BOUNDED;
    cfg.settings.error_bound = 1.0;
    size_t bytes;
    unsigned char* c = encode(&a, data, &cfg, &bytes);
    write_seed("omp_decode", "bounded_f32_2d_big", &fix, 1, c, bytes);
    free(c);
    free(data);
  }
}

/* Lossless chunks (codec 3, codec/FORMAT.md "Lossless chunks"): every type and rank, smooth
 * values with NaN and infinities among them (exact, no exception), scaled integers, random bits
 * (the raw coder), C 1 and the codec's own, with and without payload checksums; segments of more
 * than 512 residuals are coder 3's runs, coder 4's where some run is all zeros (a flat half), and
 * the runs vectors add short runs (q = 4), coder 4's with empty runs; the row predictor's vector
 * and its chunks asked for (kind 1 of ranks 2 and 3). */
static void lossless_seeds(void) {
  static const size_t shapes[4][4] = {{9000}, {70, 90}, {9, 17, 30}, {3, 9, 16, 10}};
  for (int t = PARZ_INT32; t <= PARZ_DOUBLE; t++)
    for (unsigned d = 1; d <= 4; d++)
      for (unsigned kind = 0; kind < 2; kind++) {
        parz_array a = parz_test_array((parz_type)t, d, shapes[d - 1]);
        void* data = make_data(&a, (unsigned)(t * 10 + (int)d), kind == 0);
        parz_chunk_config cfg;
        size_t n;
        char name[96];
        memset(&cfg, 0, sizeof cfg);
        cfg.codec = PARZ_CODEC_LOSSLESS;
        cfg.settings.predictor = d == 4 && kind ? 1u : (d == 2 || d == 3) && kind ? 3u : 0u;
        cfg.segment_blocks = kind ? 1u : 0u;
        cfg.checksum = d % 2 ? PARZ_CHECKSUM_DEFAULT : PARZ_CHECKSUM_OFF;
        if (kind && (a.type == PARZ_FLOAT || a.type == PARZ_DOUBLE)) /* scaled integers */
          for (size_t i = 0; i < parz_array_count(&a); i++) {
            if (a.type == PARZ_FLOAT)
              ((float*)data)[i] = (float)(int)(i % 777) / 8.0f;
            else
              ((double*)data)[i] = (double)(int)(i % 7777) / 100.0;
          }
        unsigned char* c = encode(&a, data, &cfg, &n);
        snprintf(name, sizeof name, "lossless_%s_%ud_%u", type_name(a.type), d, kind);
        chunk_seeds_of(name, c, n, 0x81, 1);
        free(c);
        free(data);
      }
  chunk_seeds_of("lossless_runs_vector", chunk_v1_lossless_runs, sizeof chunk_v1_lossless_runs,
                 0x81, 1);
  chunk_seeds_of("lossless_rows_vector", chunk_v1_lossless_rows, sizeof chunk_v1_lossless_rows,
                 0x81, 1);
  chunk_seeds_of("lossless_zero_runs_vector", chunk_v1_lossless_zero_runs,
                 sizeof chunk_v1_lossless_zero_runs, 0x81, 1);
  { /* a field whose first half is one fill value: coder 4's empty runs */
    static const size_t shape[2] = {70, 90};
    parz_array a = parz_test_array(PARZ_FLOAT, 2, shape);
    float* data = (float*)make_data(&a, 77, 0);
    parz_chunk_config cfg;
    size_t n, i;
    unsigned char* c;
    for (i = 0; i < parz_array_count(&a) / 2; i++)
      data[i] = -1e10f;
    memset(&cfg, 0, sizeof cfg);
    cfg.codec = PARZ_CODEC_LOSSLESS;
    c = encode(&a, data, &cfg, &n);
    chunk_seeds_of("lossless_zero_runs", c, n, 0x81, 1);
    free(c);
    free(data);
  }
  { /* a series of a few levels: the value dictionary in its codec data */
    static const size_t series[1] = {6000};
    static const double levels[5] = {-0.00022014, -0.00021537, -0.0, 7.5e-5, 1e300};
    parz_array a = parz_test_array(PARZ_DOUBLE, 1, series);
    double* data = (double*)malloc(6000 * sizeof *data);
    parz_chunk_config cfg;
    unsigned char* c;
    size_t n, i;
    memset(&cfg, 0, sizeof cfg);
    cfg.codec = PARZ_CODEC_LOSSLESS;
    for (i = 0; i < 6000; i++)
      data[i] = levels[(i / 7 + i / 13) % 5];
    c = encode(&a, data, &cfg, &n);
    chunk_seeds_of("lossless_dictionary", c, n, 0x81, 1);
    free(c);
    free(data);
  }
}

/* Chunks with a mask (codec/FORMAT.md, "Mask"): a region of missing values (run and bitmap
 * records), the fill value and, in floats, NaN of two patterns (value indices), scattered single
 * values; small groups of several partitions. */
static void mask_seeds(void) {
  static const size_t shapes[4][4] = {{150}, {13, 22}, {6, 9, 10}, {3, 5, 6, 7}};
  for (int t = PARZ_INT32; t <= PARZ_DOUBLE; t++)
    for (unsigned d = 1; d <= 4; d++)
      for (int m = 0; m < 2; m++) {
        parz_array a = parz_test_array((parz_type)t, d, shapes[d - 1]);
        size_t n = parz_array_count(&a), size = parz_type_size(a.type);
        unsigned char* data = make_data(&a, (unsigned)(t * 10 + d), m);
        uint64_t fill = size == 4 ? 0xc61c3c00u : 0xc0c3878000000000ull; /* -9999.0 */
        uint64_t nan1 = size == 4 ? 0x7fc00000u : 0x7ff8000000000000ull;
        uint64_t nan2 = size == 4 ? 0xffc00011u : 0xfff8000000000011ull;
        parz_chunk_config cfg;
        memset(&cfg, 0, sizeof cfg);
        if (m == 0)
          parz_params_accuracy(&cfg.params, 1e-2, NULL, NULL);
        else
          parz_params_reversible(&cfg.params);
        for (size_t i = 0; i < n; i++) {
          int land = sin(0.09 * (double)i) > 0.5 || i % 23 == 4;
          uint64_t v = !land ? 0 : t <= PARZ_INT64 || i % 3 == 0 ? fill : i % 3 == 1 ? nan1 : nan2;
          if (land)
            memcpy(data + i * size, &v, size);
        }
        cfg.table = PARZ_TABLE_HYBRID;
        cfg.segment_blocks = 1 + (unsigned)m;
        cfg.partition_segments = 3;
        cfg.fill = 1;
        cfg.fill_bits = fill;
        size_t bytes;
        unsigned char* c = encode(&a, data, &cfg, &bytes);
        char name[64];
        snprintf(name, sizeof name, "mask_%s_%ud_%s", type_name(a.type), d, m ? "rev" : "acc");
        chunk_seeds_of(name, c, bytes, (unsigned char)(m ? 0x81 : 1), d == 2 || d == 3);
        free(c);
        free(data);
      }
}

/* A region of -1e34 (a netCDF fill value no HDF5 fill value names) over the smooth values of a
 * float array: in accuracy mode the bound's check takes it out (codec/FORMAT.md, "The accuracy
 * bound"). */
static void put_sentinel(const parz_array* a, void* data) {
  for (size_t i = 0; i < parz_array_count(a); i++)
    if (sin(0.07 * (double)i) > 0.4) {
      if (a->type == PARZ_FLOAT)
        ((float*)data)[i] = -1e34f;
      else
        ((double*)data)[i] = -1e34;
    }
}

/* Chunks whose -1e34 the bound's check took out: a mask value that is neither the fill value nor
 * NaN, or (mask off) exceptions of finite values; float32 and float64, rank 1 to 4. */
static void risk_seeds(void) {
  static const size_t shapes[4][4] = {{150}, {13, 22}, {6, 9, 10}, {3, 5, 6, 7}};
  for (int t = PARZ_FLOAT; t <= PARZ_DOUBLE; t++)
    for (unsigned d = 1; d <= 4; d++)
      for (int off = 0; off < 2; off++) {
        parz_array a = parz_test_array((parz_type)t, d, shapes[d - 1]);
        void* data = make_data(&a, (unsigned)(t * 10 + d), off);
        parz_chunk_config cfg;
        memset(&cfg, 0, sizeof cfg);
        parz_params_accuracy(&cfg.params, 1e-2, NULL, NULL);
        cfg.mask = off ? PARZ_MASK_OFF : PARZ_MASK_DEFAULT;
        cfg.segment_blocks = 2;
        put_sentinel(&a, data);
        size_t bytes;
        unsigned char* c = encode(&a, data, &cfg, &bytes);
        char name[64];
        snprintf(name, sizeof name, "risk_%s_%ud_%s", type_name(a.type), d, off ? "exc" : "mask");
        chunk_seeds_of(name, c, bytes, 0x81, d == 2 || d == 3);
        free(c);
        free(data);
      }
}

/* Chunks above the OpenMP threshold (64 KiB decoded) that compress to a few kilobytes, with
 * several partitions, so the fuzzer drives the parallel path. */
static void omp_seeds(void) {
  static const size_t s1[] = {20000}, s2[] = {128, 160}, s3[] = {32, 32, 20};
  const size_t* shapes[] = {s1, s2, s3};
  for (int i = 0; i < 3; i++) {
    parz_type t = i == 1 ? PARZ_DOUBLE : PARZ_FLOAT;
    parz_array a = parz_test_array(t, (unsigned)i + 1, shapes[i]);
    size_t n = parz_array_count(&a);
    void* data = malloc(n * parz_type_size(t));
    for (size_t j = 0; j < n; j++) {
      double x = (j % 977 == 5) ? NAN : (double)(j % 64) * 0.25;
      if (t == PARZ_FLOAT)
        ((float*)data)[j] = (float)x;
      else
        ((double*)data)[j] = x;
    }
    parz_chunk_config cfg;
    memset(&cfg, 0, sizeof cfg);
    parz_params_accuracy(&cfg.params, 0.5, NULL, NULL);
    cfg.table = i == 2 ? PARZ_TABLE_OFFSETS : PARZ_TABLE_HYBRID;
    cfg.segment_blocks = 16;
    cfg.partition_segments = i == 2 ? 0 : 4;
    size_t bytes;
    unsigned char* c = encode(&a, data, &cfg, &bytes);
    char name[64];
    snprintf(name, sizeof name, "big_%s_%dd", type_name(t), i + 1);
    unsigned char ctl = (unsigned char)(1 | (i << 1) | (i == 1 ? 0x80 : 0));
    write_seed("omp_decode", name, &ctl, 1, c, bytes);
    free(c);
    free(data);
  }
}

/* Seeds for fuzz_decode_blocks: its 20-byte prefix, then a stream the parameters wrote. */
static void block_seeds(void) {
  for (int t = PARZ_INT32; t <= PARZ_DOUBLE; t++)
    for (unsigned d = 1; d <= 4; d++)
      for (int m = 0; m < 3; m++) {
        static const size_t shapes[4][4] = {{13}, {5, 7}, {4, 5, 3}, {2, 3, 5, 4}};
        parz_array a = parz_test_array((parz_type)t, d, shapes[d - 1]);
        parz_params p;
        if (m == 0)
          parz_params_rate(&p, 10.0, a.type, d, NULL, NULL);
        if (m == 1)
          parz_params_accuracy(&p, 1e-3, NULL, NULL);
        if (m == 2)
          parz_params_reversible(&p);
        size_t nb = parz_block_count(&a);
        void* data = make_data(&a, (unsigned)t * 7 + d, 0);
        size_t bound = parz_stream_bound(a.type, d, &p, nb);
        unsigned char* s = calloc(1, bound);
        uint64_t bits;
        parz_error e;
        if (parz_encode_blocks(&a, data, &p, 0, nb, s, bound, &bits, NULL, &e) != PARZ_OK)
          die("encode_blocks", &e);
        unsigned char pre[20] = {0};
        pre[0] = (unsigned char)(t - 1);
        pre[1] = (unsigned char)(d - 1);
        for (unsigned k = 0; k < d; k++)
          pre[2 + k] = (unsigned char)(a.shape[k] - 1);
        pre[6] = (unsigned char)p.minbits;
        pre[7] = (unsigned char)(p.minbits >> 8);
        pre[8] = (unsigned char)p.maxbits;
        pre[9] = (unsigned char)(p.maxbits >> 8);
        pre[10] = (unsigned char)p.maxprec;
        uint16_t me = (uint16_t)(int16_t)p.minexp;
        pre[11] = (unsigned char)me;
        pre[12] = (unsigned char)(me >> 8);
        pre[17] = (unsigned char)nb; /* count = all blocks */
        pre[19] = (unsigned char)(m == 2);
        char name[64];
        snprintf(name, sizeof name, "%s_%ud_m%d", type_name(a.type), d, m);
        write_seed("decode_blocks", name, pre, sizeof pre, s, (size_t)((bits + 63) / 64 * 8));
        free(s);
        free(data);
      }
}

/* Seeds for fuzz_filter: control, count, internal cd_values as set_local stores them, then a
 * chunk (decode) or values (encode). */
static void filter_seeds(void) {
  static const unsigned user[][8] = {
      {1, 0x40200000u, 0},           /* rate 8 */
      {2, 16},                       /* precision 16 */
      {3, 0x3F847AE1u, 0x47AE147Bu}, /* accuracy 0.01 */
      {4, 8, 2000, 30, (unsigned)-40},
      {5},
      {3, 0x3F50624Du, 0xD2F1A9FCu, 2, 2, 4},        /* accuracy 1e-3, C = 2, P = 2, hybrid */
      {2, 20, 0, 0, 0, 2},                           /* precision 20, no payload checksums */
      {1, 0x40300000u, 0, 0, 0, 0, 2},               /* rate 16, no payload checksums */
      {5, 0, 0, 0, 0, 3, 0xC0C38780u, 0},            /* reversible, fill value -9999 masked */
      {2, 20, 0, 0, 0, 0, 2},                        /* precision 20, mask off */
      {3, 0x3F847AE1u, 0x47AE147Bu},                 /* accuracy 0.01, -1e34 among floats */
      {3, 0x3F847AE1u, 0x47AE147Bu, 0, 0, 0, 0, 2},  /* the same, mask off */
      {262145u, 0x3F847AE1u, 0x47AE147Bu},           /* bounded, error bound 0.01 */
      {262145u, 0x3F50624Du, 0xD2F1A9FCu, 64, 2, 4}, /* bounded 1e-3, C = 64, P = 2 */
      {3u * 65536u + 1u},                            /* lossless */
      {3u * 65536u + 2u, 1, 0, 0, 2},                /* lossless, stack, C 1, no checksums */
  };
  static const size_t nuser[] = {3, 2, 3, 5, 1, 6, 6, 7, 8, 7, 3, 8, 3, 6, 1, 5};
  static const size_t shapes[4][4] = {{40}, {6, 9}, {3, 5, 6}, {2, 3, 4, 5}};
  for (int u = 0; u < (int)(sizeof nuser / sizeof nuser[0]); u++)
    for (int t = PARZ_INT32; t <= PARZ_DOUBLE; t++) {
      unsigned d = 1 + (unsigned)(u + t) % 4;
      int big_endian = (u == 2 && t == PARZ_DOUBLE);
      if ((u == 2 || u == 5 || (u >= 10 && u <= 13)) && (t == PARZ_INT32 || t == PARZ_INT64))
        continue; /* accuracy mode and the bounded codec are for floating-point data only */
      parz_filter_request req;
      parz_filter_config cfg;
      parz_error e;
      if (parz_cd_parse_request(nuser[u], user[u], &req, &e) != PARZ_OK)
        die("request", &e);
      if (parz_cd_configure(&req, (parz_type)t, big_endian, d, shapes[d - 1], &cfg, &e) != PARZ_OK)
        die("configure", &e);
      unsigned cd[PARZ_CD_INTERNAL_NELMTS];
      parz_cd_store(&cfg, cd);
      unsigned char head[2 + 4 * PARZ_CD_INTERNAL_NELMTS];
      head[1] = PARZ_CD_INTERNAL_NELMTS;
      for (unsigned i = 0; i < PARZ_CD_INTERNAL_NELMTS; i++)
        for (int b = 0; b < 4; b++)
          head[2 + 4 * i + b] = (unsigned char)(cd[i] >> (8 * b));
      void* data = make_data(&cfg.chunk, (unsigned)(u * 10 + t), u % 2);
      if (u >= 10 && u <= 13)
        put_sentinel(&cfg.chunk, data);
      size_t raw = parz_array_count(&cfg.chunk) * parz_type_size(cfg.chunk.type);
      size_t n;
      unsigned char* c = encode(&cfg.chunk, data, &cfg.config, &n);
      char name[64];
      snprintf(name, sizeof name, "dec_u%d_%s_%ud%s", u, type_name((parz_type)t), d,
               big_endian ? "_be" : "");
      head[0] = 3; /* decode, fix checksum */
      write_seed("filter", name, head, sizeof head, c, n);
      snprintf(name, sizeof name, "enc_u%d_%s_%ud%s", u, type_name((parz_type)t), d,
               big_endian ? "_be" : "");
      head[0] = 0;
      write_seed("filter", name, head, sizeof head, data, raw < 512 ? raw : 512);
      free(c);
      free(data);
    }
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: gen_corpus OUTDIR\n");
    return 2;
  }
  outdir = argv[1];
  mkdir(outdir, 0755);
  chunk_seeds();
  stored_seeds();
  lossless_seeds();
  mask_seeds();
  bounded_seeds();
  risk_seeds();
  omp_seeds();
  block_seeds();
  filter_seeds();
  printf("gen_corpus: %zu seeds, %zu bytes in %s\n", files, total_bytes, outdir);
  return 0;
}
