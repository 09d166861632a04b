/* The error-bounded codec (codec 4) through the chunk's frame: encoded with parz_chunk_encode and
 * the OpenMP encoder (byte for byte the same chunk), decoded serially, by OpenMP and into windows
 * (the same values), every finite value within eb, NaN, infinities and fill values bit for bit;
 * integers refused; chunks whose codec data, table or payload lie refused with an error, never
 * read outside (the sanitizer build runs this too).
 *
 *   test_bounded_chunk             crafted arrays and hostile chunks
 *   test_bounded_chunk DIR         also every real array of DIR, in chunks of about 1 MiB, at
 *                                  eb = 1e-3 and 1e-5 x its value range */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "checksum.h"
#include "parz_chunk.h"
#include "parz_omp.h"
#include "real_arrays.h"
#include "xorshift.h"

static double get(const void* p, parz_type t, size_t i) {
  return t == PARZ_FLOAT ? ((const float*)p)[i] : ((const double*)p)[i];
}

/* Value i of p, of type t, set to x (as a float for PARZ_FLOAT). */
static void put(void* p, parz_type t, size_t i, double x) {
  if (t == PARZ_FLOAT)
    ((float*)p)[i] = (float)x;
  else
    ((double*)p)[i] = x;
}

/* The array of rank shape[0] and extents shape[1..], of floats or (dbl) doubles. */
static parz_array shaped(const size_t* shape, int dbl) {
  parz_array a;
  memset(&a, 0, sizeof a);
  a.type = dbl ? PARZ_DOUBLE : PARZ_FLOAT;
  a.dims = (unsigned)shape[0];
  for (unsigned k = 0; k < a.dims; k++)
    a.shape[k] = shape[k + 1];
  return a;
}

static parz_chunk_config config(double eb, const void* fill, size_t w) {
  parz_chunk_config c;
  memset(&c, 0, sizeof c);
  c.codec = PARZ_CODEC_BOUNDED;
  c.settings.error_bound = eb;
  if (fill) {
    c.fill = 1;
    memcpy(&c.fill_bits, fill, w);
  }
  return c;
}

/* Whether y is what x may decode to: within eb when x is finite and not the fill value, else
 * the same bits. */
static int holds(const void* src, const void* dst, parz_type t, size_t i, double eb,
                 const void* fill) {
  const size_t w = parz_type_size(t);
  const unsigned char* a = (const unsigned char*)src + i * w;
  const unsigned char* b = (const unsigned char*)dst + i * w;
  double x = get(src, t, i), y = get(dst, t, i);
  if (!isfinite(x) || (fill && memcmp(a, fill, w) == 0))
    return memcmp(a, b, w) == 0;
  return fabs(x - y) <= eb;
}

/* One chunk: serial and OpenMP encodes byte for byte equal, serial and OpenMP decodes (2 and 16
 * threads) and a window's decode (serial, and by a team of 7) equal, the bound on every value.
 * Returns the chunk's size (0: failed). */
