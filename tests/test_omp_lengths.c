/* A LENGTHS table split into many OpenMP work units: each unit must find its first segment's
 * offset without summing every length before it (which made a 64 MiB chunk of 1M segments take
 * 6.1 s at 4096 threads). Here 2^20 segments are decoded as 2^20 units of one segment each: with
 * a prefix sum per unit that is 2^39 length reads (minutes; ctest's time-out fails it), with one
 * prefix sum per call a fraction of a second. The array must equal the serial decoder's. */
#include <stdlib.h>
#include <string.h>

#include "parz_omp.h"
#include "team.h"
#include "test_chunk_common.h"

int main(void) {
  const size_t n = (size_t)4 << 20; /* 1D float: 2^20 blocks, one per segment */
  parz_array a = test_array(PARZ_FLOAT, 1, n, 0, 0, 0);
  parz_chunk_config cfg;
  parz_chunk_view v;
  parz_error err;
  float* data = (float*)malloc(n * sizeof *data);
  float *ser = (float*)malloc(n * sizeof *ser), *par = (float*)malloc(n * sizeof *par);
  size_t i, cap, written = 0;
  unsigned char* chunk;
  int rc;
  for (i = 0; i < n; i++)
    data[i] = (float)(i % 1000) * 0.25f;
  memset(&cfg, 0, sizeof cfg);
  CHECK(parz_params_accuracy(&cfg.params, 1e-2, NULL, &err) == PARZ_OK, "accuracy");
  cfg.table = PARZ_TABLE_LENGTHS;
  cfg.segment_blocks = 1;
  cap = parz_chunk_bound(&a, &cfg);
  chunk = (unsigned char*)malloc(cap);
  rc = parz_chunk_encode(&a, data, &cfg, chunk, cap, &written, &err);
  CHECK(rc == PARZ_OK, "encode: %s", err.message);
  CHECK(parz_chunk_parse(chunk, written, &v, &err) == PARZ_OK && v.table == PARZ_TABLE_LENGTHS &&
            v.nsegments == n / 4,
        "a LENGTHS chunk of %zu segments", n / 4);
  rc = parz_chunk_decode(chunk, written, ser, n * sizeof *ser, &err);
  CHECK(rc == PARZ_OK, "serial decode: %s", err.message);
  memset(par, 0x5A, n * sizeof *par);
  /* 2 threads x 2^19 units each: one unit per segment */
  rc = parz_omp_chunk_decode_above(chunk, written, par, n * sizeof *par, 2, 0, 1u << 19, &err);
  CHECK(rc == PARZ_OK, "OpenMP decode: %s", err.message);
  CHECK(memcmp(ser, par, n * sizeof *ser) == 0, "OpenMP and serial arrays differ");
  free(chunk);
  free(data);
  free(ser);
  free(par);
  return test_finish("test_omp_lengths");
}
