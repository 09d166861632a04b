/* parz_h5_read_device (parz_h5_device.h): the HDF5 half. Finds the stored chunks that meet the
 * selected box (H5Dget_chunk_info_by_coord over that part of the chunk grid), reads them
 * unfiltered (H5Dread_chunk) into the GPU context's pinned staging, and hands them to
 * parz_gpu_assemble. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "H5Zparz.h"
#include "filter_config.h"
#include "parz_h5_device.h"

/* What the read needs from the dataset's creation properties and types. */
struct dataset_info {
  parz_gpu_chunk_grid grid;
  int big_endian;
  unsigned char fill[8]; /* for chunks never written, native order (zeros if undefined) */
  unsigned cd[PARZ_CD_INTERNAL_NELMTS]; /* the stored cd_values of the filter */
  size_t ncd;
};

/* The stored cd_values must describe the dataset as its datatype and layout messages do, as the
 * filter requires for H5Dread (filter_config.h): a file that passes here is one H5Dread reads
 * too, and a chunk that disagrees with the dataset is refused by parz_gpu_assemble. */
static int check_cd_values(const struct dataset_info* d, parz_error* err)
{
  parz_filter_config cfg;
  parz_error e = {0, ""};
  uint64_t cdims[PARZ_GPU_MAX_RANK];
  size_t shape[4];
  unsigned k;
  for (k = 0; k < d->grid.rank; k++)
    cdims[k] = d->grid.chunk_dims[k];
  const int dims = parz_cd_squeeze(d->grid.rank, cdims, shape);
  if (parz_cd_load(d->ncd, d->cd, &cfg, &e) != PARZ_OK ||
      (dims < 0 ? parz_fail(&e, PARZ_ERR_DIMS, "more than 4 chunk dimensions larger than 1")
                : parz_cd_check_dataset(&cfg, d->grid.type, d->big_endian, (unsigned)dims, shape,
                                        &e)) != PARZ_OK)
    return parz_fail(err, e.code, "parz_h5_read_device: %s",
                     strncmp(e.message, "parz: ", 6) ? e.message : e.message + 6);
  return PARZ_OK;
}

static int describe(hid_t dset, struct dataset_info* d, parz_error* err)
{
  hid_t dcpl = -1, type = -1, space = -1, native = -1;
  hsize_t dims[H5S_MAX_RANK], cdims[H5S_MAX_RANK];
  int rc = PARZ_OK, rank, k;
  memset(d, 0, sizeof *d);
  if ((dcpl = H5Dget_create_plist(dset)) < 0 || (type = H5Dget_type(dset)) < 0 ||
      (space = H5Dget_space(dset)) < 0) {
    rc = parz_fail(err, PARZ_ERR_ARG, "parz_h5_read_device: not an open dataset");
    goto done;
  }
  if (H5Pget_layout(dcpl) != H5D_CHUNKED) {
    rc = parz_fail(err, PARZ_ERR_UNSUPPORTED,
                   "parz_h5_read_device: the dataset is not chunked, so not filtered");
    goto done;
  }
  {
    unsigned flags, config;
    size_t nelmts = PARZ_CD_INTERNAL_NELMTS;
    char name[64];
    const int nf = H5Pget_nfilters(dcpl);
    const H5Z_filter_t first =
        nf > 0 ? H5Pget_filter2(dcpl, 0, &flags, &nelmts, d->cd, sizeof name, name, &config) : 0;
    if (nf != 1 || first != H5Z_FILTER_PARZ) {
      rc = parz_fail(err, PARZ_ERR_UNSUPPORTED,
                     "parz_h5_read_device: the dataset's filters are not ParZ alone (%d filters, "
                     "the first %d); read it with H5Dread",
                     nf, (int)first);
      goto done;
    }
    d->ncd = nelmts;
  }
  {
    const H5T_class_t cls = H5Tget_class(type);
    const size_t size = H5Tget_size(type);
    const int is_signed = cls == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_2;
    if ((cls != H5T_FLOAT && !is_signed) || (size != 4 && size != 8)) {
      rc = parz_fail(err, PARZ_ERR_TYPE,
                     "parz_h5_read_device: %zu-byte values of class %d (ParZ stores 4- and 8-byte "
                     "floats and signed integers)",
                     size, (int)cls);
      goto done;
    }
    d->grid.type = cls == H5T_FLOAT ? (size == 4 ? PARZ_FLOAT : PARZ_DOUBLE)
                                    : (size == 4 ? PARZ_INT32 : PARZ_INT64);
    d->big_endian = H5Tget_order(type) == H5T_ORDER_BE;
  }
  rank = H5Sget_simple_extent_ndims(space);
  if (rank < 1 || rank > PARZ_GPU_MAX_RANK || H5Sget_simple_extent_dims(space, dims, NULL) < 0 ||
      H5Pget_chunk(dcpl, rank, cdims) != rank) {
    rc = parz_fail(err, PARZ_ERR_DIMS, "parz_h5_read_device: dataset of rank %d", rank);
    goto done;
  }
  d->grid.rank = (unsigned)rank;
  for (k = 0; k < rank; k++) {
    d->grid.dims[k] = dims[k];
    d->grid.chunk_dims[k] = cdims[k];
  }
  {
    H5D_fill_value_t status;
    if (H5Pfill_value_defined(dcpl, &status) >= 0 && status != H5D_FILL_VALUE_UNDEFINED &&
        (native = H5Tget_native_type(type, H5T_DIR_ASCEND)) >= 0 &&
        H5Tget_size(native) == parz_type_size(d->grid.type) &&
        H5Pget_fill_value(dcpl, native, d->fill) < 0)
      memset(d->fill, 0, sizeof d->fill);
  }
done:
  if (native >= 0)
    H5Tclose(native);
  if (space >= 0)
    H5Sclose(space);
  if (type >= 0)
    H5Tclose(type);
  if (dcpl >= 0)
    H5Pclose(dcpl);
  return rc;
}