static size_t one_chunk(const char* what, const parz_array* a, const void* data, double eb,
                        const void* fill, unsigned char** chunk_out) {
  parz_chunk_config cfg = config(eb, fill, parz_type_size(a->type));
  const size_t n = parz_array_count(a), w = parz_type_size(a->type);
  size_t cap = parz_chunk_bound(a, &cfg), bytes = 0, obytes = 0, bad = 0, first = 0;
  unsigned char* c = (unsigned char*)malloc(cap);
  unsigned char* o = (unsigned char*)malloc(cap);
  unsigned char* out = (unsigned char*)malloc(n * w);
  unsigned char* par = (unsigned char*)malloc(n * w);
  parz_error err;
  int rc;
  CHECK(cap > 0, "%s: no bound", what);
  rc = parz_chunk_encode(a, data, &cfg, c, cap, &bytes, &err);
  CHECK(rc == PARZ_OK, "%s: encode: %s", what, err.message);
  if (rc == PARZ_OK) {
    rc = parz_omp_chunk_encode(a, data, &cfg, o, cap, &obytes, 2, &err);
    CHECK(rc == PARZ_OK && obytes == bytes && memcmp(o, c, bytes) == 0,
          "%s: OpenMP encode differs (%zu bytes against %zu): %s", what, obytes, bytes,
          rc ? err.message : "");
    rc = parz_chunk_decode(c, bytes, out, n * w, &err);
    CHECK(rc == PARZ_OK, "%s: decode: %s", what, err.message);
  }
  if (rc == PARZ_OK) {
    for (size_t i = 0; i < n; i++)
      if (!holds(data, out, a->type, i, eb, fill) && !bad++)
        first = i;
    CHECK(bad == 0, "%s: %zu values miss eb %g (first at %zu: %.17g -> %.17g)", what, bad, eb,
          first, get(data, a->type, first), get(out, a->type, first));
    for (int threads = 2; threads <= 16 && rc == PARZ_OK; threads += 14) {
      memset(par, 0xA5, n * w);
      rc = parz_omp_chunk_decode(c, bytes, par, n * w, threads, &err);
      CHECK(rc == PARZ_OK && memcmp(par, out, n * w) == 0,
            "%s: OpenMP decode on %d threads differs: %s", what, threads, rc ? err.message : "");
    }
  }
  if (rc == PARZ_OK) { /* a window: the middle third along each dimension, into a dense box */
    parz_chunk_view v;
    parz_chunk_dest d;
    size_t cnt = 1, k;
    memset(&d, 0, sizeof d);
    rc = parz_chunk_parse(c, bytes, &v, &err);
    CHECK(rc == PARZ_OK, "%s: parse: %s", what, err.message);
    for (k = a->dims; k-- > 0;) {
      d.lo[k] = a->shape[k] / 3;
      d.hi[k] = a->shape[k] - a->shape[k] / 3;
      d.stride[k] = (ptrdiff_t)cnt;
      cnt *= d.hi[k] - d.lo[k];
    }
    d.data = par;
    memset(par, 0xA5, cnt * w);
    if (rc == PARZ_OK)
      rc = parz_chunk_decode_segments_to(&v, &d, 0, v.nsegments, &err);
    if (rc == PARZ_OK)
      rc = parz_chunk_patch_exceptions_to(&v, &d, &err);
    CHECK(rc == PARZ_OK, "%s: window: %s", what, err.message);
    if (rc == PARZ_OK) { /* the same window by a team */
      unsigned char* team = (unsigned char*)malloc(cnt * w);
      parz_chunk_dest td = d;
      td.data = team;
      memset(team, 0x5A, cnt * w);
      rc = parz_omp_decode_chunks(1, &v, &td, 7, NULL, &err);
      CHECK(rc == PARZ_OK && memcmp(team, par, cnt * w) == 0,
            "%s: window decoded by a team of 7 differs: %s", what, rc ? err.message : "");
      free(team);
    }
    for (size_t i = 0, diff = 0; rc == PARZ_OK && i < cnt && !diff; i++) {
      size_t at = 0, r = i, x[4];
      for (k = a->dims; k-- > 0;) {
        x[k] = r % (d.hi[k] - d.lo[k]) + d.lo[k];
        r /= d.hi[k] - d.lo[k];
      }
      for (k = 0; k < a->dims; k++)
        at = at * a->shape[k] + x[k];
      diff = memcmp(par + i * w, out + at * w, w) != 0;
      CHECK(!diff, "%s: window value %zu differs from the whole decode's", what, i);
    }
  }
  free(o), free(out), free(par);
  if (rc != PARZ_OK || !chunk_out) {
    free(c);
    return rc == PARZ_OK ? bytes : 0;
  }
  *chunk_out = c;
  return bytes;
}

/* Smooth values with NaN, infinities, the fill value, huge and tiny values, in ranks 1 to 4 and
 * extents of 1; and the same without what the mask or the exceptions take but the fill value
 * (alone): the mask's only value, whose places in a mixed block the collector finds a row of 4 at
 * a time, and the decoder restores there and nowhere else. */
