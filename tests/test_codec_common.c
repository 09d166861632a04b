/* Shared helpers of the codec tests (see test_codec_common.h). */
#include "test_codec_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zfp.h>

uint64_t tc_rand(uint64_t* s) {
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * UINT64_C(2685821657736338717);
}

double tc_uniform(uint64_t* s) { return (double)(tc_rand(s) >> 11) * (1.0 / 9007199254740992.0); }

const char* tc_kind_name(int kind) {
  static const char* names[TC_KINDS] = {"smooth", "noisy", "bits", "mixed", "ints", "subnormal"};
  return kind >= 0 && kind < TC_KINDS ? names[kind] : "?";
}

static double tc_value(int kind, size_t i, size_t n, uint64_t* s) {
  double t = (double)i / (double)(n ? n : 1);
  switch (kind) {
    case 0: return 100.0 * sin(40.0 * t) + 3.0 * cos(7.0 * t * t);
    case 1: return 1000.0 * (tc_uniform(s) - 0.5) + 20.0 * sin(9.0 * t);
    case 3: {
      double m = tc_uniform(s) - 0.5;
      int e = (int)(tc_rand(s) % 120) - 60;
      return ldexp(m, (tc_rand(s) & 1) ? e : -e);
    }
    case 4: return (double)((int)(tc_rand(s) % 7) - 3) * ((tc_rand(s) & 3) ? 1.0 : 0.0);
    default: return 0.0;
  }
}

void tc_fill(parz_type type, void* data, size_t n, int kind, uint64_t* s) {
  size_t i;
  for (i = 0; i < n; i++) {
    uint64_t r = tc_rand(s);
    switch (type) {
      case PARZ_FLOAT: {
        float f;
        if (kind == 2) {
          uint32_t u = (uint32_t)r;
          if (((u >> 23) & 0xff) == 0xff)
            u &= ~(UINT32_C(1) << 30); /* keep it finite */
          memcpy(&f, &u, 4);
        } else if (kind == 5) {
          uint32_t u = (r & 3) ? (uint32_t)(r >> 20) & UINT32_C(0x807fffff) : 0;
          memcpy(&f, &u, 4);
        } else {
          f = (float)tc_value(kind, i, n, s);
        }
        ((float*)data)[i] = f;
        break;
      }
      case PARZ_DOUBLE: {
        double d;
        if (kind == 2) {
          uint64_t u = r;
          if (((u >> 52) & 0x7ff) == 0x7ff)
            u &= ~(UINT64_C(1) << 62);
          memcpy(&d, &u, 8);
        } else if (kind == 5) {
          uint64_t u = (r & 3) ? (r >> 7) & UINT64_C(0x800fffffffffffff) : 0;
          memcpy(&d, &u, 8);
        } else {
          d = tc_value(kind, i, n, s);
        }
        ((double*)data)[i] = d;
        break;
      }
      case PARZ_INT32: {
        int32_t v;
        if (kind == 2)
          v = (int32_t)(uint32_t)r;
        else if (kind == 5)
          v = (int32_t)((uint32_t)r >> 2) - (1 << 29); /* zfp's nominal range */
        else
          v = (int32_t)(tc_value(kind == 3 ? 1 : kind, i, n, s) * 1000.0);
        ((int32_t*)data)[i] = v;
        break;
      }
      case PARZ_INT64: {
        int64_t v;
        if (kind == 2)
          v = (int64_t)r;
        else if (kind == 5)
          v = (int64_t)(r >> 2) - (INT64_C(1) << 61);
        else
          v = (int64_t)(tc_value(kind == 3 ? 1 : kind, i, n, s) * 1e9);
        ((int64_t*)data)[i] = v;
        break;
      }
    }
  }
}

int tc_same_stream(const void* ours, size_t ours_bytes, const void* ref, size_t ref_bytes) {
  const unsigned char* o = (const unsigned char*)ours;
  size_t i;
  if (ours_bytes != (ref_bytes + 7) / 8 * 8 || memcmp(ours, ref, ref_bytes))
    return 0;
  for (i = ref_bytes; i < ours_bytes; i++)
    if (o[i])
      return 0;
  return 1;
}

static zfp_field* tc_field(const parz_array* a, void* data) {
  zfp_type t = (zfp_type)a->type;
  const size_t* s = a->shape;
  zfp_field* f = NULL;
  switch (a->dims) {
    case 1: f = zfp_field_1d(data, t, s[0]); break;
    case 2: f = zfp_field_2d(data, t, s[1], s[0]); break;
    case 3: f = zfp_field_3d(data, t, s[2], s[1], s[0]); break;
    case 4: f = zfp_field_4d(data, t, s[3], s[2], s[1], s[0]); break;
  }
  if (f) {
    const ptrdiff_t* st = a->stride;
    switch (a->dims) {
      case 1: zfp_field_set_stride_1d(f, st[0]); break;
      case 2: zfp_field_set_stride_2d(f, st[1], st[0]); break;
      case 3: zfp_field_set_stride_3d(f, st[2], st[1], st[0]); break;
      case 4: zfp_field_set_stride_4d(f, st[3], st[2], st[1], st[0]); break;
    }
  }
  return f;
}

