/* A chunk through the error-bounded codec: quantize, predict, count symbols, build and write the
 * codebook, encode the segments; and back. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_chunk.h"
#include "bounded_jobs.h"
#include "bounded_lengths.h"
#include "chunk_keep.h"
#include "huffman.h"

void parz_bounded_chunk_free(parz_bounded_chunk* c) {
  if (!c)
    return;
  free(c->book);
  free(c->payload);
  free(c->seg_bits);
  free(c->exc_pos);
  free(c->exc_bits);
  free(c->mask);
  memset(c, 0, sizeof *c);
}

static uint64_t value_bits(const void* src, size_t i, size_t w) {
  uint64_t b = 0;
  if (w == 4) {
    uint32_t v;
    memcpy(&v, (const unsigned char*)src + 4 * i, 4);
    b = v;
  } else {
    memcpy(&b, (const unsigned char*)src + 8 * i, 8);
  }
  return b;
}

/* A pass over the holes in parts: set from the caller's and the fill value, or counted. */
typedef struct {
  const void* src;
  size_t w;
  const uint8_t* given; /* or NULL */
  const void* fill;     /* or NULL */
  uint8_t* hole;
  uint64_t n, parts;
  size_t nexc[PARZ_BOUNDED_PARTS_MAX], nmask[PARZ_BOUNDED_PARTS_MAX];
} hole_job;

/* hole[k] = 1 where given[k] (or NULL) is nonzero or the value's bits equal fill's, else 0, for
 * k in [first, first + count) of values of one width (W bytes): inlined once per width, each
 * loop without a branch, so that it vectorizes. */
static inline void holes_set_values(const void* restrict src, const uint8_t* restrict given,
                                    uint64_t fill, uint8_t* restrict hole, size_t first,
                                    size_t count, size_t W) {
  const unsigned char* v = (const unsigned char*)src;
  for (size_t k = first; k < first + count; k++) {
    const uint64_t bits = W == 4 ? value_bits(v, k, 4) : value_bits(v, k, 8);
    hole[k] = (uint8_t)((given[k] != 0) | (bits == fill));
  }
}

static inline void holes_fill_values(const void* restrict src, uint64_t fill,
                                     uint8_t* restrict hole, size_t first, size_t count, size_t W) {
  const unsigned char* v = (const unsigned char*)src;
  for (size_t k = first; k < first + count; k++)
    hole[k] = (uint8_t)((W == 4 ? value_bits(v, k, 4) : value_bits(v, k, 8)) == fill);
}

/* hole[i] = 1 where given[i] or the value's bytes are the fill value's, else 0; the value's bits
 * compared as an integer of its width. */
static void holes_set_part(void* arg, uint64_t i) {
  const hole_job* j = (const hole_job*)arg;
  size_t first, count;
  parz_bounded_part(j->n, j->parts, i, &first, &count);
  uint8_t* restrict hole = j->hole;
  const uint8_t* restrict given = j->given;
  if (!j->fill && !given) {
    memset(hole + first, 0, count);
    return;
  }
  if (!j->fill) {
    for (size_t k = first; k < first + count; k++)
      hole[k] = (uint8_t)(given[k] != 0);
    return;
  }
  const uint64_t fill = j->w == 4 ? value_bits(j->fill, 0, 4) : value_bits(j->fill, 0, 8);
  if (given && j->w == 4)
    holes_set_values(j->src, given, fill, hole, first, count, 4);
  else if (given)
    holes_set_values(j->src, given, fill, hole, first, count, 8);
  else if (j->w == 4)
    holes_fill_values(j->src, fill, hole, first, count, 4);
  else
    holes_fill_values(j->src, fill, hole, first, count, 8);
}

static void holes_count_part(void* arg, uint64_t i) {
  hole_job* j = (hole_job*)arg;
  size_t first, count, nexc = 0, nmask = 0;
  parz_bounded_part(j->n, j->parts, i, &first, &count);
  const uint8_t* h = j->hole;
  /* in runs whose counts fit 32 bits, which the loop adds in vector lanes */
  for (size_t k = first, end = first + count; k < end;) {
    const size_t stop = end - k > ((size_t)1 << 30) ? k + ((size_t)1 << 30) : end;
    uint32_t e = 0, m = 0;
    for (; k < stop; k++) {
      e += h[k] == PARZ_BOUNDED_EXCEPTION;
      m += h[k] == PARZ_BOUNDED_MASKED;
    }
    nexc += e;
    nmask += m;
  }
  j->nexc[i] = nexc;
  j->nmask[i] = nmask;
}