static void crafted(void) {
  static const size_t shapes[][5] = {{1, 1},           {1, 5000},        {2, 1, 1},
                                     {2, 37, 1},       {2, 70, 130},     {3, 9, 4, 33},
                                     {4, 3, 2, 7, 11}, {4, 1, 1, 1, 70}, {3, 1, 64, 65}};
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
    for (int t = 0; t < 2; t++) {
      parz_array a = shaped(shapes[si], t);
      size_t n = parz_array_count(&a), w = t ? 8 : 4;
      unsigned char* v = (unsigned char*)malloc(n * w);
      unsigned char* alone = (unsigned char*)malloc(n * w);
      float ffill = -9999.f;
      double dfill = -9999.;
      const void* fill = t ? (const void*)&dfill : (const void*)&ffill;
      for (size_t i = 0; i < n; i++) {
        double x = 50 * sin(0.03 * (double)i) + 1e-3 * (double)(xorshift_next() % 1000);
        const double smooth = x;
        const unsigned kind = (unsigned)(xorshift_next() % 40);
        switch (kind) {
          case 0: x = NAN; break;
          case 1: x = INFINITY; break;
          case 2: x = -INFINITY; break;
          case 3: x = t ? 1e300 : 3e38; break;
          case 4: x = t ? 4.9e-324 : 1.4e-45; break;
          case 5: x = t ? dfill : ffill; break;
          default: break;
        }
        double y = kind < 5 ? smooth : x; /* alone: no NaN, infinity, huge or tiny value */
        if (i % 97 < 20)                  /* a region of fill values */
          x = y = t ? dfill : ffill;
        put(v, a.type, i, x);
        put(alone, a.type, i, y);
      }
      char what[80];
      double ebs[] = {1e-2, 1e-6, 1e3};
      for (int e = 0; e < 3; e++) {
        snprintf(what, sizeof what, "crafted %s rank %u n %zu eb %g", t ? "double" : "float",
                 a.dims, n, ebs[e]);
        one_chunk(what, &a, v, ebs[e], fill, NULL);
        one_chunk(what, &a, v, ebs[e], NULL, NULL);
      }
      snprintf(what, sizeof what, "fill value alone, %s rank %u n %zu", t ? "double" : "float",
               a.dims, n);
      one_chunk(what, &a, alone, 1e-2, fill, NULL);
      free(v);
      free(alone);
    }
}

/* Chunks of one kind of value: all the fill value, all NaN, all one number, one value; each
 * fits the bound of its array (parz_chunk_bound, checked by one_chunk's encode into it). */
static void uniform_chunks(void) {
  static const float kinds[] = {-9999.f, NAN, 3.25f};
  float v[4096], fill = -9999.f;
  parz_array a;
  memset(&a, 0, sizeof a);
  a.type = PARZ_FLOAT;
  a.dims = 2;
  a.shape[0] = 64;
  a.shape[1] = 64;
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < 4096; i++)
      v[i] = kinds[k];
    one_chunk("uniform", &a, v, 1e-3, &fill, NULL);
    one_chunk("uniform, no fill", &a, v, 1e-3, NULL, NULL);
  }
  a.dims = 1;
  a.shape[0] = 1;
  one_chunk("one value", &a, v, 1e-3, NULL, NULL);
  v[0] = NAN;
  one_chunk("one NaN", &a, v, 1e-3, NULL, NULL);
}

/* Integers refused at the configuration, naming the type; a strided array encodes as its dense
 * copy does. */
static void arguments(void) {
  int32_t iv[16] = {0};
  float fv[64];
  parz_array a;
  parz_chunk_config cfg = config(1e-3, NULL, 4);
  unsigned char buf[4096], buf2[4096];
  size_t bytes = 0, bytes2 = 0;
  parz_error err;
  memset(&a, 0, sizeof a);
  a.type = PARZ_INT32;
  a.dims = 1;
  a.shape[0] = 16;
  int rc = parz_chunk_encode(&a, iv, &cfg, buf, sizeof buf, &bytes, &err);
  CHECK(rc != PARZ_OK && strstr(err.message, "int32") != NULL,
        "int32 accepted or not named (%d): %s", rc, err.message);
  cfg.settings.error_bound = 0;
  a.type = PARZ_FLOAT;
  CHECK(parz_chunk_encode(&a, fv, &cfg, buf, sizeof buf, &bytes, &err) == PARZ_ERR_PARAM,
        "error bound 0 accepted");
  cfg.settings.error_bound = 1e-3;
  cfg.settings.predictor = 9;
  CHECK(parz_chunk_encode(&a, fv, &cfg, buf, sizeof buf, &bytes, &err) == PARZ_ERR_PARAM,
        "predictor 9 accepted");
  cfg.settings.predictor = 0;
  /* a strided array: every other value of 64 */
  for (int i = 0; i < 64; i++)
    fv[i] = (float)sin(0.1 * i);
  float dense[32];
  for (int i = 0; i < 32; i++)
    dense[i] = fv[2 * i];
  a.shape[0] = 32;
  a.stride[0] = 2;
  rc = parz_chunk_encode(&a, fv, &cfg, buf, sizeof buf, &bytes, &err);
  a.stride[0] = 0;
  int rc2 = parz_chunk_encode(&a, dense, &cfg, buf2, sizeof buf2, &bytes2, &err);
  CHECK(rc == PARZ_OK && rc2 == PARZ_OK && bytes == bytes2 && memcmp(buf, buf2, bytes) == 0,
        "strided array's chunk differs from its dense copy's (%d %d)", rc, rc2);
}

