/* HDF5's chunk index (h5_index.h). */
#include "h5_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_api.h"

void parz_h5_origin_text(unsigned rank, const uint64_t* origin, char* out, size_t size) {
  size_t len = (size_t)snprintf(out, size, "[");
  unsigned k;
  for (k = 0; k < rank && len < size; k++)
    len += (size_t)snprintf(out + len, size - len, "%s%llu", k ? "," : "",
                            (unsigned long long)origin[k]);
  if (len < size)
    snprintf(out + len, size - len, "]");
}

/* HDF5 prints its error stack when a call fails, unless told not to: the lookups below fail for
 * every chunk never written, which is no error to the caller. The caller's setting comes back. */
typedef struct {
  H5E_auto2_t func;
  void* data;
  int saved;
} quiet_errors;

static void quiet_begin(quiet_errors* q) {
  const parz_h5_api* h5 = parz_h5();
  q->saved = h5->H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data) >= 0;
  if (q->saved)
    h5->H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static void quiet_end(const quiet_errors* q) {
  if (q->saved)
    parz_h5()->H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
}

/* The innermost entry of HDF5's error stack: where the failure was detected. */
typedef struct {
  char func[64];
  char desc[160];
} innermost_error;

static herr_t take_innermost(unsigned n, const H5E_error2_t* e, void* data) {
  innermost_error* in = (innermost_error*)data;
  if (n == 0) {
    snprintf(in->func, sizeof in->func, "%s", e->func_name ? e->func_name : "");
    snprintf(in->desc, sizeof in->desc, "%s", e->desc ? e->desc : "");
  }
  return 0;
}

/* Whether the failed lookup of the chunk at `at` means the chunk was never written. HDF5 reports
 * that as an error raised inside H5D__get_chunk_storage_size itself after its lookup succeeded;
 * any failure below it (a damaged B-tree node, an I/O error) is raised deeper and is innermost.
 * Where the innermost entry says neither, the index's records decide: no record, no chunk. */
static int lookup_says_missing(hid_t dset, const hsize_t* at, innermost_error* in) {
  const parz_h5_api* h5 = parz_h5();
  unsigned mask = 0;
  haddr_t addr = 0;
  hsize_t size = 0;
  memset(in, 0, sizeof *in);
  h5->H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, take_innermost, in);
  h5->H5Eclear2(H5E_DEFAULT);
  if (!strcmp(in->func, "H5D__get_chunk_storage_size"))
    return 1;
  if (h5->H5Dget_chunk_info_by_coord(dset, at, &mask, &addr, &size) >= 0 && addr == HADDR_UNDEF)
    return 1;
  h5->H5Eclear2(H5E_DEFAULT);
  return 0;
}

/* parz_h5_chunk_bytes with HDF5's error printing already off. */
static int chunk_bytes(hid_t dset, unsigned rank, const uint64_t* origin, uint64_t* bytes,
                       const char* who, parz_error* err) {
  const parz_h5_api* h5 = parz_h5();
  hsize_t at[PARZ_MAX_RANK], size = 0;
  innermost_error in;
  unsigned k;
  for (k = 0; k < rank; k++)
    at[k] = origin[k];
  *bytes = 0;
  if (h5->H5Dget_chunk_storage_size(dset, at, &size) >= 0) {
    *bytes = size;
    return PARZ_OK;
  }
  if (lookup_says_missing(dset, at, &in))
    return PARZ_OK;
  return parz_fail(err, PARZ_ERR_ARG, "%s: HDF5 cannot look the chunk up (%s%s%s)", who, in.func,
                   in.func[0] ? ": " : "", in.desc);
}

int parz_h5_chunk_bytes(hid_t dset, unsigned rank, const uint64_t* origin, uint64_t* bytes,
                        const char* who, parz_error* err) {
  quiet_errors q;
  int rc;
  quiet_begin(&q);
  rc = chunk_bytes(dset, rank, origin, bytes, who, err);
  quiet_end(&q);
  return rc;
}