/* The pass `job` over n holes in parts on jobs. */
static void holes_run(hole_job* j, uint64_t n, const parz_jobs* jobs,
                      void (*job)(void* arg, uint64_t i)) {
  j->n = n;
  j->parts = parz_bounded_parts(jobs, n, n);
  parz_bounded_run(jobs, j->parts, job, j);
}

/* hole[0..n) from the caller's holes (given, or NULL) and the fill value (fill, or NULL). */
static void holes_set(const void* src, size_t w, const uint8_t* given, const void* fill,
                      uint8_t* hole, size_t n, const parz_jobs* jobs) {
  hole_job j;
  j.src = src;
  j.w = w;
  j.given = given;
  j.fill = fill;
  j.hole = hole;
  holes_run(&j, n, jobs, holes_set_part);
}

/* The exceptions and masked values among hole[0..n). */
static void holes_count(uint8_t* hole, size_t n, const parz_jobs* jobs, size_t* nexc,
                        size_t* nmask) {
  hole_job j;
  j.hole = hole;
  holes_run(&j, n, jobs, holes_count_part);
  *nexc = *nmask = 0;
  for (uint64_t i = 0; i < j.parts; i++) {
    *nexc += j.nexc[i];
    *nmask += j.nmask[i];
  }
}

/* The predictors' trials on the sample box of parz_bounded_choose. */
typedef struct {
  const parz_bounded_shape* b;
  const unsigned char* box;
  double eb, step;
  const parz_bounded_options* opt;
  size_t n;
  uint8_t *hole0, *hole_interp;          /* the fill value's holes; and the values not finite */
  size_t bytes[PARZ_BOUNDED_PREDICTORS]; /* each predictor's estimate, SIZE_MAX: none */
} choose_job;

/* Predictor i + 1's estimate of the box's bytes, its passes on the jobs too (the trials run side
 * by side, each cut into parts that the threads the others leave idle take). */
static void trial(void* arg, uint64_t i) {
  choose_job* j = (choose_job*)arg;
  const parz_jobs* jobs = j->opt->jobs;
  const int p = (int)i + 1;
  const size_t n = j->n;
  /* q, codes and holes in one block of the keep: a block malloc'd per trial would be given
   * back to the system when freed and cost a page fault per 4 KiB at every trial */
  int fresh;
  int32_t* q = (int32_t*)parz_keep_take(j->opt->keep, n * (2 * sizeof *q + 1), &fresh);
  int32_t* codes = q ? q + n : NULL;
  uint8_t* hole = q ? (uint8_t*)(q + 2 * n) : NULL;
  j->bytes[i] = SIZE_MAX;
  if (q) {
    if (p == PARZ_BOUNDED_LORENZO) {
      memcpy(hole, j->hole0, n);
      parz_bounded_quantize(j->b, j->box, j->eb, j->step, q, hole, jobs);
    } else {
      memcpy(hole, j->hole_interp, n);
    }
    parz_bounded_predict(j->b, p, j->box, j->eb, j->step, q, hole, codes, jobs);
    size_t nexc, nmask;
    holes_count(hole, n, jobs, &nexc, &nmask);
    /* the predictors compared with zero runs on: where runs pay, they decide the size, and
     * without them the sample's edges (which the chunk has fewer of) weigh more; the
     * payload's size is the code's bits for these counts, nothing is written */
    j->bytes[i] = parz_bounded_trial_bytes(
        parz_bounded_estimate_bytes(codes, n, j->opt->segment, jobs), nexc, nmask);
  }
  parz_keep_give(j->opt->keep, q);
}

size_t parz_bounded_trial_bytes(size_t estimate, size_t nexc, size_t nmask) {
  return estimate == SIZE_MAX ? SIZE_MAX : estimate + nexc * 12 + nmask / 64;
}

int parz_bounded_pick(const size_t bytes[PARZ_BOUNDED_PREDICTORS]) {
  int best = PARZ_BOUNDED_LORENZO;
  size_t best_bytes = SIZE_MAX;
  for (int p = PARZ_BOUNDED_LORENZO; p <= PARZ_BOUNDED_PREDICTORS; p++)
    if (bytes[p - 1] < best_bytes) {
      best_bytes = bytes[p - 1];
      best = p;
    }
  return best;
}

