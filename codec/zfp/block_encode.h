/* The block encoder core (internal, header-only, same rules as block_decode.h: the GPU encoder
 * runs this code).
 *
 * Contract
 * - parz_writer is bounded: it never stores past data + 8 * nwords; a store that does not fit
 *   sets the sticky flag `err` and is dropped (callers report PARZ_ERR_BUFFER).
 * - Blocks come in as raw bit patterns (uint32_t for float/int32, uint64_t for double/int64),
 *   4^dims values with x fastest, already padded as zfp pads partial blocks
 *   (parz_pad_block32/64), in an array the encoder may overwrite.
 * - parz_encode_block() writes exactly the bits libzfp 1.0's zfp_encode_block writes for the
 *   same block and four parameters, and returns how many.
 */
#ifndef PARZ_BLOCK_ENCODE_H
#define PARZ_BLOCK_ENCODE_H

#include "block_common.h"

typedef struct {
  unsigned char* data;
  uint64_t nwords; /* capacity in 64-bit words */
  uint64_t next;   /* index of the next word to store */
  uint64_t buf;    /* pending bits, first one in bit 0; bits above cnt are zero */
  unsigned cnt;    /* pending bits, 0..63 */
  int err;         /* sticky: output did not fit */
} parz_writer;

PARZ_HD void parz_writer_init(parz_writer* w, void* data, size_t nbytes) {
  w->data = (unsigned char*)data;
  w->nwords = (uint64_t)(nbytes / 8);
  w->next = 0;
  w->buf = 0;
  w->cnt = 0;
  w->err = 0;
}

PARZ_HD uint64_t parz_writer_tell(const parz_writer* w) { return w->next * 64 + w->cnt; }

PARZ_HD void parz_writer_word(parz_writer* w, uint64_t v) {
  if (w->next < w->nwords)
    parz_word_store(w->data + 8 * w->next, v);
  else
    w->err = 1;
  w->next++;
}

PARZ_HD unsigned parz_write_bit(parz_writer* w, unsigned bit) {
  w->buf |= (uint64_t)bit << w->cnt;
  if (++w->cnt == 64) {
    parz_writer_word(w, w->buf);
    w->buf = 0;
    w->cnt = 0;
  }
  return bit;
}

/* Writes the low n bits of v (0 <= n <= 64; bits of v above n must be zero). */
PARZ_HD void parz_write_bits(parz_writer* w, uint64_t v, unsigned n) {
  unsigned total = w->cnt + n;
  w->buf |= v << w->cnt;
  if (total >= 64) {
    parz_writer_word(w, w->buf);
    w->buf = w->cnt ? v >> (64 - w->cnt) : 0;
    total -= 64;
  }
  w->cnt = total;
}

/* Appends n zero bits. Whole zero words are stored while they fit and the rest only counted,
 * so a buffer too small for the padding still holds every word up to its capacity (the GPU
 * encoder places blocks padded past its buffer from those). */
PARZ_HD void parz_writer_pad(parz_writer* w, uint64_t n) {
  uint64_t total = w->cnt + n;
  if (total < 64) {
    w->cnt = (unsigned)total;
    return;
  }
  parz_writer_word(w, w->buf);
  w->buf = 0;
  total -= 64;
  if (total >= 64) {
    const uint64_t words = total / 64;
    uint64_t i;
    for (i = 0; i < words && w->next < w->nwords; i++)
      parz_writer_word(w, 0);
    if (i < words) {
      w->err = 1;
      w->next += words - i;
    }
    total -= words * 64;
  }
  w->cnt = (unsigned)total;
}

/* Pads with zeros to a whole word, as zfp_stream_flush does. */
PARZ_HD void parz_writer_flush(parz_writer* w) {
  if (w->cnt) {
    parz_writer_word(w, w->buf);
    w->buf = 0;
    w->cnt = 0;
  }
}

/* Whether a plane (up to 256 bits) has a one bit in positions [n, size). Planes of one word
 * are read without an index that depends on n, so that on the GPU a block's plane stays in a
 * register. */
PARZ_HD int parz_plane_any(const uint64_t* plane, unsigned n, unsigned size) {
  unsigned wi = n >> 6, last;
  uint64_t first;
  if (size <= 64)
    return (plane[0] >> n) != 0;
  first = plane[wi] & (~UINT64_C(0) << (n & 63u));
  last = (size - 1) >> 6;
  if (first)
    return 1;
  for (wi++; wi <= last; wi++)
    if (plane[wi])
      return 1;
  return 0;
}

/* Position of the first one bit at or after n (one must exist before size). */
PARZ_HD unsigned parz_plane_next(const uint64_t* plane, unsigned n, unsigned size) {
  unsigned wi = n >> 6;
  uint64_t x;
  if (size <= 64)
    return n + parz_ctz64(plane[0] >> n);
  x = plane[wi] & (~UINT64_C(0) << (n & 63u));
  while (!x)
    x = plane[++wi];
  return wi * 64 + parz_ctz64(x);
}

#define PARZ_W 32
#include "block_encode_w.h"
#undef PARZ_W
#define PARZ_W 64
#include "block_encode_w.h"
#undef PARZ_W

/* Encodes one block of `type` and rank `dims`. block holds its 4^dims raw values and is
 * overwritten (the encoder transforms in place); work is scratch for as many values. Returns its
 * bits. The caller owns both arrays, so that the GPU encoder sizes them for its rank and keeps
 * them in registers. */
PARZ_HD unsigned parz_encode_block(parz_writer* w, parz_type type, unsigned dims,
                                   const parz_params* p, void* block, void* work) {
  switch (type) {
    case PARZ_FLOAT: return parz_encode_fblock32(w, p, dims, (uint32_t*)block, (uint32_t*)work);
    case PARZ_DOUBLE: return parz_encode_fblock64(w, p, dims, (uint64_t*)block, (uint64_t*)work);
    case PARZ_INT32: return parz_encode_sblock32(w, p, dims, (uint32_t*)block, (uint32_t*)work);
    case PARZ_INT64: return parz_encode_sblock64(w, p, dims, (uint64_t*)block, (uint64_t*)work);
    default: w->err = 1; return 0;
  }
}

#endif
