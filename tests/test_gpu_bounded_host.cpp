/* The error-bounded codec's GPU interpolation steps (gpu/bounded/bounded_passes.cuh,
 * bounded_pair.cuh) run on the CPU in the decoder's order against the serial inverse
 * (parz_bounded_unpredict): the coarse CTA's passes on their grid (as the kernel runs them where
 * the grid fits in shared memory) and on q (where it does not), the later passes a value at a
 * time, or a level's two passes that pair a unit (an even row and the odd row below it) at a time
 * in reverse order, the last pass storing the values with those beside it. Every shape of a list,
 * ranks 1 to 4 with odd and even extents, each interpolation predictor, random codes: every value
 * stored exactly once and equal to the serial decoder's, and a value out of range refused by both.
 * Needs no GPU. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "bounded_pair.cuh"
#include "bounded_passes.cuh"
#include "check.h"
#include "xorshift.h"

/* The coarse CTA's passes cp[0..nc) of a chunk of extents n4 into q, on their grid with `grid`;
 * returns whether a value left the range. */
static int coarse(const parz_gpu_bdec_pass* cp, unsigned nc, const size_t n4[4], int grid,
                  std::vector<int32_t>& q) {
  parz_gpu_bdec_grid g;
  const uint64_t points = parz_gpu_bdec_grid_of(cp[nc - 1].s, n4, &g);
  std::vector<int32_t> gq(grid ? points : 0);
  int bad = 0;
  for (unsigned i = 0; i < nc; i++)
    for (uint64_t u = 0; u < cp[i].count; u++) {
      uint64_t idx, pk;
      int32_t v;
      int b;
      if (grid) {
        b = parz_gpu_bdec_coarse_value(&cp[i], &g, gq.data(), cp[i].codes, u, &idx, &v);
      } else {
        unsigned c0, c1, c2, t;
        parz_gpu_bdec_line(&cp[i], u, &c0, &c1, &c2, &t);
        b = parz_gpu_bdec_value(&cp[i], c0, c1, c2, t, u, &idx, &pk, &v);
      }
      if (b)
        bad = 1;
      else
        q[idx] = v;
    }
  return bad;
}

static size_t total_pairs;

/* Where a pair's units put their values (pair_kernel's stores): q, or the values where `last`,
 * each store counted. */
struct pair_out {
  std::vector<int32_t>& q;
  std::vector<int32_t>& out;
  std::vector<unsigned char>& stores;
  uint64_t sk;
  int last, bad;
  void put(uint64_t at, int32_t v) {
    out[at] = v;
    stores[at]++;
  }
  void even(uint64_t at, const int32_t e[2], int odd, int b) {
    bad |= b;
    if (!last) {
      if (odd && !b)
        q[at] = e[1];
      return;
    }
    put(at - sk, e[0]);
    if (odd)
      put(at, e[1]);
  }
  void odd(uint64_t at, int32_t v, int b) {
    bad |= b;
    if (!last) {
      if (!b)
        q[at] = v;
      return;
    }
    put(at, v);
  }
};

/* Passes a and b as pair_kernel runs them, the units in reverse order; returns whether a value
 * left the range. */
static int pair(const parz_gpu_bdec_pass& a, const parz_gpu_bdec_pass& b, int last,
                std::vector<int32_t>& q, std::vector<int32_t>& out,
                std::vector<unsigned char>& stores) {
  pair_out o{q, out, stores, a.sk, last, 0};
  const unsigned cols = parz_gpu_bdec_pair_cols(&b);
  for (uint64_t z = parz_gpu_bdec_pair_planes(&a); z-- > 0;)
    for (unsigned i = a.cnt[2]; i-- > 0;)
      for (unsigned j = cols; j-- > 0;) {
        const unsigned c0 = (unsigned)(z / a.cnt[1]), c1 = (unsigned)(z % a.cnt[1]);
        parz_gpu_bdec_pair_unit(&a, &b, c0, c1, i, j, o);
      }
  return o.bad;
}

/* One chunk: the steps' values against the serial decoder's; with pairs_on a level's passes that
 * pair run as pairs. */
