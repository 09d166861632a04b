/* The stored chunks of a ParZ dataset (h5_chunks.h). */
#include "h5_chunks.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "H5Zparz.h"
#include "h5_api.h"
#include "h5_dataset.h"
#include "h5_index.h"
#include "filter_config.h"

/* The stored cd_values (cd[0..ncd)) loaded into d->filter and checked against the dataset d
 * describes (filter_config.h). */
static int check_cd_values(parz_h5_dataset* d, const unsigned* cd, size_t ncd, const char* who,
                           parz_error* err) {
  parz_filter_config* cfg = &d->filter;
  parz_error e = {0, ""};
  size_t shape[4];
  const int dims = parz_cd_squeeze(d->grid.rank, d->grid.chunk_dims, shape);
  if (ncd > PARZ_CD_INTERNAL_NELMTS) /* HDF5 counts them all, wrote the first of them */
    return parz_fail(err, PARZ_ERR_PARAM, "%s: the dataset stores %zu cd_values, ParZ %u", who, ncd,
                     PARZ_CD_INTERNAL_NELMTS);
  if (parz_cd_load(ncd, cd, cfg, &e) != PARZ_OK ||
      (dims < 0 ? parz_fail(&e, PARZ_ERR_DIMS, "more than 4 chunk dimensions larger than 1")
                : parz_cd_check_dataset(cfg, d->grid.type, d->big_endian, (unsigned)dims, shape,
                                        &e)) != PARZ_OK)
    return parz_fail(err, e.code, "%s: %s", who,
                     strncmp(e.message, "parz: ", 6) ? e.message : e.message + 6);
  return PARZ_OK;
}

int parz_h5_describe(hid_t dset, const char* who, parz_h5_dataset* d, parz_error* err) {
  const parz_h5_api* h5 = parz_h5();
  hid_t dcpl = -1, type = -1, space = -1, native = -1;
  hsize_t dims[H5S_MAX_RANK], cdims[H5S_MAX_RANK];
  unsigned cd[PARZ_CD_INTERNAL_NELMTS] = {0};
  size_t ncd = PARZ_CD_INTERNAL_NELMTS;
  int rc = PARZ_OK, rank, k;
  memset(d, 0, sizeof *d);
  if ((dcpl = h5->H5Dget_create_plist(dset)) < 0 || (type = h5->H5Dget_type(dset)) < 0 ||
      (space = h5->H5Dget_space(dset)) < 0) {
    rc = parz_fail(err, PARZ_ERR_ARG, "%s: not an open dataset", who);
    goto done;
  }
  if (h5->H5Pget_layout(dcpl) != H5D_CHUNKED) {
    rc = parz_fail(err, PARZ_ERR_UNSUPPORTED, "%s: the dataset is not chunked, so not filtered",
                   who);
    goto done;
  }
  {
    unsigned flags, config;
    char name[64];
    const int nf = h5->H5Pget_nfilters(dcpl);
    const H5Z_filter_t first =
        nf > 0 ? h5->H5Pget_filter2(dcpl, 0, &flags, &ncd, cd, sizeof name, name, &config) : 0;
    if (nf != 1 || first != H5Z_FILTER_PARZ) {
      rc = parz_fail(err, PARZ_ERR_UNSUPPORTED,
                     "%s: the dataset's filters are not ParZ alone (%d filters, the first %d); "
                     "use H5Dread or H5Dwrite",
                     who, nf, (int)first);
      goto done;
    }
  }
  {
    char why[256];
    if (parz_h5_classify_type(type, &d->grid.type, &d->big_endian, why, sizeof why) != 0) {
      rc = parz_fail(err, PARZ_ERR_TYPE, "%s: %s", who, strncmp(why, "parz: ", 6) ? why : why + 6);
      goto done;
    }
  }
  rank = h5->H5Sget_simple_extent_ndims(space);
  if (rank < 1 || rank > PARZ_MAX_RANK || h5->H5Sget_simple_extent_dims(space, dims, NULL) < 0 ||
      h5->H5Pget_chunk(dcpl, rank, cdims) != rank) {
    rc = parz_fail(err, PARZ_ERR_DIMS, "%s: dataset of rank %d", who, rank);
    goto done;
  }
  d->grid.rank = (unsigned)rank;
  for (k = 0; k < rank; k++) {
    d->grid.dims[k] = dims[k];
    d->grid.chunk_dims[k] = cdims[k];
  }
  if ((rc = check_cd_values(d, cd, ncd, who, err)) != PARZ_OK)
    goto done;
  {
    H5D_fill_value_t status;
    H5D_fill_time_t when = H5D_FILL_TIME_IFSET;
    d->fills = h5->H5Pfill_value_defined(dcpl, &status) >= 0 &&
               status != H5D_FILL_VALUE_UNDEFINED && h5->H5Pget_fill_time(dcpl, &when) >= 0 &&
               when != H5D_FILL_TIME_NEVER;
    if (d->fills && (native = h5->H5Tget_native_type(type, H5T_DIR_ASCEND)) >= 0 &&
        h5->H5Tget_size(native) == parz_type_size(d->grid.type) &&
        h5->H5Pget_fill_value(dcpl, native, d->fill) < 0)
      memset(d->fill, 0, sizeof d->fill);
  }
done:
  if (native >= 0)
    h5->H5Tclose(native);
  if (space >= 0)
    h5->H5Sclose(space);
  if (type >= 0)
    h5->H5Tclose(type);
  if (dcpl >= 0)
    h5->H5Pclose(dcpl);
  return rc;
}