int parz_h5_chunk_read(hid_t dset, unsigned rank, const uint64_t* origin, uint64_t bytes, void* buf,
                       uint32_t* filter_mask, const char* who, parz_error* err) {
  const parz_h5_api* h5 = parz_h5();
  hsize_t at[PARZ_MAX_RANK];
  uint64_t looked_up = bytes;
  size_t room = (size_t)bytes;
  unsigned k;
  herr_t status;
  int rc;
  *filter_mask = 0;
  for (k = 0; k < rank; k++)
    at[k] = origin[k];
  /* H5Dread_chunk of HDF5 1.x writes as many bytes as its own lookup finds, whatever the buffer */
  if (!h5->read_chunk2 &&
      (rc = parz_h5_chunk_bytes(dset, rank, origin, &looked_up, who, err)) != PARZ_OK)
    return rc;
  if (looked_up != bytes)
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "%s: HDF5's chunk index gives the chunk two sizes, %llu and %llu bytes "
                     "(the file is damaged)",
                     who, (unsigned long long)bytes, (unsigned long long)looked_up);
  status = h5->read_chunk2 ? h5->read_chunk2(dset, H5P_DEFAULT, at, filter_mask, buf, &room)
                           : h5->read_chunk1(dset, H5P_DEFAULT, at, filter_mask, buf);
  if (status < 0)
    return parz_fail(err, PARZ_ERR_ARG, "%s: HDF5 cannot read the chunk", who);
  if (room != bytes)
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "%s: HDF5's chunk index gives the chunk two sizes, %llu and %zu bytes (the "
                     "file is damaged)",
                     who, (unsigned long long)bytes, room);
  return PARZ_OK;
}

/* ---- every stored chunk ------------------------------------------------------------------ */

/* The records gathered from the index, checked as they come. */
typedef struct {
  const parz_chunk_grid* g;
  parz_h5_stored_chunk* v;
  size_t n, cap;
  const char* who;
  parz_error* err;
  int rc;
} gathered;

static int gather(gathered* s, const hsize_t* offset, hsize_t bytes) {
  const parz_chunk_grid* g = s->g;
  parz_h5_stored_chunk* c;
  unsigned k;
  if (s->n == s->cap) {
    const size_t cap = s->cap ? 2 * s->cap : 64;
    parz_h5_stored_chunk* more = cap <= SIZE_MAX / sizeof *more
                                     ? (parz_h5_stored_chunk*)realloc(s->v, cap * sizeof *more)
                                     : NULL;
    if (!more)
      return s->rc = parz_fail(s->err, PARZ_ERR_NOMEM, "%s: no memory for %zu chunk records",
                               s->who, cap);
    s->v = more;
    s->cap = cap;
  }
  c = &s->v[s->n];
  memset(c, 0, sizeof *c);
  c->bytes = bytes;
  for (k = 0; k < g->rank; k++)
    c->origin[k] = offset[k];
  for (k = 0; k < g->rank; k++)
    if (offset[k] % g->chunk_dims[k] || offset[k] >= g->dims[k]) {
      char where[96];
      parz_h5_origin_text(g->rank, c->origin, where, sizeof where);
      return s->rc = parz_fail(s->err, PARZ_ERR_FORMAT,
                               "%s: HDF5's chunk index holds a record for a chunk at %s, outside "
                               "the dataset's chunk grid (the file is damaged)",
                               s->who, where);
    }
  s->n++;
  return PARZ_OK;
}

/* The signature of H5D_chunk_iter_op_t (HDF5 1.14 and later). */
static int gather_record(const hsize_t* offset, unsigned filter_mask, haddr_t addr, hsize_t size,
                         void* data) {
  (void)filter_mask;
  (void)addr;
  return gather((gathered*)data, offset, size) == PARZ_OK ? 0 : -1;
}

