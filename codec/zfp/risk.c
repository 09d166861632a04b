/* The accuracy bound's check of blocks at risk (risk.h). */
#include <stdlib.h>
#include <string.h>

#include "array4.h"
#include "block_common.h"
#include "risk.h"

/* Parts the blocks are cut into at most, whatever jobs ask. */
#define MAX_PARTS 4096u

/* Words of the longest block any type and rank encodes to (PARZ_MAX_BITS bits). */
#define BLOCK_WORDS ((PARZ_MAX_BITS + 63u) / 64u)

/* Whether |x - y| > t, decided exactly: x - y is s + r exactly (TwoSum, exact in binary64
 * without overflow, which magnitudes below 2^1023 rule out), so |s| alone decides unless it is
 * t, where r's sign says on which side of t the exact difference lies. x or y NaN or infinite:
 * yes. */
static int misses(double x, double y, double t) {
  const double s = x - y, yy = s - x, r = (x - (s - yy)) + (-y - yy);
  const double m = s < 0 ? -s : s;
  if (m < t)
    return 0;
  if (m > t || m != m)
    return 1;
  return r != 0 && (r > 0) == (s > 0);
}

static double value_of(uint64_t bits, parz_type type) {
  return type == PARZ_FLOAT ? (double)parz_f32_from((uint32_t)bits) : parz_f64_from(bits);
}

/* A growing list of patterns. */
typedef struct {
  uint64_t* v;
  size_t n, cap;
  int nomem;
} pattern_list;

static void add(pattern_list* l, uint64_t bits) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    uint64_t* v = (uint64_t*)realloc(l->v, cap * sizeof *v);
    if (!v) {
      l->nomem = 1;
      return;
    }
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = bits;
}

typedef struct {
  const parz_mask_palette* pal;
  const parz_array* a;
  const void* data;
  parz_view4 src;  /* a's values */
  parz_view4 grid; /* the cleaned copy's, contiguous */
  const unsigned char* cleaned;
  const parz_params* p;
  int all;
  uint64_t nblocks, nparts;
  pattern_list* lists; /* one per part */
} risk_job;

/* The value of a at C-order index i (its coordinates in the 4-D view). */
static uint64_t source_value(const risk_job* j, size_t i) {
  const size_t size = parz_type_size(j->a->type);
  ptrdiff_t at = 0;
  unsigned k;
  for (k = 4; k-- > 0;) {
    at += (ptrdiff_t)(i % j->src.n[k]) * j->src.s[k];
    i /= j->src.n[k];
  }
  return parz_load_bits((const unsigned char*)j->data + (ptrdiff_t)size * at, size);
}

/* Whether the block with corner b, its n values (C order) at indices idx of the cleaned copy,
 * decodes within 2^minexp at each of them that is known (orig, hole): the block as an array of
 * its own, which the codec pads, encodes and decodes as it does any partial block. */
static int block_holds(const risk_job* j, const size_t* b, const size_t* idx, const uint64_t* orig,
                       const unsigned char* hole, unsigned n) {
  const parz_type type = j->a->type;
  const size_t size = parz_type_size(type);
  const unsigned dims = j->a->dims;
  const double t = parz_pow2(j->p->minexp);
  uint64_t words[BLOCK_WORDS], values[256], out[256];
  parz_array one;
  unsigned i, k;
  memset(&one, 0, sizeof one);
  one.type = type;
  one.dims = dims;
  for (k = 0; k < dims; k++) {
    const unsigned q = 4 - dims + k;
    one.shape[k] = j->grid.n[q] - b[q] < 4 ? j->grid.n[q] - b[q] : 4;
  }
  for (i = 0; i < n; i++)
    memcpy((unsigned char*)values + size * i, j->cleaned + size * idx[i], size);
  if (parz_encode_blocks(&one, values, j->p, 0, 1, words, sizeof words, NULL, NULL, NULL) !=
          PARZ_OK ||
      parz_decode_blocks(&one, out, j->p, words, sizeof words, 0, 0, 1, NULL, NULL) != PARZ_OK)
    return 0;
  for (i = 0; i < n; i++)
    if (!hole[i] &&
        misses(value_of(orig[i], type),
               value_of(parz_load_bits((const unsigned char*)out + size * i, size), type), t))
      return 0;
  return 1;
}

