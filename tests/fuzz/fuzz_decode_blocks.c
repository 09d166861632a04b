/* Fuzz harness: the block codec itself (parz_decode_blocks / parz_encode_blocks) with fuzzed
 * scalar type, rank, shape, codec parameters, start bit and block range.
 *
 * Input: a 20-byte prefix, then stream bytes.
 *   [0] type (1 + b % 4)   [1] rank (1 + b % 4)   [2..5] extents (1 + b % 16)
 *   [6..7] minbits  [8..9] maxbits  [10] maxprec  [11..12] minexp (int16)  (little-endian;
 *   clamped into zfp's ranges, then validated by parz_params_expert)
 *   [13..14] start bit  [15..16] first block  [17..18] block count (reduced into range)
 *   [19] bit 0: also encode the stream bytes as array values and check the round trip
 * Properties: decoding never reads outside the stream or writes outside the array (exact heap
 * buffers); on success end_bit is inside the stream; an encoded stream decodes, ends where the
 * encoder said, and reversible parameters give back every finite value bit for bit. */
#include <math.h>

#include "fuzz_common.h"

#define PREFIX 20u

static unsigned rd16(const uint8_t* p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }

static int finite_values(const parz_array* a, const void* data) {
  size_t n = parz_array_count(a);
  if (a->type == PARZ_FLOAT) {
    const float* f = (const float*)data;
    for (size_t i = 0; i < n; i++)
      if (!isfinite(f[i]))
        return 0;
  } else if (a->type == PARZ_DOUBLE) {
    const double* d = (const double*)data;
    for (size_t i = 0; i < n; i++)
      if (!isfinite(d[i]))
        return 0;
  }
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < PREFIX)
    return 0;
  parz_array a;
  memset(&a, 0, sizeof a);
  a.type = (parz_type)(1 + data[0] % 4);
  a.dims = 1 + data[1] % 4;
  for (unsigned k = 0; k < a.dims; k++)
    a.shape[k] = 1 + data[2 + k] % 16;
  PARZ_FUZZ_CHECK(parz_array_check(&a, NULL) == PARZ_OK);

  unsigned minbits = rd16(data + 6), maxbits = rd16(data + 8), maxprec = data[10];
  int minexp = (int16_t)rd16(data + 11);
  if (minbits > PARZ_MAX_BITS)
    minbits = PARZ_MAX_BITS;
  if (maxbits > PARZ_MAX_BITS)
    maxbits = PARZ_MAX_BITS;
  if (maxbits < 1)
    maxbits = 1;
  if (minbits > maxbits)
    minbits = maxbits;
  if (maxprec > PARZ_MAX_PREC)
    maxprec = PARZ_MAX_PREC;
  if (maxprec < 1)
    maxprec = 1;
  if (minexp < PARZ_MIN_EXP - 1)
    minexp = PARZ_MIN_EXP - 1;
  parz_params p;
  if (parz_params_expert(&p, minbits, maxbits, maxprec, minexp, NULL) != PARZ_OK)
    return 0;

  size_t nblocks = parz_block_count(&a);
  size_t first = rd16(data + 15) % nblocks;
  size_t count = rd16(data + 17) % (nblocks - first + 1);
  uint64_t bit = rd16(data + 13);
  const uint8_t* stream = data + PREFIX;
  size_t stream_bytes = size - PREFIX;

  size_t raw = parz_array_count(&a) * parz_type_size(a.type);
  unsigned char* arr = (unsigned char*)malloc(raw);
  unsigned char* src = (unsigned char*)malloc(stream_bytes ? stream_bytes : 1);
  if (!arr || !src)
    abort();
  if (stream_bytes)
    memcpy(src, stream, stream_bytes);

  /* 1. Arbitrary stream bytes. */
  uint64_t end = 0;
  parz_error e = {0, ""};
  int rc = parz_decode_blocks(&a, arr, &p, src, stream_bytes, bit, first, count, &end, &e);
  if (rc == PARZ_OK) {
    PARZ_FUZZ_CHECK(end >= bit && end <= 8 * (uint64_t)stream_bytes);
  } else {
    parz_fuzz_check_error(rc, &e);
  }

  /* 2. Round trip: the stream bytes (repeated) as array values. */
  if ((data[19] & 1) && stream_bytes) {
    unsigned char* in = (unsigned char*)malloc(raw);
    if (!in)
      abort();
    for (size_t i = 0; i < raw; i++)
      in[i] = stream[i % stream_bytes];
    size_t bound = parz_stream_bound(a.type, a.dims, &p, nblocks);
    PARZ_FUZZ_CHECK(bound % 8 == 0 && bound > 0);
    unsigned char* enc = (unsigned char*)malloc(bound);
    uint32_t* block_bits = (uint32_t*)malloc(nblocks * sizeof *block_bits);
    if (!enc || !block_bits)
      abort();
    uint64_t bits = 0;
    rc = parz_encode_blocks(&a, in, &p, 0, nblocks, enc, bound, &bits, block_bits, &e);
    PARZ_FUZZ_CHECK(rc == PARZ_OK);
    PARZ_FUZZ_CHECK(bits <= 8 * (uint64_t)bound);
    uint64_t sum = 0;
    unsigned bmax = parz_block_max_bits(a.type, a.dims, &p);
    for (size_t b = 0; b < nblocks; b++) {
      /* libzfp pads every block to minbits except in reversible mode, where an all-zero
       * block stays 1 bit even with minbits = maxbits (parz_params_fixed_rate is 0 there). */
      PARZ_FUZZ_CHECK(block_bits[b] <= bmax && block_bits[b] >= 1);
      if (p.minexp >= PARZ_MIN_EXP)
        PARZ_FUZZ_CHECK(block_bits[b] >= p.minbits);
      if (parz_params_fixed_rate(&p))
        PARZ_FUZZ_CHECK(block_bits[b] == p.maxbits);
      sum += block_bits[b];
    }
    PARZ_FUZZ_CHECK(sum == bits);
    size_t used = (size_t)((bits + 63) / 64 * 8);
    rc = parz_decode_blocks(&a, arr, &p, enc, used, 0, 0, nblocks, &end, &e);
    PARZ_FUZZ_CHECK(rc == PARZ_OK);
    PARZ_FUZZ_CHECK(end == bits);
    if (parz_params_mode(&p) == PARZ_MODE_REVERSIBLE && finite_values(&a, in))
      PARZ_FUZZ_CHECK(memcmp(arr, in, raw) == 0);
    free(block_bits);
    free(enc);
    free(in);
  }
  free(src);
  free(arr);
  return 0;
}
