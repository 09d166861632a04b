#include "test_chunk_common.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zfp.h>

parz_array test_array(parz_type type, unsigned dims, size_t n0, size_t n1, size_t n2, size_t n3) {
  parz_array a;
  memset(&a, 0, sizeof a);
  a.type = type;
  a.dims = dims;
  a.shape[0] = n0;
  a.shape[1] = n1;
  a.shape[2] = n2;
  a.shape[3] = n3;
  return a;
}

size_t test_count(const parz_array* a) {
  size_t n = 1;
  unsigned k;
  for (k = 0; k < a->dims; k++)
    n *= a->shape[k];
  return n;
}

void* test_data(const parz_array* a, unsigned seed) {
  size_t n = test_count(a), i;
  void* data = malloc(n * parz_type_size(a->type));
  uint32_t r = seed * 2654435761u + 1;
  for (i = 0; i < n; i++) {
    double x = (double)i / (double)(n > 1 ? n - 1 : 1), v;
    r = r * 1664525u + 1013904223u;
    v = sin(7.0 * x + seed) * 100.0 + cos(31.0 * x) * 10.0 + ((double)(r >> 8) / 16777216.0 - 0.5);
    switch (a->type) {
      case PARZ_FLOAT: ((float*)data)[i] = (float)v; break;
      case PARZ_DOUBLE: ((double*)data)[i] = v; break;
      case PARZ_INT32: ((int32_t*)data)[i] = (int32_t)(v * 8192.0); break;
      case PARZ_INT64: ((int64_t*)data)[i] = (int64_t)(v * 8192.0); break;
    }
  }
  return data;
}

static zfp_field* oracle_field(const parz_array* a, const void* data) {
  zfp_type t = (zfp_type)a->type; /* parz_type numbers equal zfp_type's */
  void* p = (void*)data;
  const size_t* s = a->shape;
  switch (a->dims) {
    case 1: return zfp_field_1d(p, t, s[0]);
    case 2: return zfp_field_2d(p, t, s[1], s[0]);
    case 3: return zfp_field_3d(p, t, s[2], s[1], s[0]);
    default: return zfp_field_4d(p, t, s[3], s[2], s[1], s[0]);
  }
}

void* zfp_oracle_compress(const parz_array* a, const void* data, const parz_params* p,
                          size_t* bytes) {
  zfp_field* f = oracle_field(a, data);
  zfp_stream* z = zfp_stream_open(NULL);
  size_t cap, n;
  void* buf;
  bitstream* bs;
  zfp_stream_set_params(z, p->minbits, p->maxbits, p->maxprec, p->minexp);
  cap = zfp_stream_maximum_size(z, f);
  buf = calloc(1, cap);
  bs = stream_open(buf, cap);
  zfp_stream_set_bit_stream(z, bs);
  zfp_stream_rewind(z);
  n = zfp_compress(z, f);
  zfp_field_free(f);
  zfp_stream_close(z);
  stream_close(bs);
  *bytes = n;
  return buf;
}

void* zfp_oracle_decompress(const parz_array* a, const void* stream, size_t bytes,
                            const parz_params* p) {
  void* out = calloc(test_count(a), parz_type_size(a->type));
  zfp_field* f = oracle_field(a, out);
  zfp_stream* z = zfp_stream_open(NULL);
  bitstream* bs = stream_open((void*)stream, bytes);
  zfp_stream_set_params(z, p->minbits, p->maxbits, p->maxprec, p->minexp);
  zfp_stream_set_bit_stream(z, bs);
  zfp_stream_rewind(z);
  if (!zfp_decompress(z, f)) {
    free(out);
    out = NULL;
  }
  zfp_field_free(f);
  zfp_stream_close(z);
  stream_close(bs);
  return out;
}

int test_payload_is_zfp(const unsigned char* payload, size_t payload_bytes, const void* z,
                        size_t zbytes) {
  size_t i;
  if (payload_bytes != (zbytes + 7) / 8 * 8 || memcmp(payload, z, zbytes))
    return 0;
  for (i = zbytes; i < payload_bytes; i++)
    if (payload[i])
      return 0;
  return 1;
}

const char* test_mode_name(int m) {
  static const char* names[TEST_MODES] = {"rate", "precision", "accuracy", "expert", "reversible"};
  return names[m];
}

parz_params test_params(int m, parz_type type, unsigned dims) {
  parz_params p;
  memset(&p, 0, sizeof p);
  switch (m) {
    case 0: parz_params_rate(&p, 12.0, type, dims, NULL, NULL); break;
    case 1: parz_params_precision(&p, 20, NULL); break;
    case 2:
      parz_params_accuracy(&p, type == PARZ_FLOAT || type == PARZ_DOUBLE ? 1e-3 : 4.0, NULL, NULL);
      break;
    case 3:
      /* minbits padding, a maxbits that cuts 3-D and 4-D blocks short, more planes than float32
       * has; in 1-D and 2-D float32 the bound of 2^-16, which leaves room for every plane of
       * test_data's values (below 2^7): no block at risk, so the payload stays libzfp's stream
       * of the array (test_chunk_limits and test_chunk_mask cover blocks at risk) */
      parz_params_expert(&p, 8, 600, 40, -16, NULL);
      break;
    default: parz_params_reversible(&p); break;
  }
  return p;
}

unsigned char* test_encode(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                           size_t* bytes) {
  size_t cap = parz_chunk_bound_data(a, data, cfg), n = 0;
  unsigned char* buf;
  parz_error err;
  if (!cap)
    return NULL;
  buf = (unsigned char*)malloc(cap);
  if (parz_chunk_encode(a, data, cfg, buf, cap, &n, &err) != PARZ_OK) {
    fprintf(stderr, "parz_chunk_encode: %s\n", err.message);
    free(buf);
    return NULL;
  }
  *bytes = n;
  return buf;
}