size_t parz_bounded_sample_box(const parz_bounded_shape* s, parz_bounded_shape* b, size_t lo[4]) {
  size_t n = 1;
  *b = *s;
  for (unsigned k = 0; k < 4; k++)
    lo[k] = 0;
  for (unsigned k = 0; k < s->dims; k++) {
    if (s->shape[k] >= 32)
      b->shape[k] = (s->shape[k] + 1) / 2;
    lo[k] = (s->shape[k] - b->shape[k]) / 2;
    n *= b->shape[k];
  }
  /* halve the longest extent again while the box holds more than an eighth */
  for (;;) {
    unsigned big = 0;
    for (unsigned k = 1; k < s->dims; k++)
      if (b->shape[k] > b->shape[big])
        big = k;
    if (n * 8 <= parz_bounded_count(s) || b->shape[big] < 64)
      break;
    n = n / b->shape[big] * ((b->shape[big] + 1) / 2);
    b->shape[big] = (b->shape[big] + 1) / 2;
    lo[big] = (s->shape[big] - b->shape[big]) / 2;
  }
  return n;
}

int parz_bounded_choose(const parz_bounded_shape* s, const void* src, double eb,
                        const parz_bounded_options* opt, const uint8_t* given) {
  parz_bounded_shape b;
  size_t lo[4], w = s->type == PARZ_FLOAT ? 4 : 8;
  const size_t n = parz_bounded_sample_box(s, &b, lo);
  /* the box's values, the caller's holes in it and the trials' two kinds of holes in one block
   * of the keep (as the trials' blocks: no page faults at every chunk) */
  int fresh;
  unsigned char* box = (unsigned char*)parz_keep_take(opt->keep, n * (w + 3), &fresh);
  if (!box)
    return PARZ_BOUNDED_LORENZO;
  uint8_t* box_given = given ? box + n * w : NULL;
  size_t ext[4] = {1, 1, 1, 1}, full[4] = {1, 1, 1, 1}, l4[4] = {0, 0, 0, 0};
  for (unsigned k = 0; k < s->dims; k++) {
    ext[4 - s->dims + k] = b.shape[k];
    full[4 - s->dims + k] = s->shape[k];
    l4[4 - s->dims + k] = lo[k];
  }
  size_t at = 0;
  for (size_t i0 = 0; i0 < ext[0]; i0++)
    for (size_t i1 = 0; i1 < ext[1]; i1++)
      for (size_t i2 = 0; i2 < ext[2]; i2++, at += ext[3]) {
        size_t from =
            (((l4[0] + i0) * full[1] + l4[1] + i1) * full[2] + l4[2] + i2) * full[3] + l4[3];
        memcpy(box + at * w, (const unsigned char*)src + from * w, ext[3] * w);
        if (given)
          memcpy(box_given + at, given + from, ext[3]);
      }
  int best = PARZ_BOUNDED_LORENZO;
  /* What every trial shares is found once: the box's holes (the caller's and the fill value's,
   * never read, as the chunk's codes never read them), the grid's step, the holes the
   * interpolation starts from (values not finite); then each predictor from copies, the
   * predictors at once on the jobs. */
  choose_job j;
  j.b = &b;
  j.box = box;
  j.eb = eb;
  j.opt = opt;
  j.n = n;
  j.hole0 = box + n * (w + 1);
  j.hole_interp = box + n * (w + 2);
  if (parz_bounded_check(&b, eb, NULL) == PARZ_OK) {
    holes_set(box, w, box_given, opt->fill, j.hole0, n, opt->jobs);
    j.step = parz_bounded_step(&b, box, eb, j.hole0, opt->jobs);
    memcpy(j.hole_interp, j.hole0, n);
    parz_bounded_quantize(&b, box, eb, j.step, NULL, j.hole_interp, opt->jobs);
    parz_bounded_run(opt->jobs, PARZ_BOUNDED_PREDICTORS, trial, &j);
    best = parz_bounded_pick(j.bytes);
  }
  parz_keep_give(opt->keep, box);
  return best;
}

void parz_bounded_coded_free(parz_bounded_coded* c) {
  if (!c)
    return;
  parz_keep_give(c->keep, c->codes);
  parz_keep_give(c->keep, c->hole);
  free(c->book.len);
  free(c->book.code);
  free(c->book_bytes);
  memset(c, 0, sizeof *c);
}

