/* Prediction on the quantized integers. Since the decoder knows every quantized value exactly,
 * prediction has no error feedback: Lorenzo's residuals are the n-D finite difference and its
 * inverse an n-D prefix sum; the interpolation's residuals come level by level (coarse grid to
 * fine), and every value of one level and axis is predicted from earlier ones only, so each such
 * pass of the inverse is parallel over its values. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bounded.h"
#include "bounded_forward.h"
#include "bounded_jobs.h"

/* The shape as four extents (leading 1s) and C-order strides. */
void parz_bounded_shape4(const parz_bounded_shape* s, size_t n[4], size_t st[4]) {
  unsigned pad = 4 - s->dims;
  for (unsigned k = 0; k < 4; k++)
    n[k] = k < pad ? 1 : s->shape[k - pad];
  st[3] = 1;
  for (int k = 2; k >= 0; k--)
    st[k] = st[k + 1] * n[k + 1];
}

/* ---------------- Lorenzo ---------------- */

/* Lorenzo along an axis (below): the n-D difference is one per axis longer than 1. */
static void lorenzo_axis(const size_t n[4], const size_t st[4], unsigned k, size_t first,
                         size_t count, uint32_t* u, const uint32_t* from, int diff);

/* A pass of the forward Lorenzo on the jobs: a copy of q, or the difference along an axis. */
typedef struct {
  const size_t *n, *st;
  const int32_t* q;
  int32_t* codes;
  unsigned axis; /* 4: the copy */
  uint64_t units, parts;
} lorenzo_job;

static void lorenzo_part(void* arg, uint64_t i) {
  const lorenzo_job* j = (const lorenzo_job*)arg;
  size_t first, count;
  parz_bounded_part(j->units, j->parts, i, &first, &count);
  if (j->axis == 4)
    memcpy(j->codes + first, j->q + first, count * sizeof *j->codes);
  else
    lorenzo_axis(j->n, j->st, j->axis, first, count, (uint32_t*)j->codes, NULL, 1);
}

static size_t lorenzo_sum_units(const size_t n[4], const size_t st[4], unsigned k);

/* Lorenzo's holes: each takes its prediction from the values before it, holes included, so they
 * are filled in order, row by row along the last axis; a row without holes is passed over at
 * the cost of one test per value and the row's other coordinates found once.
 *
 * A hole's prediction sums the terms of the axes longer than 1 whose neighbours are inside the
 * array (the others' never count). Of a row, A(i) sums those of the axes but the last: values of
 * earlier rows only, listed once per set of the first three axes a row has neighbours along. A
 * hole at the row's start is A alone; one after it is the value before it plus
 * A(i) - A(i - 1). Along a run of holes q - A therefore stays what it was before the run, so the
 * run is A plus that difference, each value on its own: the walk's chain through the value
 * before is needed only where a value would be clamped, and the run is then walked in order.
 *
 * A row reads only rows of its own plane (the rows of one place of the first two axes) and of
 * planes before it, at its own row or the one before: planes are claimed in order by the parts
 * that run, and a row waits until the plane before has finished the same row, which that plane
 * waited for in turn from the one before it. Every hole gets the value of the serial walk; a
 * part waits only on planes claimed earlier by parts running already, so parts taken in any
 * order, on any number of threads, finish. */
typedef struct {
  const size_t* n;
  int32_t* q;
  const uint8_t* hole;
  unsigned axes; /* bit k: axis k longer than 1 */
  /* per set of the first three axes (bit k: axis k), A's terms: offsets back and signs */
  size_t off[8][7];
  int sign[8][7];
  unsigned terms[8];
  uint64_t planes, next; /* next: the next plane to claim (atomic) */
  uint64_t* done;        /* per plane, its rows finished (atomic); NULL on one part */
} holes_job;

/* A(i): the sum of T terms (of off and sign) at i; T a constant where inlined, so that the loop
 * unrolls. */
static inline int64_t holes_a(const size_t* off, const int* sign, const int32_t* q, size_t i,
                              unsigned T) {
  int64_t p = 0;
  for (unsigned t = 0; t < T; t++)
    p += sign[t] * (int64_t)q[i - off[t]];
  return p;
}

/* The holes [i, end) of a row, i past the row's first value, A of T terms: A plus the difference
 * before the run where no value leaves the range, else the walk in order. */
static inline void holes_run_of(const size_t* off, const int* sign, int32_t* q, size_t i,
                                size_t end, unsigned T) {
  const int64_t d = (int64_t)q[i - 1] - holes_a(off, sign, q, i - 1, T);
  unsigned out = 0;
  for (size_t t = i; t < end; t++) {
    const int64_t p = holes_a(off, sign, q, t, T) + d;
    out |= (unsigned)(p > PARZ_BOUNDED_QMAX) | (unsigned)(p < -PARZ_BOUNDED_QMAX);
    q[t] = (int32_t)p;
  }
  if (out)
    for (size_t t = i; t < end; t++)
      q[t] = parz_bounded_clamp(
          q[t - 1] + holes_a(off, sign, q, t, T) - holes_a(off, sign, q, t - 1, T),
          PARZ_BOUNDED_QMAX);
}

