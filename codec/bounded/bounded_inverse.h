/* The error-bounded codec's decoding arithmetic, compiled for the CPU and the GPU alike (every
 * function PARZ_HD, block_common.h's contract): the symbols of a segment into codes, the
 * interpolation's prediction and the inverse at one value, Lorenzo's range check and the
 * reconstruction of a quantized value. bounded_huff.c, bounded_predict.c and bounded_quant.c
 * decode with them, and so do the GPU's kernels (gpu/bounded/), so that both give the same values
 * bit for bit: integers everywhere but the reconstruction, one product and a cast, which no
 * compiler contracts into anything else. Internal to the codec and its GPU decoder. */
#ifndef PARZ_BOUNDED_INVERSE_H
#define PARZ_BOUNDED_INVERSE_H

#include "bitio.h"
#include "block_common.h"
#include "bounded.h"
#include "huffman_decode.h"

/* The symbols (bounded.h): the escape, the runs, the residual 0 in the middle of the residuals. */
#define PARZ_BOUNDED_SYM_ESCAPE 0u
#define PARZ_BOUNDED_SYM_ZERO (1u + PARZ_BOUNDED_RUNS + PARZ_BOUNDED_RADIUS)

/* How a segment's decode ended (parz_bounded_segment_codes). */
enum {
  PARZ_BOUNDED_SEGMENT_OK = 0,
  PARZ_BOUNDED_SEGMENT_SHORT = 1, /* its bits end before its last code */
  PARZ_BOUNDED_SEGMENT_WORD = 2,  /* bits that start no code word of the book */
  PARZ_BOUNDED_SEGMENT_RUN = 3,   /* a run of zeros past its last code */
  PARZ_BOUNDED_SEGMENT_END = 4    /* its codes end before its last bit */
};

/* The window of a segment's reader: w holds the stream from r->pos on, its low `valid` bits
 * read (parz_bitr_peek gives at least 57), refilled only when a code word or a run's length might
 * not fit, not at every symbol. */
typedef struct {
  uint64_t w;
  unsigned valid;
} parz_bounded_window;

/* The word longer than d's table bits at the low bits of window (no word of at most table_bits
 * bits starts it): its symbol with *len its length, or -1, as parz_huff_decode_long gives them,
 * found by halving the lengths rather than walking them. Along a window's bits, the first l bits
 * c_l of a window the table misses never fall below first[l], so a word of length l starts it
 * exactly where c_l < first[l] + count[l], that is, where the window's first max_len bits v
 * (most significant first) fall below that limit shifted to max_len bits; the limits grow with
 * l (each adds count[l + 1] words past the last), so the length is the first l past the table's
 * bits whose limit lies above v. The codec's long words are its large residuals, dense in the
 * segments of the interpolation's coarse levels: its 8 lengths past the table's 12 bits take
 * three halvings here, one lookup each, where a walk takes a lookup a length. */
PARZ_HD int32_t parz_bounded_decode_long(const parz_huff_decoder* d, uint64_t window,
                                         unsigned* len) {
  const unsigned max = d->max_len;
  const uint32_t v = parz_huff_reverse((uint32_t)(window & ((1u << max) - 1u)), max);
  unsigned lo = d->table_bits, hi = max; /* no word of length lo; the word's length in (lo, hi] */
  if (hi <= lo || v >= (d->first[hi] + d->count[hi]) << (max - hi))
    return -1;
  while (hi - lo > 1) {
    const unsigned mid = (lo + hi) / 2;
    if (v < (d->first[mid] + d->count[mid]) << (max - mid))
      hi = mid;
    else
      lo = mid;
  }
  *len = hi;
  return (int32_t)d->sorted[d->index[hi] + (v >> (max - hi)) - d->first[hi]];
}

/* One token from r (a code word and its raw bits), r->pos moved past it: returns the codes it
 * stands for (1, or a run's length of at least 2) with *code the code of a single one (0 for a
 * run), or 0 for bits that start no code word of the book. table and table_mask are d's table,
 * passed in locals: codes a caller writes could alias it for the compiler. */