/* The lengths of the two codes (with zero runs and without): part i of stage BUILD makes
 * Huffman's code of code i with no limit (a tree, parz_huff_tree_build), of stage CUT cuts it to
 * the limit and frees the tree, of stage BOTH does both. */
enum { BUILD = 1, CUT = 2, BOTH = 3 };
typedef struct {
  const uint64_t* freq[2];
  size_t m;
  uint8_t* len[2];
  int stage;
  parz_huff_tree tree[2];
  int rc[2];
  parz_error err[2];
} lengths_job;

static void lengths_part(void* arg, uint64_t i) {
  lengths_job* j = (lengths_job*)arg;
  if (j->stage & BUILD) {
    j->rc[i] = parz_huff_tree_build(&j->tree[i], j->freq[i], j->m, PARZ_BOUNDED_MAX_LEN,
                                    j->len[i], &j->err[i]);
    if (j->rc[i] == PARZ_OK && !j->tree[i].longest)
      j->rc[i] = parz_fail(&j->err[i], PARZ_ERR_ARG, "bounded: no symbol to code");
  }
  if (j->stage & CUT) { /* the lengths are the code's: the tree has served */
    if (j->rc[i] == PARZ_OK)
      j->rc[i] = parz_huff_tree_limit(&j->tree[i], j->len[i], &j->err[i]);
    parz_huff_tree_free(&j->tree[i]);
  }
}

/* The first failure of the parts into err. */
static int lengths_failed(const lengths_job* j, unsigned parts, parz_error* err) {
  for (unsigned k = 0; k < parts; k++)
    if (j->rc[k]) {
      if (err)
        *err = j->err[k];
      return j->rc[k];
    }
  return PARZ_OK;
}

/* The ranges of at most this many symbols build the two codes' trees on the calling thread and
 * cut one where they can: there a hand-off to other threads costs more than a tree, and the
 * trees are small. A wider range builds both codes on the jobs. */
#define LENGTHS_NARROW 4096u

/* The two codes' lengths in j and the choice between them (*use_runs), the code with runs kept
 * where its bits are fewer. Over a narrow range: where Huffman's code without the limit (which
 * is the code where it fits the limit, and never costs more than it where it does not) of one
 * code already costs more than the other code, that code is not kept, and is not cut. The code
 * of the lower bound is cut first. */
static int lengths_choose(const parz_bounded_range* r, lengths_job* j, const parz_jobs* jobs,
                          int* use_runs, parz_error* err) {
  int rc;
  uint64_t bits[2];
  j->stage = r->m > LENGTHS_NARROW ? BOTH : BUILD;
  parz_bounded_run(j->stage == BOTH ? jobs : NULL, 2, lengths_part, j);
  if ((rc = lengths_failed(j, 2, err)) != PARZ_OK)
    return rc;
  for (unsigned k = 0; k < 2; k++) /* a bound until cut */
    bits[k] = parz_bounded_coded_bits(j->freq[k], j->len[k], r->m);
  const unsigned first = bits[1] < bits[0], second = !first;
  const int cut[2] = {j->tree[0].longest > PARZ_BOUNDED_MAX_LEN,
                      j->tree[1].longest > PARZ_BOUNDED_MAX_LEN};
  j->stage = CUT;
  if (cut[0] && cut[1] && bits[second] - bits[first] <= bits[first] / 256) {
    /* bounds this close leave both codes to cut: side by side */
    parz_bounded_run(jobs, 2, lengths_part, j);
    if ((rc = lengths_failed(j, 2, err)) != PARZ_OK)
      return rc;
    for (unsigned k = 0; k < 2; k++)
      bits[k] = parz_bounded_coded_bits(j->freq[k], j->len[k], r->m);
  } else {
    for (unsigned step = 0; step < 2; step++) {
      const unsigned k = step ? second : first;
      /* the second code is kept only where its bits are fewer than the first's (the plain
       * code's, where they are as many) */
      if (!cut[k] || (step && (k == 0 ? bits[0] > bits[1] : bits[1] >= bits[0])))
        continue;
      lengths_part(j, k);
      if (j->rc[k])
        return lengths_failed(j, 2, err);
      bits[k] = parz_bounded_coded_bits(j->freq[k], j->len[k], r->m);
    }
  }
  *use_runs = bits[1] < bits[0];
  return PARZ_OK;
}

