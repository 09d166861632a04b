/* Peer: libzfp 1.0 serial, called as a library with ParZ's own expert parameters, so both write
 * the same stream and the comparison is pure execution speed. Built only when libzfp is found
 * (PARZ_BENCH_HAVE_ZFP); nothing else in ParZ links libzfp. */
#include <stdlib.h>

#include "bench.h"

#ifdef PARZ_BENCH_HAVE_ZFP
#include <zfp.h>

struct bench_zfp {
  const bench_data* d;
  zfp_field* field; /* over d->data (encode) */
  zfp_field* out;   /* over decoded (decode) */
  zfp_stream* zs;
  bitstream* bs;
  void* buf;
  size_t cap, used;
  void* decoded;
};

int bench_zfp_available(void) { return 1; }

static zfp_field* make_field(const bench_data* d, void* data) {
  zfp_type t = d->array.type == PARZ_FLOAT ? zfp_type_float : zfp_type_double;
  const size_t* s = d->array.shape;
  /* zfp's x is the fastest (last C-order) dimension */
  switch (d->array.dims) {
    case 1: return zfp_field_1d(data, t, s[0]);
    case 2: return zfp_field_2d(data, t, s[1], s[0]);
    case 3: return zfp_field_3d(data, t, s[2], s[1], s[0]);
    default: return zfp_field_4d(data, t, s[3], s[2], s[1], s[0]);
  }
}

bench_zfp* bench_zfp_create(const bench_data* d, const bench_setting* s, bench_quality* q) {
  bench_zfp* z = (bench_zfp*)calloc(1, sizeof *z);
  if (!z)
    return NULL;
  z->d = d;
  z->decoded = malloc(d->bytes);
  z->field = make_field(d, d->data);
  z->out = make_field(d, z->decoded);
  z->zs = zfp_stream_open(NULL);
  if (!z->decoded || !z->field || !z->out || !z->zs ||
      !zfp_stream_set_params(z->zs, s->params.minbits, s->params.maxbits, s->params.maxprec,
                             s->params.minexp))
    goto fail;
  z->cap = zfp_stream_maximum_size(z->zs, z->field);
  z->buf = malloc(z->cap);
  if (!z->buf || !(z->bs = stream_open(z->buf, z->cap)))
    goto fail;
  zfp_stream_set_bit_stream(z->zs, z->bs);
  bench_touch(z->decoded, d->bytes);
  if (bench_zfp_encode(z) < 0 || bench_zfp_decode(z) < 0)
    goto fail;
  q->compressed_bytes = (double)z->used;
  q->payload_bytes = (double)z->used;
  q->table_bytes = -1;
  bench_errors(&d->array, d->data, z->decoded, d->range, q);
  return z;
fail:
  bench_zfp_free(z);
  return NULL;
}

double bench_zfp_encode(void* ctx) {
  bench_zfp* z = (bench_zfp*)ctx;
  double t0 = bench_now();
  zfp_stream_rewind(z->zs);
  z->used = zfp_compress(z->zs, z->field);
  return z->used ? bench_now() - t0 : -1;
}

double bench_zfp_decode(void* ctx) {
  bench_zfp* z = (bench_zfp*)ctx;
  double t0 = bench_now();
  zfp_stream_rewind(z->zs);
  return zfp_decompress(z->zs, z->out) ? bench_now() - t0 : -1;
}

void bench_zfp_free(bench_zfp* z) {
  if (!z)
    return;
  if (z->zs)
    zfp_stream_close(z->zs);
  if (z->bs)
    stream_close(z->bs);
  if (z->field)
    zfp_field_free(z->field);
  if (z->out)
    zfp_field_free(z->out);
  free(z->buf);
  free(z->decoded);
  free(z);
}

#else /* no libzfp: the peer is reported as missing */

int bench_zfp_available(void) { return 0; }
bench_zfp* bench_zfp_create(const bench_data* d, const bench_setting* s, bench_quality* q) {
  (void)d, (void)s, (void)q;
  return NULL;
}
double bench_zfp_encode(void* z) {
  (void)z;
  return -1;
}
double bench_zfp_decode(void* z) {
  (void)z;
  return -1;
}
void bench_zfp_free(bench_zfp* z) { (void)z; }

#endif