/* The box `file_space` selects (parz_h5_read_device); PARZ_ERR_* for any other selection. */
static int selected_box(hid_t file_space, const parz_gpu_chunk_grid* g, parz_gpu_box* box,
                        parz_error* err)
{
  hsize_t dims[H5S_MAX_RANK], lo[H5S_MAX_RANK], hi[H5S_MAX_RANK];
  unsigned k;
  memset(box, 0, sizeof *box);
  for (k = 0; k < g->rank; k++)
    box->count[k] = g->dims[k];
  if (file_space == H5S_ALL)
    return PARZ_OK;
  if (H5Sget_simple_extent_ndims(file_space) != (int)g->rank ||
      H5Sget_simple_extent_dims(file_space, dims, NULL) < 0)
    return parz_fail(err, PARZ_ERR_DIMS,
                     "parz_h5_read_device: the selection's dataspace is not of the dataset's rank");
  for (k = 0; k < g->rank; k++)
    if (dims[k] != g->dims[k])
      return parz_fail(err, PARZ_ERR_DIMS,
                       "parz_h5_read_device: the selection's dataspace has extent %llu in "
                       "dimension %u, the dataset %llu",
                       (unsigned long long)dims[k], k, (unsigned long long)g->dims[k]);
  switch (H5Sget_select_type(file_space)) {
  case H5S_SEL_ALL:
    return PARZ_OK;
  case H5S_SEL_NONE:
    memset(box->count, 0, sizeof box->count);
    return PARZ_OK;
  case H5S_SEL_HYPERSLABS: {
    const hssize_t points = H5Sget_select_npoints(file_space);
    uint64_t in_box = 1;
    if (points < 0 || H5Sget_select_bounds(file_space, lo, hi) < 0)
      return parz_fail(err, PARZ_ERR_ARG,
                       "parz_h5_read_device: HDF5 cannot give the selection's bounds");
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
                     "parz_h5_read_device: the selection of %lld values is not one box (its "
                     "bounds hold %llu); read it with H5Dread",
                     (long long)points, (unsigned long long)in_box);
  }
  default:
    return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                     "parz_h5_read_device: only a hyperslab of one block (or all, or none) is "
                     "read into GPU memory; read point selections with H5Dread");
  }
  return parz_fail(err, PARZ_ERR_DIMS,
                   "parz_h5_read_device: the selection's bounds lie outside the dataset");
}

/* Advances the chunk coordinate odometer over the chunks that meet the box (at: a chunk's
 * first element); 0 once every one has been visited. */
static int next_chunk(const parz_gpu_chunk_grid* g, const parz_gpu_box* box, hsize_t* at)
{
  for (int k = (int)g->rank - 1; k >= 0; k--) {
    at[k] += g->chunk_dims[k];
    if (at[k] < box->start[k] + box->count[k])
      return 1;
    at[k] = box->start[k] - box->start[k] % g->chunk_dims[k];
  }
  return 0;
}

