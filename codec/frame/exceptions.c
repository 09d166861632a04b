/* Exceptions: scan, cleaning with block-mean stand-ins, validation and patching. */
#include <string.h>

#include "array4.h"
#include "codecs.h"
#include "exceptions.h"
#include "table_endian.h"

/* Branch-free counting loops: this scan runs before every encode, so it must cost next to
 * nothing next to the codec. A value counts when it is an exception or, with `fill`, equal to
 * fill_bits. */
static uint64_t count32(const parz_exception_rule* r, const unsigned char* p, size_t n, int fill,
                        uint64_t fill_bits) {
  uint64_t c = 0;
  size_t i;
  parz_rule32 q;
  if (parz_rule32_of(r, &q)) { /* 4 values a vector; counts in runs that fit 32 bits */
    const uint32_t f = (uint32_t)fill_bits, with_fill = fill != 0 && !(fill_bits >> 32);
    for (i = 0; i < n;) {
      const size_t stop = n - i > ((size_t)1 << 30) ? i + ((size_t)1 << 30) : n;
      uint32_t k = 0;
      for (; i < stop; i++) {
        uint32_t u;
        memcpy(&u, p + 4 * i, 4);
        k += parz_rule32_test(&q, u) | (with_fill & (uint32_t)(u == f));
      }
      c += k;
    }
    return c;
  }
  for (i = 0; i < n; i++) {
    uint32_t u;
    memcpy(&u, p + 4 * i, 4);
    c += parz_exception_test(r, u) | (unsigned)(fill & (u == fill_bits));
  }
  return c;
}

static uint64_t count64(const parz_exception_rule* r, const unsigned char* p, size_t n, int fill,
                        uint64_t fill_bits) {
  uint64_t c = 0;
  size_t i;
  for (i = 0; i < n; i++) {
    uint64_t u;
    memcpy(&u, p + 8 * i, 8);
    c += parz_exception_test(r, u) | (unsigned)(fill & (u == fill_bits));
  }
  return c;
}

parz_exception_set parz_exception_set_of(const parz_codec* codec, parz_type type, unsigned dims,
                                         const parz_params* p) {
  const parz_exception_rule none = {0, 0, 1, 0};
  parz_exception_set x;
  x.rule = codec->exact ? none : parz_nonfinite_rule(type);
  x.high = none;
  if (codec->exception_rules)
    codec->exception_rules(type, dims, p, &x.rule, &x.high);
  x.taken = NULL;
  x.ntaken = 0;
  return x;
}

int parz_exceptions_possible(const parz_codec* codec, const parz_array* a, const parz_params* p) {
  return parz_exception_set_of(codec, a->type, a->dims, p).rule.mask != 0;
}

uint64_t parz_exceptions_count_special(const parz_array* a, const void* data,
                                       const parz_exception_rule* rule, int fill,
                                       uint64_t fill_bits) {
  size_t size = parz_type_size(a->type), i, j, k;
  uint64_t c = 0;
  parz_exception_rule r = *rule;
  parz_view4 v;
  fill = fill != 0;
  if (!r.mask && !fill)
    return 0;
  v = parz_as_4d(a);
  if (parz_view4_contiguous(&v)) {
    size_t n = v.n[0] * v.n[1] * v.n[2] * v.n[3];
    return size == 4 ? count32(&r, (const unsigned char*)data, n, fill, fill_bits)
                     : count64(&r, (const unsigned char*)data, n, fill, fill_bits);
  }
  /* strided: one row (last dimension) at a time */
  for (i = 0; i < v.n[0]; i++)
    for (j = 0; j < v.n[1]; j++)
      for (k = 0; k < v.n[2]; k++) {
        const unsigned char* row = parz_view4_row(&v, data, size, i, j, k);
        size_t x;
        for (x = 0; x < v.n[3]; x++) {
          uint64_t u = parz_load_bits(row + (ptrdiff_t)size * (ptrdiff_t)x * v.s[3], size);
          c += parz_exception_test(&r, u) | (unsigned)(fill & (u == fill_bits));
        }
      }
  return c;
}

uint64_t parz_exceptions_count(const parz_codec* codec, const parz_array* a, const void* data,
                               const parz_params* p) {
  const parz_exception_set x = parz_exception_set_of(codec, a->type, a->dims, p);
  return parz_exceptions_count_special(a, data, &x.rule, 0, 0);
}

/* Replaces the exceptions of one block (the values at idx[0..n), in C order) of the contiguous
 * array c by the block's stand-in (standin.h). */
static void clean_block(unsigned char* c, parz_type type, const parz_exception_set* x,
                        const size_t* idx, unsigned n) {
  size_t size = parz_type_size(type);
  uint64_t v[256], bits;
  unsigned char hole[256];
  unsigned i, bad = 0;
  for (i = 0; i < n; i++) {
    v[i] = parz_load_bits(c + size * idx[i], size);
    hole[i] = (unsigned char)parz_exception_in(x, v[i]);
    bad += hole[i];
  }
  if (!bad)
    return;
  bits = parz_standin_of(v, hole, n, type, &x->rule);
  for (i = 0; i < n; i++)
    if (hole[i])
      parz_store_bits(c + size * idx[i], size, bits);
}

