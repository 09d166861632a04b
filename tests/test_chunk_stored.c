/* Stored chunks (codec 2, codec/FORMAT.md "Stored chunks"): with stored chunks on, a chunk its
 * encoding would make larger than the chunk of its values is that chunk, and every other chunk
 * is the zfp chunk the encoder writes with them off; no chunk is larger than the stored one, and
 * a destination of parz_chunk_bound always holds it. Stored chunks decode to every bit of the
 * values (NaN payloads, -0.0, Inf, subnormals), whole, by segments and into windows; their
 * checksums catch a flipped payload bit; a header that breaks a stored chunk's rules is refused.
 * Every type, rank and mode, strided sources, checksums on and off. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.h"
#include "stored.h"
#include "table_endian.h"
#include "test_chunk_common.h"

/* Values no mode encodes smaller than they are: random bit patterns (NaN, Inf and subnormals
 * among them), or with `inf`, mostly infinities. */
static void* hostile_data(const parz_array* a, int inf, uint64_t seed) {
  const size_t n = test_count(a), size = parz_type_size(a->type);
  unsigned char* d = malloc(n * size);
  uint64_t r = seed * 0x9E3779B97F4A7C15ull + 1;
  size_t i;
  for (i = 0; i < n; i++) {
    uint64_t bits;
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    bits = r;
    if (inf && i % 7) /* +-Inf */
      bits = size == 4 ? (bits & 0x80000000u) | 0x7f800000u
                       : (bits & 0x8000000000000000ull) | 0x7ff0000000000000ull;
    memcpy(d + i * size, &bits, size);
  }
  return d;
}

static unsigned cases_stored, cases_zfp;

/* One array under one configuration: the rule and the values. */
static void check_case(const parz_array* a, const void* data, const parz_chunk_config* base,
                       const char* what) {
  parz_chunk_config on = *base, off = *base;
  const size_t raw = test_count(a) * parz_type_size(a->type);
  const size_t stored = parz_stored_bytes(a, base);
  size_t n_on = 0, n_off = 0;
  unsigned char *c_on, *c_off, *back = malloc(raw), *exact;
  parz_chunk_view v;
  parz_error e;
  on.stored = PARZ_STORED_WHEN_SMALLER;
  off.stored = PARZ_STORED_NEVER;
  c_on = test_encode(a, data, &on, &n_on);
  c_off = test_encode(a, data, &off, &n_off);
  CHECK(c_on && c_off, "%s: encode", what);
  if (!c_on || !c_off) {
    free(c_on), free(c_off), free(back);
    return;
  }
  CHECK(parz_chunk_parse(c_on, n_on, &v, &e) == PARZ_OK, "%s: parse: %s", what, e.message);
  if (n_off > stored) {
    cases_stored++;
    CHECK(v.codec == PARZ_CODEC_STORED && n_on == stored, "%s: %zu bytes encoded, %zu stored: %s",
          what, n_off, stored, v.codec == PARZ_CODEC_STORED ? "size" : "not stored");
  } else {
    cases_zfp++;
    CHECK(v.codec == PARZ_CODEC_ZFP && n_on == n_off && !memcmp(c_on, c_off, n_on),
          "%s: %zu bytes encoded, %zu stored: the zfp chunk must stay", what, n_off, stored);
  }
  CHECK(n_on <= parz_chunk_bound(a, &on) && parz_chunk_bound(a, &on) <= stored &&
            parz_chunk_bound_data(a, data, &on) == parz_chunk_bound(a, &on),
        "%s: %zu bytes, bounds %zu and %zu, stored %zu", what, n_on, parz_chunk_bound(a, &on),
        parz_chunk_bound_data(a, data, &on), stored);
  /* a destination of the bound, and of the chunk's exact size, hold it; one byte less does not */
  exact = malloc(parz_chunk_bound(a, &on));
  if (exact) {
    size_t w = 0;
    int rc = parz_chunk_encode(a, data, &on, exact, parz_chunk_bound(a, &on), &w, &e);
    CHECK(rc == PARZ_OK && w == n_on && !memcmp(exact, c_on, w), "%s: at the bound: %s", what,
          rc ? e.message : "other bytes");
    rc = parz_chunk_encode(a, data, &on, exact, n_on, &w, &e);
    CHECK(rc == PARZ_OK && w == n_on && !memcmp(exact, c_on, w), "%s: exact destination: %s", what,
          rc ? e.message : "other bytes");
    rc = parz_chunk_encode(a, data, &on, exact, n_on - 1, &w, &e);
    CHECK(rc == PARZ_ERR_BUFFER, "%s: one byte short gave %d", what, rc);
    free(exact);
  }
  if (v.codec == PARZ_CODEC_STORED && back) {
    /* every bit back, whole and segment by segment (here the array is contiguous, or its
     * contiguous copy is what `data` strides over: compare value by value) */
    const size_t size = parz_type_size(a->type);
    size_t i;
    int rc = parz_chunk_decode(c_on, n_on, back, raw, &e);
    CHECK(rc == PARZ_OK, "%s: decode: %s", what, e.message);
    for (i = 0; rc == PARZ_OK && i < test_count(a); i++) {
      size_t at = i, k, x = i;
      ptrdiff_t off_el = 0;
      int strided = 0;
      for (k = 0; k < a->dims; k++)
        strided |= a->stride[k] != 0;
      if (strided) {
        for (k = a->dims; k-- > 0;) {
          off_el += (ptrdiff_t)(x % a->shape[k]) * a->stride[k];
          x /= a->shape[k];
        }
        at = (size_t)off_el;
      }
      if (memcmp(back + i * size, (const unsigned char*)data + at * size, size)) {
        CHECK(0, "%s: value %zu differs", what, i);
        break;
      }
    }
    memset(back, 0, raw);
    for (i = v.nsegments; i-- > 0;)
      CHECK(parz_chunk_decode_segments(&v, back, i, 1, &e) == PARZ_OK, "%s: segment %zu: %s", what,
            i, e.message);
    {
      unsigned char* whole = malloc(raw);
      if (whole && parz_chunk_decode(c_on, n_on, whole, raw, &e) == PARZ_OK)
        CHECK(!memcmp(whole, back, raw), "%s: segment-wise decode differs", what);
      free(whole);
    }
  }
  free(c_on);
  free(c_off);
  free(back);
}

