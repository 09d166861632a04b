/* docs/limits-and-pitfalls.md, "zfp's integer range": zfp's lossy modes take int32 values within +-2^30 and int64 within +-2^62;
 * beyond that, values near the type's limits come back with the opposite sign. Reversible mode
 * takes the full range. Shown on the codec, whose streams are libzfp 1.0's (test_codec_zfp), so
 * this is zfp's behaviour, whatever the chunk format does about it. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "parz.h"

#include "check.h"

#define N 4096

/* Uniform pseudo-random values in [lo, hi] (xorshift: the same on every host). */
static void fill(int64_t* v, int64_t lo, int64_t hi) {
  uint64_t s = 88172645463325252ull, span = (uint64_t)hi - (uint64_t)lo;
  for (int i = 0; i < N; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    v[i] = (int64_t)((uint64_t)lo + (span == UINT64_MAX ? s : s % (span + 1)));
  }
}

/* Values that came back with the other sign (both far from 0), after a round trip under p;
 * *same: whether every value came back exactly. */
static int sign_flips(parz_type type, int64_t lo, int64_t hi, const parz_params* p, int* same) {
  static int64_t wide[N];
  static unsigned char in[8 * N], out[8 * N], stream[16 * N + 4096];
  size_t written = 0;
  fill(wide, lo, hi);
  for (int i = 0; i < N; i++) {
    if (type == PARZ_INT32)
      ((int32_t*)in)[i] = (int32_t)wide[i];
    else
      ((int64_t*)in)[i] = wide[i];
  }
  parz_array a = {type, 2, {64, 64}, {0}};
  parz_error e = {0, ""};
  CHECK(parz_compress(&a, in, p, stream, sizeof stream, &written, &e) == PARZ_OK);
  CHECK(parz_decompress(&a, out, p, stream, written, &e) == PARZ_OK);
  int flips = 0;
  for (int i = 0; i < N; i++) {
    int64_t x = type == PARZ_INT32 ? ((int32_t*)in)[i] : ((int64_t*)in)[i];
    int64_t y = type == PARZ_INT32 ? ((int32_t*)out)[i] : ((int64_t*)out)[i];
    int64_t far = type == PARZ_INT32 ? (int64_t)1 << 28 : (int64_t)1 << 60;
    flips += (x > far && y < -far) || (x < -far && y > far);
  }
  *same = memcmp(in, out, N * parz_type_size(type)) == 0;
  return flips;
}

int main(void) {
  parz_params lossy, exact;
  parz_error e;
  CHECK(parz_params_precision(&lossy, 16, &e) == PARZ_OK);
  parz_params_reversible(&exact);
  const int64_t i30 = (int64_t)1 << 30, i62 = (int64_t)1 << 62;
  struct {
    parz_type type;
    int64_t lo, hi;
    const parz_params* p;
    int flips; /* 1: some, 0: none */
  } cases[] = {
      {PARZ_INT32, -i30, i30 - 1, &lossy, 0},
      {PARZ_INT32, INT32_MAX - 1000000, INT32_MAX, &lossy, 1},
      {PARZ_INT32, INT32_MIN, INT32_MIN + 1000000, &lossy, 1},
      {PARZ_INT32, INT32_MIN, INT32_MAX, &exact, 0},
      {PARZ_INT64, -i62, i62 - 1, &lossy, 0},
      {PARZ_INT64, INT64_MAX - 1000000000000, INT64_MAX, &lossy, 1},
      {PARZ_INT64, INT64_MIN, INT64_MAX, &exact, 0},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    int same;
    int flips = sign_flips(cases[k].type, cases[k].lo, cases[k].hi, cases[k].p, &same);
    printf("%s in [%lld, %lld], %s: %d of %d values flipped sign\n", parz_type_name(cases[k].type),
           (long long)cases[k].lo, (long long)cases[k].hi,
           cases[k].p == &exact ? "reversible" : "precision 16", flips, N);
    CHECK((flips > 0) == cases[k].flips);
    if (cases[k].p == &exact)
      CHECK(same);
  }
  return failures != 0;
}
