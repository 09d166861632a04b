/* Segments of the lossless codec (lossless.h): the blocks of a segment predicted one after the
 * other, their residuals coded together. */
#include "lossless.h"

#include <stdlib.h>

#include "holt.h"
#include "lorenzo.h"
#include "lossless_forward.h"
#include "residual_coder.h"
#include "transform.h"

size_t parz_ll_block_count(const parz_array* a, unsigned predictor) {
  parz_ll_geometry g;
  return parz_ll_geometry_init(&g, a, predictor, NULL) == PARZ_OK ? g.blocks : 0;
}

size_t parz_ll_segment_count(const parz_array* a, unsigned predictor, size_t c) {
  size_t blocks = parz_ll_block_count(a, predictor);
  return c ? (blocks + c - 1) / c : 0;
}

size_t parz_ll_segment_bound(const parz_array* a, unsigned predictor, size_t c) {
  parz_ll_geometry g;
  if (parz_ll_geometry_init(&g, a, predictor, NULL) != PARZ_OK || c == 0 ||
      c > (size_t)-1 / PARZ_LL_BLOCK_VALUES / 8)
    return 0;
  return parz_ll_residual_bound(c * PARZ_LL_BLOCK_VALUES, g.w);
}

unsigned parz_ll_choose_transform(const parz_array* a, const void* values) {
  parz_ll_geometry g;
  size_t n = 1, probe;
  unsigned k;
  if (!values || parz_ll_geometry_init(&g, a, PARZ_LL_PREDICT_ALL, NULL) != PARZ_OK)
    return 0;
  for (k = 0; k < 4; k++)
    n *= g.n[k];
  probe = n < 256 ? n : 256;
  for (k = 1; k <= PARZ_LL_SCALES; k++)
    if (parz_ll_scale_fits(a->type, values, probe, k) && parz_ll_scale_fits(a->type, values, n, k))
      return k;
  return 0;
}

/* Holt's gains the encoder tries, (alpha, beta) in eighths: from linear extrapolation to a slow
 * level with a slow trend, and last the delta's 8, 0 (PARZ_LL_PREDICT_ALL itself). */
static const unsigned char holt_gains[][2] = {{8, 8}, {8, 4}, {8, 2}, {8, 1}, {7, 1},
                                              {6, 0}, {6, 2}, {6, 4}, {4, 0}, {4, 2},
                                              {4, 4}, {2, 0}, {2, 2}, {8, 0}};
#define HOLT_TRIALS (sizeof holt_gains / sizeof holt_gains[0] - 1)

void parz_ll_segments_free(parz_ll_segments* k) {
  free(k->bytes);
  free(k->ends);
  k->bytes = NULL;
  k->ends = NULL;
  k->count = 0;
}

/* The array's segments coded one after the other: with keep, each where the one before it ends
 * in one buffer of all their bounds (only the pages they write are touched), kept; without, each
 * into one buffer of a segment's bound. Their bytes, 0 where one cannot be encoded or memory ran
 * out. */
static size_t code_all(const parz_array* a, const void* values, unsigned transform,
                       unsigned predictor, size_t c, parz_ll_segments* keep) {
  const size_t bound = parz_ll_segment_bound(a, predictor, c);
  const size_t nseg = parz_ll_segment_count(a, predictor, c);
  size_t s, total = 0, *ends = NULL;
  uint8_t* buf = NULL;
  if (!keep)
    buf = bound ? (uint8_t*)malloc(bound) : NULL;
  else if (bound && nseg && nseg <= SIZE_MAX / bound &&
           (ends = (size_t*)malloc(nseg * sizeof *ends)) != NULL)
    buf = (uint8_t*)malloc(nseg * bound);
  for (s = 0; buf && s < nseg; s++) {
    size_t n = 0;
    if (parz_ll_encode_segment(a, values, transform, predictor, c, s, keep ? buf + total : buf,
                               bound, &n, NULL) != PARZ_OK)
      break;
    total += n;
    if (keep)
      ends[s] = total;
  }
  if (!buf || s < nseg || !keep || !total) {
    free(buf);
    free(ends);
    return buf && s == nseg ? total : 0;
  }
  keep->bytes = buf;
  keep->ends = ends;
  keep->count = nseg;
  return total;
}

size_t parz_ll_coded_bytes(const parz_array* a, const void* values, unsigned transform,
                           unsigned predictor, size_t c) {
  return code_all(a, values, transform, predictor, c, NULL);
}

size_t parz_ll_code_segments(const parz_array* a, const void* values, unsigned transform,
                             unsigned predictor, size_t c, parz_ll_segments* keep) {
  parz_ll_segments_free(keep);
  return code_all(a, values, transform, predictor, c, keep);
}

/* The bytes of the array's segments under predictor p, kept into keep where it is not NULL; where
 * keeping them ran out of memory, their bytes alone, so that the choice is the same either way. */
