/* The block decoder core, shared word for word by the CPU decoder (codec/zfp/decode.c) and the CUDA
 * decoder (gpu/), which #include this header so that both run the same code.
 *
 * Contract
 * - Header-only; every function is PARZ_HD (see block_common.h): C99 and CUDA C++ alike, no
 *   VLAs, no libc, no dynamic memory; the largest local array is one block of 256 words.
 * - The bit reader (parz_reader) is bounded: it never loads a byte at or past data + nbytes.
 *   A refill past the end yields zero bits and sets the sticky flag `err`; callers turn that
 *   into PARZ_ERR_STREAM. Every loop is bounded by the block size, maxprec (<= 64 bit planes)
 *   and maxbits, so garbage input cannot hang a decoder; it only yields garbage values.
 * - Blocks are read and written as raw bit patterns (uint32_t for float/int32, uint64_t for
 *   double/int64), 4^dims values with x fastest; the caller scatters them into the array.
 * - parz_decode_block() returns the number of bits the block occupied, which is exactly what
 *   libzfp 1.0's zfp_decode_block consumes for the same four parameters.
 */
#ifndef PARZ_BLOCK_DECODE_H
#define PARZ_BLOCK_DECODE_H

#include "block_common.h"

typedef struct {
  const unsigned char* data;
  uint64_t nbytes;
  uint64_t next; /* index of the next 64-bit word to load */
  uint64_t buf;  /* unread bits, next one in bit 0; bits above cnt are zero */
  unsigned cnt;  /* unread bits in buf, 0..64 */
  int err;       /* sticky: some bit came from past the end of the input */
} parz_reader;

/* Little-endian value of the n <= 8 bytes at data + at, those at or past nbytes reading as
 * zero: the word in which an input ends (also used by the GPU's parse window). */
PARZ_HD uint64_t parz_tail_load(const unsigned char* data, uint64_t nbytes, uint64_t at,
                                unsigned n) {
  uint64_t w = 0;
  unsigned b;
  for (b = 0; b < n && at + b < nbytes; b++)
    w |= (uint64_t)data[at + b] << (8 * b);
  return w;
}

/* Loads word i of the stream; bytes past the end read as zero and set err. */
PARZ_HD uint64_t parz_reader_word(parz_reader* r, uint64_t i) {
  uint64_t full = r->nbytes >> 3;
  if (i < full)
    return parz_word_load(r->data + 8 * i);
  if (i == full && (r->nbytes & 7u))
    return parz_tail_load(r->data, r->nbytes, 8 * i, 8); /* the input ends inside this word */
  r->err = 1;
  return 0;
}

/* Positions the reader at an absolute bit offset. */
PARZ_HD void parz_reader_seek(parz_reader* r, uint64_t bit) {
  unsigned off = (unsigned)(bit & 63u);
  r->next = bit >> 6;
  if (off) {
    r->buf = parz_reader_word(r, r->next++) >> off;
    r->cnt = 64 - off;
  } else {
    r->buf = 0;
    r->cnt = 0;
  }
}

PARZ_HD void parz_reader_init(parz_reader* r, const void* data, uint64_t nbytes, uint64_t bit) {
  r->data = (const unsigned char*)data;
  r->nbytes = nbytes;
  r->err = 0;
  parz_reader_seek(r, bit);
}

PARZ_HD uint64_t parz_reader_tell(const parz_reader* r) { return r->next * 64 - r->cnt; }

PARZ_HD unsigned parz_read_bit(parz_reader* r) {
  unsigned bit;
  if (!r->cnt) {
    r->buf = parz_reader_word(r, r->next++);
    r->cnt = 64;
  }
  bit = (unsigned)(r->buf & 1u);
  r->buf >>= 1;
  r->cnt--;
  return bit;
}

/* Reads 0 <= n <= 64 bits, first bit read in bit 0 of the result. */
PARZ_HD uint64_t parz_read_bits(parz_reader* r, unsigned n) {
  uint64_t v = r->buf;
  uint64_t w;
  unsigned used;
  if (n <= r->cnt) {
    if (n == 64) {
      r->buf = 0;
      r->cnt = 0;
      return v;
    }
    r->buf >>= n;
    r->cnt -= n;
    return v & ((UINT64_C(1) << n) - 1);
  }
  /* here r->cnt < n <= 64 */
  w = parz_reader_word(r, r->next++);
  v |= w << r->cnt;
  used = n - r->cnt; /* 1..64 bits taken from w */
  r->buf = used == 64 ? 0 : w >> used;
  r->cnt = 64 - used;
  return n == 64 ? v : v & ((UINT64_C(1) << n) - 1);
}

