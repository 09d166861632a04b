/* Random access and stream joining: per-block bit lengths add up to the stream; decoding any
 * block range from its recorded offset gives the same values as a full decode; streams of
 * block ranges encoded separately and joined with parz_bits_copy equal the one-shot stream;
 * and every block stays within parz_block_max_bits. */
#include <stdlib.h>
#include <string.h>

#include "test_codec_common.h"

static void check(const parz_array* a, const void* data, const parz_params* p, uint64_t* st,
                  const char* what) {
  size_t nb = parz_block_count(a), n = parz_array_count(a), es = parz_type_size(a->type);
  size_t bound = parz_stream_bound(a->type, a->dims, p, nb), written = 0, i;
  unsigned maxb = parz_block_max_bits(a->type, a->dims, p);
  unsigned char* s = malloc(bound);
  unsigned char* joined = calloc(bound + 8, 1);
  unsigned char* part = malloc(bound);
  uint32_t* lens = malloc(nb * sizeof *lens);
  uint64_t* offs = malloc((nb + 1) * sizeof *offs);
  unsigned char* full = malloc(n * es);
  unsigned char* some = malloc(n * es);
  uint64_t bits = 0, end = 0;
  parz_error err;
  CHECK(parz_encode_blocks(a, data, p, 0, nb, s, bound, &bits, lens, &err) == PARZ_OK, "%s",
        err.message);
  offs[0] = 0;
  for (i = 0; i < nb; i++) {
    offs[i + 1] = offs[i] + lens[i];
    CHECK(lens[i] <= maxb, "%s: block %zu has %u bits, above the bound %u", what, i, lens[i], maxb);
    if (parz_params_fixed_rate(p))
      CHECK(lens[i] == p->maxbits, "%s: fixed-rate block of %u bits", what, lens[i]);
  }
  CHECK(offs[nb] == bits, "%s: block lengths add up to %llu, stream has %llu", what,
        (unsigned long long)offs[nb], (unsigned long long)bits);
  written = (size_t)((bits + 63) / 64 * 8);
  CHECK(parz_decompress(a, full, p, s, written, &err) == PARZ_OK, "%s", err.message);
  /* random ranges decoded from their offsets into a poisoned array */
  for (i = 0; i < 12; i++) {
    size_t first = (size_t)(tc_rand(st) % nb);
    size_t count = 1 + (size_t)(tc_rand(st) % (nb - first));
    memset(some, 0xA5, n * es);
    CHECK(parz_decode_blocks(a, some, p, s, written, offs[first], first, count, &end, &err) ==
              PARZ_OK,
          "%s: %s", what, err.message);
    CHECK(end == offs[first + count], "%s: end bit %llu, expected %llu", what,
          (unsigned long long)end, (unsigned long long)offs[first + count]);
    if (first == 0 && count == nb)
      CHECK(!memcmp(some, full, n * es), "%s: whole range differs", what);
  }
  /* every single block from its offset equals the full decode at that block's values:
   * decoding all blocks one by one must rebuild the full array */
  memset(some, 0x5A, n * es);
  for (i = 0; i < nb; i++)
    CHECK(parz_decode_blocks(a, some, p, s, written, offs[i], i, 1, &end, &err) == PARZ_OK &&
              end == offs[i + 1],
          "%s: block %zu", what, i);
  CHECK(!memcmp(some, full, n * es), "%s: block-by-block decode differs from full decode", what);
  /* encode ranges separately and join them at their bit offsets */
  {
    size_t first = 0;
    while (first < nb) {
      size_t count = 1 + (size_t)(tc_rand(st) % 7);
      uint64_t pb = 0;
      if (count > nb - first)
        count = nb - first;
      CHECK(parz_encode_blocks(a, data, p, first, count, part, bound, &pb, NULL, &err) == PARZ_OK,
            "%s", err.message);
      CHECK(pb == offs[first + count] - offs[first], "%s: range length", what);
      parz_bits_copy(joined, offs[first], part, pb);
      first += count;
    }
    CHECK(!memcmp(joined, s, written), "%s: joined stream differs from one-shot stream", what);
  }
  free(s);
  free(joined);
  free(part);
  free(lens);
  free(offs);
  free(full);
  free(some);
}

int main(void) {
  uint64_t st = 777;
  parz_type types[4] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  int t, k;
  unsigned d;
  for (t = 0; t < 4; t++)
    for (d = 1; d <= 4; d++) {
      parz_array a;
      parz_params ps[6];
      size_t i;
      void* data;
      memset(&a, 0, sizeof a);
      a.type = types[t];
      a.dims = d;
      for (i = 0; i < d; i++)
        a.shape[i] = d == 1 ? 301 : d == 2 ? 23 : d == 3 ? 11 : 6;
      data = malloc(parz_array_count(&a) * 8);
      parz_params_accuracy(&ps[0], 1e-3, NULL, NULL);
      parz_params_precision(&ps[1], 19, NULL);
      parz_params_rate(&ps[2], 7.5, a.type, d, NULL, NULL);
      parz_params_reversible(&ps[3]);
      parz_params_expert(&ps[4], 40, 90, 30, -12, NULL);
      parz_params_expert(&ps[5], 100, 16658, 64, PARZ_MIN_EXP - 1, NULL);
      for (k = 0; k < TC_KINDS; k++) {
        tc_fill(a.type, data, parz_array_count(&a), k, &st);
        for (i = 0; i < 6; i++) {
          char what[96];
          snprintf(what, sizeof what, "%s %uD %s params#%zu", parz_type_name(a.type), d,
                   tc_kind_name(k), i);
          check(&a, data, &ps[i], &st, what);
        }
      }
      free(data);
    }
  /* parz_bits_copy keeps the bits before the offset and clears the rest of the last word */
  {
    unsigned char dst[32], src[16];
    uint64_t w0, w1;
    memset(dst, 0xFF, sizeof dst);
    memset(src, 0, sizeof src);
    src[0] = 0x01;
    parz_bits_copy(dst, 3, src, 70);
    w0 = 0;
    w1 = 0;
    for (t = 0; t < 8; t++) {
      w0 |= (uint64_t)dst[t] << (8 * t);
      w1 |= (uint64_t)dst[8 + t] << (8 * t);
    }
    CHECK(w0 == 0x0F && w1 == 0, "bits_copy: words %016llx %016llx", (unsigned long long)w0,
          (unsigned long long)w1);
    CHECK(dst[16] == 0xFF, "bits_copy wrote past the last word");
  }
  return test_finish("test_codec_access");
}