/* A window of a stored chunk decodes to the window's values, and a flipped payload bit is
 * refused where the window reads it. */
static void check_windows(void) {
  parz_array a = test_array(PARZ_DOUBLE, 3, 9, 37, 300, 0); /* 99900 values: 25 segments */
  void* data = hostile_data(&a, 0, 5);
  parz_chunk_config cfg;
  parz_chunk_view v;
  parz_chunk_dest d;
  parz_error e;
  size_t n = 0, i, j, k;
  unsigned char* c;
  double* win = malloc(4 * 5 * 7 * sizeof *win);
  const double* x = (const double*)data;
  memset(&cfg, 0, sizeof cfg);
  parz_params_reversible(&cfg.params);
  cfg.stored = PARZ_STORED_WHEN_SMALLER;
  c = test_encode(&a, data, &cfg, &n);
  CHECK(c && parz_chunk_parse(c, n, &v, &e) == PARZ_OK && v.codec == PARZ_CODEC_STORED &&
            v.nsegments == 25 && v.nchecksums == 1,
        "window chunk: stored, 25 segments");
  if (!c || !win)
    return;
  memset(&d, 0, sizeof d);
  d.data = win;
  d.lo[0] = 3, d.hi[0] = 7;
  d.lo[1] = 30, d.hi[1] = 35;
  d.lo[2] = 290, d.hi[2] = 297;
  d.stride[0] = 35, d.stride[1] = 7, d.stride[2] = 1;
  CHECK(parz_chunk_decode_segments_to(&v, &d, 0, v.nsegments, &e) == PARZ_OK, "window: %s",
        e.message);
  for (i = 0; i < 4; i++)
    for (j = 0; j < 5; j++)
      for (k = 0; k < 7; k++) {
        const double want = x[((3 + i) * 37 + 30 + j) * 300 + 290 + k];
        CHECK(!memcmp(&win[i * 35 + j * 7 + k], &want, 8), "window value %zu,%zu,%zu", i, j, k);
      }
  /* a flip inside the window's rows: the checksum refuses it; the window's values are in
   * partition 0, the only one */
  c[v.payload - c + 8 * (((3 * 37 + 30) * 300 + 291))] ^= 4;
  CHECK(parz_chunk_parse(c, n, &v, &e) == PARZ_OK, "flipped payload still parses");
  CHECK(parz_chunk_decode_segments_to(&v, &d, 0, v.nsegments, &e) == PARZ_ERR_CHECKSUM,
        "flipped payload bit: %s", e.message);
  free(c);
  free(win);
  free(data);
}

/* Headers that break a stored chunk's rules: refused with PARZ_ERR_FORMAT, the checksum made
 * right so that the rule itself is what refuses them. */