PARZ_HD void parz_reader_skip(parz_reader* r, uint64_t n) {
  if (n <= r->cnt) {
    r->buf = n == 64 ? 0 : r->buf >> n;
    r->cnt -= (unsigned)n;
  } else {
    parz_reader_seek(r, parz_reader_tell(r) + n);
  }
}

/* Reads bits until a one bit or until `limit` bits were read, whichever comes first, and
 * returns how many zero bits came before the one (== limit when none was found). */
PARZ_HD unsigned parz_read_zeros(parz_reader* r, unsigned limit) {
  unsigned z = 0;
  while (z < limit) {
    unsigned room, t;
    if (!r->cnt) {
      r->buf = parz_reader_word(r, r->next++);
      r->cnt = 64;
    }
    room = PARZ_MIN(r->cnt, limit - z);
    t = r->buf ? parz_ctz64(r->buf) : 64u;
    if (t < room) {
      /* consume the zeros and the one */
      r->buf = t == 63 ? 0 : r->buf >> (t + 1);
      r->cnt -= t + 1;
      return z + t;
    }
    r->buf = room == 64 ? 0 : r->buf >> room;
    r->cnt -= room;
    z += room;
  }
  return z;
}

/* A group test and, when it is a one, the run of zeros after it (parz_read_zeros with `limit`).
 * Returns 0 when the group test was a zero (one bit read), else 1 + the zeros read. On the CPU
 * the common case, the test, the run and its closing one all among the buffered bits, is one
 * count of trailing zeros on the buffer; device code reads them in turn. */
PARZ_HD unsigned parz_read_group(parz_reader* r, unsigned limit) {
#if !defined(__CUDA_ARCH__)
  uint64_t w;
  if (!r->cnt) {
    r->buf = parz_reader_word(r, r->next++);
    r->cnt = 64;
  }
  w = r->buf;
  if (!(w & 1u)) {
    r->buf = w >> 1;
    r->cnt--;
    return 0;
  }
  w >>= 1;
  if (w) {
    /* bits above cnt are zero, so the lowest one bit of w is a buffered bit */
    unsigned z = parz_ctz64(w);
    if (z < limit) {
      r->buf = (w >> z) >> 1;
      r->cnt -= z + 2;
      return z + 1;
    }
  }
  r->buf = w;
  r->cnt--;
  return 1 + parz_read_zeros(r, limit);
#else
  if (!parz_read_bit(r))
    return 0;
  return 1 + parz_read_zeros(r, limit);
#endif
}

/* zfp's inverse lifting steps on four variables x, y, z, w, written once for scalars and for
 * vectors of lanes (parz_inv_lift, parz_inv_lift4); asr1 is an arithmetic shift right by one
 * for their type. The non-orthogonal step: */
#define PARZ_INV_LIFT_STEPS(x, y, z, w, asr1) \
  do {                                        \
    y += asr1(w);                             \
    w -= asr1(y);                             \
    y += w;                                   \
    w <<= 1;                                  \
    w -= y;                                   \
    z += x;                                   \
    x <<= 1;                                  \
    x -= z;                                   \
    y += z;                                   \
    z <<= 1;                                  \
    z -= y;                                   \
    w += x;                                   \
    x <<= 1;                                  \
    x -= w;                                   \
  } while (0)
/* and the reversible (Lorenzo) step, which leaves x as it is: */
#define PARZ_REV_INV_LIFT_STEPS(x, y, z, w) \
  do {                                      \
    w += z;                                 \
    z += y;                                 \
    w += z;                                 \
    y += x;                                 \
    z += y;                                 \
    w += z;                                 \
  } while (0)

/* Width-specific parts: 32-bit (float, int32) and 64-bit (double, int64). */
#define PARZ_W 32
#include "block_decode_w.h"
#undef PARZ_W
#define PARZ_W 64
#include "block_decode_w.h"
#undef PARZ_W

/* Decodes one block of `type` and rank `dims` into out (4^dims raw values; uint32_t for
 * float/int32, uint64_t for double/int64). Returns the bits the block occupied. */
PARZ_HD unsigned parz_decode_block(parz_reader* r, parz_type type, unsigned dims,
                                   const parz_params* p, void* out) {
  switch (type) {
    case PARZ_FLOAT: return parz_decode_fblock32(r, p, dims, (uint32_t*)out);
    case PARZ_DOUBLE: return parz_decode_fblock64(r, p, dims, (uint64_t*)out);
    case PARZ_INT32: return parz_decode_sblock32(r, p, dims, (uint32_t*)out);
    case PARZ_INT64: return parz_decode_sblock64(r, p, dims, (uint64_t*)out);
    default: r->err = 1; return 0;
  }
}

#endif
