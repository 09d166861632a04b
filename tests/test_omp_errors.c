/* Errors out of a parallel decode are never lost and are the serial decoder's: a payload
 * corrupted at many places gives, at every thread count, the status and message that
 * parz_chunk_decode gives; bad arguments and short buffers fail cleanly. */
#include <stdlib.h>
#include <string.h>

#include "parz_omp.h"
#include "test_chunk_common.h"

static const int thread_counts[] = {2, 3, 4, 7, 16};
#define NTHREADS (int)(sizeof thread_counts / sizeof thread_counts[0])

int main(void) {
  parz_array a = test_array(PARZ_DOUBLE, 2, 150, 171, 0, 0);
  void* data = test_data(&a, 7);
  size_t raw = test_count(&a) * sizeof(double), n = 0, k;
  parz_chunk_config cfg;
  parz_chunk_view v;
  parz_error err, e_ser;
  unsigned char *chunk, *bad, *dst = (unsigned char*)malloc(raw);
  int t, rc, rc_ser, corrupt_failures = 0;
  memset(&cfg, 0, sizeof cfg);
  parz_params_accuracy(&cfg.params, 1e-4, NULL, NULL);
  cfg.segment_blocks = 4;
  cfg.partition_segments = 4;
  chunk = test_encode(&a, data, &cfg, &n);
  CHECK(chunk != NULL, "encode failed");
  if (!chunk)
    return test_finish("test_omp_errors");
  CHECK(parz_chunk_parse(chunk, n, &v, &err) == PARZ_OK, "%s", err.message);
  bad = (unsigned char*)malloc(n);

  /* corrupt payload words at many places: every policy reports what the serial decoder does */
  for (k = 0; k < 40; k++) {
    size_t at = (size_t)(v.payload - chunk) + (v.payload_bytes * k / 40 / 8) * 8;
    memcpy(bad, chunk, n);
    bad[at] ^= 0x5A;
    bad[at + 3] ^= 0xFF;
    rc_ser = parz_chunk_decode(bad, n, dst, raw, &e_ser);
    corrupt_failures += rc_ser != PARZ_OK;
    for (t = 0; t < NTHREADS; t++) {
      rc = parz_omp_chunk_decode(bad, n, dst, raw, thread_counts[t], &err);
      CHECK(rc == rc_ser, "corrupt word %zu, %d threads: rc %d vs serial %d", k, thread_counts[t],
            rc, rc_ser);
      if (rc != PARZ_OK && rc_ser != PARZ_OK)
        CHECK(!strcmp(err.message, e_ser.message), "corrupt word %zu, %d threads: '%s' vs '%s'", k,
              thread_counts[t], err.message, e_ser.message);
    }
  }
  CHECK(corrupt_failures > 0, "no corruption was detected at all (test too weak)");
  printf("%d of 40 corruptions detected by the decoders\n", corrupt_failures);

  /* header corruption: the parse fails the same way */
  memcpy(bad, chunk, n);
  bad[20] ^= 1;
  for (t = 0; t < NTHREADS; t++)
    CHECK(parz_omp_chunk_decode(bad, n, dst, raw, thread_counts[t], &err) == PARZ_ERR_CHECKSUM,
          "header corruption not reported as checksum error");
  /* short buffers, truncated chunks and NULL arguments */
  CHECK(parz_omp_chunk_decode(chunk, n, dst, raw - 1, 4, &err) == PARZ_ERR_BUFFER, "short dst");
  CHECK(parz_omp_chunk_decode(chunk, n - 8, dst, raw, 4, &err) != PARZ_OK, "truncated chunk");
  CHECK(parz_omp_chunk_decode(NULL, n, dst, raw, 4, &err) == PARZ_ERR_ARG, "NULL src");
  CHECK(parz_omp_chunk_decode(chunk, n, NULL, raw, 4, &err) != PARZ_OK, "NULL dst");
  CHECK(parz_omp_chunk_decode(chunk, n, dst, raw, 4, NULL) == PARZ_OK, "NULL err is allowed");
  {
    size_t w = 1;
    CHECK(
        parz_omp_chunk_encode(&a, data, &cfg, bad, n - 1, &w, 4, &err) == PARZ_ERR_BUFFER && w == 0,
        "encode into a buffer one byte short: rc %d written %zu", err.code, w);
    CHECK(parz_omp_chunk_encode(&a, NULL, &cfg, bad, n, &w, 4, &err) == PARZ_ERR_ARG, "NULL data");
    CHECK(parz_omp_chunk_encode(&a, data, &cfg, NULL, n, &w, 4, &err) == PARZ_ERR_ARG, "NULL dst");
    CHECK(parz_omp_chunk_encode(&a, data, &cfg, bad, n, &w, 4, NULL) == PARZ_OK && w == n &&
              !memcmp(bad, chunk, n),
          "exact-size buffer, NULL err");
  }
  free(bad);
  free(chunk);
  free(dst);
  free(data);
  return test_finish("test_omp_errors");
}
