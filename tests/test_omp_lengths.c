/* LENGTHS tables must cost O(segments) per decode however the work is cut, since a segment's
 * offset is otherwise the sum of every length before it:
 *  - split into many OpenMP work units, each unit must find its first segment's offset without
 *    summing the table from the start (a 64 MiB chunk of 1M segments took 6.1 s at 4096
 *    threads). Here 2^20 segments are decoded as 2^20 units of one segment each: with a prefix
 *    sum per unit that is 2^39 length reads (minutes; ctest's time-out fails it), with one
 *    prefix sum per call a fraction of a second;
 *  - a box of a chunk read through parz_omp_assemble walks the runs of segments inside the box:
 *    a column 4 values wide of a 2^20 x 8 chunk is 2^18 runs of one segment among 2^19, so an
 *    offset summed from the start for every run is 2^36 length reads (a minute or more per read),
 *    against one pass over the table.
 * The arrays must equal the serial decoder's. */
#include <stdlib.h>
#include <string.h>

#include "parz_omp.h"
#include "team.h"
#include "test_chunk_common.h"

/* Encodes n floats of a's shape as a LENGTHS chunk of one block per segment; NULL on failure. */
static unsigned char* encode_lengths(const parz_array* a, const float* data, size_t* written) {
  parz_chunk_config cfg;
  parz_chunk_view v;
  parz_error err;
  size_t cap;
  unsigned char* chunk;
  int rc;
  memset(&cfg, 0, sizeof cfg);
  CHECK(parz_params_accuracy(&cfg.params, 1e-2, NULL, &err) == PARZ_OK, "accuracy");
  cfg.table = PARZ_TABLE_LENGTHS;
  cfg.segment_blocks = 1;
  cap = parz_chunk_bound(a, &cfg);
  chunk = (unsigned char*)malloc(cap);
  rc = parz_chunk_encode(a, data, &cfg, chunk, cap, written, &err);
  CHECK(rc == PARZ_OK, "encode: %s", err.message);
  CHECK(rc == PARZ_OK && parz_chunk_parse(chunk, *written, &v, &err) == PARZ_OK &&
            v.table == PARZ_TABLE_LENGTHS && v.nsegments == v.nblocks && v.nchecksums > 0,
        "a LENGTHS chunk of one block per segment, with payload checksums");
  if (rc != PARZ_OK) {
    free(chunk);
    return NULL;
  }
  return chunk;
}

static void many_units(void) {
  const size_t n = (size_t)4 << 20; /* 1D float: 2^20 blocks, one per segment */
  parz_array a = test_array(PARZ_FLOAT, 1, n, 0, 0, 0);
  parz_error err;
  float* data = (float*)malloc(n * sizeof *data);
  float *ser = (float*)malloc(n * sizeof *ser), *par = (float*)malloc(n * sizeof *par);
  size_t i, written = 0;
  unsigned char* chunk;
  int rc;
  for (i = 0; i < n; i++)
    data[i] = (float)(i % 1000) * 0.25f;
  if ((chunk = encode_lengths(&a, data, &written)) != NULL) {
    rc = parz_chunk_decode(chunk, written, ser, n * sizeof *ser, &err);
    CHECK(rc == PARZ_OK, "serial decode: %s", err.message);
    memset(par, 0x5A, n * sizeof *par);
    /* 2 threads x 2^19 units each: one unit per segment */
    rc = parz_omp_chunk_decode_above(chunk, written, par, n * sizeof *par, 2, 0, 1u << 19, &err);
    CHECK(rc == PARZ_OK, "OpenMP decode: %s", err.message);
    CHECK(memcmp(ser, par, n * sizeof *ser) == 0, "OpenMP and serial arrays differ");
  }
  free(chunk);
  free(data);
  free(ser);
  free(par);
}

static void column_box(void) {
  const size_t rows = (size_t)1 << 20, cols = 8, n = rows * cols;
  parz_array a = test_array(PARZ_FLOAT, 2, rows, cols, 0, 0);
  parz_chunk_grid g;
  parz_chunk_ref ref;
  parz_box box;
  parz_error err;
  float* data = (float*)malloc(n * sizeof *data);
  float *ser = (float*)malloc(n * sizeof *ser), *col = (float*)malloc(rows * 4 * sizeof *col);
  size_t i, written = 0, wrong;
  unsigned char* chunk;
  int t, rc;
  for (i = 0; i < n; i++)
    data[i] = (float)((i / cols) % 500) * 0.5f + (float)(i % cols);
  if ((chunk = encode_lengths(&a, data, &written)) != NULL) {
    CHECK(parz_chunk_decode(chunk, written, ser, n * sizeof *ser, &err) == PARZ_OK,
          "serial decode: %s", err.message);
    memset(&g, 0, sizeof g);
    g.rank = 2;
    g.type = PARZ_FLOAT;
    g.dims[0] = g.chunk_dims[0] = rows;
    g.dims[1] = g.chunk_dims[1] = cols;
    memset(&ref, 0, sizeof ref);
    ref.bytes = written;
    memset(&box, 0, sizeof box);
    box.count[0] = rows;
    box.count[1] = 4;
    for (t = 1; t <= 2; t++) {
      memset(col, 0x5A, rows * 4 * sizeof *col);
      rc = parz_omp_assemble(&g, &box, chunk, written, 1, &ref, NULL, col, t, NULL, &err);
      CHECK(rc == PARZ_OK, "column box, %d threads: %s", t, rc ? err.message : "");
      for (i = 0, wrong = 0; rc == PARZ_OK && i < rows * 4; i++)
        wrong += memcmp(&col[i], &ser[(i / 4) * cols + i % 4], sizeof *col) != 0;
      CHECK(wrong == 0, "column box, %d threads: %zu values differ from the serial decode", t,
            wrong);
    }
  }
  free(chunk);
  free(data);
  free(ser);
  free(col);
}

int main(void) {
  many_units();
  column_box();
  return test_finish("test_omp_lengths");
}
