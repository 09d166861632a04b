/* LSB-first bit streams shared by the codecs' entropy coders (internal, header-only so that the
 * codecs' inner loops inline them): the first bit of a stream is bit 0 of its first byte, a
 * value of n bits is written low bit first, and the last byte is padded with zero bits.
 *
 * The writer keeps up to 63 bits in a 64-bit accumulator and stores whole bytes; it never writes
 * past out[cap) (a stream that does not fit sets overflow and keeps counting its bits). The
 * reader never reads outside p[0..bytes): bits past the buffer read as zeros, and the caller
 * checks with parz_bitr_over whether a code ran past the bits it owns. */
#ifndef PARZ_ENTROPY_BITIO_H
#define PARZ_ENTROPY_BITIO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Host code inlines them; under nvcc they are host and device functions, so that the GPU
 * decoders read streams with this very code. */
#if defined(__CUDACC__)
#define PARZ_BITIO static __host__ __device__ __forceinline__
#else
#define PARZ_BITIO static inline
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PARZ_BITIO_LE 1
#else
#define PARZ_BITIO_LE 0
#endif

typedef struct {
  uint8_t* out;
  size_t cap, at; /* bytes: out's size, the next byte to store */
  uint64_t acc;   /* the fill bits not yet stored, low bits first */
  unsigned fill;  /* < 32 between calls */
  int overflow;   /* 1 once a byte fell past cap */
} parz_bitw;

/* A stream written into out[at..cap). */
PARZ_BITIO void parz_bitw_init(parz_bitw* w, uint8_t* out, size_t cap, size_t at) {
  w->out = out;
  w->cap = cap;
  w->at = at;
  w->acc = 0;
  w->fill = 0;
  w->overflow = 0;
}

/* Stores the accumulator's whole bytes. */
PARZ_BITIO void parz_bitw_spill(parz_bitw* w) {
  unsigned bytes = w->fill >> 3;
  if (PARZ_BITIO_LE && w->at + 8 <= w->cap) {
    memcpy(w->out + w->at, &w->acc, 8); /* the bytes past the whole ones are rewritten later */
  } else {
    for (unsigned i = 0; i < bytes; i++) {
      if (w->at + i < w->cap)
        w->out[w->at + i] = (uint8_t)(w->acc >> (8 * i));
      else
        w->overflow = 1;
    }
  }
  w->at += bytes;
  w->acc = bytes == 8 ? 0 : w->acc >> (8 * bytes);
  w->fill &= 7u;
}

/* Appends the n <= 32 low bits of v (v < 2^n). */
PARZ_BITIO void parz_bitw_put(parz_bitw* w, uint64_t v, unsigned n) {
  w->acc |= v << w->fill;
  w->fill += n;
  if (w->fill >= 32)
    parz_bitw_spill(w);
}

/* Appends the n <= 64 low bits of v (v < 2^n). */
PARZ_BITIO void parz_bitw_put64(parz_bitw* w, uint64_t v, unsigned n) {
  if (n > 32) {
    parz_bitw_put(w, v & 0xffffffffu, 32);
    parz_bitw_put(w, v >> 32, n - 32);
  } else {
    parz_bitw_put(w, v, n);
  }
}

/* Appends the n <= 56 low bits of v (v < 2^n) to a stream whose accumulator holds fewer than 8
 * bits (after parz_bitw_flush_bytes or another parz_bitw_put56), and keeps it so: one store per
 * call, for loops that write most values with one call. */
PARZ_BITIO void parz_bitw_put56(parz_bitw* w, uint64_t v, unsigned n) {
  w->acc |= v << w->fill;
  w->fill += n;
  parz_bitw_spill(w);
}

/* Stores the accumulator's whole bytes: afterwards it holds fewer than 8 bits. */
PARZ_BITIO void parz_bitw_flush_bytes(parz_bitw* w) { parz_bitw_spill(w); }

/* Bits from out[0] to the end of the stream. */
PARZ_BITIO uint64_t parz_bitw_bits(const parz_bitw* w) { return (uint64_t)w->at * 8 + w->fill; }

/* Pads the last byte with zero bits and stores it; returns the stream's end in bytes (from out).
 * w->overflow says whether it fitted in cap. */
PARZ_BITIO size_t parz_bitw_finish(parz_bitw* w) {
  w->fill = (w->fill + 7u) & ~7u;
  if (w->fill)
    parz_bitw_spill(w);
  return w->at;
}

typedef struct {
  const uint8_t* p;
  size_t bytes; /* the buffer, never read outside */
  uint64_t pos; /* the next bit, from p[0] */
  uint64_t end; /* the bits the stream owns end here (<= 8 * bytes) */
} parz_bitr;

/* Reads bits [bit0, bit0 + nbits) of p[0..bytes); the caller checks that they lie inside it. */
PARZ_BITIO void parz_bitr_init(parz_bitr* r, const uint8_t* p, size_t bytes, uint64_t bit0,
                               uint64_t nbits) {
  r->p = p;
  r->bytes = bytes;
  r->pos = bit0;
  r->end = bit0 + nbits;
}

/* At least 57 bits from pos, low bits first; bytes past the buffer read as zeros. On the GPU,
 * where an unaligned 8-byte copy is eight byte loads, a buffer that starts on a word reads two
 * aligned words instead (64 bits; callers use at most 57 of them). */
PARZ_BITIO uint64_t parz_bitr_peek(const parz_bitr* r) {
  uint64_t v = 0;
  size_t at = (size_t)(r->pos >> 3);
#if defined(__CUDA_ARCH__)
  const size_t word = (size_t)(r->pos >> 6) * 8;
  if (((uintptr_t)r->p & 7u) == 0 && word + 16 <= r->bytes) {
    const uint64_t* w = (const uint64_t*)(r->p + word);
    const unsigned b = (unsigned)(r->pos & 63u);
    return b ? w[0] >> b | w[1] << (64 - b) : w[0];
  }
#endif
  if (PARZ_BITIO_LE && at + 8 <= r->bytes) {
    memcpy(&v, r->p + at, 8);
  } else {
    for (unsigned i = 0; i < 8 && at + i < r->bytes; i++)
      v |= (uint64_t)r->p[at + i] << (8 * i);
  }
  return v >> (r->pos & 7);
}

PARZ_BITIO void parz_bitr_skip(parz_bitr* r, unsigned n) { r->pos += n; }

/* The next n <= 57 bits. */
PARZ_BITIO uint64_t parz_bitr_get(parz_bitr* r, unsigned n) {
  uint64_t v = n ? parz_bitr_peek(r) & (~(uint64_t)0 >> (64 - n)) : 0;
  r->pos += n;
  return v;
}

/* 1 once the reader has passed the end of its bits. */
PARZ_BITIO int parz_bitr_over(const parz_bitr* r) { return r->pos > r->end; }

#endif