/* Flips in the first half of a chunk's payload (checksums off, so that the segments and passes
 * meet them): the OpenMP decoder runs the leading passes, which read the first segments' codes,
 * as soon as those segments are decoded, among the team's other segments; on 3 and 4 threads
 * (ranges of a segment or two) it still gives the serial decoder's values or error. */
static void first_segments(const parz_array* a, const float* v) {
  parz_chunk_config cfg = config(1e-3, NULL, 4);
  const size_t n = parz_array_count(a);
  size_t cap = parz_chunk_bound(a, &cfg), bytes = 0, errors = 0;
  unsigned char* c = (unsigned char*)malloc(cap);
  unsigned char* d = (unsigned char*)malloc(cap);
  float* out = (float*)malloc(n * 4);
  float* par = (float*)malloc(n * 4);
  parz_chunk_view view;
  parz_error err, perr;
  cfg.checksum = PARZ_CHECKSUM_OFF;
  int rc = parz_chunk_encode(a, v, &cfg, c, cap, &bytes, &err);
  if (rc == PARZ_OK)
    rc = parz_chunk_parse(c, bytes, &view, &err);
  CHECK(rc == PARZ_OK && view.nsegments > 8, "a chunk of many segments: %s",
        rc ? err.message : "too few");
  for (int round = 0; rc == PARZ_OK && round < 400; round++) {
    const size_t payload_at = (size_t)(view.payload - c);
    const size_t half = (size_t)(parz_chunk_segment_offset(&view, view.nsegments / 2) / 8);
    const size_t at = payload_at + (size_t)(xorshift_next() % (half + 1));
    const int threads = 3 + round % 2;
    memcpy(d, c, bytes);
    d[at] ^= (unsigned char)(1u << (xorshift_next() % 8));
    int src = parz_chunk_decode(d, bytes, out, n * 4, &err);
    int prc = parz_omp_chunk_decode(d, bytes, par, n * 4, threads, &perr);
    errors += src != PARZ_OK;
    CHECK(prc == src && (src != PARZ_OK ? strcmp(perr.message, err.message) == 0
                                        : memcmp(par, out, n * 4) == 0),
          "flip at %zu, %d threads: OpenMP decode gave %d '%s', serial %d '%s'", at, threads, prc,
          prc ? perr.message : "", src, src ? err.message : "");
  }
  CHECK(rc != PARZ_OK || errors > 0, "no flip in the first segments was refused");
  free(c), free(d), free(out), free(par);
}

/* Damaged chunks: every one refused with an error or decoded to values, never a crash or a read
 * outside; the damages that must be seen are refused. */