static void holes_run(const size_t* off, const int* sign, unsigned terms, int32_t* q, size_t i,
                      size_t end) {
  /* A's terms for 0 to 3 axes, each a loop unrolled */
  switch (terms) {
    case 0: holes_run_of(off, sign, q, i, end, 0); break;
    case 1: holes_run_of(off, sign, q, i, end, 1); break;
    case 3: holes_run_of(off, sign, q, i, end, 3); break;
    default: holes_run_of(off, sign, q, i, end, 7); break;
  }
}

static void holes_row(const holes_job* j, size_t row) {
  const size_t *n = j->n, base = row * n[3];
  const uint8_t* h = j->hole + base;
  int32_t* q = j->q;
  size_t c[3];
  unsigned any = 0;
  for (size_t x = 0; x < n[3]; x++)
    any |= h[x];
  if (!any)
    return;
  c[2] = row % n[2];
  c[1] = row / n[2] % n[1];
  c[0] = row / n[2] / n[1];
  unsigned set = 0; /* the axes of the first three with neighbours before this row */
  for (unsigned k = 0; k < 3; k++)
    set |= (j->axes >> k & 1u) && c[k] > 0 ? 1u << k : 0u;
  const size_t* off = j->off[set];
  const int* sign = j->sign[set];
  const unsigned terms = j->terms[set];
  size_t x = 0;
  while (x < n[3]) {
    if (h[x] == PARZ_BOUNDED_KNOWN) {
      x++;
      continue;
    }
    size_t end = x + 1;
    while (end < n[3] && h[end] != PARZ_BOUNDED_KNOWN)
      end++;
    if (x == 0) { /* no neighbour before along the last axis: A alone */
      q[base] = parz_bounded_clamp(holes_a(off, sign, q, base, terms), PARZ_BOUNDED_QMAX);
      x = 1;
    }
    if (x < end)
      holes_run(off, sign, terms, q, base + x, base + end);
    x = end;
  }
}

static void holes_part(void* arg, uint64_t i) {
  holes_job* j = (holes_job*)arg;
  const size_t rows = j->n[2];
  (void)i;
  for (;;) {
    const uint64_t p = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
    if (p >= j->planes)
      return;
    for (size_t y = 0; y < rows; y++) {
      if (j->done && p)
        while (__atomic_load_n(&j->done[p - 1], __ATOMIC_ACQUIRE) <= y)
          ;
      holes_row(j, (size_t)p * rows + y);
      if (j->done)
        __atomic_store_n(&j->done[p], (uint64_t)y + 1, __ATOMIC_RELEASE);
    }
  }
}

static void lorenzo_holes(const size_t n[4], const size_t st[4], int32_t* q, const uint8_t* hole,
                          const parz_jobs* jobs) {
  holes_job j;
  uint64_t parts;
  j.n = n;
  j.q = q;
  j.hole = hole;
  j.axes = 0;
  for (unsigned k = 0; k < 4; k++)
    j.axes |= n[k] > 1 ? 1u << k : 0u;
  for (unsigned set = 0; set < 8; set++) {
    j.terms[set] = 0;
    for (unsigned m = 1; m < 8; m++) {
      unsigned bits = 0;
      size_t off = 0;
      if (m & ~set)
        continue;
      for (unsigned k = 0; k < 3; k++)
        if (m & (1u << k)) {
          off += st[k];
          bits++;
        }
      j.off[set][j.terms[set]] = off;
      j.sign[set][j.terms[set]++] = bits & 1 ? 1 : -1;
    }
  }
  j.planes = (uint64_t)n[0] * n[1];
  j.next = 0;
  parts = parz_bounded_parts(jobs, j.planes, j.planes * n[2] * n[3]);
  j.done = parts > 1 ? (uint64_t*)calloc((size_t)j.planes, sizeof *j.done) : NULL;
  parz_bounded_run(jobs, j.done ? parts : 1, holes_part, &j);
  free(j.done);
}

static void lorenzo_forward(const size_t n[4], const size_t st[4], int32_t* q, const uint8_t* hole,
                            int32_t* codes, const parz_jobs* jobs) {
  size_t total = n[0] * n[1] * n[2] * n[3];
  lorenzo_job j = {n, st, q, codes, 4, total, 0};
  if (hole)
    lorenzo_holes(n, st, q, hole, jobs);
  j.parts = parz_bounded_parts(jobs, j.units, total);
  parz_bounded_run(jobs, j.parts, lorenzo_part, &j);
  for (unsigned k = 0; k < 4; k++) {
    if (n[k] < 2)
      continue;
    j.axis = k;
    j.units = lorenzo_sum_units(n, st, k);
    j.parts = parz_bounded_parts(jobs, j.units, total);
    parz_bounded_run(jobs, j.parts, lorenzo_part, &j);
  }
}

/* ---------------- interpolation ---------------- */