static size_t trial(const parz_array* a, const void* values, unsigned transform, unsigned p,
                    size_t c, parz_ll_segments* keep) {
  const size_t bytes = keep ? parz_ll_code_segments(a, values, transform, p, c, keep) : 0;
  return bytes ? bytes : parz_ll_coded_bytes(a, values, transform, p, c);
}

unsigned parz_ll_choose_predictor(const parz_array* a, const void* values, unsigned transform,
                                  unsigned predictor, size_t c) {
  return parz_ll_choose_predictor_bytes(a, values, transform, predictor, c, NULL, NULL);
}

/* The choice p: its segments where the choice coded them (coded bytes, in *segs where keep asks
 * for them; segs NULL where it coded none) moved into keep; its bytes where asked, those or
 * coded here (kept too). */
static unsigned chosen(const parz_array* a, const void* values, unsigned transform, unsigned p,
                       size_t c, size_t coded, parz_ll_segments* segs, size_t* bytes,
                       parz_ll_segments* keep) {
  if (keep && segs) {
    *keep = *segs;
    segs->bytes = NULL;
    segs->ends = NULL;
    segs->count = 0;
  }
  if (bytes)
    *bytes = coded ? coded : trial(a, values, transform, p, c, keep);
  return p;
}

/* For an array of two dimensions of extent above 1 or more: the row predictor where the measure
 * favours it and its segments make the smaller chunk, else PARZ_LL_PREDICT_ALL. Where it codes
 * both, the loser's segments are dropped and the winner's kept (keep). */
static unsigned choose_rows(const parz_array* a, const void* values, unsigned transform, size_t c,
                            size_t* bytes, parz_ll_segments* keep) {
  parz_ll_segments by_all = {NULL, NULL, 0}, by_rows = {NULL, NULL, 0};
  uint64_t bits[2];
  size_t all, rows;
  if (parz_ll_rows_measure(a, values, transform, bits) != 0 || bits[1] >= bits[0])
    return chosen(a, values, transform, PARZ_LL_PREDICT_ALL, c, 0, NULL, bytes, keep);
  all = trial(a, values, transform, PARZ_LL_PREDICT_ALL, c, keep ? &by_all : NULL);
  rows = trial(a, values, transform, PARZ_LL_PREDICT_ROWS, c, keep ? &by_rows : NULL);
  if (parz_ll_rows_smaller(all, parz_ll_segment_count(a, PARZ_LL_PREDICT_ALL, c), rows,
                           parz_ll_segment_count(a, PARZ_LL_PREDICT_ROWS, c))) {
    parz_ll_segments_free(&by_all);
    return chosen(a, values, transform, PARZ_LL_PREDICT_ROWS, c, rows, &by_rows, bytes, keep);
  }
  parz_ll_segments_free(&by_rows);
  return chosen(a, values, transform, PARZ_LL_PREDICT_ALL, c, all, &by_all, bytes, keep);
}

unsigned parz_ll_choose_predictor_bytes(const parz_array* a, const void* values, unsigned transform,
                                        unsigned predictor, size_t c, size_t* bytes,
                                        parz_ll_segments* keep) {
  parz_ll_geometry g;
  parz_ll_segments by_delta = {NULL, NULL, 0}, by_holt = {NULL, NULL, 0};
  uint64_t cost[HOLT_TRIALS + 1] = {0}, *u;
  size_t b, best = HOLT_TRIALS, delta_bytes, holt_bytes;
  unsigned k, holt;
  if (keep)
    parz_ll_segments_free(keep);
  if (predictor != PARZ_LL_PREDICT_ALL || !values || c == 0 ||
      parz_ll_geometry_init(&g, a, predictor, NULL) != PARZ_OK ||
      !parz_ll_transform_valid(transform, a->type))
    return chosen(a, values, transform, predictor, c, 0, NULL, bytes, keep);
  if (g.d > 1)
    return choose_rows(a, values, transform, c, bytes, keep);
  if (!(u = (uint64_t*)malloc(PARZ_LL_BLOCK_VALUES * sizeof *u)))
    return chosen(a, values, transform, predictor, c, 0, NULL, bytes, keep);
  /* residual bits per gain pair, the delta's last: each block restarts, as it will be coded */
  for (b = 0; b < g.blocks; b++) {
    const size_t n = parz_ll_block_values(&g, b);
    parz_ll_load_row(a->type, values, b * PARZ_LL_BLOCK_VALUES, n, transform, u);
    parz_ll_holt_costs(u, n, g.w, holt_gains, HOLT_TRIALS + 1, cost);
  }
  free(u);
  for (k = 0; k < HOLT_TRIALS; k++)
    if (cost[k] < cost[best])
      best = k;
  if (best == HOLT_TRIALS)
    return chosen(a, values, transform, predictor, c, 0, NULL, bytes, keep);
  /* the measure picks the gains; the coded bytes decide against the delta */
  holt = PARZ_LL_HOLT(holt_gains[best][0], holt_gains[best][1]);
  delta_bytes = trial(a, values, transform, predictor, c, keep ? &by_delta : NULL);
  holt_bytes = trial(a, values, transform, holt, c, keep ? &by_holt : NULL);
  if (holt_bytes && delta_bytes && holt_bytes < delta_bytes) {
    parz_ll_segments_free(&by_delta);
    return chosen(a, values, transform, holt, c, holt_bytes, &by_holt, bytes, keep);
  }
  parz_ll_segments_free(&by_holt);
  return chosen(a, values, transform, predictor, c, delta_bytes, &by_delta, bytes, keep);
}

