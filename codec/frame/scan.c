/* The reads of the whole array before encoding, whole or in parts (scan.h).
 *
 * Parts of the values are runs of C order: a run of a contiguous array, seen as a 1-D array, or
 * a slab along the first dimension of a strided one. Each part is scanned with a palette of its
 * own; the palettes merged in part order are the palette of the whole scan (NaN patterns in
 * order of first appearance), and the counts add up, unless the patterns overflow the palette,
 * where the whole array is scanned again on one thread. The copy then writes each part's values
 * and exception records at their places (the records of the parts before it come first), and
 * the stand-ins and the mask take runs of blocks, each block's values being its own. */
#include <stdlib.h>
#include <string.h>

#include "array4.h"
#include "exceptions.h"
#include "mask_build.h"
#include "scan.h"
#include "table_endian.h"

/* Parts used at most, whatever jobs ask: each part of the scan holds a palette (4 KiB). */
#define MAX_PARTS 4096u

/* jobs that cut the work: their parts, else 0 (the work runs whole) */
static uint64_t parts_of(const parz_jobs* jobs) {
  if (!jobs || !jobs->run || jobs->parts <= 1)
    return 0;
  return jobs->parts < MAX_PARTS ? jobs->parts : MAX_PARTS;
}

int parz_array_contiguous(const parz_array* a) {
  unsigned k;
  for (k = 0; k < a->dims; k++)
    if (a->stride[k])
      return 0;
  return 1;
}

/* How many parts of values a takes: at most n, at most one per value (contiguous) or per slab
 * (strided). */
static uint64_t value_parts(const parz_array* a, uint64_t n) {
  uint64_t units = parz_array_contiguous(a) ? parz_array_count(a) : a->shape[0];
  return n < units ? n : units;
}

/* [*lo, *hi) of part i of n over `units` units: as equal as can be, in order. */
static void share(uint64_t units, uint64_t i, uint64_t n, uint64_t* lo, uint64_t* hi) {
  const uint64_t q = units / n, r = units % n;
  *lo = q * i + (i < r ? i : r);
  *hi = *lo + q + (i < r);
}

/* Part i of n of a's values (n from value_parts): the part as an array of its own, its data, and
 * the C-order position of its first value. */
static const void* value_part(const parz_array* a, const void* data, uint64_t i, uint64_t n,
                              parz_array* part, uint64_t* first) {
  const size_t size = parz_type_size(a->type);
  uint64_t lo, hi, per = 1;
  unsigned k;
  *part = *a;
  if (parz_array_contiguous(a)) {
    share(parz_array_count(a), i, n, &lo, &hi);
    part->dims = 1;
    for (k = 1; k < 4; k++)
      part->shape[k] = 0;
    part->shape[0] = (size_t)(hi - lo);
    *first = lo;
    return (const unsigned char*)data + size * lo;
  }
  share(a->shape[0], i, n, &lo, &hi);
  for (k = 1; k < a->dims; k++)
    per *= a->shape[k];
  part->shape[0] = (size_t)(hi - lo);
  *first = lo * per;
  return (const unsigned char*)data + (ptrdiff_t)size * (ptrdiff_t)lo * a->stride[0];
}

/* ---- the scan ------------------------------------------------------------------------------ */

typedef struct {
  const parz_array* a;
  const void* data;
  uint64_t n;
  parz_mask_palette* pal; /* one per part */
  uint64_t *masked, *exc, *high;
} scan_job;

static void scan_part(void* arg, uint64_t i) {
  scan_job* j = (scan_job*)arg;
  parz_array part;
  uint64_t first;
  const void* d = value_part(j->a, j->data, i, j->n, &part, &first);
  parz_mask_scan(&j->pal[i], &part, d, &j->masked[i], &j->exc[i], &j->high[i]);
}