/* Encoding's inputs for the interpolation: the values, read as doubles, and the bound. */
typedef struct {
  const void* src;
  parz_type type;
  double eb, step, unit, inv_unit; /* inv_unit only guesses the code: the check decides */
  uint8_t* hole;
} interp_source;

unsigned parz_bounded_interp_passes(const size_t n[4], int predictor, parz_bounded_pass* out) {
  int fast_first = predictor >= PARZ_BOUNDED_LINEAR_FAST;
  size_t maxn = 1, top = 1, pos = 0;
  unsigned np = 0;
  for (unsigned k = 0; k < 4; k++)
    if (n[k] > maxn)
      maxn = n[k];
  while (top < maxn)
    top <<= 1;
  for (size_t s = top; s > 0; s >>= 1) {
    for (unsigned pass = 0; pass < 4; pass++) {
      unsigned k = fast_first ? 3 - pass : pass;
      if (s == top && pass > 0)
        break; /* the first pass is the origin alone */
      if (s < top && n[k] <= s)
        continue;
      /* the axes this level has passed are on the grid of stride s, the others of 2s */
      parz_bounded_pass* p = &out[np++];
      size_t count = 1;
      p->s = s;
      p->k = k;
      p->pos = pos;
      for (unsigned j = 0; j < 4; j++) {
        p->start[j] = j == k && s < top ? s : 0;
        p->step[j] = (fast_first ? j > k : j < k) ? s : 2 * s;
        p->cnt[j] = n[j] > p->start[j] ? (n[j] - p->start[j] - 1) / p->step[j] + 1 : 0;
        count *= p->cnt[j];
      }
      pos += count;
    }
  }
  return np;
}

/* floor(v / 2^sh) without a branch (parz_bounded_floor_shift's value): m is 0 for v >= 0 and
 * all ones below, where v ^ m = ~v = -v - 1 >= 0 and floor(v / 2^sh) = ~floor(~v / 2^sh). */
static inline int64_t floor_shift(int64_t v, unsigned sh) {
  const uint64_t m = (uint64_t)0 - ((uint64_t)v >> 63);
  return (int64_t)((((uint64_t)v ^ m) >> sh) ^ m);
}

/* Whether parz_bounded_interp_pred reads every neighbour of the value at pk along its axis (3s
 * before and after for the cubic, s after for the linear), where interp_pred_inside gives it. */
static inline int interp_inside(size_t pk, size_t nk, size_t s, int cubic) {
  return cubic ? pk >= 3 * s && pk + 3 * s < nk : pk + s < nk;
}

/* parz_bounded_interp_pred of a value inside (interp_inside), in one expression: the loops'
 * common case, without the tests of the edges. */
static inline int64_t interp_pred_inside(const int32_t* q, size_t idx, size_t sk, int cubic) {
  const int64_t b = q[idx - sk], c = q[idx + sk];
  if (!cubic)
    return floor_shift(b + c + 1, 1);
  return floor_shift(9 * (b + c) - q[idx - 3 * sk] - q[idx + 3 * sk] + 8, 4);
}

/* The prediction of the value at idx of a pass other than the origin. */
static inline int64_t interp_pred(const int32_t* q, size_t idx, size_t pk, size_t nk, size_t sk,
                                  size_t s, int cubic) {
  return interp_inside(pk, nk, s, cubic) ? interp_pred_inside(q, idx, sk, cubic)
                                         : parz_bounded_interp_pred(q, idx, pk, nk, sk, s, cubic);
}

/* The values t in [a, b) of a line along the last axis (at i3 = start3 + t * step3, every step3
 * a multiple of s) cut where interp_inside holds: [a, *lo) before, [*lo, *hi) inside and
 * [*hi, b) after, so that the loops test no value's place. */
static inline void interp_inside_span(size_t start3, size_t step3, size_t nk, size_t s, int cubic,
                                      size_t a, size_t b, size_t* lo, size_t* hi) {
  const size_t first = cubic ? 3 * s : 0; /* inside from i3 >= first */
  const size_t end = nk > (cubic ? 3 : 1) * s ? nk - (cubic ? 3 : 1) * s : 0; /* to i3 < end */
  size_t t0 = first > start3 ? (first - start3 + step3 - 1) / step3 : 0;
  size_t t1 = end > start3 ? (end - start3 + step3 - 1) / step3 : 0;
  t0 = t0 < a ? a : t0 > b ? b : t0;
  t1 = t1 < t0 ? t0 : t1 > b ? b : t1;
  *lo = t0;
  *hi = t1;
}

/* q[idx] = pr + FINE * code: 0, or 1 when that leaves +-QMAX_FINE (q[idx] untouched), as
 * parz_bounded_interp_undo. */
static inline int interp_store(int32_t* q, size_t idx, int64_t pr, int32_t code) {
  const int64_t v = pr + (int64_t)code * PARZ_BOUNDED_FINE;
  /* |v| > QMAX_FINE in one unsigned compare */
  if ((uint64_t)(v + PARZ_BOUNDED_QMAX_FINE) > 2 * (uint64_t)PARZ_BOUNDED_QMAX_FINE)
    return 1;
  q[idx] = (int32_t)v;
  return 0;
}

