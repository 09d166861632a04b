/* Decoding into a destination (parz_chunk_dest): for every type and rank, several modes, table
 * kinds and windows (the whole chunk, boxes inside it, windows cut at block edges and inside
 * blocks, one value), the chunk decoded into a window of a larger strided array must put exactly
 * the whole-chunk decode's values at their places, non-finite and masked values (regions of the
 * fill value in half the cases) included, and touch nothing else; gathered back
 * (parz_chunk_dest_gather) they must give the chunk's values in the window and the fill value
 * outside. Segments that miss the window are not decoded: a chunk corrupt only there still
 * decodes the window, and is refused when the window meets it; payload checksums are verified
 * for the partitions that hold the window's blocks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parz_chunked.h"
#include "test_chunk_common.h"

#define POISON 0xA5u

/* The places of a window inside a padded array: each dimension padded by 3 on both sides, the
 * window's first value at (2, 2, ...) of it; returns the elements of the padded array. */
static size_t dest_layout(const parz_chunk_view* v, const size_t* lo, const size_t* hi,
                          ptrdiff_t* stride, size_t* offset) {
  size_t run = 1, k;
  *offset = 0;
  for (k = v->array.dims; k-- > 0;) {
    stride[k] = (ptrdiff_t)run;
    *offset += 2 * run;
    run *= hi[k] - lo[k] + 6;
  }
  return run;
}

/* Decodes chunk c into window [lo, hi) and compares with `whole` (the whole-chunk decode);
 * segments [first, first + count) only when count is not 0 (the rest of the window stays
 * poisoned). */