void parz_scan_run(parz_scan* s, const parz_array* a, const void* data, const parz_jobs* jobs) {
  const uint64_t n = value_parts(a, parts_of(jobs));
  const parz_mask_palette initial = s->pal;
  scan_job j;
  uint64_t i;
  int merged = 1;
  s->masked = s->exceptions = s->high = s->parts = 0;
  s->exc_before = NULL;
  if (n > 1) {
    j.a = a;
    j.data = data;
    j.n = n;
    j.pal = (parz_mask_palette*)malloc((size_t)n * sizeof *j.pal);
    j.masked = (uint64_t*)calloc((size_t)n, sizeof *j.masked);
    j.exc = (uint64_t*)calloc((size_t)n, sizeof *j.exc);
    j.high = (uint64_t*)calloc((size_t)n, sizeof *j.high);
    s->exc_before = (uint64_t*)calloc((size_t)n + 1, sizeof *s->exc_before);
    if (!j.pal || !j.masked || !j.exc || !j.high || !s->exc_before) { /* then on one thread */
      free(j.pal);
      free(j.masked);
      free(j.exc);
      free(j.high);
      parz_scan_free(s);
      parz_mask_scan(&s->pal, a, data, &s->masked, &s->exceptions, &s->high);
      return;
    }
    for (i = 0; i < n; i++)
      j.pal[i] = initial;
    jobs->run(jobs->ctx, n, scan_part, &j);
    for (i = 0; i < n && merged; i++) {
      merged = parz_mask_palette_merge(&s->pal, &j.pal[i]);
      s->masked += j.masked[i];
      s->exceptions += j.exc[i];
      s->high += j.high[i];
      s->exc_before[i + 1] = s->exceptions;
    }
    free(j.pal);
    free(j.masked);
    free(j.exc);
    free(j.high);
    if (merged) {
      s->parts = n;
      return;
    }
    /* more patterns than a palette holds: which ones it takes depends on C order */
    parz_scan_free(s);
    s->pal = initial;
    s->masked = s->exceptions = s->high = 0;
  }
  parz_mask_scan(&s->pal, a, data, &s->masked, &s->exceptions, &s->high);
}

void parz_scan_free(parz_scan* s) {
  free(s->exc_before);
  s->exc_before = NULL;
  s->parts = 0;
}

/* ---- the cleaned copy, the stand-ins, the mask ---------------------------------------------- */

/* The copy of a's values into `cleaned` (contiguous, C order) with the records of its exceptions
 * (those the mask does not take); with none to record, a plain copy. */
static void copy_values(const parz_scan* s, const parz_array* a, const void* data, void* cleaned,
                        unsigned char* records, uint64_t nrecords) {
  const size_t size = parz_type_size(a->type);
  unsigned char* c = (unsigned char*)cleaned;
  parz_view4 v;
  size_t i, j, k, x;
  if (nrecords) {
    parz_exceptions_copy(a, data, &s->pal.exc, s->masked ? parz_mask_claims : NULL, (void*)&s->pal,
                         cleaned, records);
    return;
  }
  v = parz_as_4d(a);
  if (parz_view4_contiguous(&v)) {
    memcpy(c, data, size * parz_array_count(a));
    return;
  }
  for (i = 0; i < v.n[0]; i++)
    for (j = 0; j < v.n[1]; j++)
      for (k = 0; k < v.n[2]; k++) {
        const unsigned char* row = parz_view4_row(&v, data, size, i, j, k);
        for (x = 0; x < v.n[3]; x++, c += size)
          memcpy(c, row + (ptrdiff_t)size * (ptrdiff_t)x * v.s[3], size);
      }
}

typedef struct {
  const parz_scan* s;
  const parz_array *a, *whole;
  const void* data;
  unsigned char *cleaned, *records;
  uint64_t nblocks, nparts;   /* the runs of blocks */
  parz_mask_entries* entries; /* one per run, when the array has masked values */
  int* rc;
} clean_job;

