/* Joining bit streams at arbitrary bit offsets. */
#include "block_common.h"

void parz_bits_copy(void* dst, uint64_t dst_bit, const void* src, uint64_t nbits) {
  unsigned char* d = (unsigned char*)dst;
  const unsigned char* s = (const unsigned char*)src;
  uint64_t di = dst_bit >> 6, si = 0;
  unsigned have = (unsigned)(dst_bit & 63u); /* bits pending in acc */
  uint64_t acc = have ? parz_word_load(d + 8 * di) & ((UINT64_C(1) << have) - 1) : 0;
  if (!nbits)
    return;
  while (nbits) {
    unsigned take = nbits < 64 ? (unsigned)nbits : 64u;
    uint64_t v = parz_word_load(s + 8 * si++);
    if (take < 64)
      v &= (UINT64_C(1) << take) - 1;
    acc |= v << have;
    if (have + take >= 64) {
      parz_word_store(d + 8 * di++, acc);
      acc = have ? v >> (64 - have) : 0;
      have = have + take - 64;
    } else {
      have += take;
    }
    nbits -= take;
  }
  if (have)
    parz_word_store(d + 8 * di, acc);
}
