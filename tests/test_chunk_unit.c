/* Unit tests of the offset table that need no codec run: writing, validation and segment
 * offsets for every table kind from synthetic segment lengths, the 16/32-bit width rule, and
 * exception records. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exceptions.h"
#include "table.h"
#include "test_chunk_common.h"

static void table_kind(parz_table_kind kind, unsigned width, uint32_t C, uint32_t P,
                       uint64_t nblocks) {
  parz_chunk_view v;
  parz_error err;
  uint64_t* bits, s, total = 0;
  unsigned char* t;
  memset(&v, 0, sizeof v);
  v.table = kind;
  v.length_bytes = width;
  v.segment_blocks = C;
  v.partition_segments = P;
  v.nblocks = nblocks;
  v.params.minbits = v.params.maxbits = 100;
  CHECK(parz_table_layout(&v, &err) == PARZ_OK, "layout: %s", err.message);
  CHECK(v.nsegments == (nblocks + C - 1) / C, "nsegments");
  CHECK(v.table_bytes % 8 == 0, "table bytes %zu not a multiple of 8", v.table_bytes);
  bits = malloc(v.nsegments * sizeof *bits);
  for (s = 0; s < v.nsegments; s++) {
    uint64_t nb = nblocks - s * C < C ? nblocks - s * C : C;
    bits[s] = kind == PARZ_TABLE_NONE ? nb * 100 : (s * 7919) % (width == 2 ? 65536 : 300000);
    total += bits[s];
  }
  t = malloc(v.table_bytes + 1);
  memset(t, 0xee, v.table_bytes + 1);
  CHECK(parz_table_write(&v, bits, t, &err) == PARZ_OK, "write: %s", err.message);
  CHECK(t[v.table_bytes] == 0xee, "table write past its size");
  v.table_data = t;
  v.payload_bits = total;
  CHECK(parz_table_validate(&v, &err) == PARZ_OK, "validate kind %d: %s", (int)kind, err.message);
  {
    uint64_t o = 0;
    for (s = 0; s <= v.nsegments; s++) {
      CHECK(parz_chunk_segment_offset(&v, s) == o, "kind %d offset %llu", (int)kind,
            (unsigned long long)s);
      if (s < v.nsegments) {
        CHECK(parz_table_segment_bits(&v, s) == bits[s], "kind %d length", (int)kind);
        o += bits[s];
      }
    }
  }
  /* OFFSETS stores no end: its last segment runs to payload_bits, and the decoder's segment end
   * check catches a wrong one */
  v.payload_bits = total + 1;
  if (kind != PARZ_TABLE_OFFSETS)
    CHECK(parz_table_validate(&v, &err) == PARZ_ERR_FORMAT, "kind %d: wrong total accepted",
          (int)kind);
  if (width == 2 && v.nsegments > 1) {   /* a length that overflows its field is refused */
    bits[1] = 65536;
    CHECK(parz_table_write(&v, bits, t, &err) == PARZ_ERR_PARAM, "16-bit overflow accepted");
  }
  free(bits);
  free(t);
}

int main(void) {
  static const uint32_t Cs[] = {1, 3, 32}, Ps[] = {1, 2, 64};
  size_t i, j;
  CHECK(parz_table_length_width(65535) == 2 && parz_table_length_width(65536) == 4, "width rule");
  for (i = 0; i < 3; i++) {
    table_kind(PARZ_TABLE_NONE, 0, Cs[i], 0, 1000);
    table_kind(PARZ_TABLE_OFFSETS, 0, Cs[i], 0, 1000);
    table_kind(PARZ_TABLE_LENGTHS, 2, Cs[i], 0, 1001);
    table_kind(PARZ_TABLE_LENGTHS, 4, Cs[i], 0, 7);
    for (j = 0; j < 3; j++) {
      table_kind(PARZ_TABLE_HYBRID, 2, Cs[i], Ps[j], 1000);
      table_kind(PARZ_TABLE_HYBRID, 4, Cs[i], Ps[j], 999);
      table_kind(PARZ_TABLE_HYBRID, 2, Cs[i], Ps[j], 1);
    }
  }
  {   /* HYBRID table size: 5 segments, P = 2, 16-bit: records of 8+8, 8+8, 8+8 */
    parz_chunk_view v;
    memset(&v, 0, sizeof v);
    v.table = PARZ_TABLE_HYBRID;
    v.length_bytes = 2;
    v.segment_blocks = 1;
    v.partition_segments = 2;
    v.nblocks = 5;
    CHECK(parz_table_layout(&v, NULL) == PARZ_OK && v.table_bytes == 48 && v.npartitions == 3,
          "hybrid size %zu", v.table_bytes);
    v.partition_segments = 5;   /* one record: 8 + 10 -> 8 + 16 */
    CHECK(parz_table_layout(&v, NULL) == PARZ_OK && v.table_bytes == 24, "hybrid size %zu",
          v.table_bytes);
    v.segment_blocks = 0;
    CHECK(parz_table_layout(&v, NULL) == PARZ_ERR_FORMAT, "C = 0 accepted");
  }
  {   /* exception scan and cleaning on a strided 2-D float view */
    float base[6][8];
    parz_array a = test_array(PARZ_FLOAT, 2, 3, 4, 0, 0);
    float cleaned[12];
    unsigned char rec[3 * PARZ_EXCEPTION_BYTES];
    int r, c;
    for (r = 0; r < 6; r++)
      for (c = 0; c < 8; c++)
        base[r][c] = (float)(r * 10 + c);
    a.stride[0] = 16;   /* every other row, every other column */
    a.stride[1] = 2;
    base[2][2] = (float)INFINITY;    /* view (1, 1) */
    base[4][6] = (float)NAN;         /* view (2, 3) */
    base[3][3] = (float)NAN;         /* outside the view */
    CHECK(parz_exceptions_count(&a, base) == 2, "strided count");
    parz_exceptions_clean(&a, base, cleaned, rec);
    /* one 3x4 block: finite mean of the other 10 values */
    {
      double m = 0;
      for (r = 0; r < 3; r++)
        for (c = 0; c < 4; c++)
          if (!(r == 1 && c == 1) && !(r == 2 && c == 3))
            m += (double)(2 * r * 10 + 2 * c) / 10;
      CHECK(cleaned[5] == (float)m && cleaned[11] == (float)m, "stand-in %g, expected %g",
            cleaned[5], m);
      CHECK(cleaned[0] == 0 && cleaned[1] == 2 && cleaned[4] == 20, "copy");
      CHECK(rec[0] == 5 && rec[16] == 11, "record positions");
    }
  }
  return test_finish("test_chunk_unit");
}
