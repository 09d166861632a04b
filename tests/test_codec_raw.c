/* A codec added as one folder and one table entry (tests/codec_raw/, compiled only into this
 * test, whose codec table replaces the library's at link time): named in the chunk
 * configuration, it writes chunks through the frame (HYBRID table, payload checksums,
 * exceptions, a mask) with the serial encoder and the OpenMP driver, and they decode bit for
 * bit, whole, in a window, serially and with OpenMP, with nothing of the frame or the drivers
 * changed. A configuration naming a codec the encoders cannot write, and a chunk of a codec
 * this reader does not know, are refused, naming it. With a path, the raw chunk is written
 * there for test_codec_raw_product (the library's own table refuses it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codecs.h"
#include "parz_omp.h"
#include "raw_codec.h"
#include "table.h"
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

/* A configuration naming a codec the encoders cannot write: refused by the layout, the bound,
 * the serial encoder and the OpenMP driver, the message naming the id and `why`. */
static void refused(const parz_chunk_config* base, unsigned id, const char* why) {
  parz_chunk_config cfg = *base;
  parz_chunk_view v;
  parz_array a;
  parz_error err;
  unsigned char dst[1 << 15];
  char name[32];
  size_t written = 1;
  memset(&a, 0, sizeof a);
  a.type = PARZ_FLOAT;
  a.dims = 2;
  a.shape[0] = NY;
  a.shape[1] = NX;
  cfg.codec = id;
  snprintf(name, sizeof name, "codec %u", id);
  CHECK(parz_chunk_layout(&v, &a, &cfg, &err) == PARZ_ERR_PARAM && strstr(err.message, name) &&
            strstr(err.message, why),
        ": layout of %s: %s", name, err.message);
  CHECK(parz_chunk_bound(&a, &cfg) == 0, ": the bound of %s", name);
  CHECK(parz_chunk_encode(&a, values, &cfg, dst, sizeof dst, &written, &err) == PARZ_ERR_PARAM &&
            strstr(err.message, name) && written == 0,
        ": serial encoder, %s: %s", name, err.message);
  written = 1;
  CHECK(parz_omp_chunk_encode(&a, values, &cfg, dst, sizeof dst, &written, 3, &err) ==
                PARZ_ERR_PARAM &&
            strstr(err.message, name) && written == 0,
        ": OpenMP driver, %s: %s", name, err.message);
}

int main(int argc, char** argv) {
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

  /* this program's table, then chunks of its raw codec, named in the configuration */
  CHECK(parz_codec_count == 3 && parz_codec_find(PARZ_CODEC_RAW) == &parz_codec_raw &&
            parz_codec_find(PARZ_CODEC_ZFP) == &parz_codec_zfp,
        ": the test's codec table (%u codecs)", parz_codec_count);
  refused(&cfg, 77, "knows codecs 1 (zfp), 2 (stored), 200 (raw)");
  refused(&cfg, PARZ_CODEC_STORED, "stored");
  cfg.codec = PARZ_CODEC_RAW;
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

  /* for test_codec_raw_product */
  if (argc > 1) {
    FILE* f = fopen(argv[1], "wb");
    CHECK(f && fwrite(serial, 1, n_serial, f) == n_serial && fclose(f) == 0, ": writing %s",
          argv[1]);
  }

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

  /* zfp, named or by the zeroed field */
  cfg.codec = PARZ_CODEC_ZFP;
  n_zfp = encode(&cfg, 0, &zfp);
  CHECK(n_zfp > 0 && parz_load16(zfp + 6) == PARZ_CODEC_ZFP);
  free(zfp);
  cfg.codec = 0;
  n_zfp = encode(&cfg, 0, &zfp);
  CHECK(n_zfp > 0 && parz_load16(zfp + 6) == PARZ_CODEC_ZFP);
  free(serial);
  free(omp);
  free(zfp);
  return test_finish("codec_raw");
}