static void check_hostile_headers(void) {
  static const struct {
    size_t at, bytes;
    uint64_t value;
    const char* what;
  } bad[] = {{48, 4, 31, "minbits 31"},
             {52, 4, 64, "maxbits 64"},
             {56, 4, 1, "maxprec 1"},
             {60, 4, 1, "minexp 1"},
             {12, 1, 4, "table kind HYBRID"},
             {64, 4, 0, "C 0"},
             {68, 4, 1, "P 1"},
             {96, 8, 191, "payload bits 191"},
             {4, 2, 1, "format version 1"},
             {6, 2, 3, "codec 3 (unknown)"}};
  parz_array a = test_array(PARZ_FLOAT, 2, 2, 3, 0, 0);
  const uint32_t vals[6] = {0x7fc00001u, 0x80000000u, 0x7f800000u, 1u, 0x7f7fffffu, 0x3fc00000u};
  parz_chunk_config cfg;
  parz_chunk_view v;
  parz_error e;
  size_t n = 0, i;
  unsigned char* c;
  memset(&cfg, 0, sizeof cfg);
  parz_params_reversible(&cfg.params);
  cfg.stored = PARZ_STORED_WHEN_SMALLER;
  c = test_encode(&a, vals, &cfg, &n);
  CHECK(c && n == 168, "the six values: a stored chunk of 168 bytes");
  if (!c)
    return;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    unsigned char* h = malloc(n);
    int rc;
    uint32_t crc;
    memcpy(h, c, n);
    if (bad[i].bytes == 1)
      h[bad[i].at] = (unsigned char)bad[i].value;
    else if (bad[i].bytes == 2)
      parz_store16(h + bad[i].at, (uint16_t)bad[i].value);
    else if (bad[i].bytes == 4)
      parz_store32(h + bad[i].at, (uint32_t)bad[i].value);
    else
      parz_store64(h + bad[i].at, bad[i].value);
    crc = parz_crc32c(0, h, 108);
    crc = parz_crc32c(crc, h + 112, 144 - 112);
    parz_store32(h + 108, crc);
    rc = parz_chunk_parse(h, n, &v, &e);
    CHECK(rc == PARZ_ERR_FORMAT || rc == PARZ_ERR_VERSION, "%s: parse gave %d", bad[i].what, rc);
    free(h);
  }
  free(c);
}

int main(void) {
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  static const size_t shapes[4][4] = {
      {5000, 0, 0, 0}, {61, 70, 0, 0}, {9, 13, 40, 0}, {3, 5, 6, 29}};
  size_t t, r, m, kind, ck;
  for (t = 0; t < 4; t++)
    for (r = 0; r < 4; r++)
      for (m = 0; m < TEST_MODES; m++)
        for (kind = 0; kind < 3; kind++)
          for (ck = 0; ck < 2; ck++) {
            parz_array a = test_array(types[t], (unsigned)r + 1, shapes[r][0], shapes[r][1],
                                      shapes[r][2], shapes[r][3]);
            parz_chunk_config cfg;
            char what[160];
            void* data =
                kind == 2 ? test_data(&a, 3) : hostile_data(&a, kind == 1, 11 * t + 3 * r + m + 1);
            memset(&cfg, 0, sizeof cfg);
            cfg.params = test_params((int)m, types[t], (unsigned)r + 1);
            cfg.checksum = ck ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_DEFAULT;
            snprintf(what, sizeof what, "%s %zuD %s %s checksums %s", parz_type_name(types[t]),
                     r + 1, test_mode_name((int)m),
                     kind == 0   ? "random bits"
                     : kind == 1 ? "mostly Inf"
                                 : "smooth",
                     ck ? "off" : "on");
            if (kind == 1 && (types[t] == PARZ_INT32 || types[t] == PARZ_INT64)) {
              free(data);
              continue; /* the same as random bits for integers */
            }
            check_case(&a, data, &cfg, what);
            /* a strided view of a larger array: every other value of the last dimension */
            if (kind == 0 && m == 4 && !ck) {
              parz_array big = a, view = a;
              void* wide;
              size_t k;
              ptrdiff_t s = 1;
              big.shape[r] *= 2;
              wide = hostile_data(&big, 0, 77);
              view.stride[r] = 2;
              for (k = r; k-- > 0;)
                view.stride[k] = s *= (ptrdiff_t)big.shape[k + 1];
              strncat(what, ", strided", sizeof what - strlen(what) - 1);
              check_case(&view, wide, &cfg, what);
              free(wide);
            }
            free(data);
          }
  printf("%u cases stored, %u kept as zfp chunks\n", cases_stored, cases_zfp);
  CHECK(cases_stored > 100 && cases_zfp > 100, "both kinds of chunk among the cases");
  check_windows();
  check_hostile_headers();
  return test_finish("test_chunk_stored");
}