static void hostile(void) {
  parz_array a;
  memset(&a, 0, sizeof a);
  a.type = PARZ_FLOAT;
  a.dims = 2;
  a.shape[0] = 150;
  a.shape[1] = 140;
  size_t n = parz_array_count(&a);
  float* v = (float*)malloc(n * 4);
  float* out = (float*)malloc(n * 4);
  float* par = (float*)malloc(n * 4);
  for (size_t i = 0; i < n; i++)
    v[i] = (float)(10 * sin(0.001 * (double)i) + 0.01 * cos(0.7 * (double)i));
  v[5] = NAN;
  v[77] = INFINITY;
  unsigned char* c = NULL;
  size_t bytes = one_chunk("hostile's source", &a, v, 1e-3, NULL, &c);
  parz_chunk_view view;
  parz_error err;
  if (!bytes || parz_chunk_parse(c, bytes, &view, &err) != PARZ_OK) {
    CHECK(0, "no chunk to damage");
    free(v), free(out), free(par), free(c);
    return;
  }
  CHECK(view.codec == PARZ_CODEC_BOUNDED && view.codec_data && view.nsegments > 2,
        "want a bounded chunk of several segments (codec %u, %llu segments)", view.codec,
        (unsigned long long)view.nsegments);
  const size_t data_at = (size_t)(view.codec_data - c), payload_at = (size_t)(view.payload - c);
  /* every truncation refused */
  for (size_t cut = 0; cut < bytes; cut += cut < 200 ? 1 : 97)
    CHECK(parz_chunk_decode(c, cut, out, n * 4, &err) != PARZ_OK, "chunk cut to %zu accepted", cut);
  /* bit flips anywhere: an error or values, nothing else (the header's CRC catches the head) */
  unsigned char* d = (unsigned char*)malloc(bytes);
  for (int round = 0; round < 3000; round++) {
    memcpy(d, c, bytes);
    size_t at = round % 2 ? payload_at + (size_t)(xorshift_next() % (bytes - payload_at))
                          : (size_t)(xorshift_next() % bytes);
    d[at] ^= (unsigned char)(1u << (xorshift_next() % 8));
    int rc = parz_chunk_decode(d, bytes, out, n * 4, &err);
    CHECK(rc == PARZ_OK || (rc >= PARZ_ERR_STREAM && rc <= PARZ_ERR_NOMEM),
          "flip at %zu gave status %d", at, rc);
    CHECK(rc != PARZ_OK || at < payload_at, "flip in the payload at %zu not seen", at);
    /* the OpenMP decoder (its checksums and segments in one step) reports the serial
     * decoder's error: a payload checksum's before a segment's (every 8th flip, in the
     * payload: a team's start costs more than this chunk's decode) */
    if (round % 8 != 1)
      continue;
    parz_error perr;
    int prc = parz_omp_chunk_decode(d, bytes, par, n * 4, 2, &perr);
    CHECK(prc == rc && (rc == PARZ_OK || strcmp(perr.message, err.message) == 0),
          "flip at %zu: OpenMP decode gave %d '%s', serial %d '%s'", at, prc,
          prc ? perr.message : "", rc, rc ? err.message : "");
  }
  free(d);
  first_segments(&a, v);
  /* codec data that lies, the header's CRC made right again: refused at parse or decode */
  struct {
    const char* what;
    size_t at;
    uint64_t value;
    unsigned width;
  } lies[] = {{"step 0", data_at, 0, 8},
              {"step NaN", data_at, UINT64_C(0x7ff8000000000000), 8},
              {"step huge", data_at, UINT64_C(0x7fefffffffffffff), 8},
              {"step 3 eb", data_at, 0, 8},
              {"predictor 0", data_at + 8, 0, 1},
              {"predictor 6", data_at + 8, 6, 1},
              {"runs 2", data_at + 9, 2, 1},
              {"reserved 1", data_at + 10, 1, 1},
              {"codebook of 0 bytes", data_at + 12, 0, 4},
              {"codebook longer than the section", data_at + 12, 1u << 20, 4},
              {"codebook one byte short", data_at + 12, UINT64_MAX, 4},
              {"error bound 0", 48, 0, 8},
              {"error bound -1", 48, UINT64_C(0xbff0000000000000), 8},
              {"predictor asked 7", 56, 7, 4}};
  for (size_t k = 0; k < sizeof lies / sizeof lies[0]; k++) {
    unsigned char* x = (unsigned char*)malloc(bytes);
    memcpy(x, c, bytes);
    uint64_t val = lies[k].value;
    if (k == 3) { /* three times the chunk's error bound */
      double eb, s;
      memcpy(&eb, c + 48, 8);
      s = 3 * eb;
      memcpy(&val, &s, 8);
    }
    if (k == 10) /* the codebook's length one less than it is */
      val = (uint64_t)(c[data_at + 12] | c[data_at + 13] << 8 | c[data_at + 14] << 16) - 1;
    for (unsigned b = 0; b < lies[k].width; b++)
      x[lies[k].at + b] = (unsigned char)(val >> (8 * b));
    /* the header's checksum over the head, as a writer that lies would compute it */
    parz_chunk_view pv;
    int rc = parz_chunk_parse(x, bytes, &pv, &err);
    if (rc == PARZ_ERR_CHECKSUM) {
      uint32_t crc = parz_crc32c(0, x, 108);
      crc = parz_crc32c(crc, x + 112, payload_at - 112);
      for (unsigned b = 0; b < 4; b++)
        x[108 + b] = (unsigned char)(crc >> (8 * b));
    }
    rc = parz_chunk_decode(x, bytes, out, n * 4, &err);
    CHECK(rc == PARZ_ERR_FORMAT || rc == PARZ_ERR_STREAM, "codec data lie '%s' gave status %d (%s)",
          lies[k].what, rc, rc ? err.message : "decoded");
    free(x);
  }
  /* a codebook that lies (span 0) in a chunk whose payload fails its checksum: the serial decoder
   * checks the checksums before it reads the codebook, and the OpenMP decoder, whose team checks
   * them while one thread reads the codebook, reports the checksum's error too */
  for (int threads = 2; threads <= 4; threads += 2) {
    unsigned char* x = (unsigned char*)malloc(bytes);
    parz_error perr;
    memcpy(x, c, bytes);
    x[data_at + 16] = 0; /* the codebook's span, a varint */
    uint32_t crc = parz_crc32c(0, x, 108);
    crc = parz_crc32c(crc, x + 112, payload_at - 112);
    for (unsigned b = 0; b < 4; b++)
      x[108 + b] = (unsigned char)(crc >> (8 * b));
    int rc = parz_chunk_decode(x, bytes, out, n * 4, &err);
    CHECK(rc == PARZ_ERR_STREAM && strstr(err.message, "span 0"), "codebook of span 0: %d (%s)", rc,
          rc ? err.message : "decoded");
    x[bytes - 1] ^= 1; /* the last partition's payload */
    rc = parz_chunk_decode(x, bytes, out, n * 4, &err);
    int prc = parz_omp_chunk_decode(x, bytes, par, n * 4, threads, &perr);
    CHECK(rc == PARZ_ERR_CHECKSUM && prc == rc && strcmp(perr.message, err.message) == 0,
          "lying codebook, payload flipped, %d threads: OpenMP decode gave %d '%s', serial %d '%s'",
          threads, prc, prc ? perr.message : "", rc, rc ? err.message : "");
    free(x);
  }
  free(v), free(out), free(par), free(c);
}

