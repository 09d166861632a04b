/* Exceptions (internal): values the codec cannot carry through the chunk's mode. The encoder
 * replaces each by a stand-in, encodes that "cleaned" array (the payload stays a plain libzfp
 * stream), and keeps the exact bit patterns beside the payload as records:
 *   u64 position (C-order index of the value in the chunk's array), u64 bit pattern
 *   (32-bit types: in the low 32 bits, the high 32 bits zero), both little-endian.
 * Positions are strictly increasing. Which values are exceptions (codec/FORMAT.md):
 *   - NaN and +-Inf, under every codec and mode (NaN only where no mask takes them: mask.h);
 *   - the values the chunk's codec cannot carry in its mode (codecs.h, exception_rules; zfp's
 *     lossy modes: floats of magnitude >= 2^126 (float32) or >= 2^1022 (float64), which could
 *     decode to Inf, and integers of magnitude >= 2^30 (int32) or >= 2^62 (int64), which wrap);
 *   - in the modes with an absolute bound, values bit-equal to a pattern the codec's check of
 *     the bound took out (codecs.h, check_bound; only where no mask takes them). */
#ifndef PARZ_EXCEPTIONS_H
#define PARZ_EXCEPTIONS_H

#include "parz_chunk.h"
#include "standin.h" /* the rules: parz_exception_rule, parz_exception_test */

struct parz_codec; /* codecs.h */

#define PARZ_EXCEPTION_BYTES 16u

/* Which values of a chunk are exceptions: those of the codec's rule for the type and mode, and
 * those bit-equal to one of the `ntaken` patterns (ascending) that the bound's check took out,
 * each of which `high`, the codec's rule of values at risk, takes. */
typedef struct {
  parz_exception_rule rule;
  parz_exception_rule high;
  const uint64_t* taken;
  size_t ntaken;
} parz_exception_set;

/* The set of an array of `type` and rank `dims` under the codec's rules for p, before any check
 * took a pattern out. */
parz_exception_set parz_exception_set_of(const struct parz_codec* codec, parz_type type,
                                         unsigned dims, const parz_params* p);

/* Whether bits is one of the `n` ascending patterns `taken` (binary search; inline, so that the
 * lookups that ask it stay leaf functions). */
static inline int parz_exception_among(const uint64_t* taken, size_t n, uint64_t bits) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (taken[mid] < bits)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && taken[lo] == bits;
}

/* Whether bits is one of the set's taken patterns: none but values at risk can be. */
static inline int parz_exception_taken(const parz_exception_set* x, uint64_t bits) {
  return x->ntaken && parz_exception_test(&x->high, bits) &&
         parz_exception_among(x->taken, x->ntaken, bits);
}

static inline unsigned parz_exception_in(const parz_exception_set* x, uint64_t bits) {
  return parz_exception_test(&x->rule, bits) || parz_exception_taken(x, bits);
}

/* Nonzero when some value of a's type can be an exception under the codec's rule for p (floats
 * always; integers where the codec says so, zfp's lossy modes). */
int parz_exceptions_possible(const struct parz_codec* codec, const parz_array* a,
                             const parz_params* p);

/* Number of exceptions in the (possibly strided) array under p. Reads the array once and
 * allocates nothing. */
uint64_t parz_exceptions_count(const struct parz_codec* codec, const parz_array* a,
                               const void* data, const parz_params* p);
/* The same under a rule, counting also, with `fill`, the values bit-equal to fill_bits (the
 * values a mask may take, with the NaN among the exceptions). */
uint64_t parz_exceptions_count_special(const parz_array* a, const void* data,
                                       const parz_exception_rule* rule, int fill,
                                       uint64_t fill_bits);

/* Copies the array into `cleaned` (contiguous C order, parz_array_count(a) values), replacing
 * every exception by its block's stand-in (FORMAT.md), and writes one record per exception into
 * `records` (n records, n from parz_exceptions_count). Deterministic, so every driver encodes
 * the same cleaned array. */
void parz_exceptions_clean(const struct parz_codec* codec, const parz_array* a, const void* data,
                           const parz_params* p, void* cleaned, unsigned char* records);
/* Its first step: the copy into `cleaned` and the records, in C order, of the exceptions of x
 * that `masked` (NULL: none) does not claim for the mask; the stand-ins are the caller's. */
void parz_exceptions_copy(const parz_array* a, const void* data, const parz_exception_set* x,
                          int (*masked)(void* ctx, uint64_t bits), void* ctx, void* cleaned,
                          unsigned char* records);

/* Its second step on blocks [first, first + count) of the contiguous array `cleaned` (a's type
 * and shape; C order of the block grid): every exception of x replaced by its block's
 * stand-in. */
void parz_exceptions_standins(const parz_array* a, void* cleaned, const parz_exception_set* x,
                              uint64_t first, uint64_t count);

/* Nonzero when the records can be stored in a format version 1 chunk: only NaN and Inf of a
 * floating-point array (what version 1 defined). */
int parz_exceptions_v1(parz_type type, const unsigned char* records, uint64_t n);

/* Checks v->exceptions: positions strictly increasing and inside the array; bit patterns of the
 * chunk's type (version 1: NaN or Inf, and only in floating-point chunks). O(nexceptions). */
int parz_exceptions_validate(const parz_chunk_view* v, parz_error* err);

#endif