size_t tc_zfp_compress(const parz_array* a, const void* data, const parz_params* p, void* out,
                       size_t cap) {
  zfp_field* f = tc_field(a, (void*)data);
  zfp_stream* z = zfp_stream_open(NULL);
  bitstream* bs = stream_open(out, cap);
  size_t n = 0;
  zfp_stream_set_bit_stream(z, bs);
  if (zfp_stream_set_params(z, p->minbits, p->maxbits, p->maxprec, p->minexp)) {
    zfp_stream_rewind(z);
    n = zfp_compress(z, f);
  }
  stream_close(bs);
  zfp_stream_close(z);
  zfp_field_free(f);
  return n;
}

int tc_zfp_decompress(const parz_array* a, void* data, const parz_params* p, const void* src,
                      size_t bytes) {
  zfp_field* f = tc_field(a, data);
  zfp_stream* z = zfp_stream_open(NULL);
  bitstream* bs = stream_open((void*)src, bytes);
  size_t n = 0;
  zfp_stream_set_bit_stream(z, bs);
  if (zfp_stream_set_params(z, p->minbits, p->maxbits, p->maxprec, p->minexp)) {
    zfp_stream_rewind(z);
    n = zfp_decompress(z, f);
  }
  stream_close(bs);
  zfp_stream_close(z);
  zfp_field_free(f);
  return n != 0;
}

static void tc_get(zfp_stream* z, parz_params* p) {
  zfp_stream_params(z, &p->minbits, &p->maxbits, &p->maxprec, &p->minexp);
}

int tc_zfp_mode(const parz_params* p) {
  zfp_stream* z = zfp_stream_open(NULL);
  int m;
  z->minbits = p->minbits;
  z->maxbits = p->maxbits;
  z->maxprec = p->maxprec;
  z->minexp = p->minexp;
  m = (int)zfp_stream_compression_mode(z);
  zfp_stream_close(z);
  return m;
}

void tc_zfp_rate(parz_params* p, double rate, parz_type type, unsigned dims, double* actual) {
  zfp_stream* z = zfp_stream_open(NULL);
  *actual = zfp_stream_set_rate(z, rate, (zfp_type)type, dims, zfp_false);
  tc_get(z, p);
  zfp_stream_close(z);
}

void tc_zfp_precision(parz_params* p, unsigned prec) {
  zfp_stream* z = zfp_stream_open(NULL);
  zfp_stream_set_precision(z, prec);
  tc_get(z, p);
  zfp_stream_close(z);
}

void tc_zfp_accuracy(parz_params* p, double tol, double* actual) {
  zfp_stream* z = zfp_stream_open(NULL);
  *actual = zfp_stream_set_accuracy(z, tol);
  tc_get(z, p);
  zfp_stream_close(z);
}

void tc_zfp_reversible(parz_params* p) {
  zfp_stream* z = zfp_stream_open(NULL);
  zfp_stream_set_reversible(z);
  tc_get(z, p);
  zfp_stream_close(z);
}

size_t tc_zfp_maximum_size(const parz_array* a, const parz_params* p) {
  zfp_field* f = tc_field(a, NULL);
  zfp_stream* z = zfp_stream_open(NULL);
  size_t n;
  zfp_stream_set_params(z, p->minbits, p->maxbits, p->maxprec, p->minexp);
  n = zfp_stream_maximum_size(z, f);
  zfp_stream_close(z);
  zfp_field_free(f);
  return n;
}

void* tc_read_file(const char* path, size_t* bytes) {
  FILE* f = fopen(path, "rb");
  void* buf;
  long n;
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = malloc(n > 0 ? (size_t)n : 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf && bytes)
    *bytes = (size_t)n;
  return buf;
}

int tc_parse_data_name(const char* name, parz_array* a) {
  const char* p = strstr(name, "_f32le_");
  const char* end;
  unsigned d = 0;
  memset(a, 0, sizeof *a);
  if (p) {
    a->type = PARZ_FLOAT;
  } else if ((p = strstr(name, "_f64le_"))) {
    a->type = PARZ_DOUBLE;
  } else {
    return 0;
  }
  p += 7;
  end = strstr(p, ".bin");
  if (!end)
    return 0;
  while (p < end && d < 4) {
    char* q;
    a->shape[d++] = strtoul(p, &q, 10);
    p = q;
    if (*p == 'x')
      p++;
  }
  a->dims = d;
  return p == end && d >= 1;
}

void tc_params_name(const parz_params* p, char* buf, size_t n) {
  snprintf(buf, n, "(minbits %u, maxbits %u, maxprec %u, minexp %d)", p->minbits, p->maxbits,
           p->maxprec, p->minexp);
}