/* A chunk of zeros: each segment one run symbol, the fewest bits a segment can take, which the
 * parser accepts; the same chunk saying it has no run symbols claims more values than its
 * payload can hold, and the parser refuses it before anything is allocated. */
static void fewest_bits(void) {
  parz_array a;
  memset(&a, 0, sizeof a);
  a.type = PARZ_FLOAT;
  a.dims = 2;
  a.shape[0] = 256;
  a.shape[1] = 256;
  float* v = (float*)calloc(256 * 256, 4);
  unsigned char* c = NULL;
  size_t bytes = one_chunk("zeros", &a, v, 1e-3, NULL, &c);
  parz_chunk_view view;
  parz_error err;
  int rc = bytes ? parz_chunk_parse(c, bytes, &view, &err) : PARZ_ERR_ARG;
  CHECK(rc == PARZ_OK, "chunk of zeros not parsed: %s", rc ? err.message : "");
  if (rc == PARZ_OK) {
    /* 64 segments of 1024 codes, each one run of 1024: a 1-bit code word and 10 length bits */
    CHECK(view.nsegments == 64 && view.payload_bits == 64 * 11,
          "chunk of zeros in %llu segments of %llu bits, not 64 of 11",
          (unsigned long long)view.nsegments, (unsigned long long)view.payload_bits);
    const size_t runs_at = (size_t)(view.codec_data - c) + 9,
                 payload_at = (size_t)(view.payload - c);
    CHECK(c[runs_at] == 1, "chunk of zeros without run symbols");
    c[runs_at] = 0;
    uint32_t crc = parz_crc32c(0, c, 108);
    crc = parz_crc32c(crc, c + 112, payload_at - 112);
    for (unsigned b = 0; b < 4; b++)
      c[108 + b] = (unsigned char)(crc >> (8 * b));
    rc = parz_chunk_parse(c, bytes, &view, &err);
    CHECK(rc == PARZ_ERR_FORMAT, "65536 codes without runs in 704 bits gave status %d (%s)", rc,
          rc ? err.message : "parsed");
  }
  free(v), free(c);
}

/* Every real array in slabs of about 1 MiB along its first dimension (the last slab the rest):
 * both bounds relative to its range, fill values (|x| >= 1e9) given as the fill value. */
