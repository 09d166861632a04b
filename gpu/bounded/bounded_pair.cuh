/* Two interpolation passes of one level in one step, each thread's work PARZ_HD, so that
 * tests/test_gpu_bounded_host.cpp runs it on the CPU against the serial decoder where no GPU is.
 *
 * A level of stride s whose axes run fastest first (parz_bounded_interp_passes) takes the last
 * axis first: pass a, the values of even multiples of s along axis 2 and odd ones along axis 3,
 * then pass b along axis 2: the values of odd multiples along axis 2, every multiple along axis 3;
 * along axes 0 and 1 both take the even multiples. Pass b's neighbours along axis 2 are pass a's
 * values and the grid of stride 2s. One step takes a unit of both: at column pair j (columns
 * 2sj and 2sj + s), the even row 2si and the odd row below it; its even row's values read from q
 * (the grid of 2s) and from pass a's codes, the odd row's predicted from the even rows around it
 * held in registers, the next even row computed again by the unit below it rather than read from
 * q, so that no step waits on another's stores: each value of the two passes is then stored once
 * (q for a later level, or the chunk's values when pass b is the decode's last) and the level
 * takes one launch, the odd rows reading no store of pass a. A value out of range is handled as
 * the passes in turn do: not stored in q, its neighbours reading q as it lies (pass a), or 0 in
 * the values (the last pass). Internal to gpu/. */
#ifndef PARZ_GPU_BOUNDED_PAIR_CUH
#define PARZ_GPU_BOUNDED_PAIR_CUH

#include "bounded_passes.cuh"

/* Whether passes a and b (a right before b) are a level's passes along axes 3 and 2 as above,
 * linear. */
PARZ_HD int parz_gpu_bdec_pair(const parz_gpu_bdec_pass* a, const parz_gpu_bdec_pass* b) {
  const uint64_t s = a->s;
  if (a->cubic || a->origin || b->origin || a->k != 3 || b->k != 2 || b->s != s ||
      b->codes != a->codes || b->q != a->q || !a->count || !b->count)
    return 0;
  for (unsigned k = 0; k < 4; k++)
    if (a->step[k] != 2 * s || b->step[k] != (k == 3 ? s : 2 * s) ||
        a->start[k] != (k == 3 ? s : 0) || b->start[k] != (k == 2 ? s : 0) || a->n[k] != b->n[k] ||
        a->st[k] != b->st[k] || (k < 2 && a->cnt[k] != b->cnt[k]))
      return 0;
  return a->st[3] == 1;
}

/* The units of a pair: planes (axes 0 and 1), even rows (pass a's lines along axis 2) and
 * column pairs (the multiples of 2s along axis 3). */
PARZ_HD uint64_t parz_gpu_bdec_pair_planes(const parz_gpu_bdec_pass* a) {
  return (uint64_t)a->cnt[0] * a->cnt[1];
}
PARZ_HD unsigned parz_gpu_bdec_pair_cols(const parz_gpu_bdec_pass* b) {
  return (b->cnt[3] + 1) / 2;
}

/* A unit's places are 32-bit (a chunk holds fewer than 2^32 values, parz_gpu_view_fits), each
 * found from the unit's first one by a step rather than from its coordinates: at the level's
 * stride s, with pass a's steps of 2s along every axis, even row i's value at column pair j lies
 * at 2s (c0 st0 + c1 st1 + i st2 + j), pass a's value s after it, the next even row 2s st2 after
 * it and the odd row's values s st2 and s st2 + s after it. */

/* Even row values at `at` (column x = 2sj along axis 3, pass a's code place u): e[0] from q,
 * e[1] pass a's at at + s where odd (column x + s lies inside); returns 1 where pass a's value
 * leaves the range (e[1] then q's, as pass b would read it). parz_bounded_interp_inverse runs on
 * the row's neighbours in a row of their own: x - 2s at 0, x at 2, x + 2s at 4, each read from q
 * where the prediction reads it. */