int parz_h5_read_device(parz_gpu_context* ctx, hid_t dset, hid_t file_space, void* d_dst,
                        size_t dst_bytes, void* stream, parz_error* err)
{
  struct dataset_info d;
  parz_gpu_box box;
  hsize_t at[H5S_MAX_RANK];
  parz_gpu_chunk_ref* refs = NULL;
  size_t n = 0, cap = 0, packed = 0, i, failed;
  uint64_t total = 1;
  unsigned char* staging;
  int rc, missing = 0;
  unsigned k;
  if (!ctx || !d_dst)
    return parz_fail(err, PARZ_ERR_ARG, "parz_h5_read_device: NULL argument");
  if ((rc = describe(dset, &d, err)) != PARZ_OK || (rc = check_cd_values(&d, err)) != PARZ_OK ||
      (rc = selected_box(file_space, &d.grid, &box, err)) != PARZ_OK)
    return rc;
  for (k = 0; k < d.grid.rank; k++)
    total *= box.count[k]; /* no overflow: at most the dataset's count, which HDF5 holds */
  if (total > dst_bytes / parz_type_size(d.grid.type))
    return parz_fail(err, PARZ_ERR_BUFFER,
                     "parz_h5_read_device: the selection holds %llu values of %zu bytes, the "
                     "buffer %zu bytes",
                     (unsigned long long)total, parz_type_size(d.grid.type), dst_bytes);
  if (total == 0)
    return PARZ_OK;

  /* the stored chunks that meet the box: where they are and how long */
  for (k = 0; k < d.grid.rank; k++)
    at[k] = box.start[k] - box.start[k] % d.grid.chunk_dims[k];
  do {
    unsigned mask = 0;
    haddr_t addr = HADDR_UNDEF;
    hsize_t size = 0;
    if (H5Dget_chunk_info_by_coord(dset, at, &mask, &addr, &size) < 0) {
      rc = parz_fail(err, PARZ_ERR_ARG, "parz_h5_read_device: HDF5 cannot locate a chunk");
      goto done;
    }
    if (addr == HADDR_UNDEF || size == 0) {
      missing = 1;
      continue;
    }
    if (n == cap) {
      parz_gpu_chunk_ref* more;
      cap = cap ? 2 * cap : 64;
      if (!(more = (parz_gpu_chunk_ref*)realloc(refs, cap * sizeof *refs))) {
        rc = parz_fail(err, PARZ_ERR_NOMEM, "parz_h5_read_device: no memory for %zu chunks", cap);
        goto done;
      }
      refs = more;
    }
    memset(&refs[n], 0, sizeof refs[n]);
    refs[n].at = packed;
    refs[n].bytes = (size_t)size;
    for (k = 0; k < d.grid.rank; k++)
      refs[n].origin[k] = at[k];
    if (size > SIZE_MAX / 2 - packed) {
      rc = parz_fail(err, PARZ_ERR_NOMEM, "parz_h5_read_device: the stored chunks are too large");
      goto done;
    }
    packed += ((size_t)size + 7) & ~(size_t)7;
    n++;
  } while (next_chunk(&d.grid, &box, at));

  /* their bytes, unfiltered, into pinned memory */
  if (!(staging = (unsigned char*)parz_gpu_staging(ctx, packed, err))) {
    rc = PARZ_ERR_NOMEM;
    goto done;
  }
  for (i = 0; i < n; i++) {
    uint32_t mask = 0;
    hsize_t off[H5S_MAX_RANK];
    for (k = 0; k < d.grid.rank; k++)
      off[k] = refs[i].origin[k];
    if (H5Dread_chunk(dset, H5P_DEFAULT, off, &mask, staging + refs[i].at) < 0) {
      rc = parz_fail(err, PARZ_ERR_ARG, "parz_h5_read_device: HDF5 cannot read chunk %zu", i);
      goto done;
    }
    refs[i].raw = (mask & 1u) != 0; /* the filter (the only one) was skipped for this chunk */
    if (refs[i].raw && d.big_endian) {
      rc = parz_fail(err, PARZ_ERR_UNSUPPORTED,
                     "parz_h5_read_device: chunk %zu was stored without the filter in big-endian "
                     "order; read the dataset with H5Dread",
                     i);
      goto done;
    }
  }
  failed = n; /* set by parz_gpu_assemble when one chunk is at fault */
  rc = parz_gpu_assemble(ctx, &d.grid, &box, staging, packed, n, refs, missing ? d.fill : NULL,
                         d_dst, stream, &failed, err);
  if (rc != PARZ_OK && err && failed < n) {
    /* name the chunk by its place in the dataset */
    char what[sizeof err->message], where[96] = "";
    size_t len = 0;
    memcpy(what, err->message, sizeof what);
    for (k = 0; k < d.grid.rank && len + 24 < sizeof where; k++)
      len += (size_t)snprintf(where + len, sizeof where - len, "%s%llu", k ? "," : "",
                              (unsigned long long)refs[failed].origin[k]);
    parz_fail(err, rc, "%s (the chunk at [%s])", what, where);
  }
done:
  free(refs);
  return rc;
}