static void real(const char* dir) {
  size_t na = 0;
  real_array* arr = real_arrays_load(dir, 0, &na);
  CHECK(arr != NULL && na > 0, "no arrays in %s", dir);
  for (size_t i = 0; i < na; i++) {
    real_array* r = &arr[i];
    const size_t w = parz_type_size(r->array.type), n = r->bytes / w;
    const void* fill = NULL;
    for (size_t j = 0; j < n && !fill; j++)
      if (isfinite(get(r->data, r->array.type, j)) && fabs(get(r->data, r->array.type, j)) >= 1e9)
        fill = (const unsigned char*)r->data + j * w;
    size_t slice = n / r->array.shape[0] * w, per = ((size_t)1 << 20) / slice;
    per = per ? per : 1;
    for (int e = 0; e < 2; e++) {
      double eb = (e ? 1e-5 : 1e-3) * real_array_value_range(r);
      size_t total = 0;
      for (size_t s0 = 0; s0 < r->array.shape[0]; s0 += per) {
        parz_array a = r->array;
        a.shape[0] = s0 + per < r->array.shape[0] ? per : r->array.shape[0] - s0;
        char what[96];
        snprintf(what, sizeof what, "%s slab %zu eb %g", r->name, s0, eb);
        total += one_chunk(what, &a, (const unsigned char*)r->data + s0 * slice, eb, fill, NULL);
      }
      printf("%s: eb %.3g x range, ratio %.2f\n", r->name, e ? 1e-5 : 1e-3,
             (double)r->bytes / (double)total);
    }
  }
  real_arrays_free(arr, na);
}

/* The OpenMP encoder's team work: Lorenzo's holes filled plane by plane (planes claimed in order,
 * a row after the plane before has finished it), the predictors' trials cut into parts on the
 * team, the codebook's counts merged and its two codes' lengths built on the team. Its chunk is
 * byte for byte the serial encoder's on 2 to 16 threads, for arrays of 3 and 4 dimensions with
 * regions of the fill value, Lorenzo asked for and the predictor chosen. */
static void team_encode(void) {
  static const size_t shapes[][5] = {{3, 24, 40, 300}, {4, 3, 5, 30, 400}, {3, 2, 200, 700}};
  static const int threads[] = {2, 3, 4, 7, 16};
  const float fill = -1e10f;
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
    parz_array a;
    memset(&a, 0, sizeof a);
    a.type = PARZ_FLOAT;
    a.dims = (unsigned)shapes[si][0];
    for (unsigned k = 0; k < a.dims; k++)
      a.shape[k] = shapes[si][k + 1];
    const size_t n = parz_array_count(&a), last = a.shape[a.dims - 1];
    float* v = (float*)malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) {
      const size_t x = i % last, row = i / last;
      v[i] = (float)(20 * sin(0.01 * (double)x) * cos(0.05 * (double)row) +
                     1e-2 * (double)(xorshift_next() % 100));
      /* land: blobs across rows and planes, and scattered single values */
      if ((x / 37 + row / 11) % 3 == 0 || xorshift_next() % 10 == 0)
        v[i] = fill;
    }
    for (unsigned pred = 0; pred <= 1; pred++) {
      parz_chunk_config cfg = config(1e-3, &fill, 4);
      size_t cap = parz_chunk_bound(&a, &cfg), bytes = 0;
      unsigned char* c = (unsigned char*)malloc(cap);
      unsigned char* o = (unsigned char*)malloc(cap);
      parz_error err;
      cfg.settings.predictor = pred;
      int rc = parz_chunk_encode(&a, v, &cfg, c, cap, &bytes, &err);
      CHECK(rc == PARZ_OK, "team encode, rank %u: serial: %s", a.dims, err.message);
      for (size_t t = 0; rc == PARZ_OK && t < sizeof threads / sizeof threads[0]; t++) {
        size_t obytes = 0;
        int orc = parz_omp_chunk_encode(&a, v, &cfg, o, cap, &obytes, threads[t], &err);
        CHECK(orc == PARZ_OK && obytes == bytes && memcmp(o, c, bytes) == 0,
              "team encode, rank %u, predictor %u, %d threads: %zu bytes against the serial "
              "%zu%s%s",
              a.dims, pred, threads[t], obytes, bytes, orc ? ": " : "", orc ? err.message : "");
      }
      free(c), free(o);
    }
    free(v);
  }
}

int main(int argc, char** argv) {
  crafted();
  uniform_chunks();
  team_encode();
  arguments();
  hostile();
  fewest_bits();
  if (argc > 1)
    real(argv[1]);
  return test_finish("test_bounded_chunk");
}