/* The blocks [first, end) of segment s; PARZ_OK or the error naming it. */
static int segment_blocks(const parz_ll_geometry* g, size_t c, size_t s, size_t* first, size_t* end,
                          parz_error* err) {
  if (c == 0)
    return parz_fail(err, PARZ_ERR_ARG, "lossless: C is 0");
  if (s >= (g->blocks + c - 1) / c)
    return parz_fail(err, PARZ_ERR_ARG, "lossless: segment %zu of %zu", s, (g->blocks + c - 1) / c);
  *first = s * c;
  *end = g->blocks - *first < c ? g->blocks : *first + c;
  return PARZ_OK;
}

/* What encoding and decoding segment s share: the geometry, the checks of the transform and of
 * s, its blocks and room for its residuals and the predictor's scratch. */
typedef struct {
  parz_ll_geometry g;
  size_t first, end, values;
  uint64_t *z, *scratch;
} segment_work;

static int segment_begin(segment_work* w, const parz_array* a, unsigned transform,
                         unsigned predictor, size_t c, size_t s, parz_error* err) {
  int rc = parz_ll_geometry_init(&w->g, a, predictor, err);
  w->z = w->scratch = NULL;
  if (rc != PARZ_OK)
    return rc;
  if (!parz_ll_transform_valid(transform, a->type))
    return parz_fail(err, PARZ_ERR_PARAM, "lossless: transform %u does not apply to %s", transform,
                     parz_type_name(a->type));
  rc = segment_blocks(&w->g, c, s, &w->first, &w->end, err);
  if (rc != PARZ_OK)
    return rc;
  w->values = parz_ll_block_first(&w->g, w->end) - parz_ll_block_first(&w->g, w->first);
  w->z = (uint64_t*)malloc(w->values * sizeof *w->z);
  w->scratch = (uint64_t*)malloc(PARZ_LL_SCRATCH * sizeof *w->scratch);
  if (!w->z || !w->scratch)
    return parz_fail(err, PARZ_ERR_NOMEM, "lossless: no room for segment %zu", s);
  return PARZ_OK;
}

static int segment_end(segment_work* w, int rc) {
  free(w->z);
  free(w->scratch);
  return rc;
}

int parz_ll_encode_segment(const parz_array* a, const void* values, unsigned transform,
                           unsigned predictor, size_t c, size_t s, uint8_t* dst, size_t dst_bytes,
                           size_t* written, parz_error* err) {
  return parz_ll_encode_segment_q(a, values, transform, predictor, c, s, PARZ_LL_RUN_Q, dst,
                                  dst_bytes, written, err);
}

int parz_ll_encode_segment_q(const parz_array* a, const void* values, unsigned transform,
                             unsigned predictor, size_t c, size_t s, unsigned q, uint8_t* dst,
                             size_t dst_bytes, size_t* written, parz_error* err) {
  segment_work w;
  size_t b, n = 0, bound;
  int rc;
  if (!values || !dst || !written)
    return parz_fail(err, PARZ_ERR_ARG, "lossless: NULL values, destination or size");
  bound = parz_ll_segment_bound(a, predictor, c);
  if (dst_bytes < bound)
    return parz_fail(err, PARZ_ERR_BUFFER, "lossless: %zu bytes for a segment that may take %zu",
                     dst_bytes, bound);
  rc = segment_begin(&w, a, transform, predictor, c, s, err);
  if (rc != PARZ_OK)
    return segment_end(&w, rc);
  for (b = w.first; b < w.end; b++)
    n += parz_ll_predict_block(&w.g, transform, values, b, w.scratch, w.z + n);
  *written = parz_ll_code_residuals_q(w.z, n, w.g.w, q, dst);
  return segment_end(&w, PARZ_OK);
}

int parz_ll_decode_segment(const parz_array* a, unsigned transform, unsigned predictor, size_t c,
                           size_t s, const uint8_t* src, size_t src_bytes, void* values,
                           parz_error* err) {
  segment_work w;
  size_t b, n = 0;
  int rc;
  if (!values)
    return parz_fail(err, PARZ_ERR_ARG, "lossless: NULL values");
  rc = segment_begin(&w, a, transform, predictor, c, s, err);
  if (rc == PARZ_OK)
    rc = parz_ll_uncode_residuals(src, src_bytes, w.values, w.g.w, w.z, NULL, s, err);
  if (rc == PARZ_OK)
    for (b = w.first; b < w.end; b++) {
      parz_ll_rebuild_block(&w.g, transform, w.z + n, b, w.scratch, values);
      n += parz_ll_block_values(&w.g, b);
    }
  return segment_end(&w, rc);
}