static void copy_part(void* arg, uint64_t i) {
  clean_job* j = (clean_job*)arg;
  const size_t size = parz_type_size(j->a->type);
  unsigned char* rec = j->records + PARZ_EXCEPTION_BYTES * j->s->exc_before[i];
  parz_array part;
  uint64_t first, r;
  const void* d = value_part(j->a, j->data, i, j->s->parts, &part, &first);
  copy_values(j->s, &part, d, j->cleaned + size * first, rec,
              j->s->exc_before[i + 1] - j->s->exc_before[i]);
  /* the part counted its positions from its own first value */
  for (r = j->s->exc_before[i]; r < j->s->exc_before[i + 1]; r++, rec += PARZ_EXCEPTION_BYTES)
    parz_store64(rec, parz_load64(rec) + first);
}

static void block_part(void* arg, uint64_t i) {
  clean_job* j = (clean_job*)arg;
  uint64_t lo, hi;
  share(j->nblocks, i, j->nparts, &lo, &hi);
  if (j->entries)
    j->rc[i] = parz_mask_collect(&j->s->pal, j->whole, j->cleaned, lo, hi - lo, &j->entries[i]);
  else if (j->s->exceptions && j->s->pal.standins)
    parz_exceptions_standins(j->whole, j->cleaned, &j->s->pal.exc, lo, hi - lo);
}

/* The mask from the runs' entries, appended in block order. */
static int mask_join(const clean_job* j, unsigned char** section, size_t* bytes) {
  parz_mask_entries all;
  uint64_t i;
  int rc = PARZ_OK;
  parz_mask_entries_init(&all, &j->s->pal, j->whole);
  for (i = 0; i < j->nparts && rc == PARZ_OK; i++)
    rc = j->rc[i] != PARZ_OK ? j->rc[i] : parz_mask_append(&all, &j->entries[i]);
  if (rc == PARZ_OK)
    rc = parz_mask_finish(&j->s->pal, &all, section, bytes);
  parz_mask_entries_free(&all);
  return rc;
}

int parz_scan_clean(const parz_scan* s, const parz_array* a, const void* data,
                    const parz_array* whole, void* cleaned, unsigned char* records,
                    unsigned char** section, size_t* section_bytes, const parz_jobs* jobs,
                    parz_error* err) {
  clean_job j;
  uint64_t i;
  int rc = PARZ_OK;
  *section = NULL;
  *section_bytes = 0;
  if (!s->parts || !parts_of(jobs)) {
    copy_values(s, a, data, cleaned, records, s->exceptions);
    if (!s->masked) {
      if (s->exceptions && s->pal.standins)
        parz_exceptions_standins(whole, cleaned, &s->pal.exc, 0, parz_block_count(whole));
      return PARZ_OK;
    }
    return parz_mask_build(&s->pal, whole, cleaned, section, section_bytes, err);
  }
  memset(&j, 0, sizeof j);
  j.s = s;
  j.a = a;
  j.whole = whole;
  j.data = data;
  j.cleaned = (unsigned char*)cleaned;
  j.records = records;
  j.nblocks = parz_block_count(whole);
  j.nparts = parts_of(jobs) < j.nblocks ? parts_of(jobs) : j.nblocks;
  if (s->masked) {
    j.entries = (parz_mask_entries*)calloc((size_t)j.nparts, sizeof *j.entries);
    j.rc = (int*)calloc((size_t)j.nparts, sizeof *j.rc);
    if (!j.entries || !j.rc) {
      free(j.entries);
      free(j.rc);
      return parz_fail(err, PARZ_ERR_NOMEM, "out of memory for the mask of %llu blocks",
                       (unsigned long long)j.nblocks);
    }
    for (i = 0; i < j.nparts; i++)
      parz_mask_entries_init(&j.entries[i], &s->pal, whole);
  }
  jobs->run(jobs->ctx, s->parts, copy_part, &j);
  jobs->run(jobs->ctx, j.nparts, block_part, &j); /* after every value is in place */
  if (s->masked) {
    rc = mask_join(&j, section, section_bytes);
    for (i = 0; i < j.nparts; i++)
      parz_mask_entries_free(&j.entries[i]);
    free(j.entries);
    free(j.rc);
    if (rc != PARZ_OK)
      return parz_fail(err, PARZ_ERR_NOMEM, "out of memory for the mask of %llu blocks",
                       (unsigned long long)j.nblocks);
  }
  return PARZ_OK;
}
