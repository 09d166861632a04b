/* The checked-in chunk-format test vector (tests/vectors/) parses to the documented fields,
 * decodes to the documented values bit for bit, and is exactly what the encoder writes today:
 * any change to the format shows up here. Also checks the CRC-32C check value. */
#include <stdint.h>
#include <string.h>

#include "checksum.h"
#include "test_chunk_common.h"
#include "vectors/chunk_v1_float1d_hybrid.h"

int main(void) {
  const unsigned char* c = chunk_v1_float1d_hybrid;
  size_t n = sizeof chunk_v1_float1d_hybrid, i, written = 0;
  parz_chunk_view v;
  parz_error err;
  uint32_t out[10];
  float in[10];
  unsigned char again[512];
  parz_chunk_config cfg;
  parz_array a = test_array(PARZ_FLOAT, 1, 10, 0, 0, 0);
  int rc;

  CHECK(parz_crc32c(0, "123456789", 9) == 0xE3069283u, "CRC-32C check value");
  CHECK(parz_crc32c(parz_crc32c(0, "1234", 4), "56789", 5) == 0xE3069283u, "CRC-32C chaining");

  rc = parz_chunk_parse(c, n, &v, &err);
  CHECK(rc == PARZ_OK, "parse: %s", err.message);
  CHECK(v.array.type == PARZ_FLOAT && v.array.dims == 1 && v.array.shape[0] == 10, "array");
  CHECK(v.params.minbits == 1 && v.params.maxbits == 16658 && v.params.maxprec == 64 &&
            v.params.minexp == -1075, "params");
  CHECK(v.table == PARZ_TABLE_HYBRID && v.length_bytes == 2 && v.segment_blocks == 1 &&
            v.partition_segments == 2, "table");
  CHECK(v.nblocks == 3 && v.nsegments == 3 && v.npartitions == 2 && v.table_bytes == 32, "sizes");
  CHECK(v.nexceptions == 2 && v.payload_bytes == 16 && v.payload_bits == 89 &&
            v.chunk_bytes == 192 && v.raw_bytes == 40, "payload");
  CHECK(parz_chunk_segment_offset(&v, 0) == 0 && parz_chunk_segment_offset(&v, 1) == 22 &&
            parz_chunk_segment_offset(&v, 2) == 57 && parz_chunk_segment_offset(&v, 3) == 89,
        "segment offsets");

  rc = parz_chunk_decode(c, n, out, sizeof out, &err);
  CHECK(rc == PARZ_OK, "decode: %s", err.message);
  for (i = 0; i < 10; i++)
    CHECK(out[i] == chunk_v1_float1d_hybrid_values[i], "value %zu: %08x, expected %08x", i,
          out[i], chunk_v1_float1d_hybrid_values[i]);

  /* re-encoding the decoded values with the vector's settings gives the same bytes */
  memcpy(in, out, sizeof in);
  memset(&cfg, 0, sizeof cfg);
  parz_params_reversible(&cfg.params);
  cfg.table = PARZ_TABLE_HYBRID;
  cfg.segment_blocks = 1;
  cfg.partition_segments = 2;
  rc = parz_chunk_encode(&a, in, &cfg, again, sizeof again, &written, &err);
  CHECK(rc == PARZ_OK, "encode: %s", err.message);
  CHECK(written == n && !memcmp(again, c, n), "encoder output differs from the test vector");
  if (written == n)
    for (i = 0; i < n; i++)
      if (again[i] != c[i]) {
        fprintf(stderr, "  first difference at byte %zu: %02x, vector %02x\n", i, again[i], c[i]);
        break;
      }
  return test_finish("test_chunk_vector");
}