static void one(unsigned dims, const size_t* shape, int predictor, int grid, int wide,
                int pairs_on) {
  parz_bounded_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.type = PARZ_FLOAT;
  sh.dims = dims;
  for (unsigned k = 0; k < dims; k++)
    sh.shape[k] = shape[k];
  size_t n4[4], st4[4];
  parz_bounded_shape4(&sh, n4, st4);
  const size_t n = parz_bounded_count(&sh);
  std::vector<int32_t> codes(n), want(n), q(n, 0x5A5A5A5A), out(n, 0x5A5A5A5A);
  std::vector<unsigned char> stores(n, 0);
  for (size_t i = 0; i < n; i++) /* small codes, and with `wide` some far too large */
    codes[i] = (int32_t)(xorshift_next() % 5) - 2 +
               (wide && xorshift_next() % 64 == 0 ? (int32_t)(xorshift_next() % 2000000000u) : 0);
  parz_error err;
  const int rc = parz_bounded_unpredict(&sh, predictor, codes.data(), want.data(), &err);

  std::vector<parz_bounded_pass> passes(PARZ_BOUNDED_PASSES_MAX);
  const unsigned np = parz_bounded_interp_passes(n4, predictor, passes.data());
  parz_gpu_bdec_pass cp[PARZ_GPU_BDEC_COARSE_PASSES];
  unsigned nc = 0;
  int bad = 0, stored = 0;
  unsigned pairs = 0;
  for (unsigned p = 0; p < np; p++) {
    const parz_gpu_bdec_pass a =
        parz_gpu_bdec_pass_of(&passes[p], n4, st4, predictor, codes.data(), q.data());
    if (parz_gpu_bdec_coarse(p, a.count, nc)) {
      cp[nc++] = a;
      continue;
    }
    if (nc && nc == p)
      bad |= coarse(cp, nc, n4, grid, q);
    if (pairs_on && p + 1 < np) {
      const parz_gpu_bdec_pass b =
          parz_gpu_bdec_pass_of(&passes[p + 1], n4, st4, predictor, codes.data(), q.data());
      if (parz_gpu_bdec_pair(&a, &b)) {
        const int last = parz_gpu_bdec_last(p + 1, np, &b);
        bad |= pair(a, b, last, q, out, stores);
        pairs++;
        stored = last;
        p++;
        continue;
      }
    }
    const int last = parz_gpu_bdec_last(p, np, &a);
    for (uint64_t u = 0; u < a.count; u++) {
      unsigned c0, c1, c2, t;
      uint64_t idx, pk, at[3];
      int32_t v = 0;
      parz_gpu_bdec_line(&a, u, &c0, &c1, &c2, &t);
      if (parz_gpu_bdec_value(&a, c0, c1, c2, t, u, &idx, &pk, &v))
        bad = 1;
      if (!last) {
        q[idx] = v;
        continue;
      }
      const unsigned m = parz_gpu_bdec_last_places(&a, idx, pk, at);
      out[at[0]] = q[at[0]];
      out[idx] = v;
      stores[at[0]]++;
      stores[idx]++;
      if (m == 3) {
        out[at[2]] = q[at[2]];
        stores[at[2]]++;
      }
    }
    stored = last;
  }
  if (nc == np && np)
    bad |= coarse(cp, nc, n4, grid, q);
  if (!stored) /* the store kernel */
    for (size_t i = 0; i < n; i++) {
      out[i] = q[i];
      stores[i]++;
    }

  char what[160];
  snprintf(what, sizeof what, "%uD %zux%zux%zux%zu, predictor %d, %s, %s codes, %u pairs", dims,
           n4[0], n4[1], n4[2], n4[3], predictor, grid ? "coarse grid" : "coarse on q",
           wide ? "wide" : "small", pairs);
  total_pairs += pairs;
  CHECK(bad == (rc != PARZ_OK), "%s: steps %s, serial %d", what, bad ? "refuse" : "accept", rc);
  if (rc != PARZ_OK)
    return;
  size_t twice = 0, wrong = 0, first = n;
  for (size_t i = 0; i < n; i++) {
    twice += stores[i] != 1;
    if (out[i] != want[i] && wrong++ == 0)
      first = i;
  }
  CHECK(twice == 0, "%s: %zu values stored other than once", what, twice);
  CHECK(wrong == 0, "%s: %zu values differ, the first at %zu: %d, serial %d", what, wrong, first,
        first < n ? out[first] : 0, first < n ? want[first] : 0);
}

int main(void) {
  static const struct {
    unsigned dims;
    size_t shape[4];
  } shapes[] = {{1, {1}},           {1, {2}},           {1, {5000}},       {1, {70001}},
                {2, {1, 1}},        {2, {1, 2}},        {2, {2, 1}},       {2, {67, 129}},
                {2, {300, 7}},      {2, {64, 4320}},    {2, {721, 1440}},  {2, {512, 512}},
                {3, {9, 17, 33}},   {3, {2, 1, 2000}},  {3, {20, 45, 90}}, {3, {72, 48, 40}},
                {4, {3, 5, 7, 11}}, {4, {6, 1, 40, 41}},
                /* a paired level of two even rows and an odd row below the last (s 1 and 2) */
                {2, {4, 20001}},    {2, {8, 20001}}};
  for (const auto& s : shapes)
    for (int predictor = PARZ_BOUNDED_LINEAR; predictor <= PARZ_BOUNDED_CUBIC_FAST; predictor++)
      for (int grid = 0; grid < 2; grid++)
        for (int wide = 0; wide < 2; wide++)
          for (int pairs_on = 0; pairs_on < 2; pairs_on++)
            one(s.dims, s.shape, predictor, grid, wide, pairs_on);
  /* the linear-fast levels of every shape of rank 2 or more with rows of 2 values or more pair */
  CHECK(total_pairs > 30, "only %zu pairs run", total_pairs);
  return test_finish("test_gpu_bounded_host");
}