void parz_exceptions_copy(const parz_array* a, const void* data, const parz_exception_set* x,
                          int (*masked)(void* ctx, uint64_t bits), void* ctx, void* cleaned,
                          unsigned char* records) {
  size_t size = parz_type_size(a->type), i, j, k, xi, pos = 0;
  unsigned char* c = (unsigned char*)cleaned;
  parz_view4 v = parz_as_4d(a);
  for (i = 0; i < v.n[0]; i++)
    for (j = 0; j < v.n[1]; j++)
      for (k = 0; k < v.n[2]; k++)
        for (xi = 0; xi < v.n[3]; xi++, pos++) {
          const unsigned char* q =
              (const unsigned char*)data +
              (ptrdiff_t)size * ((ptrdiff_t)i * v.s[0] + (ptrdiff_t)j * v.s[1] +
                                 (ptrdiff_t)k * v.s[2] + (ptrdiff_t)xi * v.s[3]);
          uint64_t bits = parz_load_bits(q, size);
          memcpy(c + size * pos, q, size);
          if (parz_exception_in(x, bits) && !(masked && masked(ctx, bits))) {
            parz_store64(records, pos);
            parz_store64(records + 8, bits);
            records += PARZ_EXCEPTION_BYTES;
          }
        }
}

void parz_exceptions_standins(const parz_array* a, void* cleaned, const parz_exception_set* x,
                              uint64_t first, uint64_t count) {
  unsigned char* c = (unsigned char*)cleaned;
  parz_view4 v = parz_as_4d(a);
  size_t b[4];
  parz_block4_corner(&v, first, b);
  for (; count; count--) {
    size_t idx[256];
    unsigned n = parz_block4_values(v.n, b, idx, NULL);
    clean_block(c, a->type, x, idx, n);
    parz_block4_next(&v, b);
  }
}

void parz_exceptions_clean(const parz_codec* codec, const parz_array* a, const void* data,
                           const parz_params* p, void* cleaned, unsigned char* records) {
  parz_exception_set x = parz_exception_set_of(codec, a->type, a->dims, p);
  parz_array whole = *a;
  unsigned k;
  for (k = 0; k < 4; k++)
    whole.stride[k] = 0; /* the cleaned copy is contiguous */
  parz_exceptions_copy(a, data, &x, NULL, NULL, cleaned, records);
  parz_exceptions_standins(&whole, cleaned, &x, 0, parz_block_count(a));
}

int parz_exceptions_v1(parz_type type, const unsigned char* records, uint64_t n) {
  uint64_t i;
  for (i = 0; i < n; i++)
    if (!parz_nonfinite(parz_load64(records + PARZ_EXCEPTION_BYTES * i + 8), type))
      return 0;
  return 1;
}

int parz_exceptions_validate(const parz_chunk_view* v, parz_error* err) {
  uint64_t i, count = 1, prev = 0;
  unsigned k;
  size_t size = parz_type_size(v->array.type);
  const unsigned char* r = v->exceptions;
  if (v->nexceptions == 0)
    return PARZ_OK;
  if (v->version == 1 && v->array.type != PARZ_FLOAT && v->array.type != PARZ_DOUBLE)
    return parz_fail(err, PARZ_ERR_FORMAT, "integer chunk with %llu non-finite exceptions",
                     (unsigned long long)v->nexceptions);
  for (k = 0; k < v->array.dims; k++)
    count *= v->array.shape[k]; /* checked against overflow by the parser */
  for (i = 0; i < v->nexceptions; i++, r += PARZ_EXCEPTION_BYTES) {
    uint64_t pos = parz_load64(r), bits = parz_load64(r + 8);
    if (pos >= count || (i > 0 && pos <= prev))
      return parz_fail(err, PARZ_ERR_FORMAT,
                       "exception %llu at position %llu: not increasing or outside %llu values",
                       (unsigned long long)i, (unsigned long long)pos, (unsigned long long)count);
    if ((size == 4 && bits >> 32) || (v->version == 1 && !parz_nonfinite(bits, v->array.type)))
      return parz_fail(
          err, PARZ_ERR_FORMAT, "exception %llu holds 0x%llx, not a %svalue of the chunk's type",
          (unsigned long long)i, (unsigned long long)bits, v->version == 1 ? "non-finite " : "");
    prev = pos;
  }
  return PARZ_OK;
}

int parz_chunk_patch_exceptions_to(const parz_chunk_view* v, const parz_chunk_dest* d,
                                   parz_error* err) {
  uint64_t i;
  const unsigned char* r;
  size_t size;
  int k;
  if (!v || !d || (!d->data && v->nexceptions))
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_patch_exceptions: NULL argument");
  size = parz_type_size(v->array.type);
  r = v->exceptions;
  /* positions were validated by parz_chunk_parse: inside the array */
  for (i = 0; i < v->nexceptions; i++, r += PARZ_EXCEPTION_BYTES) {
    uint64_t pos = parz_load64(r), bits = parz_load64(r + 8);
    ptrdiff_t at = 0;
    for (k = (int)v->array.dims - 1; k >= 0; k--) {
      size_t x = (size_t)(pos % v->array.shape[k]);
      pos /= v->array.shape[k];
      if (x < d->lo[k] || x >= d->hi[k])
        break;
      at += (ptrdiff_t)(x - d->lo[k]) * d->stride[k];
    }
    if (k >= 0) /* outside the window */
      continue;
    if (size == 4) {
      uint32_t u = (uint32_t)bits;
      memcpy((unsigned char*)d->data + 4 * at, &u, 4);
    } else {
      memcpy((unsigned char*)d->data + 8 * at, &bits, 8);
    }
  }
  return PARZ_OK;
}

int parz_chunk_patch_exceptions(const parz_chunk_view* v, void* dst, parz_error* err) {
  parz_chunk_dest d;
  if (!v || (!dst && v->nexceptions))
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_patch_exceptions: NULL argument");
  parz_chunk_dest_whole(v, dst, &d);
  return parz_chunk_patch_exceptions_to(v, &d, err);
}