/* Values per unit of an interpolation pass: a line along the last axis is cut into runs of at
 * most this many, so that a 1-D chunk's passes spread over threads too. */
#define INTERP_RUN 4096u

static size_t interp_runs_per_line(const parz_bounded_pass* p) {
  return p->cnt[3] / INTERP_RUN + (p->cnt[3] % INTERP_RUN != 0);
}

static size_t interp_units(const parz_bounded_pass* p) {
  return p->cnt[0] * p->cnt[1] * p->cnt[2] * interp_runs_per_line(p);
}

/* Where unit u of pass p lies: the indices i of its line's first three coordinates, the line's
 * base in memory, the run [*a, *b) of the line's values it holds and the code of its first. */
static void interp_unit(const size_t st[4], const parz_bounded_pass* p, size_t u, size_t i[3],
                        size_t* base, size_t* a, size_t* b, size_t* pos) {
  const size_t runs = interp_runs_per_line(p), line = u / runs, r = u % runs;
  size_t c[3];
  c[2] = line % p->cnt[2];
  c[1] = line / p->cnt[2] % p->cnt[1];
  c[0] = line / p->cnt[2] / p->cnt[1];
  *base = 0;
  for (unsigned j = 0; j < 3; j++) {
    i[j] = p->start[j] + c[j] * p->step[j];
    *base += i[j] * st[j];
  }
  *a = r * INTERP_RUN;
  *b = *a + INTERP_RUN < p->cnt[3] ? *a + INTERP_RUN : p->cnt[3];
  *pos = p->pos + line * p->cnt[3] + *a;
}

/* From unit u of pass p (interp_unit's i, base, a, b and pos) to unit u + 1, whose place the
 * last's gives without interp_unit's divisions: the next run of the line, or the next line's
 * first (codes of consecutive lines are consecutive). Not past the pass's last unit. */
static inline void interp_unit_next(const size_t st[4], const parz_bounded_pass* p, size_t i[3],
                                    size_t* base, size_t* a, size_t* b, size_t* pos) {
  *pos += *b - *a;
  if (*b < p->cnt[3]) {
    *a = *b;
  } else {
    *a = 0;
    for (unsigned j = 3; j-- > 0;) { /* the line's three coordinates, the last fastest */
      i[j] += p->step[j];
      if (j == 0 || i[j] < p->start[j] + p->cnt[j] * p->step[j])
        break;
      i[j] = p->start[j];
    }
    *base = i[0] * st[0] + i[1] * st[1] + i[2] * st[2];
  }
  *b = *a + INTERP_RUN < p->cnt[3] ? *a + INTERP_RUN : p->cnt[3];
}

/* Values [t0, t1) of a line along the last axis decoded, from code pos on, each prediction
 * testing its value's place (the line's ends). 0, or 1 as interp_store. */
static inline int undo_along3(int32_t* q, const int32_t* codes, size_t base, size_t start3,
                              size_t step3, size_t nk, size_t sk, size_t s, int cubic, int origin,
                              size_t t0, size_t t1, size_t pos, size_t* bad) {
  for (size_t t = t0; t < t1; t++, pos++) {
    const size_t i3 = start3 + t * step3;
    const int64_t pr = origin ? 0 : interp_pred(q, base + i3, i3, nk, sk, s, cubic);
    if (interp_store(q, base + i3, pr, codes[pos])) {
      *bad = base + i3;
      return 1;
    }
  }
  return 0;
}

/* Values [t0, t1) of a line of a pass along the last axis decoded, from code pos on, every one
 * inside (interp_inside): at base + start3 + t * 2s (such a pass steps 2s along its axis), their
 * neighbours on the same line s and 3s away, so each prediction takes three of its four (the
 * linear's one of two) from the one before. 0, or 1 as interp_store. */
static inline int undo_inside3(int32_t* q, const int32_t* codes, size_t base, size_t start3,
                               size_t s, int cubic, size_t t0, size_t t1, size_t pos, size_t* bad) {
  if (t0 >= t1)
    return 0;
  int32_t* at = q + base + start3 + t0 * 2 * s;
  const int32_t* code = codes + pos;
  int64_t a = cubic ? at[-3 * (ptrdiff_t)s] : 0, b = at[-(ptrdiff_t)s], c = at[s],
          d = cubic ? at[3 * s] : 0;
  for (size_t left = t1 - t0;; at += 2 * s, code++) {
    const int64_t pr = cubic ? floor_shift(9 * (b + c) - a - d + 8, 4) : floor_shift(b + c + 1, 1);
    if (interp_store(at, 0, pr, *code)) {
      *bad = (size_t)(at - q);
      return 1;
    }
    if (--left == 0)
      return 0;
    a = b; /* the next value's neighbours: these moved by one, and one read */
    b = c;
    if (cubic) {
      c = d;
      d = at[5 * s];
    } else {
      c = at[3 * s];
    }
  }
}