int parz_bounded_range_lengths(const parz_bounded_range* r, const uint64_t* plain,
                               const uint64_t* runs, int runs_opt, uint8_t* len,
                               const uint8_t** kept, int* use_runs, const parz_jobs* jobs,
                               parz_error* err) {
  lengths_job j;
  int rc;
  memset(&j, 0, sizeof j);
  j.freq[0] = runs_opt == 1 ? runs : plain;
  j.freq[1] = runs;
  j.m = r->m;
  j.len[0] = len;
  j.len[1] = len + r->m;
  *use_runs = runs_opt == 1;
  *kept = len;
  if (runs_opt != 2) {
    rc = parz_bounded_book_lengths(j.freq[0], r->m, len, err);
  } else {
    /* zero runs pay where zeros come in long runs; short ones cost more as run symbols than as
     * single zeros of a 1-bit code word: the code with runs is kept where its bits are fewer */
    rc = lengths_choose(r, &j, jobs, use_runs, err);
    if (*use_runs)
      *kept = len + r->m;
  }
  parz_huff_tree_free(&j.tree[0]);
  parz_huff_tree_free(&j.tree[1]);
  return rc;
}

/* parz_bounded_coded_book with the two codes' lengths on jobs (NULL: the calling thread). */
static int coded_book(const parz_bounded_range* r, const uint64_t* plain, const uint64_t* runs,
                      int runs_opt, const parz_jobs* jobs, parz_bounded_coded* out,
                      parz_error* err) {
  int rc;
  uint8_t* len = (uint8_t*)malloc(2 * r->m);
  const uint8_t* kept = len;
  if (!out->book.len)
    out->book.len = (uint8_t*)malloc(PARZ_BOUNDED_SYMBOLS);
  if (!out->book.code)
    out->book.code = (uint32_t*)malloc(PARZ_BOUNDED_SYMBOLS * sizeof(uint32_t));
  if (!out->book_bytes)
    out->book_bytes = (uint8_t*)malloc(PARZ_BOUNDED_BOOK_BYTES_MAX);
  if (!len || !out->book.len || !out->book.code || !out->book_bytes) {
    free(len);
    return parz_fail(err, PARZ_ERR_NOMEM, "bounded: no memory for a codebook");
  }
  /* the lengths decide between the codes with and without runs; the code words are built for
   * the one kept */
  rc = parz_bounded_range_lengths(r, plain, runs, runs_opt, len, &kept, &out->runs, jobs, err);
  if (rc == PARZ_OK) {
    parz_bounded_book_expand(kept, r, out->book.len);
    rc = parz_bounded_range_codes(kept, r, out->book.code, err);
  }
  if (rc == PARZ_OK && !(out->book_size = parz_bounded_book_write(kept, r, out->book_bytes,
                                                                  PARZ_BOUNDED_BOOK_BYTES_MAX)))
    rc = parz_fail(err, PARZ_ERR_BUFFER, "bounded: codebook of more than %u bytes",
                   (unsigned)PARZ_BOUNDED_BOOK_BYTES_MAX);
  free(len);
  return rc;
}

int parz_bounded_coded_book(const parz_bounded_range* r, const uint64_t* plain,
                            const uint64_t* runs, int runs_opt, parz_bounded_coded* out,
                            parz_error* err) {
  return coded_book(r, plain, runs, runs_opt, NULL, out, err);
}

