/* The codec core of codec/lossless/ as one more candidate, so that its ratio and speed sit in the
 * same table as the lab's variants and the peers: the transform byte, then each segment of C = 4
 * blocks (4D arrays as stacks of 3D fields) after its 4-byte little-endian size (where the frame's
 * table will hold it). */
#include <string.h>

#include "lab.h"
#include "lossless.h"
#include "parz_chunk.h"

#define CORE_C 4
/* 4D arrays as stacks of 3D fields (ccsm: ensemble members); fewer dimensions predicted whole */
#define CORE_P PARZ_LL_PREDICT_STACK

static parz_array core_array(const lab_array* a) {
  parz_array p;
  memset(&p, 0, sizeof p);
  p.type = a->f64 ? PARZ_DOUBLE : PARZ_FLOAT;
  p.dims = (unsigned)a->ndim;
  for (int i = 0; i < a->ndim; i++)
    p.shape[i] = a->dims[i];
  return p;
}

/* The 4-byte little-endian size of the piece at in[at] (len bytes in all) into *n; 0 where the
 * size or the piece passes the end. */
static int piece_size(const uint8_t* in, size_t len, size_t at, size_t* n) {
  *n = 0;
  if (at + 4 > len)
    return 0;
  for (int b = 0; b < 4; b++)
    *n |= (size_t)in[at + (size_t)b] << (8 * b);
  return *n <= len - at - 4;
}

static void put_size(uint8_t* out, size_t n) {
  for (int b = 0; b < 4; b++)
    out[b] = (uint8_t)(n >> (8 * b));
}

static size_t core_encode(const lab_array* a, uint8_t* out, size_t cap, const void* arg) {
  (void)arg;
  parz_array p = core_array(a);
  size_t segments = parz_ll_segment_count(&p, CORE_P, CORE_C),
         bound = parz_ll_segment_bound(&p, CORE_P, CORE_C);
  unsigned t = parz_ll_choose_transform(&p, a->data, NULL);
  size_t at = 1;
  out[0] = (uint8_t)t;
  for (size_t s = 0; s < segments; s++) {
    size_t n = 0;
    if (at + 4 + bound > cap ||
        parz_ll_encode_segment(&p, a->data, t, CORE_P, CORE_C, s, out + at + 4, bound, &n, NULL))
      return 0;
    put_size(out + at, n);
    at += 4 + n;
  }
  return at;
}

static int core_decode(const uint8_t* in, size_t len, const lab_array* a, void* out,
                       const void* arg) {
  (void)arg;
  parz_array p = core_array(a);
  size_t segments = parz_ll_segment_count(&p, CORE_P, CORE_C), at = 1;
  for (size_t s = 0; s < segments; s++) {
    size_t n;
    if (!piece_size(in, len, at, &n) ||
        parz_ll_decode_segment(&p, in[0], CORE_P, CORE_C, s, in + at + 4, n, out, NULL) != PARZ_OK)
      return 1;
    at += 4 + n;
  }
  return at != len;
}

/* The codec through the chunk's frame, as the filter writes it: the array cut along its first
 * dimension into chunks of whole slabs of about 1 MiB (one slab where a slab is larger), each
 * encoded by parz_chunk_encode (the encoder's own choices: transform, Holt, dictionary; 4D as
 * stacks) and stored after its 4-byte little-endian size. */
#define CHUNK_BYTES (1u << 20)

static size_t chunk_slabs(const lab_array* a, parz_array* p, size_t* slab_bytes) {
  size_t rows;
  *p = core_array(a);
  *slab_bytes = (a->f64 ? 8 : 4) * parz_array_count(p) / p->shape[0];
  rows = CHUNK_BYTES / *slab_bytes ? CHUNK_BYTES / *slab_bytes : 1;
  return rows < p->shape[0] ? rows : p->shape[0];
}

static size_t chunk_encode(const lab_array* a, uint8_t* out, size_t cap, const void* arg) {
  parz_array p;
  parz_chunk_config cfg;
  size_t slab, rows = chunk_slabs(a, &p, &slab), first, at = 0, total = p.shape[0];
  (void)arg;
  memset(&cfg, 0, sizeof cfg);
  cfg.codec = PARZ_CODEC_LOSSLESS;
  cfg.settings.predictor = p.dims == 4 ? PARZ_LL_PREDICT_STACK : PARZ_LL_PREDICT_ALL;
  for (first = 0; first < total; first += rows) {
    size_t n = 0;
    p.shape[0] = total - first < rows ? total - first : rows;
    if (at + 4 > cap || parz_chunk_encode(&p, (const uint8_t*)a->data + first * slab, &cfg,
                                          out + at + 4, cap - at - 4, &n, NULL) != PARZ_OK)
      return 0;
    put_size(out + at, n);
    at += 4 + n;
  }
  return at;
}

static int chunk_decode(const uint8_t* in, size_t len, const lab_array* a, void* out,
                        const void* arg) {
  parz_array p;
  size_t slab, rows = chunk_slabs(a, &p, &slab), first, at = 0, total = p.shape[0];
  (void)arg;
  for (first = 0; first < total; first += rows) {
    size_t n, count = total - first < rows ? total - first : rows;
    if (!piece_size(in, len, at, &n) ||
        parz_chunk_decode(in + at + 4, n, (uint8_t*)out + first * slab, count * slab, NULL) !=
            PARZ_OK)
      return 1;
    at += 4 + n;
  }
  return at != len;
}

size_t lab_core_methods(lab_method* list, size_t count, size_t max) {
  if (count < max) {
    lab_method* m = &list[count++];
    memset(m, 0, sizeof *m);
    strcpy(m->name, "core (codec/lossless, C=4)");
    m->encode = core_encode;
    m->decode = core_decode;
  }
  if (count < max) {
    lab_method* m = &list[count++];
    memset(m, 0, sizeof *m);
    strcpy(m->name, "core chunks (parz_chunk, 1 MiB)");
    m->encode = chunk_encode;
    m->decode = chunk_decode;
  }
  return count;
}