/* interp_units_run of one kind of prediction: inlined once for each. */
static inline int interp_units_of(const size_t n[4], const size_t st[4], int cubic,
                                  const parz_bounded_pass* p, size_t first, size_t count,
                                  int32_t* q, const int32_t* codes, size_t* bad) {
  const size_t sk = p->s * st[p->k], nk = n[p->k], s = p->s, start3 = p->start[3];
  const size_t step3 = p->step[3];
  const int origin = p->pos == 0;
  size_t i[3], base, a, b, pos;
  for (size_t u = first; u < first + count; u++) {
    if (u == first)
      interp_unit(st, p, u, i, &base, &a, &b, &pos);
    else
      interp_unit_next(st, p, i, &base, &a, &b, &pos);
    if (p->k == 3) {
      size_t lo = b, hi = b; /* the origin's pass predicts 0 */
      if (!origin)
        interp_inside_span(start3, step3, nk, s, cubic, a, b, &lo, &hi);
      if (undo_along3(q, codes, base, start3, step3, nk, sk, s, cubic, origin, a, lo, pos, bad) ||
          undo_inside3(q, codes, base, start3, s, cubic, lo, hi, pos + (lo - a), bad) ||
          undo_along3(q, codes, base, start3, step3, nk, sk, s, cubic, 0, hi, b, pos + (hi - a),
                      bad))
        return 1;
    } else if (!origin && interp_inside(i[p->k], nk, s, cubic)) { /* the whole line */
      for (size_t t = a, at = pos; t < b; t++, at++) {
        size_t idx = base + start3 + t * step3;
        if (interp_store(q, idx, interp_pred_inside(q, idx, sk, cubic), codes[at])) {
          *bad = idx;
          return 1;
        }
      }
    } else {
      const size_t pk = i[p->k];
      for (size_t t = a, at = pos; t < b; t++, at++) {
        size_t idx = base + start3 + t * step3;
        if (parz_bounded_interp_undo(q, idx, pk, nk, sk, s, cubic, origin, codes[at])) {
          *bad = idx;
          return 1;
        }
      }
    }
  }
  return 0;
}

/* Units [first, first + count) of pass p decoded (q from the codes). Returns 0, or 1 when a
 * value leaves +-QMAX_FINE (*bad = its index). */
static int interp_units_run(const size_t n[4], const size_t st[4], int cubic,
                            const parz_bounded_pass* p, size_t first, size_t count, int32_t* q,
                            const int32_t* codes, size_t* bad) {
  return cubic ? interp_units_of(n, st, 1, p, first, count, q, codes, bad)
               : interp_units_of(n, st, 0, p, first, count, q, codes, bad);
}

/* Values [t0, t1) of one line of an encoding pass from code pos on (codes and q from the
 * values, holes set to their prediction, misses turned into exceptions), of one type:
 * `inside` (a constant where inlined) when interp_inside holds for all of them. */
static inline void interp_encode_values(const size_t n[4], int cubic, const parz_bounded_pass* p,
                                        size_t sk, size_t pk_line, size_t base, size_t t0,
                                        size_t t1, size_t pos, int32_t* q, const interp_source* in,
                                        int32_t* codes, parz_type type, int inside) {
  /* what the loop reads of p and in, in locals: its stores through hole (bytes) could otherwise
   * alias them, and every value would load them again */
  const size_t nk = n[p->k], s = p->s, start3 = p->start[3], step3 = p->step[3];
  const int origin = p->pos == 0, along3 = p->k == 3;
  const double unit = in->unit, inv_unit = in->inv_unit, eb = in->eb;
  const void* src = in->src;
  uint8_t* hole = in->hole;
  for (size_t t = t0; t < t1; t++, pos++) {
    size_t i3 = start3 + t * step3, idx = base + i3;
    size_t pk = along3 ? i3 : pk_line;
    int64_t pr = origin   ? 0
                 : inside ? interp_pred_inside(q, idx, sk, cubic)
                          : interp_pred(q, idx, pk, nk, sk, s, cubic);
    double x = type == PARZ_FLOAT ? ((const float*)src)[idx] : ((const double*)src)[idx];
    parz_bounded_interp_value(type, x, pr, unit, inv_unit, eb, idx, pos, q, hole, codes);
  }
}

/* The values [a, b) of one line of an encoding pass, of one type: inlined once per type, so
 * that each loop reads its values without a test of the type. Where interp_inside holds for
 * every value (a line across the pass's axis inside it, or the middle of a line along it) the
 * loop tests no value's place. */
static inline void interp_encode_line(const size_t n[4], int cubic, const parz_bounded_pass* p,
                                      size_t sk, const size_t i[3], size_t base, size_t a, size_t b,
                                      size_t pos, int32_t* q, const interp_source* in,
                                      int32_t* codes, parz_type type) {
  const size_t nk = n[p->k], s = p->s;
  const int origin = p->pos == 0;
  size_t lo, hi;
  if (origin) {
    interp_encode_values(n, cubic, p, sk, 0, base, a, b, pos, q, in, codes, type, 0);
  } else if (p->k != 3) {
    const size_t pk = i[p->k];
    if (interp_inside(pk, nk, s, cubic))
      interp_encode_values(n, cubic, p, sk, pk, base, a, b, pos, q, in, codes, type, 1);
    else
      interp_encode_values(n, cubic, p, sk, pk, base, a, b, pos, q, in, codes, type, 0);
  } else {
    interp_inside_span(p->start[3], p->step[3], nk, s, cubic, a, b, &lo, &hi);
    interp_encode_values(n, cubic, p, sk, 0, base, a, lo, pos, q, in, codes, type, 0);
    interp_encode_values(n, cubic, p, sk, 0, base, lo, hi, pos + (lo - a), q, in, codes, type, 1);
    interp_encode_values(n, cubic, p, sk, 0, base, hi, b, pos + (hi - a), q, in, codes, type, 0);
  }
}