int parz_h5_selected_box(hid_t file_space, const parz_chunk_grid* g, const char* who, parz_box* box,
                         parz_error* err) {
  const parz_h5_api* h5 = parz_h5();
  hsize_t dims[H5S_MAX_RANK], lo[H5S_MAX_RANK], hi[H5S_MAX_RANK];
  unsigned k;
  memset(box, 0, sizeof *box);
  for (k = 0; k < g->rank; k++)
    box->count[k] = g->dims[k];
  if (file_space == H5S_ALL)
    return PARZ_OK;
  if (h5->H5Sget_simple_extent_ndims(file_space) != (int)g->rank ||
      h5->H5Sget_simple_extent_dims(file_space, dims, NULL) < 0)
    return parz_fail(err, PARZ_ERR_DIMS,
                     "%s: the selection's dataspace is not of the dataset's "
                     "rank",
                     who);
  for (k = 0; k < g->rank; k++)
    if (dims[k] != g->dims[k])
      return parz_fail(err, PARZ_ERR_DIMS,
                       "%s: the selection's dataspace has extent %llu in dimension %u, the "
                       "dataset %llu",
                       who, (unsigned long long)dims[k], k, (unsigned long long)g->dims[k]);
  switch (h5->H5Sget_select_type(file_space)) {
    case H5S_SEL_ALL: return PARZ_OK;
    case H5S_SEL_NONE: memset(box->count, 0, sizeof box->count); return PARZ_OK;
    case H5S_SEL_HYPERSLABS: {
      const hssize_t points = h5->H5Sget_select_npoints(file_space);
      uint64_t in_box = 1;
      if (points < 0 || h5->H5Sget_select_bounds(file_space, lo, hi) < 0)
        return parz_fail(err, PARZ_ERR_ARG, "%s: HDF5 cannot give the selection's bounds", who);
      for (k = 0; k < g->rank; k++) {
        if (hi[k] < lo[k] || hi[k] >= g->dims[k])
          break;
        box->start[k] = lo[k];
        box->count[k] = hi[k] - lo[k] + 1;
        in_box *= box->count[k]; /* at most the dataset's count */
      }
      if (k < g->rank)
        break;
      if (in_box == (uint64_t)points)
        return PARZ_OK;
      return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                       "%s: the selection of %lld values is not one box (its bounds hold %llu); "
                       "use H5Dread or H5Dwrite",
                       who, (long long)points, (unsigned long long)in_box);
    }
    default:
      return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                       "%s: only a hyperslab of one block (or all, or none) is taken; use H5Dread "
                       "or H5Dwrite for point selections",
                       who);
  }
  return parz_fail(err, PARZ_ERR_DIMS, "%s: the selection's bounds lie outside the dataset", who);
}

uint64_t parz_h5_box_values(const parz_chunk_grid* g, const parz_box* box) {
  uint64_t total = 1;
  unsigned k;
  for (k = 0; k < g->rank; k++)
    total *= box->count[k];
  return total;
}

/* Appends the stored chunk at origin, `size` bytes, to the list. */
static int add_ref(parz_h5_chunk_list* list, unsigned rank, const uint64_t* origin, uint64_t size,
                   const char* who, parz_error* err) {
  parz_chunk_ref* r;
  if (list->n == list->cap) {
    const size_t cap = list->cap ? 2 * list->cap : 64;
    parz_chunk_ref* more = (parz_chunk_ref*)realloc(list->refs, cap * sizeof *more);
    if (!more)
      return parz_fail(err, PARZ_ERR_NOMEM, "%s: no memory for %zu chunks", who, cap);
    list->refs = more;
    list->cap = cap;
  }
  if (size > SIZE_MAX / 2 - list->packed_bytes)
    return parz_fail(err, PARZ_ERR_NOMEM, "%s: the stored chunks are too large", who);
  r = &list->refs[list->n++];
  memset(r, 0, sizeof *r);
  r->at = list->packed_bytes;
  r->bytes = (size_t)size;
  memcpy(r->origin, origin, rank * sizeof origin[0]);
  list->packed_bytes += ((size_t)size + 7) & ~(size_t)7;
  return PARZ_OK;
}

/* Whether the box is the whole dataset. */
static int whole(const parz_chunk_grid* g, const parz_box* box) {
  unsigned k;
  for (k = 0; k < g->rank; k++)
    if (box->start[k] != 0 || box->count[k] != g->dims[k])
      return 0;
  return 1;
}