PARZ_HD size_t parz_bounded_read_token(const parz_huff_decoder* d, const uint32_t* table,
                                       uint64_t table_mask, parz_bitr* r, parz_bounded_window* win,
                                       int32_t* code) {
  if (win->valid < PARZ_BOUNDED_MAX_LEN) {
    win->w = parz_bitr_peek(r);
    win->valid = 57;
  }
  uint32_t e = table[win->w & table_mask];
  unsigned l = PARZ_HUFF_ENTRY_LEN(e);
  int32_t sym = l ? (int32_t)PARZ_HUFF_ENTRY_SYM(e) : parz_bounded_decode_long(d, win->w, &l);
  if (sym < 0)
    return 0;
  parz_bitr_skip(r, l);
  win->w >>= l;
  win->valid -= l;
  if (sym == (int32_t)PARZ_BOUNDED_SYM_ESCAPE) {
    uint32_t z = (uint32_t)parz_bitr_get(r, 32);
    int64_t v = (z & 1u) ? -(int64_t)(z >> 1) - 1 : (int64_t)(z >> 1);
    *code = (int32_t)v;
    win->valid = 0;
    return 1;
  }
  if (sym <= PARZ_BOUNDED_RUNS) {
    if (win->valid < (unsigned)sym) {
      win->w = parz_bitr_peek(r);
      win->valid = 57;
    }
    size_t n = ((size_t)1 << sym) + (size_t)(win->w & (((uint64_t)1 << sym) - 1));
    parz_bitr_skip(r, (unsigned)sym);
    win->w >>= sym;
    win->valid -= (unsigned)sym;
    *code = 0;
    return n;
  }
  *code = (int32_t)((int64_t)sym - PARZ_BOUNDED_SYM_ZERO);
  return 1;
}

/* Decodes count codes from r (positioned at the segment's first bit, r->end its end) into codes;
 * with `zeroed` the codes are zero already and runs of zeros only move on (on the GPU a thread
 * filling a long run holds up the other lanes of its warp). Returns PARZ_BOUNDED_SEGMENT_OK, or
 * how it failed with *at the code where it did (*run: the run's length for
 * PARZ_BOUNDED_SEGMENT_RUN). */
PARZ_HD int parz_bounded_segment_codes(const parz_huff_decoder* d, parz_bitr* r, int32_t* codes,
                                       size_t count, int zeroed, size_t* at, size_t* run) {
  const uint32_t* table = d->table;
  const uint64_t table_mask = ((uint64_t)1 << d->table_bits) - 1;
  parz_bounded_window win = {0, 0};
  size_t i = 0;
  while (i < count) {
    *at = i;
    if (r->pos >= r->end)
      return PARZ_BOUNDED_SEGMENT_SHORT;
    int32_t code;
    size_t n = parz_bounded_read_token(d, table, table_mask, r, &win, &code);
    if (n == 0)
      return PARZ_BOUNDED_SEGMENT_WORD;
    if (n == 1) {
      codes[i++] = code;
      continue;
    }
    if (n > count - i) {
      *run = n;
      return PARZ_BOUNDED_SEGMENT_RUN;
    }
    if (!zeroed)
      for (size_t k = 0; k < n; k++)
        codes[i + k] = 0;
    i += n;
  }
  *at = i;
  return r->pos == r->end ? PARZ_BOUNDED_SEGMENT_OK : PARZ_BOUNDED_SEGMENT_END;
}

/* floor(v / 2^sh) without relying on the sign behaviour of >> */
PARZ_HD int64_t parz_bounded_floor_shift(int64_t v, unsigned sh) {
  int64_t m = (int64_t)1 << sh;
  return v >= 0 ? v / m : -((-v + m - 1) / m);
}

/* The interpolation's prediction of the value at idx from its neighbours along one axis, s apart
 * (stride sk in memory; pk its coordinate along the axis, nk the axis's extent): b before it
 * always exists, a = 3s before, c = s after, d = 3s after where inside. */