/* Units [first, first + count) of pass p encoded, of one type and kind of prediction: inlined
 * once for each. */
static inline void interp_encode_units(const size_t n[4], const size_t st[4], int cubic,
                                       const parz_bounded_pass* p, size_t first, size_t count,
                                       int32_t* q, const interp_source* in, int32_t* codes,
                                       parz_type type) {
  const size_t sk = p->s * st[p->k];
  size_t i[3], base, a, b, pos;
  for (size_t u = first; u < first + count; u++) {
    if (u == first)
      interp_unit(st, p, u, i, &base, &a, &b, &pos);
    else
      interp_unit_next(st, p, i, &base, &a, &b, &pos);
    interp_encode_line(n, cubic, p, sk, i, base, a, b, pos, q, in, codes, type);
  }
}

/* Units [first, first + count) of pass p encoded. */
static void interp_encode_run(const size_t n[4], const size_t st[4], int cubic,
                              const parz_bounded_pass* p, size_t first, size_t count, int32_t* q,
                              const interp_source* in, int32_t* codes) {
  if (in->type == PARZ_FLOAT && cubic)
    interp_encode_units(n, st, 1, p, first, count, q, in, codes, PARZ_FLOAT);
  else if (in->type == PARZ_FLOAT)
    interp_encode_units(n, st, 0, p, first, count, q, in, codes, PARZ_FLOAT);
  else if (cubic)
    interp_encode_units(n, st, 1, p, first, count, q, in, codes, PARZ_DOUBLE);
  else
    interp_encode_units(n, st, 0, p, first, count, q, in, codes, PARZ_DOUBLE);
}

static int is_cubic(int predictor) {
  return predictor == PARZ_BOUNDED_CUBIC || predictor == PARZ_BOUNDED_CUBIC_FAST;
}

double parz_bounded_unit(int predictor, double step) {
  return predictor == PARZ_BOUNDED_LORENZO ? step : step / PARZ_BOUNDED_FINE;
}

/* A pass of the forward interpolation on the jobs. */
typedef struct {
  const size_t *n, *st;
  int cubic;
  const parz_bounded_pass* p;
  int32_t* q;
  const interp_source* in;
  int32_t* codes;
  uint64_t units, parts;
} interp_job;

static void interp_part(void* arg, uint64_t i) {
  const interp_job* j = (const interp_job*)arg;
  size_t first, count;
  parz_bounded_part(j->units, j->parts, i, &first, &count);
  interp_encode_run(j->n, j->st, j->cubic, j->p, first, count, j->q, j->in, j->codes);
}

void parz_bounded_predict(const parz_bounded_shape* s, int predictor, const void* src, double eb,
                          double step, int32_t* q, uint8_t* hole, int32_t* codes,
                          const parz_jobs* jobs) {
  size_t n[4], st[4];
  parz_bounded_pass passes[PARZ_BOUNDED_PASSES_MAX];
  parz_bounded_shape4(s, n, st);
  if (predictor == PARZ_BOUNDED_LORENZO) {
    lorenzo_forward(n, st, q, hole, codes, jobs);
    return;
  }
  double unit = parz_bounded_unit(PARZ_BOUNDED_LINEAR, step);
  interp_source in = {src, s->type, eb, step, unit, 1 / unit, hole};
  interp_job j = {n, st, is_cubic(predictor), NULL, q, &in, codes, 0, 0};
  unsigned np = parz_bounded_interp_passes(n, predictor, passes);
  for (unsigned k = 0; k < np; k++) {
    j.p = &passes[k];
    j.units = interp_units(&passes[k]);
    j.parts = parz_bounded_parts(
        jobs, j.units,
        (uint64_t)passes[k].cnt[0] * passes[k].cnt[1] * passes[k].cnt[2] * passes[k].cnt[3]);
    parz_bounded_run(jobs, j.parts, interp_part, &j);
  }
}

/* ---------------- the inverse in passes ---------------- */

/* Lorenzo's inverse: one prefix sum per axis longer than 1, slowest first (units: lines along the
 * last axis; for the other axes, runs of lorenzo_run values across the lines, one slab of the
 * axis at a time), then the range check. The first sum reads the codes and the check reads each
 * line right after the last axis's sum has made it, rather than passes of their own: a pass
 * over the chunk on a team moves every line of it between the cores' caches, which costs about
 * what its arithmetic does. A chunk whose last axis is 1 long checks in a pass of its own (rows),
 * and one of a single value copies and checks it. */
