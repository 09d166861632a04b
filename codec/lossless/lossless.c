/* Segments of the lossless codec (lossless.h): the blocks of a segment predicted one after the
 * other, their residuals coded together. */
#include "lossless.h"

#include <stdlib.h>
#include <string.h>

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

/* The most parts a choice's reads and codings are cut into, whatever jobs ask: each part has a
 * slot of its outcome on the stack. */
#define MAX_PARTS 256u

/* Parts of units of work on jobs: 1 (the calling thread) without jobs or work to cut. */
static uint64_t parts_of(const parz_jobs* jobs, uint64_t units) {
  const uint64_t p = jobs && jobs->run && jobs->parts > 1 ? jobs->parts : 1;
  return p < units ? (p < MAX_PARTS ? p : MAX_PARTS) : units ? units : 1;
}

/* Part i of `parts` over units [first, end) of the work arg describes. */
typedef void (*part_fn)(void* arg, uint64_t i, uint64_t first, uint64_t end);

typedef struct {
  part_fn part;
  void* arg;
  uint64_t units, parts;
} cut_work;

static void cut_part(void* arg, uint64_t i) {
  const cut_work* c = (const cut_work*)arg;
  c->part(c->arg, i, c->units * i / c->parts, c->units * (i + 1) / c->parts);
}

/* part over [0, units) cut into `parts` (parts_of's) on jobs, or whole on the calling thread. */
static void run_parts(const parz_jobs* jobs, uint64_t parts, uint64_t units, part_fn part,
                      void* arg) {
  cut_work c;
  c.part = part;
  c.arg = arg;
  c.units = units;
  c.parts = parts;
  if (parts <= 1)
    part(arg, 0, 0, units);
  else
    jobs->run(jobs->ctx, parts, cut_part, &c);
}

/* The check of transform k over values in parts: whether each part's values fit. */
typedef struct {
  const parz_array* a;
  const unsigned char* values;
  unsigned k;
  unsigned char fits[MAX_PARTS];
} fits_work;

static void fits_part(void* arg, uint64_t i, uint64_t first, uint64_t end) {
  fits_work* f = (fits_work*)arg;
  const size_t size = parz_type_size(f->a->type);
  f->fits[i] = (unsigned char)parz_ll_scale_fits(f->a->type, f->values + first * size,
                                                 (size_t)(end - first), f->k);
}