/* C order of the grid; the coordinates past a record's rank are zero in every record. */
static int origin_order(const void* a, const void* b) {
  const uint64_t* x = ((const parz_h5_stored_chunk*)a)->origin;
  const uint64_t* y = ((const parz_h5_stored_chunk*)b)->origin;
  unsigned k;
  for (k = 0; k < PARZ_MAX_RANK; k++)
    if (x[k] != y[k])
      return x[k] < y[k] ? -1 : 1;
  return 0;
}

/* Sorts the records into C order of the grid and refuses two records for one chunk. */
static int sort_records(gathered* s) {
  size_t i;
  qsort(s->v, s->n, sizeof *s->v, origin_order);
  for (i = 1; i < s->n; i++)
    if (origin_order(&s->v[i - 1], &s->v[i]) == 0) {
      char where[96];
      parz_h5_origin_text(s->g->rank, s->v[i].origin, where, sizeof where);
      return parz_fail(s->err, PARZ_ERR_FORMAT,
                       "%s: HDF5's chunk index holds two records for the chunk at %s (%llu and "
                       "%llu bytes; the file is damaged)",
                       s->who, where, (unsigned long long)s->v[i - 1].bytes,
                       (unsigned long long)s->v[i].bytes);
    }
  return PARZ_OK;
}

uint64_t parz_h5_grid_chunks(const parz_chunk_grid* g) {
  uint64_t places = 1;
  unsigned k;
  for (k = 0; k < g->rank; k++) {
    const uint64_t along = g->dims[k] / g->chunk_dims[k] + (g->dims[k] % g->chunk_dims[k] != 0);
    if (along == 0)
      return 0;
    places = places > UINT64_MAX / along ? UINT64_MAX : places * along;
  }
  return places;
}

/* One lookup per place of the grid: the records the lookups find, checked against the count of
 * records in the index (more records than chunks found: some are doubled or misplaced). */
static int walk_grid(hid_t dset, gathered* s, uint64_t records) {
  const parz_chunk_grid* g = s->g;
  parz_box all;
  uint64_t origin[PARZ_MAX_RANK];
  hsize_t at[PARZ_MAX_RANK];
  unsigned k;
  int rc;
  memset(&all, 0, sizeof all);
  for (k = 0; k < g->rank; k++)
    all.count[k] = g->dims[k];
  parz_box_first_chunk(g, &all, origin);
  do {
    uint64_t bytes;
    if ((rc = chunk_bytes(dset, g->rank, origin, &bytes, s->who, s->err)) != PARZ_OK) {
      char what[sizeof s->err->message], where[96];
      memcpy(what, s->err->message, sizeof what);
      parz_h5_origin_text(g->rank, origin, where, sizeof where);
      return parz_fail(s->err, rc, "%s (the chunk at %s)", what, where);
    }
    for (k = 0; k < g->rank; k++)
      at[k] = origin[k];
    if (bytes && (rc = gather(s, at, bytes)) != PARZ_OK)
      return rc;
  } while (parz_box_next_chunk(g, &all, origin));
  if (s->n != records)
    return parz_fail(s->err, PARZ_ERR_FORMAT,
                     "%s: HDF5's chunk index holds %llu records, its lookups find %zu chunks "
                     "(records doubled or misplaced: the file is damaged)",
                     s->who, (unsigned long long)records, s->n);
  return PARZ_OK;
}