PARZ_HD int parz_gpu_bdec_pair_even(const parz_gpu_bdec_pass* a, uint32_t at, uint32_t x,
                                    uint32_t u, int odd, int32_t e[2]) {
  const uint32_t s = (uint32_t)a->s, pk = x + s;
  e[0] = a->q[at];
  if (!odd)
    return 0;
  const int end = pk + s >= a->n[3];
  const int32_t row[5] = {end && pk >= 3 * s ? a->q[at - 2 * s] : 0, 0, e[0], 0,
                          end ? 0 : a->q[at + 2 * s]};
  if (parz_bounded_interp_inverse(row, 3, pk, (size_t)a->n[3], 1, s, 0, 0, a->codes[a->pos + u],
                                  &e[1])) {
    e[1] = a->q[at + s];
    return 1;
  }
  return 0;
}

/* Pass b's value of odd row i at column 2sj + s*h (h 0 or 1, its code place u) into *v from the
 * even rows around it: up[h] above, down[h] below (far[h], the even row above up, where no row
 * lies below): parz_bounded_interp_inverse on the three in a column of its own. Returns 1 where
 * it leaves the range (*v untouched). */
PARZ_HD int parz_gpu_bdec_pair_odd(const parz_gpu_bdec_pass* b, uint32_t i, uint32_t u, unsigned h,
                                   const int32_t up[2], const int32_t down[2], const int32_t far[2],
                                   int32_t* v) {
  const uint32_t s = (uint32_t)b->s;
  /* the column: far at 0, up at 2, this value at 3, down at 4 (stride 1 for sk) */
  const int32_t col[5] = {far[h], 0, up[h], 0, down[h]};
  return parz_bounded_interp_inverse(col, 3, 2 * s * i + s, (size_t)b->n[2], 1, s, 0, 0,
                                     b->codes[b->pos + u], v);
}

/* One thread's unit: column pair j of plane (c0, c1), even row i with the odd row below it, the
 * values handed to `out` as they come: out.even(at, e, odd, bad) for even row i (e[0] at
 * at - a->sk, e[1] at `at` where odd, bad its range fault), out.odd(at, v, bad) for each value of
 * the odd row below (v 0 where bad). The even row below is computed again by the unit below it. */
template <class Out>
PARZ_HD void parz_gpu_bdec_pair_unit(const parz_gpu_bdec_pass* a, const parz_gpu_bdec_pass* b,
                                     unsigned c0, unsigned c1, unsigned i, unsigned j, Out& out) {
  const int odd = j < a->cnt[3];
  const uint32_t s = (uint32_t)a->s, st2 = (uint32_t)a->st[2], x = 2 * s * j,
                 z = c0 * a->cnt[1] + c1;
  const uint32_t at = 2 * s * (c0 * (uint32_t)a->st[0] + c1 * (uint32_t)a->st[1] + i * st2) + x;
  const uint32_t ua = (z * a->cnt[2] + i) * a->cnt[3] + j;
  int32_t cur[2] = {0, 0};
  const int bad_e = parz_gpu_bdec_pair_even(a, at, x, ua, odd, cur);
  out.even(at + s, cur, odd, bad_e);
  if (i >= b->cnt[2]) /* no odd row below the last even one */
    return;
  /* the even row below, or where none lies below, the one above row i (their faults their
   * units') */
  int32_t next[2] = {0, 0}, far[2] = {0, 0};
  if (i + 1 < a->cnt[2])
    parz_gpu_bdec_pair_even(a, at + 2 * s * st2, x, ua + a->cnt[3], odd, next);
  else if (i >= 1)
    parz_gpu_bdec_pair_even(a, at - 2 * s * st2, x, ua - a->cnt[3], odd, far);
  const uint32_t ub = (z * b->cnt[2] + i) * b->cnt[3] + 2 * j;
  for (unsigned h = 0; h < 2; h++) {
    if (h && !odd)
      break;
    int32_t v = 0;
    const int bad = parz_gpu_bdec_pair_odd(b, i, ub + h, h, cur, next, far, &v);
    out.odd(at + s * st2 + h * s, v, bad);
  }
}

#endif
