/* Unit tests of the offset table that need no codec run: writing, validation and segment
 * offsets for every table kind from synthetic segment lengths, the 16/32-bit width rule, and
 * exception records. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codecs.h"
#include "exceptions.h"
#include "table.h"
#include "table_endian.h"
#include "test_chunk_common.h"

/* Writes a table from per-block unit lengths (the encoder's units with auto C), summed C to a
 * segment, and checks every offset and length against the sums. */
static void table_kind(parz_table_kind kind, unsigned width, uint32_t C, uint32_t P,
                       uint64_t nblocks) {
  parz_chunk_view v;
  parz_error err;
  uint64_t *bits, s, b, total = 0;
  uint32_t* units;
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
  bits = calloc(v.nsegments, sizeof *bits);
  units = malloc(nblocks * sizeof *units);
  for (b = 0; b < nblocks; b++) {
    units[b] =
        kind == PARZ_TABLE_NONE ? 100 : (uint32_t)((b * 7919) % (width == 2 ? 65536 / C : 300000));
    bits[b / C] += units[b];
    total += units[b];
  }
  t = malloc(v.table_bytes + 1);
  memset(t, 0xee, v.table_bytes + 1);
  CHECK(parz_table_write(&v, units, C, nblocks, t, &err) == PARZ_OK, "write: %s", err.message);
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
  if (width == 2 && v.nsegments > 1) { /* a length that overflows its field is refused */
    units[C] = 65536;
    CHECK(parz_table_write(&v, units, C, nblocks, t, &err) == PARZ_ERR_PARAM,
          "16-bit overflow accepted");
  }
  free(bits);
  free(units);
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
  { /* HYBRID table size: 5 segments, P = 2, 16-bit: records of 8+8, 8+8, 8+8 */
    parz_chunk_view v;
    memset(&v, 0, sizeof v);
    v.table = PARZ_TABLE_HYBRID;
    v.length_bytes = 2;
    v.segment_blocks = 1;
    v.partition_segments = 2;
    v.nblocks = 5;
    CHECK(parz_table_layout(&v, NULL) == PARZ_OK && v.table_bytes == 48 && v.npartitions == 3,
          "hybrid size %zu", v.table_bytes);
    v.partition_segments = 5; /* one record: 8 + 10 -> 8 + 16 */
    CHECK(parz_table_layout(&v, NULL) == PARZ_OK && v.table_bytes == 24, "hybrid size %zu",
          v.table_bytes);
    v.segment_blocks = 0;
    CHECK(parz_table_layout(&v, NULL) == PARZ_ERR_FORMAT, "C = 0 accepted");
  }
  { /* exception scan and cleaning on a strided 2-D float view */
    float base[6][8];
    parz_array a = test_array(PARZ_FLOAT, 2, 3, 4, 0, 0);
    float cleaned[12];
    unsigned char rec[3 * PARZ_EXCEPTION_BYTES];
    int r, c;
    for (r = 0; r < 6; r++)
      for (c = 0; c < 8; c++)
        base[r][c] = (float)(r * 10 + c);
    a.stride[0] = 16; /* every other row, every other column */
    a.stride[1] = 2;
    base[2][2] = (float)INFINITY; /* view (1, 1) */
    base[4][6] = (float)NAN;      /* view (2, 3) */
    base[3][3] = (float)NAN;      /* outside the view */
    parz_params rev;
    parz_params_reversible(&rev);
    CHECK(parz_exceptions_count(&parz_codec_zfp, &a, base, &rev) == 2, "strided count");
    parz_exceptions_clean(&parz_codec_zfp, &a, base, &rev, cleaned, rec);
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
  { /* what the lossy modes also store as exceptions, and their stand-ins */
    parz_params lossy, rev;
    parz_array f = test_array(PARZ_FLOAT, 1, 4, 0, 0, 0);
    parz_array d = test_array(PARZ_DOUBLE, 1, 4, 0, 0, 0);
    parz_array i32 = test_array(PARZ_INT32, 1, 4, 0, 0, 0);
    parz_array i64 = test_array(PARZ_INT64, 1, 4, 0, 0, 0);
    float fv[4] = {0x1.fffffep+125f, 0x1p+126f, -0x1.fffffep+127f, 2.0f}, fc[4];
    double dv[4] = {0x1.fffffffffffffp+1021, -0x1p+1022, 1.0, 3.0}, dc[4];
    int32_t iv[4] = {(1 << 30) - 1, 1 << 30, -(1 << 30), INT32_MIN}, ic[4];
    int64_t lv[4] = {((int64_t)1 << 62) - 1, -((int64_t)1 << 62) + 1, INT64_MAX, 7}, lc[4];
    unsigned char r[4 * PARZ_EXCEPTION_BYTES];
    CHECK(parz_params_accuracy(&lossy, 1e-3, NULL, NULL) == PARZ_OK, "accuracy");
    parz_params_reversible(&rev);
    CHECK(parz_exceptions_count(&parz_codec_zfp, &f, fv, &lossy) == 2 &&
              parz_exceptions_count(&parz_codec_zfp, &f, fv, &rev) == 0,
          "float32: [2^126, FLT_MAX] lossy only");
    parz_exceptions_clean(&parz_codec_zfp, &f, fv, &lossy, fc, r);
    CHECK(fc[1] == fc[2] && fc[1] == (float)((double)fv[0] / 2 + 2.0 / 2) && fc[0] == fv[0],
          "float32 stand-in %a", fc[1]);
    CHECK(!parz_exceptions_v1(PARZ_FLOAT, r, 2), "finite records need version 2");
    CHECK(parz_exceptions_count(&parz_codec_zfp, &d, dv, &lossy) == 1 &&
              parz_exceptions_count(&parz_codec_zfp, &d, dv, &rev) == 0,
          "float64: |x| >= 2^1022 lossy only");
    parz_exceptions_clean(&parz_codec_zfp, &d, dv, &lossy, dc, r);
    CHECK(dc[1] == dv[0] / 3 + 1.0 / 3 + 3.0 / 3, "float64 stand-in %a", dc[1]);
    CHECK(parz_exceptions_count(&parz_codec_zfp, &i32, iv, &lossy) == 3 &&
              parz_exceptions_count(&parz_codec_zfp, &i32, iv, &rev) == 0,
          "int32: |x| >= 2^30 lossy only");
    parz_exceptions_clean(&parz_codec_zfp, &i32, iv, &lossy, ic, r);
    CHECK(ic[0] == iv[0] && ic[1] == iv[0] && ic[3] == iv[0], "int32 stand-in %d", (int)ic[1]);
    CHECK(parz_load64(r) == 1 && parz_load64(r + 8) == (uint32_t)(1 << 30) &&
              parz_load64(r + 40) == (uint32_t)INT32_MIN,
          "int32 records: position and 32-bit pattern");
    CHECK(parz_exceptions_count(&parz_codec_zfp, &i64, lv, &lossy) == 1,
          "int64: |x| >= 2^62 lossy only");
    parz_exceptions_clean(&parz_codec_zfp, &i64, lv, &lossy, lc, r);
    /* the mean of 2^62 - 1, -(2^62 - 1) and 7, in doubles: 2^62 / 3 - 2^62 / 3 + 7 / 3 */
    CHECK(lc[2] == 2, "int64 stand-in %lld", (long long)lc[2]);
  }
  return test_finish("test_chunk_unit");
}
