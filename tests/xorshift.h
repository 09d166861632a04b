/* The GPU tests' deterministic generator: xorshift64, one state per source file, so a file's
 * sequence depends on its own calls only. */
#ifndef PARZ_TEST_XORSHIFT_H
#define PARZ_TEST_XORSHIFT_H

#include <stdint.h>

static uint64_t xorshift_state = 0x9E3779B97F4A7C15ull;

static inline uint64_t xorshift_next(void) {
  xorshift_state ^= xorshift_state << 13;
  xorshift_state ^= xorshift_state >> 7;
  xorshift_state ^= xorshift_state << 17;
  return xorshift_state;
}

#endif