unsigned parz_ll_choose_transform(const parz_array* a, const void* values, const parz_jobs* jobs) {
  parz_ll_geometry g;
  fits_work f;
  size_t n = 1, probe;
  uint64_t parts, i;
  unsigned k;
  if (!values || parz_ll_geometry_init(&g, a, PARZ_LL_PREDICT_ALL, NULL) != PARZ_OK)
    return 0;
  for (k = 0; k < 4; k++)
    n *= g.n[k];
  probe = n < 256 ? n : 256;
  parts = parts_of(jobs, n);
  f.a = a;
  f.values = (const unsigned char*)values;
  for (k = 1; k <= PARZ_LL_SCALES; k++) {
    if (!parz_ll_scale_fits(a->type, values, probe, k))
      continue;
    f.k = k;
    run_parts(jobs, parts, n, fits_part, &f);
    for (i = 0; i < parts && f.fits[i]; i++)
      ;
    if (i == parts)
      return k;
  }
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

/* The segments of an array coded in parts, each part's segments one after the other from its
 * first segment's place in buf (nseg bounds; NULL: each part codes into a buffer of one bound
 * and keeps nothing), their ends in ends (from the part's first place), each part's bytes in
 * bytes[i] and whether all its segments coded in ok[i]. */
typedef struct {
  const parz_array* a;
  const void* values;
  unsigned transform, predictor;
  size_t c, bound;
  uint8_t* buf;
  size_t* ends;
  size_t bytes[MAX_PARTS];
  unsigned char ok[MAX_PARTS];
} code_work;

static void code_part(void* arg, uint64_t i, uint64_t first, uint64_t end) {
  code_work* w = (code_work*)arg;
  uint8_t* buf = w->buf ? w->buf + first * w->bound : (uint8_t*)malloc(w->bound);
  size_t s, at = 0;
  for (s = (size_t)first; buf && s < end; s++) {
    size_t n = 0;
    if (parz_ll_encode_segment(w->a, w->values, w->transform, w->predictor, w->c, s,
                               w->buf ? buf + at : buf, w->bound, &n, NULL) != PARZ_OK)
      break;
    at += n;
    if (w->ends)
      w->ends[s] = at;
  }
  w->ok[i] = buf && s == end;
  w->bytes[i] = at;
  if (!w->buf)
    free(buf);
}

/* The array's segments coded in parts on jobs: with keep, each part's segments one after the
 * other from the part's place in one buffer of all their bounds (only the pages they write are
 * touched), then the parts moved together, kept; without, each part into one buffer of a
 * segment's bound. Their bytes, 0 where one cannot be encoded or memory ran out. */
static size_t code_all(const parz_array* a, const void* values, unsigned transform,
                       unsigned predictor, size_t c, const parz_jobs* jobs,
                       parz_ll_segments* keep) {
  const size_t nseg = parz_ll_segment_count(a, predictor, c);
  const uint64_t parts = parts_of(jobs, nseg);
  code_work w;
  size_t total = 0;
  uint64_t i, s;
  int ok = 1;
  w.a = a;
  w.values = values;
  w.transform = transform;
  w.predictor = predictor;
  w.c = c;
  w.bound = parz_ll_segment_bound(a, predictor, c);
  w.buf = NULL;
  w.ends = NULL;
  if (!w.bound || !nseg)
    return 0;
  if (keep && (nseg > SIZE_MAX / w.bound || !(w.ends = (size_t*)malloc(nseg * sizeof *w.ends)) ||
               !(w.buf = (uint8_t*)malloc(nseg * w.bound)))) {
    free(w.ends);
    return 0;
  }
  run_parts(jobs, parts, nseg, code_part, &w);
  for (i = 0; i < parts; i++) {
    const size_t first = (size_t)(nseg * i / parts), end = (size_t)(nseg * (i + 1) / parts);
    ok &= w.ok[i];
    if (ok && w.buf) { /* the part's segments after the parts before it */
      memmove(w.buf + total, w.buf + first * w.bound, w.bytes[i]);
      for (s = first; s < end; s++)
        w.ends[s] += total;
    }
    total += w.bytes[i];
  }
  if (!ok || !total || !keep) {
    free(w.buf);
    free(w.ends);
    return ok ? total : 0;
  }
  keep->bytes = w.buf;
  keep->ends = w.ends;
  keep->count = nseg;
  return total;
}

size_t parz_ll_coded_bytes(const parz_array* a, const void* values, unsigned transform,
                           unsigned predictor, size_t c) {
  return code_all(a, values, transform, predictor, c, NULL, NULL);
}

size_t parz_ll_code_segments(const parz_array* a, const void* values, unsigned transform,
                             unsigned predictor, size_t c, parz_ll_segments* keep) {
  parz_ll_segments_free(keep);
  return code_all(a, values, transform, predictor, c, NULL, keep);
}

/* What the choices below read and code: the array, its values and transform, C, and the jobs
 * their reads and codings are cut into. */
typedef struct {
  const parz_array* a;
  const void* values;
  unsigned transform;
  size_t c;
  const parz_jobs* jobs;
} choice;

/* The bytes of the array's segments under predictor p, kept into keep where it is not NULL; where
 * keeping them ran out of memory, their bytes alone, so that the choice is the same either way. */
static size_t trial(const choice* ch, unsigned p, parz_ll_segments* keep) {
  size_t bytes = 0;
  if (keep) {
    parz_ll_segments_free(keep);
    bytes = code_all(ch->a, ch->values, ch->transform, p, ch->c, ch->jobs, keep);
  }
  return bytes ? bytes : code_all(ch->a, ch->values, ch->transform, p, ch->c, ch->jobs, NULL);
}

unsigned parz_ll_choose_predictor(const parz_array* a, const void* values, unsigned transform,
                                  unsigned predictor, size_t c) {
  return parz_ll_choose_predictor_bytes(a, values, transform, predictor, c, NULL, NULL, NULL);
}

/* The choice p: its segments where the choice coded them (coded bytes, in *segs where keep asks
 * for them; segs NULL where it coded none) moved into keep; its bytes where asked, those or
 * coded here (kept too). */
static unsigned chosen(const choice* ch, unsigned p, size_t coded, parz_ll_segments* segs,
                       size_t* bytes, parz_ll_segments* keep) {
  if (keep && segs) {
    *keep = *segs;
    segs->bytes = NULL;
    segs->ends = NULL;
    segs->count = 0;
  }
  if (bytes)
    *bytes = coded ? coded : trial(ch, p, keep);
  return p;
}

/* The measure of the row predictor in parts of blocks: each part's sums, and whether it took
 * them. */
typedef struct {
  const choice* ch;
  uint64_t bits[MAX_PARTS][2];
  unsigned char failed[MAX_PARTS];
} rows_work;

static void rows_part(void* arg, uint64_t i, uint64_t first, uint64_t end) {
  rows_work* r = (rows_work*)arg;
  r->failed[i] =
      (unsigned char)(parz_ll_rows_measure_blocks(r->ch->a, r->ch->values, r->ch->transform,
                                                  (size_t)first, (size_t)end, r->bits[i]) != 0);
}

/* parz_ll_rows_measure on the choice's jobs: the sums of its parts. */
static int rows_measure(const choice* ch, uint64_t bits[2]) {
  const size_t blocks = parz_ll_block_count(ch->a, PARZ_LL_PREDICT_ALL);
  const uint64_t parts = parts_of(ch->jobs, blocks);
  rows_work r;
  uint64_t i;
  r.ch = ch;
  run_parts(ch->jobs, parts, blocks, rows_part, &r);
  bits[0] = bits[1] = 0;
  for (i = 0; i < parts; i++) {
    if (r.failed[i])
      return 1;
    bits[0] += r.bits[i][0];
    bits[1] += r.bits[i][1];
  }
  return 0;
}

/* For an array of two dimensions of extent above 1 or more: the row predictor where the measure
 * favours it and its segments make the smaller chunk, else PARZ_LL_PREDICT_ALL. Where it codes
 * both, the loser's segments are dropped and the winner's kept (keep). */
static unsigned choose_rows(const choice* ch, size_t* bytes, parz_ll_segments* keep) {
  parz_ll_segments by_all = {NULL, NULL, 0}, by_rows = {NULL, NULL, 0};
  uint64_t bits[2];
  size_t all, rows;
  if (rows_measure(ch, bits) != 0 || bits[1] >= bits[0])
    return chosen(ch, PARZ_LL_PREDICT_ALL, 0, NULL, bytes, keep);
  all = trial(ch, PARZ_LL_PREDICT_ALL, keep ? &by_all : NULL);
  rows = trial(ch, PARZ_LL_PREDICT_ROWS, keep ? &by_rows : NULL);
  if (parz_ll_rows_smaller(all, parz_ll_segment_count(ch->a, PARZ_LL_PREDICT_ALL, ch->c), rows,
                           parz_ll_segment_count(ch->a, PARZ_LL_PREDICT_ROWS, ch->c))) {
    parz_ll_segments_free(&by_all);
    return chosen(ch, PARZ_LL_PREDICT_ROWS, rows, &by_rows, bytes, keep);
  }
  parz_ll_segments_free(&by_rows);
  return chosen(ch, PARZ_LL_PREDICT_ALL, all, &by_all, bytes, keep);
}

unsigned parz_ll_choose_predictor_bytes(const parz_array* a, const void* values, unsigned transform,
                                        unsigned predictor, size_t c, const parz_jobs* jobs,
                                        size_t* bytes, parz_ll_segments* keep) {
  const choice ch = {a, values, transform, c, jobs};
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
    return chosen(&ch, predictor, 0, NULL, bytes, keep);
  if (g.d > 1)
    return choose_rows(&ch, bytes, keep);
  if (!(u = (uint64_t*)malloc(PARZ_LL_BLOCK_VALUES * sizeof *u)))
    return chosen(&ch, predictor, 0, NULL, bytes, keep);
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
    return chosen(&ch, predictor, 0, NULL, bytes, keep);
  /* the measure picks the gains; the coded bytes decide against the delta */
  holt = PARZ_LL_HOLT(holt_gains[best][0], holt_gains[best][1]);
  delta_bytes = trial(&ch, predictor, keep ? &by_delta : NULL);
  holt_bytes = trial(&ch, holt, keep ? &by_holt : NULL);
  if (holt_bytes && delta_bytes && holt_bytes < delta_bytes) {
    parz_ll_segments_free(&by_delta);
    return chosen(&ch, holt, holt_bytes, &by_holt, bytes, keep);
  }
  parz_ll_segments_free(&by_holt);
  return chosen(&ch, predictor, delta_bytes, &by_delta, bytes, keep);
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