int parz_bounded_code(const parz_bounded_shape* s, const void* src, double eb,
                      const parz_bounded_options* opt, const uint8_t* given,
                      parz_bounded_coded* out, parz_error* err) {
  memset(out, 0, sizeof *out);
  int rc = parz_bounded_check(s, eb, err);
  if (rc)
    return rc;
  if (!src || !opt)
    return parz_fail(err, PARZ_ERR_ARG, "bounded: no values or no options");
  if (opt->runs < 0 || opt->runs > 2)
    return parz_fail(err, PARZ_ERR_PARAM, "bounded: runs %d, not 0, 1 or 2", opt->runs);
  if (opt->predictor < 0 || opt->predictor > PARZ_BOUNDED_PREDICTORS)
    return parz_fail(err, PARZ_ERR_PARAM, "bounded: predictor %d unknown", opt->predictor);
  if (opt->segment < 1 || opt->segment > ((size_t)1 << 24))
    return parz_fail(err, PARZ_ERR_PARAM, "bounded: segment of %zu codes, not 1..2^24",
                     opt->segment);
  size_t n = parz_bounded_count(s), w = s->type == PARZ_FLOAT ? 4 : 8;
  out->predictor = opt->predictor ? opt->predictor : parz_bounded_choose(s, src, eb, opt, given);
  out->runs = opt->runs == 1;
  out->segment = opt->segment;
  /* the chunk-wide arrays are blocks of the caller's keep (chunk_keep.h); every value of each
   * is written before it is read */
  int fresh;
  int32_t* q = (int32_t*)parz_keep_take(opt->keep, n * sizeof *q, &fresh);
  uint64_t* freq = NULL;
  parz_bounded_range r;
  out->keep = opt->keep;
  out->codes = (int32_t*)parz_keep_take(opt->keep, n * sizeof *out->codes, &fresh);
  out->hole = (uint8_t*)parz_keep_take(opt->keep, n, &fresh);
  rc = PARZ_ERR_NOMEM;
  if (!q || !out->codes || !out->hole) {
    parz_fail(err, rc, "bounded: no memory for a chunk of %zu values", n);
    goto done;
  }
  /* the caller's holes, and the fill value */
  holes_set(src, w, given, opt->fill, out->hole, n, opt->jobs);
  out->step = parz_bounded_step(s, src, eb, out->hole, opt->jobs);
  /* the interpolation quantizes as it predicts: here only its holes */
  parz_bounded_quantize(s, src, eb, out->step, out->predictor == PARZ_BOUNDED_LORENZO ? q : NULL,
                        out->hole, opt->jobs);
  parz_bounded_predict(s, out->predictor, src, eb, out->step, q, out->hole, out->codes, opt->jobs);
  holes_count(out->hole, n, opt->jobs, &out->nexceptions, &out->nmasked);
  /* the code is built over the symbols the codes can use (their range), not the alphabet */
  parz_bounded_code_range(out->codes, n, &r, opt->jobs);
  if (!(freq = (uint64_t*)malloc(2 * r.m * sizeof *freq))) {
    parz_fail(err, rc, "bounded: no memory to count %zu symbols", r.m);
    goto done;
  }
  parz_bounded_count_symbols(out->codes, n, opt->segment, &r, opt->runs != 1 ? freq : NULL,
                             opt->runs != 0 ? freq + r.m : NULL, opt->jobs, opt->keep);
  rc = coded_book(&r, freq, freq + r.m, opt->runs, opt->jobs, out, err);
done:
  parz_keep_give(opt->keep, q);
  free(freq);
  if (rc)
    parz_bounded_coded_free(out);
  return rc;
}

int parz_bounded_chunk_encode(const parz_bounded_shape* s, const void* src, double eb,
                              const parz_bounded_options* opt, parz_bounded_chunk* out,
                              parz_error* err) {
  parz_bounded_coded c;
  memset(out, 0, sizeof *out);
  int rc = parz_bounded_code(s, src, eb, opt, NULL, &c, err);
  if (rc)
    return rc;
  size_t n = parz_bounded_count(s), w = s->type == PARZ_FLOAT ? 4 : 8;
  out->shape = *s;
  out->eb = eb;
  out->step = c.step;
  out->predictor = c.predictor;
  out->runs = c.runs;
  out->segment = c.segment;
  out->nsegments = (n + c.segment - 1) / c.segment;
  /* Worst case per code: a 20-bit code word and 32 escape bits. */
  size_t cap = n * 7 + 16;
  size_t nexc = c.nexceptions, nmask = c.nmasked;
  out->payload = (uint8_t*)malloc(cap);
  out->seg_bits = (uint64_t*)malloc(out->nsegments * sizeof *out->seg_bits);
  out->book = (uint8_t*)malloc(c.book_size);
  out->exc_pos = (uint64_t*)malloc((nexc ? nexc : 1) * sizeof(uint64_t));
  out->exc_bits = (uint64_t*)malloc((nexc ? nexc : 1) * sizeof(uint64_t));
  if (nmask)
    out->mask = (uint8_t*)calloc((n + 7) / 8, 1);
  rc = PARZ_ERR_NOMEM;
  if (!out->payload || !out->seg_bits || !out->book || !out->exc_pos || !out->exc_bits ||
      (nmask && !out->mask)) {
    parz_fail(err, rc, "bounded: no memory for a chunk of %zu values", n);
    goto done;
  }
  for (size_t i = 0, e = 0; i < n; i++) {
    if (c.hole[i] == PARZ_BOUNDED_EXCEPTION) {
      out->exc_pos[e] = i;
      out->exc_bits[e++] = value_bits(src, i, w);
    } else if (c.hole[i] == PARZ_BOUNDED_MASKED) {
      out->mask[i / 8] |= (uint8_t)(1u << (i % 8));
      out->fill_bits = value_bits(src, i, w);
    }
  }
  out->nexceptions = nexc;
  out->nmasked = nmask;
  memcpy(out->book, c.book_bytes, c.book_size);
  out->book_bytes = c.book_size;
  size_t bits =
      parz_bounded_encode(c.codes, n, c.segment, c.runs, &c.book, out->payload, cap, out->seg_bits);
  if (bits == (size_t)-1) {
    rc = parz_fail(err, PARZ_ERR_BUFFER, "bounded: encoder's buffers too small for %zu values", n);
    goto done;
  }
  out->payload_bits = bits;
  out->payload_bytes = (bits + 7) / 8;
  rc = PARZ_OK;
done:
  parz_bounded_coded_free(&c);
  if (rc)
    parz_bounded_chunk_free(out);
  return rc;
}

