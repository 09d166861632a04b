/* Bad input gets an error code and a message, never a crash or a write past a buffer: zero
 * sizes, rank 0 or 5, unknown types, NULL and too-small buffers, invalid parameters, block
 * ranges outside the array, truncated streams and random garbage. (Run under ASan/UBSan or
 * valgrind to check the "never reads or writes out of bounds" part.) */
#include <stdlib.h>
#include <string.h>

#include "test_codec_common.h"

/* The call returns the error `want`, sets it in its parz_error and says why in the message. */
#define CHECK_ERROR(call, want)                                                    \
  do {                                                                             \
    parz_error e_;                                                                 \
    int s_;                                                                        \
    e_.message[0] = 0;                                                             \
    s_ = (call);                                                                   \
    CHECK(s_ == (want) && e_.code == (want) && strlen(e_.message) > 0,             \
          "%s returned %d (%s), expected %d", #call, s_, e_.message, (int)(want)); \
  } while (0)

int main(void) {
  uint64_t st = 99;
  float data[64 * 64];
  unsigned char buf[65536];
  parz_array a, bad;
  parz_params p, q;
  size_t written = 0, i;
  memset(&a, 0, sizeof a);
  a.type = PARZ_FLOAT;
  a.dims = 2;
  a.shape[0] = 64;
  a.shape[1] = 64;
  tc_fill(PARZ_FLOAT, data, 64 * 64, 0, &st);
  parz_params_accuracy(&p, 1e-4, NULL, NULL);

  bad = a;
  bad.shape[1] = 0;
  CHECK_ERROR(parz_compress(&bad, data, &p, buf, sizeof buf, &written, &e_), PARZ_ERR_DIMS);
  CHECK_ERROR(parz_decompress(&bad, data, &p, buf, sizeof buf, &e_), PARZ_ERR_DIMS);
  bad = a;
  bad.dims = 5;
  CHECK_ERROR(parz_compress(&bad, data, &p, buf, sizeof buf, &written, &e_), PARZ_ERR_DIMS);
  bad.dims = 0;
  CHECK_ERROR(parz_decompress(&bad, data, &p, buf, sizeof buf, &e_), PARZ_ERR_DIMS);
  bad = a;
  bad.type = (parz_type)7;
  CHECK_ERROR(parz_compress(&bad, data, &p, buf, sizeof buf, &written, &e_), PARZ_ERR_TYPE);
  bad.type = (parz_type)0;
  CHECK_ERROR(parz_decompress(&bad, data, &p, buf, sizeof buf, &e_), PARZ_ERR_TYPE);
  CHECK_ERROR(parz_compress(NULL, data, &p, buf, sizeof buf, &written, &e_), PARZ_ERR_ARG);
  CHECK_ERROR(parz_compress(&a, NULL, &p, buf, sizeof buf, &written, &e_), PARZ_ERR_ARG);
  CHECK_ERROR(parz_compress(&a, data, NULL, buf, sizeof buf, &written, &e_), PARZ_ERR_ARG);
  CHECK_ERROR(parz_compress(&a, data, &p, NULL, sizeof buf, &written, &e_), PARZ_ERR_ARG);
  CHECK_ERROR(parz_decompress(&a, NULL, &p, buf, sizeof buf, &e_), PARZ_ERR_ARG);
  CHECK_ERROR(parz_decompress(&a, data, &p, NULL, sizeof buf, &e_), PARZ_ERR_ARG);
  q = p;
  q.maxprec = 0;
  CHECK_ERROR(parz_compress(&a, data, &q, buf, sizeof buf, &written, &e_), PARZ_ERR_PARAM);
  q.maxprec = 65;
  CHECK_ERROR(parz_decompress(&a, data, &q, buf, sizeof buf, &e_), PARZ_ERR_PARAM);
  q = p;
  q.minbits = 100;
  q.maxbits = 50;
  CHECK_ERROR(parz_compress(&a, data, &q, buf, sizeof buf, &written, &e_), PARZ_ERR_PARAM);
  CHECK_ERROR(parz_encode_blocks(&a, data, &p, 250, 7, buf, sizeof buf, NULL, NULL, &e_),
              PARZ_ERR_ARG);
  CHECK_ERROR(parz_decode_blocks(&a, data, &p, buf, sizeof buf, 0, 257, 0, NULL, &e_),
              PARZ_ERR_ARG);

  /* output too small: an error, and not one byte written past the given size */
  {
    size_t need;
    CHECK(parz_compress(&a, data, &p, buf, sizeof buf, &need, NULL) == PARZ_OK, "compress");
    for (i = 0; i < need; i += 1 + need / 37) {
      memset(buf, 0xEE, sizeof buf);
      CHECK_ERROR(parz_compress(&a, data, &p, buf, i, &written, &e_), PARZ_ERR_BUFFER);
      CHECK(buf[i] == 0xEE && buf[sizeof buf - 1] == 0xEE, "wrote past %zu bytes", i);
    }
  }

  /* truncated streams: an error, never a read past the end (heap copies of exact size) */
  {
    size_t need;
    float out[64 * 64];
    parz_params modes[4];
    int m;
    parz_params_accuracy(&modes[0], 1e-4, NULL, NULL);
    parz_params_precision(&modes[1], 20, NULL);
    parz_params_rate(&modes[2], 6, PARZ_FLOAT, 2, NULL, NULL);
    parz_params_reversible(&modes[3]);
    for (m = 0; m < 4; m++) {
      CHECK(parz_compress(&a, data, &modes[m], buf, sizeof buf, &need, NULL) == PARZ_OK,
            "compress");
      for (i = 0; i + 8 < need; i += 1 + need / 29) {
        unsigned char* cut = malloc(i ? i : 1);
        memcpy(cut, buf, i);
        CHECK_ERROR(parz_decompress(&a, out, &modes[m], cut, i, &e_), PARZ_ERR_STREAM);
        free(cut);
      }
    }
  }

  /* garbage: any outcome but a crash or an out-of-bounds access; reported as OK or STREAM */
  {
    parz_type types[4] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
    int t, trial;
    for (t = 0; t < 4; t++)
      for (trial = 0; trial < 200; trial++) {
        parz_array g;
        parz_params gp;
        size_t len = 1 + (size_t)(tc_rand(&st) % 3000), j;
        unsigned char* s = malloc(len);
        void* out;
        int status;
        memset(&g, 0, sizeof g);
        g.type = types[t];
        g.dims = 1 + (unsigned)(tc_rand(&st) % 4);
        for (j = 0; j < g.dims; j++)
          g.shape[j] = 1 + (size_t)(tc_rand(&st) % 9);
        for (j = 0; j < len; j++)
          s[j] = (unsigned char)tc_rand(&st);
        switch (trial % 4) {
          case 0: parz_params_accuracy(&gp, 1e-3, NULL, NULL); break;
          case 1: parz_params_precision(&gp, 64, NULL); break;
          case 2: parz_params_reversible(&gp); break;
          default: parz_params_expert(&gp, 0, 20000, 64, -5000, NULL); break;
        }
        out = malloc(parz_array_count(&g) * 8);
        status = parz_decompress(&g, out, &gp, s, len, NULL);
        CHECK(status == PARZ_OK || status == PARZ_ERR_STREAM, "garbage gave %d", status);
        free(out);
        free(s);
      }
  }
  CHECK(strcmp(parz_status_name(PARZ_ERR_STREAM), "truncated or corrupt stream") == 0, "name");
  return test_finish("test_codec_errors");
}