static void find_part(void* arg, uint64_t part) {
  risk_job* j = (risk_job*)arg;
  pattern_list* l = &j->lists[part];
  const size_t size = parz_type_size(j->a->type);
  const uint64_t q = j->nblocks / j->nparts, rem = j->nblocks % j->nparts;
  const uint64_t lo = q * part + (part < rem ? part : rem), hi = lo + q + (part < rem);
  const parz_exception_set* x = &j->pal->exc;
  size_t b[4];
  uint64_t block, last = 0;
  parz_block4_corner(&j->grid, lo, b);
  for (block = lo; block < hi && !l->nomem; block++, parz_block4_next(&j->grid, b)) {
    size_t idx[256];
    unsigned char hole[256];
    uint64_t orig[256];
    unsigned n = parz_block4_values(j->grid.n, b, idx, NULL), i, risk = 0;
    for (i = 0; i < n; i++)
      risk |= parz_exception_test(&x->high, parz_load_bits(j->cleaned + size * idx[i], size));
    if (!risk)
      continue;
    for (i = 0; i < n; i++) {
      orig[i] = source_value(j, idx[i]);
      hole[i] = parz_exception_in(x, orig[i]) || parz_mask_lookup(j->pal, orig[i]) >= 0;
    }
    /* a block whose values at risk are all the pattern this part took last gives nothing new:
     * the inside of a region of one large value, after its edge missed the bound */
    for (i = 0, risk = 0; i < n; i++)
      risk |= !hole[i] && parz_exception_test(&x->high, orig[i]) && !(l->n && orig[i] == last);
    if (!risk || (!j->all && block_holds(j, b, idx, orig, hole, n)))
      continue;
    for (i = 0; i < n; i++)
      if (!hole[i] && parz_exception_test(&x->high, orig[i]) && !(l->n && orig[i] == last))
        add(l, last = orig[i]);
  }
}

int parz_risk_find(const parz_mask_palette* pal, const parz_array* a, const void* data,
                   const parz_array* whole, const void* cleaned, const parz_params* p, int all,
                   const parz_jobs* jobs, uint64_t** found, size_t* nfound, parz_error* err) {
  risk_job j;
  uint64_t i, parts = jobs && jobs->run && jobs->parts > 1 ? jobs->parts : 1;
  int rc = PARZ_OK;
  memset(&j, 0, sizeof j);
  j.pal = pal;
  j.a = a;
  j.data = data;
  j.src = parz_as_4d(a);
  j.grid = parz_as_4d(whole);
  j.cleaned = (const unsigned char*)cleaned;
  j.p = p;
  j.all = all;
  j.nblocks = parz_block_count(whole);
  if (parts > MAX_PARTS)
    parts = MAX_PARTS;
  j.nparts = parts < j.nblocks ? parts : j.nblocks;
  j.lists = (pattern_list*)calloc((size_t)j.nparts, sizeof *j.lists);
  if (!j.lists)
    return parz_fail(err, PARZ_ERR_NOMEM, "out of memory for the bound's check of %llu blocks",
                     (unsigned long long)j.nblocks);
  if (j.nparts > 1)
    jobs->run(jobs->ctx, j.nparts, find_part, &j);
  else
    find_part(&j, 0);
  for (i = 0; i < j.nparts && rc == PARZ_OK; i++) {
    const pattern_list* l = &j.lists[i];
    uint64_t* v = l->n ? (uint64_t*)realloc(*found, (*nfound + l->n) * sizeof *v) : NULL;
    if (l->nomem || (l->n && !v)) {
      rc = parz_fail(err, PARZ_ERR_NOMEM, "out of memory for the values the bound's check takes");
      break;
    }
    if (!l->n)
      continue;
    memcpy(v + *nfound, l->v, l->n * sizeof *v);
    *found = v;
    *nfound += l->n;
  }
  for (i = 0; i < j.nparts; i++)
    free(j.lists[i].v);
  free(j.lists);
  return rc;
}