PARZ_HD int64_t parz_bounded_interp_pred(const int32_t* q, size_t idx, size_t pk, size_t nk,
                                         size_t sk, size_t s, int cubic) {
  int64_t b = q[idx - sk];
  if (pk + s >= nk) /* past the last known value: extend the line through the two before */
    return pk >= 3 * s ? parz_bounded_floor_shift(3 * b - q[idx - 3 * sk] + 1, 1) : b;
  int64_t c = q[idx + sk];
  if (!cubic)
    return parz_bounded_floor_shift(b + c + 1, 1);
  int has_a = pk >= 3 * s, has_d = pk + 3 * s < nk;
  if (has_a && has_d) {
    int64_t a = q[idx - 3 * sk], d = q[idx + 3 * sk];
    return parz_bounded_floor_shift(-a + 9 * b + 9 * c - d + 8, 4);
  }
  if (has_a)
    return parz_bounded_floor_shift(-q[idx - 3 * sk] + 6 * b + 3 * c + 4, 3);
  if (has_d)
    return parz_bounded_floor_shift(3 * b + 6 * c - q[idx + 3 * sk] + 4, 3);
  return parz_bounded_floor_shift(b + c + 1, 1);
}

/* The interpolation's inverse at the value idx of a pass (origin: the first pass, the origin
 * alone, predicted as 0) into *out: its prediction plus PARZ_BOUNDED_FINE times its code. Returns
 * 0, or 1 when that leaves +-PARZ_BOUNDED_QMAX_FINE (*out untouched). A pass whose values no
 * later pass reads (the GPU's last) need not store them in q. */
PARZ_HD int parz_bounded_interp_inverse(const int32_t* q, size_t idx, size_t pk, size_t nk,
                                        size_t sk, size_t s, int cubic, int origin, int32_t code,
                                        int32_t* out) {
  int64_t pr = origin ? 0 : parz_bounded_interp_pred(q, idx, pk, nk, sk, s, cubic);
  int64_t v = pr + (int64_t)code * PARZ_BOUNDED_FINE;
  if (v > PARZ_BOUNDED_QMAX_FINE || v < -PARZ_BOUNDED_QMAX_FINE)
    return 1;
  *out = (int32_t)v;
  return 0;
}

/* The same, stored: q[idx] (untouched on 1). */
PARZ_HD int parz_bounded_interp_undo(int32_t* q, size_t idx, size_t pk, size_t nk, size_t sk,
                                     size_t s, int cubic, int origin, int32_t code) {
  return parz_bounded_interp_inverse(q, idx, pk, nk, sk, s, cubic, origin, code, &q[idx]);
}

/* Lorenzo's inverse ends in wrapping unsigned sums: the quantized value of the sum u in *q, or 0
 * when it leaves +-PARZ_BOUNDED_QMAX. */
PARZ_HD int parz_bounded_lorenzo_value(uint32_t u, int32_t* q) {
  int64_t v = u >= 0x80000000u ? (int64_t)u - 0x100000000LL : (int64_t)u;
  if (v > PARZ_BOUNDED_QMAX || v < -PARZ_BOUNDED_QMAX)
    return 0;
  *q = (int32_t)v;
  return 1;
}

/* The reconstruction of quantized value q in units of `unit` (parz_bounded_unit): a float or a
 * double. */
PARZ_HD float parz_bounded_value_f32(int32_t q, double unit) { return (float)((double)q * unit); }
PARZ_HD double parz_bounded_value_f64(int32_t q, double unit) { return (double)q * unit; }

/* The same as a double, for the encoder's check of a value against the bound. */
PARZ_HD double parz_bounded_dequant_one(parz_type type, int32_t q, double unit) {
  return type == PARZ_FLOAT ? (double)parz_bounded_value_f32(q, unit)
                            : parz_bounded_value_f64(q, unit);
}

#endif
