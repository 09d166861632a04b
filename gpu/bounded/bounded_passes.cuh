/* The error-bounded codec's interpolation inverse on the GPU, each step one thread's work on one
 * value (PARZ_HD), so that tests/test_gpu_bounded_host.cpp runs the same steps on the CPU and
 * checks them against the serial decoder (parz_bounded_unpredict) where no GPU is.
 * bounded_decode.cu launches them, in the passes' order (parz_bounded_interp_passes):
 *   coarse  the first passes of at most PARZ_GPU_BDEC_COARSE_VALUES values (at most
 *           PARZ_GPU_BDEC_COARSE_PASSES of them) in one CTA, a barrier between passes: their values
 *           and every neighbour they read lie on the grid of the least stride among them, a power
 *           of 2, which the CTA keeps in shared memory where it fits (parz_gpu_bdec_coarse_value),
 *           besides storing the values in q, and with it where they fit the passes' codes;
 *   pass    each later pass a launch, a thread per value (parz_gpu_bdec_value into q);
 *   last    the last pass (s = 1 along its axis k: the values of odd coordinate along k, every
 *           other value final before it) stores the values instead of q: each thread its own and
 *           the one before it along k, and the one after it where that one is the axis's last
 *           (parz_gpu_bdec_last_places), so that every value is stored once and no launch of its
 *           own stores them.
 * Internal to gpu/. */
#ifndef PARZ_GPU_BOUNDED_PASSES_CUH
#define PARZ_GPU_BOUNDED_PASSES_CUH

#include <string.h>

#include "bounded.h"
#include "bounded_inverse.h"

#define PARZ_GPU_BDEC_COARSE_PASSES 16
#define PARZ_GPU_BDEC_COARSE_VALUES 8192u /* the most values of a pass run in the coarse CTA */

/* One interpolation pass, a thread per value, in code order (codes from pos on). */
typedef struct {
  uint64_t n[4], st[4];
  unsigned start[4], step[4], cnt[4];
  uint64_t pos, count, s, sk;
  unsigned k;
  int cubic, origin;
  const int32_t* codes;
  int32_t* q;
} parz_gpu_bdec_pass;

/* Pass ps of a chunk of extents n4 and strides st4 (parz_bounded_shape4) for `predictor`. */
PARZ_HD parz_gpu_bdec_pass parz_gpu_bdec_pass_of(const parz_bounded_pass* ps, const size_t n4[4],
                                                 const size_t st4[4], int predictor,
                                                 const int32_t* codes, int32_t* q) {
  parz_gpu_bdec_pass a;
  memset(&a, 0, sizeof a);
  a.count = 1;
  for (unsigned k = 0; k < 4; k++) {
    a.n[k] = n4[k];
    a.st[k] = st4[k];
    a.start[k] = (unsigned)ps->start[k];
    a.step[k] = (unsigned)ps->step[k];
    a.cnt[k] = (unsigned)ps->cnt[k];
    a.count *= ps->cnt[k];
  }
  a.pos = ps->pos;
  a.s = ps->s;
  a.k = ps->k;
  a.sk = ps->s * st4[ps->k];
  a.cubic = predictor == PARZ_BOUNDED_CUBIC || predictor == PARZ_BOUNDED_CUBIC_FAST;
  a.origin = ps->pos == 0;
  a.codes = codes;
  a.q = q;
  return a;
}

/* Whether pass p of np (count values, `coarse` passes before it in the coarse CTA) joins the
 * coarse CTA; and whether it is the last pass, which stores the values. */
PARZ_HD int parz_gpu_bdec_coarse(unsigned p, uint64_t count, unsigned coarse) {
  return coarse == p && p < PARZ_GPU_BDEC_COARSE_PASSES && count <= PARZ_GPU_BDEC_COARSE_VALUES;
}
PARZ_HD int parz_gpu_bdec_last(unsigned p, unsigned np, const parz_gpu_bdec_pass* a) {
  return p + 1 == np && a->s == 1 && !a->origin;
}

/* i[k], selected rather than indexed, so that i stays in registers */
PARZ_HD uint64_t parz_gpu_bdec_along(const uint64_t i[4], unsigned k) {
  return k == 0 ? i[0] : k == 1 ? i[1] : k == 2 ? i[2] : i[3];
}

/* The line (c0, c1, c2) and place t along it of value u (< a->count) of pass a, by division. */
PARZ_HD void parz_gpu_bdec_line(const parz_gpu_bdec_pass* a, uint64_t u, unsigned* c0, unsigned* c1,
                                unsigned* c2, unsigned* t) {
  const unsigned x = (unsigned)u, line = x / a->cnt[3];
  *t = x - line * a->cnt[3];
  const unsigned l2 = line / a->cnt[2];
  *c2 = line - l2 * a->cnt[2];
  *c0 = l2 / a->cnt[1];
  *c1 = l2 - *c0 * a->cnt[1];
}