int parz_bounded_chunk_decode(const parz_bounded_chunk* c, void* dst, parz_error* err) {
  int rc = parz_bounded_check(&c->shape, c->eb, err);
  if (rc)
    return rc;
  if (!(c->step > 0) || !isfinite(c->step))
    return parz_fail(err, PARZ_ERR_FORMAT, "bounded: grid step %g is not finite and > 0", c->step);
  size_t n = parz_bounded_count(&c->shape), w = c->shape.type == PARZ_FLOAT ? 4 : 8;
  if (c->segment < 1 || c->nsegments != (n + c->segment - 1) / c->segment)
    return parz_fail(err, PARZ_ERR_FORMAT, "bounded: %zu segments of %zu codes for %zu values",
                     c->nsegments, c->segment, n);
  parz_bounded_book book = {(uint8_t*)malloc(PARZ_BOUNDED_SYMBOLS), NULL}; /* no code words */
  int32_t* codes = (int32_t*)calloc(n, sizeof *codes); /* zeroed: runs of zeros not written */
  int32_t* q = (int32_t*)malloc(n * sizeof *q);
  parz_bounded_decoder* d = NULL;
  rc = PARZ_ERR_NOMEM;
  if (!book.len || !codes || !q) {
    parz_fail(err, rc, "bounded: no memory to decode %zu values", n);
    goto done;
  }
  size_t used = 0;
  rc = parz_bounded_book_read(c->book, c->book_bytes, &book, &used, err);
  if (rc)
    goto done;
  d = parz_bounded_decoder_new(&book, err);
  if (!d) {
    rc = PARZ_ERR_NOMEM;
    goto done;
  }
  uint64_t bit = 0;
  for (size_t i = 0; i < c->nsegments; i++) {
    size_t count = i + 1 < c->nsegments ? c->segment : n - i * c->segment;
    rc = parz_bounded_decode_segment(d, c->payload, c->payload_bytes, bit, c->seg_bits[i],
                                     codes + i * c->segment, count, 1, i, err);
    if (rc)
      goto done;
    bit += c->seg_bits[i];
  }
  rc = parz_bounded_unpredict(&c->shape, c->predictor, codes, q, err);
  if (rc)
    goto done;
  parz_bounded_dequantize(&c->shape, q, parz_bounded_unit(c->predictor, c->step), dst);
  if (c->mask)
    for (size_t i = 0; i < n; i++)
      if (c->mask[i / 8] >> (i % 8) & 1u)
        memcpy((unsigned char*)dst + i * w, &c->fill_bits, w);
  for (size_t e = 0; e < c->nexceptions; e++) {
    if (c->exc_pos[e] >= n || (e && c->exc_pos[e] <= c->exc_pos[e - 1])) {
      rc = parz_fail(err, PARZ_ERR_FORMAT, "bounded: exception %zu at position %llu", e,
                     (unsigned long long)c->exc_pos[e]);
      goto done;
    }
    if (w == 4) {
      uint32_t v = (uint32_t)c->exc_bits[e];
      memcpy((unsigned char*)dst + 4 * c->exc_pos[e], &v, 4);
    } else {
      memcpy((unsigned char*)dst + 8 * c->exc_pos[e], &c->exc_bits[e], 8);
    }
  }
  rc = PARZ_OK;
done:
  parz_bounded_decoder_free(d);
  free(book.len), free(codes), free(q);
  return rc;
}
