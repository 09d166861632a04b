/* A codec added as one folder and one registry entry (tests/codec_raw/, compiled only into this
 * test): registered at run time, it writes chunks through the frame (HYBRID table, payload
 * checksums, exceptions, a mask) with the serial encoder and the OpenMP driver, and they decode
 * bit for bit, whole, in a window, serially and with OpenMP, with nothing of the frame or the
 * drivers changed. A chunk of a codec this reader does not know is refused, naming it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codecs.h"
#include "parz_omp.h"
#include "raw_codec.h"
#include "table_endian.h"

#define NY 37
#define NX 53
#define FILL (-9999.0f)

static float values[NY * NX];

static void fill_values(void) {
  size_t i;
  for (i = 0; i < NY * NX; i++)
    values[i] = (float)i * 0.5f - 100.0f;
  values[3] = NAN;    /* masked */
  values[200] = FILL; /* masked: the fill value */
  values[201] = FILL;
  values[NX * 36] = NAN; /* in a partial block */
  values[77] = INFINITY; /* an exception */
}

static size_t encode(const parz_chunk_config* cfg, int threads, unsigned char** out) {
  parz_array a;
  parz_error err;
  size_t bound, written = 0;
  int rc;
  memset(&a, 0, sizeof a);
  a.type = PARZ_FLOAT;
  a.dims = 2;
  a.shape[0] = NY;
  a.shape[1] = NX;
  bound = parz_chunk_bound(&a, cfg);
  *out = (unsigned char*)malloc(bound);
  CHECK(*out != NULL && bound > 0);
  if (!*out)
    return 0;
  rc = threads ? parz_omp_chunk_encode(&a, values, cfg, *out, bound, &written, threads, &err)
               : parz_chunk_encode(&a, values, cfg, *out, bound, &written, &err);
  CHECK(rc == PARZ_OK, ": %s", err.message);
  return rc == PARZ_OK ? written : 0;
}

int main(void) {
  parz_chunk_config cfg;
  parz_chunk_view v;
  parz_chunk_dest d;
  parz_error err;
  unsigned char *serial = NULL, *omp = NULL, *zfp = NULL;
  float out[NY * NX], box[NY * NX];
  size_t n_serial, n_omp, n_zfp, y, x;
  int rc;
  fill_values();
  memset(&cfg, 0, sizeof cfg);
  parz_params_reversible(&cfg.params);
  cfg.table = PARZ_TABLE_HYBRID;
  cfg.segment_blocks = 4;
  cfg.partition_segments = 4;
  cfg.checksum = PARZ_CHECKSUM_ON;
  cfg.fill = 1;
  {
    const float f = FILL;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    cfg.fill_bits = bits;
  }

  /* one registry entry, then chunks of it */
  CHECK(parz_codec_register(&parz_codec_raw, &err) == PARZ_OK, ": %s", err.message);
  CHECK(parz_codec_register(&parz_codec_raw, &err) == PARZ_ERR_ARG && strstr(err.message, "200"),
        ": a second registration: %s", err.message);
  CHECK(parz_codec_write_with(PARZ_CODEC_STORED, &err) == PARZ_ERR_ARG);
  CHECK(parz_codec_write_with(77, &err) == PARZ_ERR_ARG && strstr(err.message, "77"));
  CHECK(parz_codec_write_with(PARZ_CODEC_RAW, &err) == PARZ_OK, ": %s", err.message);
  n_serial = encode(&cfg, 0, &serial);
  n_omp = encode(&cfg, 3, &omp);
  CHECK(n_serial > 0 && n_serial == n_omp && !memcmp(serial, omp, n_serial),
        ": the OpenMP driver writes the serial encoder's bytes (%zu, %zu bytes)", n_serial, n_omp);

  /* what the frame made of it */
  rc = parz_chunk_parse(serial, n_serial, &v, &err);
  CHECK(rc == PARZ_OK, ": %s", err.message);
  CHECK(v.codec == PARZ_CODEC_RAW && parz_load16(serial + 6) == PARZ_CODEC_RAW);
  CHECK(v.table == PARZ_TABLE_HYBRID && v.segment_blocks == 4 && v.nchecksums > 1);
  CHECK(v.nexceptions == 1, ": %llu exceptions", (unsigned long long)v.nexceptions);
  CHECK(v.mask.nvalues == 2, ": %u masked values", (unsigned)v.mask.nvalues);
  /* the payload is the blocks' values as they are: block 0's second row starts with value NX */
  CHECK(v.payload_bits == 8u * 16u * 4u * ((NY + 3) / 4) * ((NX + 3) / 4));
  CHECK(!memcmp(v.payload + 4 * 4, &values[NX], 4 * sizeof(float)));

  /* decoded serially and with OpenMP, bit for bit */
  memset(out, 0, sizeof out);
  CHECK(parz_chunk_decode(serial, n_serial, out, sizeof out, &err) == PARZ_OK, ": %s", err.message);
  CHECK(!memcmp(out, values, sizeof out), ": serial decode");
  memset(out, 0, sizeof out);
  CHECK(parz_omp_chunk_decode(serial, n_serial, out, sizeof out, 3, &err) == PARZ_OK, ": %s",
        err.message);
  CHECK(!memcmp(out, values, sizeof out), ": OpenMP decode");

  /* a window [5, 30) x [7, 40), stored densely */
  memset(&d, 0, sizeof d);
  memset(box, 0, sizeof box);
  d.data = box;
  d.lo[0] = 5;
  d.hi[0] = 30;
  d.lo[1] = 7;
  d.hi[1] = 40;
  d.stride[0] = 33;
  d.stride[1] = 1;
  CHECK(parz_chunk_decode_segments_to(&v, &d, 0, v.nsegments, &err) == PARZ_OK, ": %s",
        err.message);
  for (y = 5; y < 30; y++)
    for (x = 7; x < 40; x++)
      if (!isnan(values[y * NX + x]))
        CHECK(box[(y - 5) * 33 + (x - 7)] == values[y * NX + x], ": (%zu, %zu)", y, x);

  /* the frame's payload checksums hold for this codec too */
  serial[n_serial - 9] ^= 0x10u;
  CHECK(parz_chunk_decode(serial, n_serial, out, sizeof out, &err) == PARZ_ERR_CHECKSUM, ": %s",
        err.message);
  serial[n_serial - 9] ^= 0x10u;

  /* a codec this reader does not know: refused, named */
  serial[6] = 201;
  CHECK(parz_chunk_decode(serial, n_serial, out, sizeof out, &err) == PARZ_ERR_VERSION &&
            strstr(err.message, "codec 201") && strstr(err.message, "200 (raw)"),
        ": %s", err.message);

  /* zfp again: the frame's default */
  CHECK(parz_codec_write_with(PARZ_CODEC_ZFP, &err) == PARZ_OK);
  n_zfp = encode(&cfg, 0, &zfp);
  CHECK(n_zfp > 0 && parz_load16(zfp + 6) == PARZ_CODEC_ZFP);
  free(serial);
  free(omp);
  free(zfp);
  return test_finish("codec_raw");
}