static void check_window(const char* what, const parz_chunk_view* v, const unsigned char* whole,
                         const size_t* lo, const size_t* hi) {
  const size_t size = parz_type_size(v->array.type);
  parz_chunk_dest d;
  size_t offset, n, k, checked = 0, wrong = 0, outside = 0, i;
  ptrdiff_t stride[4];
  unsigned char* buf;
  parz_error e;
  int rc;
  memset(&d, 0, sizeof d);
  n = dest_layout(v, lo, hi, stride, &offset);
  buf = (unsigned char*)malloc(n * size);
  memset(buf, POISON, n * size);
  d.data = buf + offset * size;
  for (k = 0; k < v->array.dims; k++) {
    d.stride[k] = stride[k];
    d.lo[k] = lo[k];
    d.hi[k] = hi[k];
  }
  CHECK(parz_chunk_dest_check(v, &d, &e) == PARZ_OK, "%s: %s", what, e.message);
  rc = parz_chunk_decode_segments_to(v, &d, 0, v->nsegments, &e);
  CHECK(rc == PARZ_OK, "%s: %s", what, e.message);
  if (rc == PARZ_OK)
    CHECK(parz_chunk_patch_exceptions_to(v, &d, &e) == PARZ_OK, "%s: %s", what, e.message);
  /* every value of the chunk inside the window at its place; everything else poisoned */
  {
    unsigned char* seen = (unsigned char*)calloc(n, 1);
    size_t total = parz_array_count(&v->array);
    for (i = 0; i < total; i++) {
      size_t x[4], rem = i, at = offset;
      int inside = 1;
      for (k = v->array.dims; k-- > 0;) {
        x[k] = rem % v->array.shape[k];
        rem /= v->array.shape[k];
      }
      for (k = 0; k < v->array.dims; k++) {
        inside = inside && x[k] >= lo[k] && x[k] < hi[k];
        at += (x[k] - lo[k]) * (size_t)stride[k];
      }
      if (!inside)
        continue;
      checked++;
      seen[at] = 1;
      if (memcmp(buf + at * size, whole + i * size, size))
        wrong++;
    }
    for (i = 0; i < n * size; i++)
      if (!seen[i / size] && buf[i] != POISON)
        outside++;
    free(seen);
  }
  CHECK(wrong == 0 && outside == 0,
        "%s: %zu of %zu window values differ from the whole decode, %zu bytes written outside",
        what, wrong, checked, outside);
  {
    /* and back (parz_chunk_dest_gather, what the dataset writers pad edge chunks with): the
     * window's values at their places in the chunk, the fill value everywhere else */
    const unsigned char fill[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const size_t total = parz_array_count(&v->array);
    unsigned char* back = (unsigned char*)malloc(total * size);
    size_t bad = 0;
    parz_chunk_dest_gather(&v->array, &d, fill, back);
    for (i = 0; i < total; i++) {
      size_t rem = i, x;
      int inside = 1;
      for (k = v->array.dims; k-- > 0;) {
        x = rem % v->array.shape[k];
        rem /= v->array.shape[k];
        inside = inside && x >= lo[k] && x < hi[k];
      }
      bad += memcmp(back + i * size, inside ? whole + i * size : fill, size) != 0;
    }
    CHECK(bad == 0, "%s: %zu of %zu values gathered back wrong", what, bad, total);
    free(back);
  }
  free(buf);
}

/* The windows tried for a chunk of this shape. */
static void windows(const char* what, const parz_chunk_view* v, const unsigned char* whole) {
  const unsigned dims = v->array.dims;
  size_t lo[4], hi[4], k;
  char label[200];
  int w;
  for (w = 0; w < 6; w++) {
    for (k = 0; k < dims; k++) {
      size_t n = v->array.shape[k];
      switch (w) {
        case 0:
          lo[k] = 0;
          hi[k] = n;
          break; /* whole */
        case 1:
          lo[k] = n / 3;
          hi[k] = n - n / 4;
          break; /* middle, inside blocks */
        case 2:
          lo[k] = n > 4 ? 4 : 0;
          hi[k] = n > 8 ? 8 : n;
          break; /* at block edges */
        case 3:
          lo[k] = n - 1;
          hi[k] = n;
          break; /* the last value */
        case 4:
          lo[k] = k + 1 == dims ? 0 : n / 2;
          hi[k] = n;
          break; /* rows: long runs */
        default:
          lo[k] = 0;
          hi[k] = k + 1 == dims ? (n + 1) / 2 : n;
          break; /* half columns */
      }
      if (lo[k] >= hi[k])
        lo[k] = hi[k] - 1;
    }
    snprintf(label, sizeof label, "%s, window %d", what, w);
    check_window(label, v, whole, lo, hi);
  }
}

static void shapes(void) {
  static const struct {
    unsigned dims;
    size_t n[4];
  } shape[] = {{1, {1000, 1, 1, 1}},
               {2, {37, 61, 1, 1}},
               {3, {9, 14, 23, 1}},
               {4, {5, 6, 7, 9}},
               {2, {3, 2, 1, 1}}};
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  size_t si, ti;
  int m;
  for (si = 0; si < sizeof shape / sizeof shape[0]; si++)
    for (ti = 0; ti < 4; ti++)
      for (m = 0; m < TEST_MODES; m++) {
        parz_array a = test_array(types[ti], shape[si].dims, shape[si].n[0], shape[si].n[1],
                                  shape[si].n[2], shape[si].n[3]);
        parz_chunk_config cfg;
        parz_chunk_view v;
        size_t bytes = 0, i;
        unsigned char *c, *whole;
        void* data;
        char what[160];
        if ((types[ti] == PARZ_INT32 || types[ti] == PARZ_INT64) && m == 2)
          continue; /* accuracy needs floats */
        data = test_data(&a, (unsigned)(si * 10 + ti));
        if (types[ti] == PARZ_FLOAT || types[ti] == PARZ_DOUBLE)
          for (i = 5; i < test_count(&a); i += 97) { /* non-finite values everywhere */
            if (types[ti] == PARZ_FLOAT)
              ((float*)data)[i] = i % 2 ? NAN : -INFINITY;
            else
              ((double*)data)[i] = i % 2 ? INFINITY : NAN;
          }
        memset(&cfg, 0, sizeof cfg);
        if ((si + ti + (size_t)m) % 2 == 0) { /* a region of missing values: the fill value */
          size_t size = parz_type_size(types[ti]), nx = shape[si].n[shape[si].dims - 1];
          cfg.fill = 1;
          cfg.fill_bits = size == 4 ? 0xc61c3c00u : 0xc0c3878000000000ull;
          for (i = 0; i < test_count(&a); i++)
            if (sin(0.3 * (double)(i % nx)) + cos(0.11 * (double)(i / nx)) > 0.7)
              memcpy((unsigned char*)data + i * size, &cfg.fill_bits, size);
        }
        cfg.params = test_params(m, types[ti], a.dims);
        cfg.table = m % 2 ? PARZ_TABLE_AUTO : PARZ_TABLE_LENGTHS;
        cfg.segment_blocks = m == 1 ? 3 : 0;
        cfg.partition_segments = 5;
        if (m == 0) /* fixed rate: no table, or offsets */
          cfg.table = si % 2 ? PARZ_TABLE_NONE : PARZ_TABLE_OFFSETS;
        c = test_encode(&a, data, &cfg, &bytes);
        CHECK(c != NULL, "encode");
        if (!c) {
          free(data);
          continue;
        }
        CHECK(parz_chunk_parse(c, bytes, &v, NULL) == PARZ_OK, "parse");
        whole = (unsigned char*)malloc(v.raw_bytes);
        CHECK(parz_chunk_decode(c, bytes, whole, v.raw_bytes, NULL) == PARZ_OK, "decode");
        snprintf(what, sizeof what, "%s %uD %s C=%u", parz_type_name(types[ti]), a.dims,
                 test_mode_name(m), v.segment_blocks);
        windows(what, &v, whole);
        free(whole);
        free(c);
        free(data);
      }
}

/* The window rows [r0, r1) x columns [c0, c1) of a 64 x 64 float chunk, contiguous in out. */
static parz_chunk_dest rows_cols(float* out, size_t r0, size_t r1, size_t c0, size_t c1) {
  parz_chunk_dest d;
  memset(&d, 0, sizeof d);
  d.data = out;
  d.stride[0] = (ptrdiff_t)(c1 - c0);
  d.stride[1] = 1;
  d.lo[0] = r0;
  d.hi[0] = r1;
  d.lo[1] = c0;
  d.hi[1] = c1;
  return d;
}

/* A chunk without payload checksums whose payload is corrupt in its last rows only: a window of
 * the first rows decodes (those segments are never read), the whole chunk and a window of the
 * last rows are refused. */
static void corrupt_outside(void) {
  parz_array a = test_array(PARZ_FLOAT, 2, 64, 64, 1, 1);
  parz_chunk_config cfg;
  parz_chunk_view v;
  parz_chunk_dest d;
  size_t bytes = 0, at;
  void* data = test_data(&a, 3);
  float* out = (float*)malloc(64 * 64 * 4);
  unsigned char* c;
  int rc_top, rc_bottom, rc_whole, tries;
  uint64_t s;
  memset(&cfg, 0, sizeof cfg);
  cfg.params = test_params(2, PARZ_FLOAT, 2);
  cfg.segment_blocks = 4;
  cfg.checksum = PARZ_CHECKSUM_OFF;
  c = test_encode(&a, data, &cfg, &bytes);
  CHECK(c && parz_chunk_parse(c, bytes, &v, NULL) == PARZ_OK && v.nchecksums == 0, "encode");
  /* flip bits in the payload of the last segment until its decode no longer ends where the
   * table says */
  s = v.nsegments - 1;
  for (tries = 0; tries < 64; tries++) {
    uint64_t bit = parz_chunk_segment_offset(&v, s) + (uint64_t)tries * 7 % 64;
    at = (size_t)(v.payload - c) + (size_t)(bit / 8);
    c[at] ^= (unsigned char)(1u << (bit % 8));
    if (parz_chunk_decode_segments(&v, out, s, 1, NULL) == PARZ_ERR_STREAM)
      break;
  }
  d = rows_cols(out, 0, 32, 0, 64);
  rc_top = parz_chunk_decode_segments_to(&v, &d, 0, v.nsegments, NULL);
  d = rows_cols(out, 60, 64, 0, 64);
  rc_bottom = parz_chunk_decode_segments_to(&v, &d, 0, v.nsegments, NULL);
  rc_whole = parz_chunk_decode(c, bytes, out, 64 * 64 * 4, NULL);
  CHECK(rc_top == PARZ_OK && rc_bottom == PARZ_ERR_STREAM && rc_whole == PARZ_ERR_STREAM,
        "corrupt last segment: top rows %d, bottom rows %d, whole %d", rc_top, rc_bottom, rc_whole);
  free(c);
  free(out);
  free(data);
}

/* Payload checksums and windows: a window is verified by the partitions holding its blocks. A
 * 64 x 64 float chunk of 16 x 16 blocks, C = 4 (four segments per block row), HYBRID with P = 1
 * or 4 (a partition is a quarter or a whole block row); one payload bit of the last segment
 * (block row 15, columns 48-63) flipped. Windows meeting its partition are refused with
 * PARZ_ERR_CHECKSUM, by parz_chunk_decode_segments_to and parz_chunk_verify_to alike, whether or
 * not they meet the segment itself; the others decode, the column windows through many runs and
 * (P = 1) partitions verified with gaps between them. */
static void checksum_windows(void) {
  static const struct {
    size_t r0, r1, c0, c1;
    int bad[2];                      /* refused at P = 1, at P = 4 */
  } w[] = {{0, 64, 0, 64, {1, 1}},   /* whole */
           {0, 60, 0, 64, {0, 0}},   /* every block row but the last */
           {60, 64, 48, 64, {1, 1}}, /* the corrupt segment's values */
           {60, 64, 0, 4, {0, 1}},   /* its block row, another segment */
           {0, 64, 0, 4, {0, 1}},    /* columns: 16 runs of one block */
           {0, 64, 44, 49, {1, 1}},  /* columns across the corrupt segment's first block */
           {5, 63, 17, 47, {0, 1}}}; /* a box inside, cut inside blocks */
  static const uint32_t P[2] = {1, 4};
  parz_array a = test_array(PARZ_FLOAT, 2, 64, 64, 1, 1);
  void* data = test_data(&a, 4);
  float* out = (float*)malloc(64 * 64 * 4);
  size_t i;
  int k;
  for (k = 0; k < 2; k++) {
    parz_chunk_config cfg;
    parz_chunk_view v;
    size_t bytes = 0;
    uint64_t bit;
    unsigned char* c;
    memset(&cfg, 0, sizeof cfg);
    cfg.params = test_params(2, PARZ_FLOAT, 2);
    cfg.table = PARZ_TABLE_HYBRID;
    cfg.segment_blocks = 4;
    cfg.partition_segments = P[k];
    c = test_encode(&a, data, &cfg, &bytes);
    CHECK(c && parz_chunk_parse(c, bytes, &v, NULL) == PARZ_OK && v.nsegments == 64 &&
              v.checksum_segments == P[k] && v.nchecksums == 64 / P[k],
          "encode at P = %u", P[k]);
    if (!c)
      continue;
    bit = parz_chunk_segment_offset(&v, 63) + 3;
    CHECK(bit < v.payload_bits, "the last segment holds bits");
    c[(size_t)(v.payload - c) + bit / 8] ^= (unsigned char)(1u << (bit % 8));
    for (i = 0; i < sizeof w / sizeof w[0]; i++) {
      parz_chunk_dest d = rows_cols(out, w[i].r0, w[i].r1, w[i].c0, w[i].c1);
      parz_error e;
      int want = w[i].bad[k] ? PARZ_ERR_CHECKSUM : PARZ_OK;
      int rc = parz_chunk_decode_segments_to(&v, &d, 0, v.nsegments, &e);
      int vrc = parz_chunk_verify_to(&v, &d, 0, v.nchecksums, NULL);
      CHECK(rc == want && vrc == want,
            "P = %u, rows [%zu, %zu) x columns [%zu, %zu): decode "
            "%d, verify %d, want %d",
            P[k], w[i].r0, w[i].r1, w[i].c0, w[i].c1, rc, vrc, want);
      if (rc == PARZ_ERR_CHECKSUM)
        CHECK(strstr(e.message, P[k] == 1 ? "partition 63 of 64" : "partition 15 of 16") != NULL,
              "names the last partition: %s", e.message);
    }
    free(c);
  }
  free(out);
  free(data);
}

/* Windows that leave the chunk, or are empty, are refused by parz_chunk_dest_check. */
static void refused(void) {
  parz_array a = test_array(PARZ_FLOAT, 2, 8, 8, 1, 1);
  parz_chunk_config cfg;
  parz_chunk_view v;
  parz_chunk_dest d;
  size_t bytes = 0;
  float out[64];
  void* data = test_data(&a, 1);
  unsigned char* c;
  memset(&cfg, 0, sizeof cfg);
  cfg.params = test_params(2, PARZ_FLOAT, 2);
  c = test_encode(&a, data, &cfg, &bytes);
  CHECK(c && parz_chunk_parse(c, bytes, &v, NULL) == PARZ_OK, "encode");
  parz_chunk_dest_whole(&v, out, &d);
  CHECK(parz_chunk_dest_check(&v, &d, NULL) == PARZ_OK, "whole");
  d.hi[1] = 9;
  CHECK(parz_chunk_dest_check(&v, &d, NULL) == PARZ_ERR_ARG, "past the chunk");
  d.hi[1] = 8;
  d.lo[0] = 8;
  CHECK(parz_chunk_dest_check(&v, &d, NULL) == PARZ_ERR_ARG, "empty");
  d.lo[0] = 0;
  d.data = NULL;
  CHECK(parz_chunk_dest_check(&v, &d, NULL) == PARZ_ERR_ARG, "NULL data");
  free(c);
  free(data);
}

int main(void) {
  shapes();
  corrupt_outside();
  checksum_windows();
  refused();
  return test_finish("test_chunk_dest");
}
