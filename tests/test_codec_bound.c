/* parz_block_max_bits is never exceeded, whatever the data: random bit patterns, alternating
 * huge and tiny values, extremes, checkerboards of signs, in every type, rank and mode (the
 * chunk tables size their length fields from this bound). parz_stream_bound covers the
 * stream. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "test_codec_common.h"

static void adversarial(parz_type t, void* data, size_t n, int kind, uint64_t* st) {
  size_t i;
  for (i = 0; i < n; i++) {
    uint64_t r = tc_rand(st);
    double v;
    switch (kind) {
      case 0: /* alternating huge and tiny with random signs */
        v = (i & 1) ? (t == PARZ_FLOAT ? FLT_MAX : DBL_MAX) : (t == PARZ_FLOAT ? FLT_MIN : DBL_MIN);
        if (r & 1)
          v = -v;
        break;
      case 1: /* checkerboard of the largest magnitudes */
        v = (t == PARZ_FLOAT ? FLT_MAX : DBL_MAX) * (((i ^ (i >> 2) ^ (i >> 4)) & 1) ? 1 : -1);
        break;
      case 2: /* random mantissas at one exponent: no decorrelation possible */
        v = (double)(r >> 11) * (r & 1 ? 1.0 : -1.0);
        break;
      default: /* random bit patterns */
        if (t == PARZ_FLOAT || t == PARZ_INT32) {
          uint32_t u = (uint32_t)r;
          if (t == PARZ_FLOAT && ((u >> 23) & 0xff) == 0xff)
            u ^= UINT32_C(1) << 30;
          memcpy((uint32_t*)data + i, &u, 4);
        } else {
          uint64_t u = r;
          if (t == PARZ_DOUBLE && ((u >> 52) & 0x7ff) == 0x7ff)
            u ^= UINT64_C(1) << 62;
          memcpy((uint64_t*)data + i, &u, 8);
        }
        continue;
    }
    switch (t) {
      case PARZ_FLOAT: ((float*)data)[i] = (float)v; break;
      case PARZ_DOUBLE: ((double*)data)[i] = v; break;
      case PARZ_INT32: ((int32_t*)data)[i] = (r & 1) ? INT32_MAX : INT32_MIN; break;
      case PARZ_INT64: ((int64_t*)data)[i] = (r & 1) ? INT64_MAX : INT64_MIN; break;
    }
  }
}

int main(void) {
  uint64_t st = 4242;
  parz_type types[4] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  int t, k, i;
  unsigned d;
  for (t = 0; t < 4; t++)
    for (d = 1; d <= 4; d++) {
      parz_array a;
      parz_params ps[7];
      size_t n, nb, j;
      void* data;
      unsigned worst[7] = {0};
      memset(&a, 0, sizeof a);
      a.type = types[t];
      a.dims = d;
      for (j = 0; j < d; j++)
        a.shape[j] = d == 1 ? 4096 : d == 2 ? 64 : d == 3 ? 16 : 8;
      n = parz_array_count(&a);
      nb = parz_block_count(&a);
      data = malloc(n * 8);
      parz_params_reversible(&ps[0]);
      parz_params_precision(&ps[1], 64, NULL);
      parz_params_accuracy(&ps[2], 1e-300, NULL, NULL);
      parz_params_expert(&ps[3], 1, PARZ_MAX_BITS, 64, -2000000, NULL);
      parz_params_expert(&ps[4], 1, 7, 64, PARZ_MIN_EXP, NULL); /* budget below the header */
      parz_params_expert(&ps[5], 1, 3, 64, PARZ_MIN_EXP - 1, NULL);
      parz_params_expert(&ps[6], 0, 100000, 64, PARZ_MIN_EXP, NULL);
      for (k = 0; k < 4; k++) {
        adversarial(a.type, data, n, k, &st);
        for (i = 0; i < 7; i++) {
          unsigned maxb = parz_block_max_bits(a.type, d, &ps[i]);
          size_t bound = parz_stream_bound(a.type, d, &ps[i], nb);
          unsigned char* s = malloc(bound);
          uint32_t* lens = malloc(nb * sizeof *lens);
          uint64_t bits = 0;
          parz_error err;
          CHECK(parz_encode_blocks(&a, data, &ps[i], 0, nb, s, bound, &bits, lens, &err) == PARZ_OK,
                "%s", err.message);
          for (j = 0; j < nb; j++) {
            CHECK(lens[j] <= maxb, "%s %uD kind %d params#%d: block of %u bits > bound %u",
                  parz_type_name(a.type), d, k, i, lens[j], maxb);
            if (lens[j] > worst[i])
              worst[i] = lens[j];
          }
          free(s);
          free(lens);
        }
      }
      printf("%-6s %uD worst/bound:", parz_type_name(a.type), d);
      for (i = 0; i < 7; i++)
        printf(" %u/%u", worst[i], parz_block_max_bits(a.type, d, &ps[i]));
      printf("\n");
      free(data);
    }
  return test_finish("test_codec_bound");
}