/* H5Dget_chunk_info for every record: each call walks the index up to its record. */
static int walk_records(hid_t dset, gathered* s, uint64_t records) {
  const parz_h5_api* h5 = parz_h5();
  hid_t space = h5->H5Dget_space(dset);
  uint64_t i;
  int rc = PARZ_OK;
  if (space < 0)
    return parz_fail(s->err, PARZ_ERR_ARG, "%s: HDF5 cannot give the dataset's dataspace", s->who);
  for (i = 0; i < records && rc == PARZ_OK; i++) {
    hsize_t offset[PARZ_MAX_RANK] = {0}, size = 0;
    unsigned mask = 0;
    haddr_t addr = HADDR_UNDEF;
    if (h5->H5Dget_chunk_info(dset, space, (hsize_t)i, offset, &mask, &addr, &size) < 0 ||
        addr == HADDR_UNDEF)
      rc = parz_fail(s->err, PARZ_ERR_ARG, "%s: HDF5 cannot give record %llu of its chunk index",
                     s->who, (unsigned long long)i);
    else
      rc = gather(s, offset, size);
  }
  h5->H5Sclose(space);
  return rc;
}

/* Whether H5Dget_chunk_info for each of `records` records costs less than a lookup for every
 * place of the grid. A call walks the index up to its record: over the records of a B-tree, so
 * records^2 / 2 record visits in all, but over every place of the grid for the array indexes
 * (fixed and extensible), so never for those. A record visit is far cheaper than a lookup, most
 * of all than one where nothing is stored (HDF5 raises an error for it): records^2 / 64 against
 * the places of the grid keeps the walk only where it is the cheaper
 * (bench/results/build-vm/bench_index.md). */
static int walk_records_is_cheaper(hid_t dset, const parz_chunk_grid* g, uint64_t records) {
  const parz_h5_api* h5 = parz_h5();
  H5D_chunk_index_t type = H5D_CHUNK_IDX_BTREE;
  if (h5->chunk_index_type && h5->chunk_index_type(dset, &type) < 0)
    h5->H5Eclear2(H5E_DEFAULT);
  if (type != H5D_CHUNK_IDX_BTREE && type != H5D_CHUNK_IDX_BT2)
    return 0;
  return records <= UINT32_MAX && records * records / 64 <= parz_h5_grid_chunks(g);
}

/* H5Dchunk_iter gives element offsets from HDF5 1.14.0 on (its 1.13 previews gave them in chunks). */
static int can_iterate(void) {
  const parz_h5_api* h5 = parz_h5();
  unsigned major = 0, minor = 0, release = 0;
  return h5->chunk_iter && h5->H5get_libversion(&major, &minor, &release) >= 0 &&
         (major > 1 || (major == 1 && minor >= 14));
}

int parz_h5_stored_chunks(hid_t dset, const parz_chunk_grid* g, const char* who,
                          parz_h5_stored_chunk** chunks, size_t* n, parz_error* err) {
  const parz_h5_api* h5 = parz_h5();
  gathered s;
  quiet_errors q;
  int rc;
  memset(&s, 0, sizeof s);
  s.g = g;
  s.who = who;
  s.err = err;
  *chunks = NULL;
  *n = 0;
  quiet_begin(&q);
  if (can_iterate()) {
    if (h5->chunk_iter(dset, H5P_DEFAULT, gather_record, &s) < 0 && s.rc == PARZ_OK)
      s.rc = parz_fail(err, PARZ_ERR_ARG, "%s: HDF5 cannot walk the dataset's chunk index", who);
    rc = s.rc;
  } else {
    hid_t space = h5->H5Dget_space(dset);
    hsize_t records = 0;
    const int counted = space >= 0 && h5->H5Dget_num_chunks(dset, space, &records) >= 0;
    if (space >= 0)
      h5->H5Sclose(space);
    if (!counted)
      rc = parz_fail(err, PARZ_ERR_ARG, "%s: HDF5 cannot count the stored chunks", who);
    else if (records == 0)
      rc = PARZ_OK;
    else if (walk_records_is_cheaper(dset, g, records))
      rc = walk_records(dset, &s, records);
    else
      rc = walk_grid(dset, &s, records);
  }
  quiet_end(&q);
  if (rc == PARZ_OK)
    rc = sort_records(&s);
  if (rc != PARZ_OK) {
    free(s.v);
    return rc;
  }
  *chunks = s.v;
  *n = s.n;
  return PARZ_OK;
}
