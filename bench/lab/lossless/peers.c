/* The peers, measured in the same run as the candidates (benchmark oracles only): byte shuffle +
 * zlib level 6 (HDF5's shuffle + deflate), blosc with zstd or lz4 after its byte shuffle,
 * bitshuffle (Debian's HDF5 plugin library, loaded at run time for its bit transposition and
 * its lz4 framing) with zstd or lz4, fpzip lossless and zfp's reversible mode. Each codes the
 * whole array in one call on one thread. */
#include <blosc.h>
#include <dlfcn.h>
#include <fpzip.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zfp.h>
#include <zlib.h>
#include <zstd.h>

#include "lab.h"

static size_t elem(const lab_array* a) { return a->f64 ? 8 : 4; }

static void shuffle(const uint8_t* in, uint8_t* out, size_t n, size_t e) {
  for (size_t b = 0; b < e; b++)
    for (size_t i = 0; i < n; i++)
      out[b * n + i] = in[i * e + b];
}
static void unshuffle(const uint8_t* in, uint8_t* out, size_t n, size_t e) {
  for (size_t b = 0; b < e; b++)
    for (size_t i = 0; i < n; i++)
      out[i * e + b] = in[b * n + i];
}

static size_t gzip_encode(const lab_array* a, uint8_t* out, size_t cap, const void* arg) {
  (void)arg;
  uint8_t* tmp = malloc(a->bytes);
  uLongf len = cap;
  shuffle(a->data, tmp, a->n, elem(a));
  int rc = compress2(out, &len, tmp, a->bytes, 6);
  free(tmp);
  return rc == Z_OK ? len : 0;
}
static int gzip_decode(const uint8_t* in, size_t n, const lab_array* a, void* out,
                       const void* arg) {
  (void)arg;
  uint8_t* tmp = malloc(a->bytes);
  uLongf len = a->bytes;
  int rc = uncompress(tmp, &len, in, n);
  if (rc == Z_OK)
    unshuffle(tmp, out, a->n, elem(a));
  free(tmp);
  return rc != Z_OK || len != a->bytes;
}

typedef struct {
  const char* compressor;
  int shuffle;
} blosc_arg;

static size_t blosc_encode(const lab_array* a, uint8_t* out, size_t cap, const void* arg) {
  const blosc_arg* b = arg;
  int len =
      blosc_compress_ctx(5, b->shuffle, elem(a), a->bytes, a->data, out, cap, b->compressor, 0, 1);
  return len > 0 ? (size_t)len : 0;
}
static int blosc_decode(const uint8_t* in, size_t n, const lab_array* a, void* out,
                        const void* arg) {
  (void)arg;
  (void)n;
  return blosc_decompress_ctx(in, out, a->bytes, 1) != (int)a->bytes;
}

/* Debian ships bitshuffle as an HDF5 plugin and a Python module, not as a C library. */
typedef int64_t (*bshuf_fn)(const void*, void*, size_t, size_t, size_t);
static bshuf_fn bshuf_shuffle, bshuf_unshuffle, bshuf_lz4, bshuf_unlz4;
static size_t (*bshuf_lz4_bound)(size_t, size_t, size_t);

static int bshuf_load(void) {
  static int state = 0;
  if (state)
    return state > 0;
  void* h = dlopen("/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins/libh5bshuf.so", RTLD_NOW);
  if (h) {
    bshuf_shuffle = (bshuf_fn)dlsym(h, "bshuf_bitshuffle");
    bshuf_unshuffle = (bshuf_fn)dlsym(h, "bshuf_bitunshuffle");
    bshuf_lz4 = (bshuf_fn)dlsym(h, "bshuf_compress_lz4");
    bshuf_unlz4 = (bshuf_fn)dlsym(h, "bshuf_decompress_lz4");
    *(void**)&bshuf_lz4_bound = dlsym(h, "bshuf_compress_lz4_bound");
  }
  state = bshuf_shuffle && bshuf_unshuffle && bshuf_lz4 && bshuf_unlz4 && bshuf_lz4_bound ? 1 : -1;
  return state > 0;
}

static size_t bszstd_encode(const lab_array* a, uint8_t* out, size_t cap, const void* arg) {
  (void)arg;
  if (!bshuf_load())
    return 0;
  uint8_t* tmp = malloc(a->bytes);
  size_t len = 0;
  if (bshuf_shuffle(a->data, tmp, a->n, elem(a), 0) >= 0) {
    len = ZSTD_compress(out, cap, tmp, a->bytes, 3);
    if (ZSTD_isError(len))
      len = 0;
  }
  free(tmp);
  return len;
}
static int bszstd_decode(const uint8_t* in, size_t n, const lab_array* a, void* out,
                         const void* arg) {
  (void)arg;
  uint8_t* tmp = malloc(a->bytes);
  size_t len = ZSTD_decompress(tmp, a->bytes, in, n);
  int bad = ZSTD_isError(len) || len != a->bytes || bshuf_unshuffle(tmp, out, a->n, elem(a), 0) < 0;
  free(tmp);
  return bad;
}
static size_t bslz4_encode(const lab_array* a, uint8_t* out, size_t cap, const void* arg) {
  (void)arg;
  if (!bshuf_load() || bshuf_lz4_bound(a->n, elem(a), 0) > cap)
    return 0;
  int64_t len = bshuf_lz4(a->data, out, a->n, elem(a), 0);
  return len > 0 ? (size_t)len : 0;
}
static int bslz4_decode(const uint8_t* in, size_t n, const lab_array* a, void* out,
                        const void* arg) {
  (void)arg;
  return bshuf_unlz4(in, out, a->n, elem(a), 0) != (int64_t)n;
}