int parz_h5_list_chunks(hid_t dset, const parz_h5_dataset* d, const parz_box* box, const char* who,
                        parz_h5_chunk_list* list, parz_error* err) {
  const parz_chunk_grid* g = &d->grid;
  uint64_t origin[PARZ_MAX_RANK];
  int rc;
  memset(list, 0, sizeof *list);
  if (parz_h5_box_values(g, box) == 0)
    return PARZ_OK;
  if (whole(g, box)) {
    /* the whole dataset: its stored chunks in one walk of the index (h5_index.h) */
    parz_h5_stored_chunk* stored;
    size_t n, i;
    if ((rc = parz_h5_stored_chunks(dset, g, who, &stored, &n, err)) != PARZ_OK)
      return rc;
    for (i = 0; i < n && rc == PARZ_OK; i++)
      rc = add_ref(list, g->rank, stored[i].origin, stored[i].bytes, who, err);
    free(stored);
    list->missing = (size_t)(parz_h5_grid_chunks(g) - n);
    return rc;
  }
  parz_box_first_chunk(g, box, origin);
  do {
    uint64_t size = 0;
    /* one lookup per chunk, the one H5Dread_chunk makes: the size it gives sizes the buffer */
    if ((rc = parz_h5_chunk_bytes(dset, g->rank, origin, &size, who, err)) != PARZ_OK) {
      char what[sizeof err->message], where[96];
      memcpy(what, err->message, sizeof what);
      parz_h5_origin_text(g->rank, origin, where, sizeof where);
      return parz_fail(err, rc, "%s (the chunk at %s)", what, where);
    }
    if (size == 0)
      list->missing++;
    else if ((rc = add_ref(list, g->rank, origin, size, who, err)) != PARZ_OK)
      return rc;
  } while (parz_box_next_chunk(g, box, origin));
  return PARZ_OK;
}

void parz_h5_chunk_list_free(parz_h5_chunk_list* list) {
  free(list->refs);
  memset(list, 0, sizeof *list);
}

int parz_h5_read_chunk(hid_t dset, const parz_h5_dataset* d, parz_h5_chunk_list* list, size_t i,
                       void* packed, const char* who, parz_error* err) {
  parz_chunk_ref* r = &list->refs[i];
  uint32_t mask = 0;
  const int rc = parz_h5_chunk_read(dset, d->grid.rank, r->origin, r->bytes,
                                    (unsigned char*)packed + r->at, &mask, who, err);
  if (rc != PARZ_OK)
    return rc;
  /* the filter (the only one) skipped for this chunk: its values, in the file's byte order */
  r->raw = !(mask & 1u)    ? PARZ_STORED_PARZ
           : d->big_endian ? PARZ_STORED_RAW_SWAPPED
                           : PARZ_STORED_RAW;
  return PARZ_OK;
}

int parz_h5_read_chunks(hid_t dset, const parz_h5_dataset* d, parz_h5_chunk_list* list,
                        void* packed, const char* who, parz_error* err) {
  size_t i;
  int rc;
  for (i = 0; i < list->n; i++)
    if ((rc = parz_h5_read_chunk(dset, d, list, i, packed, who, err)) != PARZ_OK)
      return parz_h5_name_chunk(list, d->grid.rank, i, rc, err);
  return PARZ_OK;
}

int parz_h5_prepare(hid_t dset, hid_t file_space, size_t dst_bytes, const char* who,
                    parz_h5_dataset* d, parz_box* box, parz_h5_chunk_list* list, parz_error* err) {
  char why[sizeof err->message];
  uint64_t total;
  int rc;
  memset(list, 0, sizeof *list);
  if ((rc = parz_h5_api_readers(who, why, sizeof why)) != PARZ_OK)
    return parz_fail(err, rc, "%s", why);
  if ((rc = parz_h5_describe(dset, who, d, err)) != PARZ_OK ||
      (rc = parz_h5_selected_box(file_space, &d->grid, who, box, err)) != PARZ_OK)
    return rc;
  total = parz_h5_box_values(&d->grid, box);
  if (total > dst_bytes / parz_type_size(d->grid.type))
    return parz_fail(err, PARZ_ERR_BUFFER,
                     "%s: the selection holds %llu values of %zu bytes, the buffer %zu bytes", who,
                     (unsigned long long)total, parz_type_size(d->grid.type), dst_bytes);
  return parz_h5_list_chunks(dset, d, box, who, list, err);
}

int parz_h5_name_chunk(const parz_h5_chunk_list* list, unsigned rank, size_t failed, int rc,
                       parz_error* err) {
  char what[sizeof err->message], where[96];
  if (!err || failed >= list->n)
    return rc;
  memcpy(what, err->message, sizeof what);
  parz_h5_origin_text(rank, list->refs[failed].origin, where, sizeof where);
  return parz_fail(err, rc, "%s (the chunk at %s)", what, where);
}