#define LORENZO_RUN 4096u
/* An axis before the last whose units would be fewer than LORENZO_UNITS (enough for a team of
 * 16 threads to share out evenly) has its runs halved, to LORENZO_RUN_MIN values at the least
 * (128 bytes of each line): a 2-D chunk of lines of 540 values would sum its first axis as one
 * unit, on one thread, while the others wait. */
#define LORENZO_UNITS 256u
#define LORENZO_RUN_MIN 32u

/* The values of one unit's run across the lines of axis k < 3. */
static size_t lorenzo_run(const size_t n[4], const size_t st[4], unsigned k) {
  size_t outer = 1, run = LORENZO_RUN;
  for (unsigned j = 0; j < k; j++)
    outer *= n[j];
  while (run > LORENZO_RUN_MIN && outer * ((st[k] + run - 1) / run) < LORENZO_UNITS)
    run /= 2;
  return run;
}

/* The axes a Lorenzo inverse sums along, slowest first; returns their number. */
static unsigned lorenzo_axes(const size_t n[4], unsigned axes[4]) {
  unsigned m = 0;
  for (unsigned k = 0; k < 4; k++)
    if (n[k] >= 2)
      axes[m++] = k;
  return m;
}

/* Units of a prefix sum along axis k: outer slabs times runs of their inner span. */
static size_t lorenzo_sum_units(const size_t n[4], const size_t st[4], unsigned k) {
  size_t outer = 1;
  for (unsigned j = 0; j < k; j++)
    outer *= n[j];
  if (k == 3)
    return outer * 1; /* st[3] = 1: a unit is a row */
  const size_t run = lorenzo_run(n, st, k);
  return outer * ((st[k] + run - 1) / run);
}

/* 1 when Lorenzo's last sum is along the last axis, and checks the lines it makes. */
static int lorenzo_checks_last(const parz_bounded_plan* p) {
  return p->m && p->axes[p->m - 1] == 3;
}

void parz_bounded_plan_init(parz_bounded_plan* p, const parz_bounded_shape* s, int predictor) {
  p->predictor = predictor;
  parz_bounded_shape4(s, p->n, p->st);
  p->m = lorenzo_axes(p->n, p->axes);
  p->passes = predictor == PARZ_BOUNDED_LORENZO
                  ? p->m + !lorenzo_checks_last(p)
                  : parz_bounded_interp_passes(p->n, predictor, p->pass);
}

size_t parz_bounded_pass_units(const parz_bounded_plan* p, unsigned pass) {
  const size_t* n = p->n;
  if (pass >= p->passes)
    return 0;
  if (p->predictor != PARZ_BOUNDED_LORENZO)
    return interp_units(&p->pass[pass]);
  if (pass == p->m) /* the check of its own (rows) */
    return n[0] * n[1] * n[2];
  return lorenzo_sum_units(n, p->st, p->axes[pass]);
}

size_t parz_bounded_pass_values(const parz_bounded_plan* p, unsigned pass) {
  const size_t* n = p->n;
  if (pass >= p->passes)
    return 0;
  if (p->predictor == PARZ_BOUNDED_LORENZO)
    return n[0] * n[1] * n[2] * n[3];
  return p->pass[pass].cnt[0] * p->pass[pass].cnt[1] * p->pass[pass].cnt[2] * p->pass[pass].cnt[3];
}

size_t parz_bounded_pass_codes(const parz_bounded_plan* p, unsigned pass) {
  const size_t* n = p->n;
  if (p->predictor == PARZ_BOUNDED_LORENZO || pass >= p->passes)
    return n[0] * n[1] * n[2] * n[3];
  return p->pass[pass].pos + parz_bounded_pass_values(p, pass);
}

/* The prefix sum along an axis of `lines` lines `stride` apart, over places [a, b) of each,
 * from `in` into `out`, which never overlap (restrict: the loop vectorizes without checks). */
static void lorenzo_run_from(uint32_t* restrict out, const uint32_t* restrict in, size_t lines,
                             size_t stride, size_t a, size_t b) {
  memcpy(out + a, in + a, (b - a) * sizeof *out);
  for (size_t i = 1; i < lines; i++)
    for (size_t j = a; j < b; j++)
      out[i * stride + j] = in[i * stride + j] + out[(i - 1) * stride + j];
}

/* Lorenzo along axis k, units [first, first + count) (lorenzo_sum_units): the prefix sum (the
 * inverse) of the values at the same places of `from` (NULL: of u itself) into u or, with diff,
 * the difference in place, each line then from its end so that every value reads its neighbour
 * as it was; in wrapping unsigned arithmetic, so that hostile codes cannot overflow a signed
 * type. */
