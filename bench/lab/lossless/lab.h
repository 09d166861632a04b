/* The lossless lab: one array as the lab sees it, and the methods it measures (the peers and
 * the candidate predictor and coder combinations). Benchmark code only: nothing here ships. */
#ifndef PARZ_LAB_LOSSLESS_H
#define PARZ_LAB_LOSSLESS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
  const char* name;
  const void* data; /* the values, C order */
  int f64;          /* 1: float64, 0: float32 */
  int ndim;         /* 1..4, extents of 1 dropped */
  size_t dims[4];   /* slowest first */
  size_t n;         /* values */
  size_t bytes;
} lab_array;

/* Encodes a into out (cap bytes); returns the size, 0 on failure. Decodes in (size n) into out
 * (a->bytes); returns 0 on success. */
typedef size_t (*lab_encode_fn)(const lab_array* a, uint8_t* out, size_t cap, const void* arg);
typedef int (*lab_decode_fn)(const uint8_t* in, size_t n, const lab_array* a, void* out,
                             const void* arg);

typedef struct {
  char name[48];
  lab_encode_fn encode;
  lab_decode_fn decode;
  const void* arg;
  int series_only; /* 1: only for 1D series */
} lab_method;

/* Appends the methods of each family to list (room for max); returns the new count. */
size_t lab_peer_methods(lab_method* list, size_t count, size_t max);
size_t lab_grid_methods(lab_method* list, size_t count, size_t max);
size_t lab_series_methods(lab_method* list, size_t count, size_t max);
size_t lab_core_methods(lab_method* list, size_t count, size_t max);

/* The residual coders the candidates share: z holds n zigzagged residuals of w bits (32 or
 * 64). Each returns bytes written (0: no room) or, decoding, 0 on success. */
typedef enum {
  CODER_WIDTH,
  CODER_BITPLANE,
  CODER_HUFF,
  CODER_HUFF_CTX,
  CODER_BYTES,
  CODER_COUNT
} lab_coder;
const char* lab_coder_name(lab_coder c);
size_t lab_code(lab_coder c, const uint64_t* z, size_t n, int w, uint8_t* out, size_t cap);
int lab_uncode(lab_coder c, const uint8_t* in, size_t len, size_t n, int w, uint64_t* z);

/* The values' integer images: a monotone map of the bit patterns, exact for every pattern. */
static inline uint64_t lab_image(uint64_t bits, int w) {
  uint64_t top = (uint64_t)1 << (w - 1);
  uint64_t mask = w == 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1);
  return (bits & top) ? (~bits & mask) : (bits | top);
}
static inline uint64_t lab_unimage(uint64_t u, int w) {
  uint64_t top = (uint64_t)1 << (w - 1);
  uint64_t mask = w == 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1);
  return (u & top) ? (u & ~top) : (~u & mask);
}
/* The value transform (transform.c): lab_find_scale returns 0 (integer images) or the index + 1
 * of the scale S such that every value is (T)i / S exactly; lab_load gives value i's integer
 * (w bits), lab_store puts it back. */
int lab_find_scale(const lab_array* a);
uint64_t lab_load(const lab_array* a, size_t i, int scale);
void lab_store(const lab_array* a, void* out, size_t i, uint64_t u, int scale);

/* A bit pattern of w bits as the value it holds, and a value's bit pattern at width w (rounded to
 * float for 32). */
static inline double lab_value(uint64_t bits, int w) {
  if (w == 64) {
    double v;
    memcpy(&v, &bits, 8);
    return v;
  }
  uint32_t b = (uint32_t)bits;
  float f;
  memcpy(&f, &b, 4);
  return f;
}
static inline uint64_t lab_bits(double v, int w) {
  if (w == 64) {
    uint64_t b;
    memcpy(&b, &v, 8);
    return b;
  }
  float f = (float)v;
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

/* Zigzag of a w-bit two's-complement residual, and back. */
static inline uint64_t lab_zigzag(uint64_t r, int w) {
  uint64_t sign = (r >> (w - 1)) & 1;
  uint64_t mask = w == 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1);
  return ((r << 1) ^ (0 - sign)) & mask;
}
static inline uint64_t lab_unzigzag(uint64_t z, int w) {
  uint64_t mask = w == 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1);
  return ((z >> 1) ^ (0 - (z & 1))) & mask;
}

#endif