/* The coordinates i of pass a's value at t along the last axis of line (c0, c1, c2); returns its
 * index. */
PARZ_HD uint64_t parz_gpu_bdec_place(const parz_gpu_bdec_pass* a, unsigned c0, unsigned c1,
                                     unsigned c2, unsigned t, uint64_t i[4]) {
  i[0] = a->start[0] + (uint64_t)c0 * a->step[0];
  i[1] = a->start[1] + (uint64_t)c1 * a->step[1];
  i[2] = a->start[2] + (uint64_t)c2 * a->step[2];
  i[3] = a->start[3] + (uint64_t)t * a->step[3];
  return i[0] * a->st[0] + i[1] * a->st[1] + i[2] * a->st[2] + i[3];
}

/* The value of pass a at t along the last axis of line (c0, c1, c2), u its place in code order,
 * into *v, with *idx its index and *pk its coordinate along the pass's axis: 0, or 1 when it
 * leaves the codec's range (parz_bounded_interp_inverse; *v untouched). */
PARZ_HD int parz_gpu_bdec_value(const parz_gpu_bdec_pass* a, unsigned c0, unsigned c1, unsigned c2,
                                unsigned t, uint64_t u, uint64_t* idx, uint64_t* pk, int32_t* v) {
  uint64_t i[4];
  *idx = parz_gpu_bdec_place(a, c0, c1, c2, t, i);
  *pk = parz_gpu_bdec_along(i, a->k);
  return parz_bounded_interp_inverse(a->q, (size_t)*idx, (size_t)*pk, (size_t)a->n[a->k],
                                     (size_t)a->sk, (size_t)a->s, a->cubic, a->origin,
                                     a->codes[a->pos + u], v);
}

/* The places the last pass's value at idx (coordinate pk along its axis) stores: the one before
 * it along the axis, its own and, where pk + 1 is the axis's last coordinate, the one after it;
 * returns their count, 2 or 3. */
PARZ_HD unsigned parz_gpu_bdec_last_places(const parz_gpu_bdec_pass* a, uint64_t idx, uint64_t pk,
                                           uint64_t places[3]) {
  places[0] = idx - a->sk;
  places[1] = idx;
  places[2] = idx + a->sk;
  return pk + 2 == a->n[a->k] ? 3u : 2u;
}

/* The coarse passes' grid of stride 2^shift in shared memory: the strides of its points there. */
typedef struct {
  unsigned shift;
  uint64_t gst[4];
} parz_gpu_bdec_grid;

/* The grid of stride S (the coarse passes' least, a power of 2) of a chunk of extents n4 into
 * *g; returns its points. */
PARZ_HD uint64_t parz_gpu_bdec_grid_of(uint64_t S, const size_t n4[4], parz_gpu_bdec_grid* g) {
  uint64_t points = 1;
  g->shift = 0;
  while (((uint64_t)1 << g->shift) < S)
    g->shift++;
  for (int k = 3; k >= 0; k--) {
    g->gst[k] = points;
    points *= (n4[k] - 1) / S + 1;
  }
  return points;
}

/* Value u of coarse pass a on grid g (points gq in shared memory), as parz_gpu_bdec_value, its
 * neighbours read from gq and its value stored there, its code codes[a->pos + u] (a->codes, or a
 * copy of them in shared memory): the prediction's tests of the edges compare multiples of the
 * stride, alike in the chunk's units and the grid's. */
PARZ_HD int parz_gpu_bdec_coarse_value(const parz_gpu_bdec_pass* a, const parz_gpu_bdec_grid* g,
                                       int32_t* gq, const int32_t* codes, uint64_t u, uint64_t* idx,
                                       int32_t* v) {
  unsigned c0, c1, c2, t;
  uint64_t i[4];
  parz_gpu_bdec_line(a, u, &c0, &c1, &c2, &t);
  *idx = parz_gpu_bdec_place(a, c0, c1, c2, t, i);
  const unsigned sh = g->shift;
  const uint64_t at =
      (i[0] >> sh) * g->gst[0] + (i[1] >> sh) * g->gst[1] + (i[2] >> sh) * g->gst[2] + (i[3] >> sh);
  if (parz_bounded_interp_inverse(gq, (size_t)at, (size_t)parz_gpu_bdec_along(i, a->k),
                                  (size_t)a->n[a->k], (size_t)((a->s >> sh) * g->gst[a->k]),
                                  (size_t)a->s, a->cubic, a->origin, codes[a->pos + u], v))
    return 1;
  gq[at] = *v;
  return 0;
}

#endif