/* fpzip takes at most three dimensions and a count of fields: the slowest of four is nf. */
static void fpzip_shape(const lab_array* a, FPZ* f) {
  size_t d[4] = {1, 1, 1, 1};
  for (int i = 0; i < a->ndim; i++)
    d[4 - a->ndim + i] = a->dims[i];
  f->nx = (int)d[3];
  f->ny = (int)d[2];
  f->nz = (int)d[1];
  f->nf = (int)d[0];
}
static size_t fpzip_encode(const lab_array* a, uint8_t* out, size_t cap, const void* arg) {
  (void)arg;
  FPZ* f = fpzip_write_to_buffer(out, cap);
  f->type = a->f64 ? FPZIP_TYPE_DOUBLE : FPZIP_TYPE_FLOAT;
  f->prec = 0;
  fpzip_shape(a, f);
  size_t len = fpzip_write_header(f) ? fpzip_write(f, a->data) : 0;
  fpzip_write_close(f);
  return len;
}
static int fpzip_decode(const uint8_t* in, size_t n, const lab_array* a, void* out,
                        const void* arg) {
  (void)arg;
  (void)a;
  (void)n;
  FPZ* f = fpzip_read_from_buffer(in);
  int ok = fpzip_read_header(f) && fpzip_read(f, out) != 0;
  fpzip_read_close(f);
  return !ok;
}

static zfp_field* zfp_shape(const lab_array* a, void* data) {
  zfp_type t = a->f64 ? zfp_type_double : zfp_type_float;
  const size_t* d = a->dims;
  switch (a->ndim) {
    case 1: return zfp_field_1d(data, t, d[0]);
    case 2: return zfp_field_2d(data, t, d[1], d[0]);
    case 3: return zfp_field_3d(data, t, d[2], d[1], d[0]);
    default: return zfp_field_4d(data, t, d[3], d[2], d[1], d[0]);
  }
}
static size_t zfp_encode(const lab_array* a, uint8_t* out, size_t cap, const void* arg) {
  (void)arg;
  zfp_field* field = zfp_shape(a, (void*)a->data);
  zfp_stream* z = zfp_stream_open(NULL);
  zfp_stream_set_reversible(z);
  size_t len = 0;
  if (zfp_stream_maximum_size(z, field) <= cap) {
    bitstream* s = stream_open(out, cap);
    zfp_stream_set_bit_stream(z, s);
    zfp_stream_rewind(z);
    len = zfp_compress(z, field);
    stream_close(s);
  }
  zfp_stream_close(z);
  zfp_field_free(field);
  return len;
}
static int zfp_decode(const uint8_t* in, size_t n, const lab_array* a, void* out, const void* arg) {
  (void)arg;
  zfp_field* field = zfp_shape(a, out);
  zfp_stream* z = zfp_stream_open(NULL);
  zfp_stream_set_reversible(z);
  bitstream* s = stream_open((void*)in, n);
  zfp_stream_set_bit_stream(z, s);
  zfp_stream_rewind(z);
  size_t done = zfp_decompress(z, field);
  stream_close(s);
  zfp_stream_close(z);
  zfp_field_free(field);
  return done == 0;
}

static const blosc_arg blosc_zstd = {"zstd", BLOSC_SHUFFLE}, blosc_lz4 = {"lz4", BLOSC_SHUFFLE};

size_t lab_peer_methods(lab_method* list, size_t count, size_t max) {
  const lab_method peers[] = {
      {"gzip6+shuffle", gzip_encode, gzip_decode, NULL, 0},
      {"blosc-zstd5+shuffle", blosc_encode, blosc_decode, &blosc_zstd, 0},
      {"blosc-lz4-5+shuffle", blosc_encode, blosc_decode, &blosc_lz4, 0},
      {"bitshuffle+zstd3", bszstd_encode, bszstd_decode, NULL, 0},
      {"bitshuffle+lz4", bslz4_encode, bslz4_decode, NULL, 0},
      {"fpzip", fpzip_encode, fpzip_decode, NULL, 0},
      {"zfp-reversible", zfp_encode, zfp_decode, NULL, 0},
  };
  for (size_t i = 0; i < sizeof peers / sizeof *peers && count < max; i++)
    list[count++] = peers[i];
  return count;
}
