/* Payload checksums (internal, header-only; C99 and CUDA C++ like block_common.h, so that the
 * CUDA decoder runs this very arithmetic). codec/FORMAT.md, "Payload checksums", is the spec.
 *
 * A partition covers payload bits [begin, end). Its checksum is the sum mod 2^64, over every
 * payload word k that holds one of those bits, of parz_checksum_mix(k * PARZ_CHECKSUM_KEY, word k
 * with its bits outside [begin, end) cleared). The mix is a bijection of the word for each k, so changing any
 * bits of one word always changes the sum; the key k makes moved words count. A sum splits any
 * way: `lanes` workers each adding every lanes-th word (parz_checksum_lane) give the same total,
 * which is how a GPU warp verifies a partition in one pass with a reduction at the end. */
#ifndef PARZ_PAYLOAD_CHECKSUM_H
#define PARZ_PAYLOAD_CHECKSUM_H

#include "block_common.h"

/* Word key: odd, so k * key is a bijection of k (the 64-bit golden ratio). */
#define PARZ_CHECKSUM_KEY 0x9E3779B97F4A7C15ull

/* The contribution of a word w at payload word index k: w ^ (k * PARZ_CHECKSUM_KEY), then two
 * rounds of xorshift-multiply (the finalizer of MurmurHash3); every step is invertible. Callers
 * pass the key k * PARZ_CHECKSUM_KEY, which a loop keeps by adding the constant. */
PARZ_HD uint64_t parz_checksum_mix(uint64_t key, uint64_t w) {
  uint64_t x = w ^ key;
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDull;
  x ^= x >> 33;
  x *= 0xC4CEB9FE1A85EC53ull;
  x ^= x >> 33;
  return x;
}

/* Word k of the payload with its bits outside [begin, end) cleared (begin < end). */
PARZ_HD uint64_t parz_checksum_word(const unsigned char* payload, uint64_t k, uint64_t begin,
                                    uint64_t end) {
  uint64_t w = parz_word_load(payload + 8u * k);
  if (k == begin / 64u)
    w &= ~(uint64_t)0 << (begin % 64u);
  if (k == (end - 1u) / 64u && end % 64u)
    w &= ((uint64_t)1 << (end % 64u)) - 1u;
  return w;
}

/* One of `lanes` workers' share of the checksum of bits [begin, end): the words
 * begin / 64 + lane, + lanes, ... that hold bits of the range. An empty range has none (only
 * a corrupt table gives a partition no bits). Only the first and last word need masking: the
 * loop between them is plain loads and mixes. */
PARZ_HD uint64_t parz_checksum_lane(const unsigned char* payload, uint64_t begin, uint64_t end,
                                    unsigned lane, unsigned lanes) {
  const uint64_t first = begin / 64u, last = (end - 1u) / 64u;
  const uint64_t step = (uint64_t)lanes * PARZ_CHECKSUM_KEY;
  uint64_t k = first + lane, key = k * PARZ_CHECKSUM_KEY, sum = 0;
  if (end <= begin || k > last)
    return 0;
  if (k == first) {
    sum += parz_checksum_mix(key, parz_checksum_word(payload, k, begin, end));
    k += lanes;
    key += step;
  }
  for (; k < last; k += lanes, key += step)
    sum += parz_checksum_mix(key, parz_word_load(payload + 8u * k));
  if (k == last)
    sum += parz_checksum_mix(key, parz_checksum_word(payload, k, begin, end));
  return sum;
}

#endif