static void lorenzo_axis(const size_t n[4], const size_t st[4], unsigned k, size_t first,
                         size_t count, uint32_t* u, const uint32_t* from, int diff) {
  const uint32_t* f = from ? from : u;
  if (k == 3) {
    for (size_t r = first; r < first + count; r++) {
      uint32_t* row = u + r * n[3];
      const uint32_t* in = f + r * n[3];
      if (diff) {
        for (size_t i = n[3]; i-- > 1;)
          row[i] -= row[i - 1];
      } else {
        uint32_t sum = 0;
        for (size_t i = 0; i < n[3]; i++)
          row[i] = sum += in[i];
      }
    }
    return;
  }
  /* units side by side in one slab are summed as one run of LORENZO_RUN values at most, as
   * wide as the runs of an axis with units enough */
  const size_t run = lorenzo_run(n, st, k), per = LORENZO_RUN / run;
  const size_t runs = (st[k] + run - 1) / run, span = n[k] * st[k], end = first + count;
  for (size_t unit = first, next; unit < end; unit = next) {
    const size_t o = unit / runs, a = unit % runs * run;
    next = unit + per < (o + 1) * runs ? unit + per : (o + 1) * runs;
    next = next < end ? next : end;
    const size_t b = (next - o * runs) * run < st[k] ? (next - o * runs) * run : st[k];
    uint32_t* slab = u + o * span;
    const uint32_t* in = f + o * span;
    if (diff) {
      for (size_t i = n[k]; i-- > 1;)
        for (size_t j = a; j < b; j++)
          slab[i * st[k] + j] -= slab[(i - 1) * st[k] + j];
    } else if (from) {
      lorenzo_run_from(slab, in, n[k], st[k], a, b);
    } else {
      for (size_t i = 1; i < n[k]; i++)
        for (size_t j = a; j < b; j++)
          slab[i * st[k] + j] += slab[(i - 1) * st[k] + j];
    }
  }
}

/* The first of the sums u[a..b) whose value (parz_bounded_lorenzo_value) leaves +-QMAX, SIZE_MAX
 * when none does. q and u are the same words, so a sum within range is its quantized value
 * already: the pass only checks, a run of values at a time without a branch per value. */
static size_t lorenzo_outside(const uint32_t* u, size_t a, size_t b) {
  const uint32_t span = 2u * (uint32_t)PARZ_BOUNDED_QMAX; /* v + QMAX in [0, 2 QMAX] */
  for (size_t r = a; r < b; r += 4096) {
    const size_t e = b - r > 4096 ? r + 4096 : b;
    uint32_t out = 0;
    for (size_t i = r; i < e; i++)
      out |= (uint32_t)(u[i] + (uint32_t)PARZ_BOUNDED_QMAX > span);
    if (out)
      for (size_t i = r; i < e; i++) {
        int32_t v;
        if (!parz_bounded_lorenzo_value(u[i], &v))
          return i;
      }
  }
  return SIZE_MAX;
}

int parz_bounded_unpredict_pass(const parz_bounded_plan* p, unsigned pass, size_t first,
                                size_t count, const int32_t* codes, int32_t* q, parz_error* err) {
  const size_t *n = p->n, *st = p->st;
  size_t bad = 0;
  if (pass >= p->passes)
    return parz_fail(err, PARZ_ERR_ARG, "bounded: pass %u of %u", pass, p->passes);
  if (p->predictor == PARZ_BOUNDED_LORENZO) {
    uint32_t* u = (uint32_t*)q;
    if (pass < p->m) {
      lorenzo_axis(n, st, p->axes[pass], first, count, u, pass ? NULL : (const uint32_t*)codes, 0);
      if (pass + 1 < p->m || !lorenzo_checks_last(p))
        return PARZ_OK;
    } else if (!p->m) { /* a single value */
      memcpy(q + first * n[3], codes + first * n[3], count * n[3] * sizeof *q);
    }
    /* rows [first, first + count), final */
    const size_t i = lorenzo_outside(u, first * n[3], (first + count) * n[3]);
    if (i != SIZE_MAX)
      return parz_fail(err, PARZ_ERR_STREAM, "bounded: quantized value %lld at %zu outside +-%ld",
                       (long long)(int32_t)u[i], i, (long)PARZ_BOUNDED_QMAX);
    return PARZ_OK;
  }
  if (interp_units_run(n, st, is_cubic(p->predictor), &p->pass[pass], first, count, q, codes, &bad))
    return parz_fail(err, PARZ_ERR_STREAM, "bounded: quantized value at %zu outside +-%ld", bad,
                     (long)PARZ_BOUNDED_QMAX_FINE);
  return PARZ_OK;
}

int parz_bounded_unpredict(const parz_bounded_shape* s, int predictor, const int32_t* codes,
                           int32_t* q, parz_error* err) {
  if (predictor < PARZ_BOUNDED_LORENZO || predictor > PARZ_BOUNDED_CUBIC_FAST)
    return parz_fail(err, PARZ_ERR_FORMAT, "bounded: predictor %d unknown", predictor);
  parz_bounded_plan p;
  int rc = PARZ_OK;
  parz_bounded_plan_init(&p, s, predictor);
  for (unsigned k = 0; k < p.passes && rc == PARZ_OK; k++)
    rc = parz_bounded_unpredict_pass(&p, k, 0, parz_bounded_pass_units(&p, k), codes, q, err);
  return rc;
}
