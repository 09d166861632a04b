/* parz_h5_write (parz_h5_write.h) and what the device writer shares with it: the selected box
 * checked against the dataset's chunks, and encoded chunks stored with H5Dwrite_chunk. On the
 * CPU each chunk is encoded from the caller's array in place (through its strides), edge chunks
 * from a padded copy; where the policy sends the write to the GPU, the box goes up through
 * pinned memory and parz_gpu_encode_box encodes it in batches. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "h5_api.h"
#include "h5_chunks.h"
#include "parz_h5_write.h"
#include "parz_omp.h"

#define PARZ_H5_EXPORT __attribute__((visibility("default")))

static const char who[] = "parz_h5_write";

/* Whether the box holds a chunk that crosses the dataset's extent. */
static int box_has_partial_chunk(const parz_chunk_grid* g, const parz_box* box) {
  unsigned k;
  for (k = 0; k < g->rank; k++)
    if (box->count[k] && box->start[k] + box->count[k] == g->dims[k] &&
        g->dims[k] % g->chunk_dims[k])
      return 1;
  return 0;
}

int parz_h5_prepare_write(hid_t dset, hid_t file_space, size_t src_bytes, const char* name,
                          parz_h5_dataset* d, parz_box* box, parz_error* err) {
  const parz_h5_api* h5;
  char why[sizeof err->message];
  uint64_t total;
  unsigned k;
  int rc;
  if ((rc = parz_h5_api_readers(name, why, sizeof why)) != PARZ_OK)
    return parz_fail(err, rc, "%s", why);
  h5 = parz_h5();
  if ((rc = parz_h5_describe(dset, name, d, err)) != PARZ_OK ||
      (rc = parz_h5_selected_box(file_space, &d->grid, name, box, err)) != PARZ_OK)
    return rc;
  total = parz_h5_box_values(&d->grid, box);
  if (total == 0)
    return PARZ_OK;
  for (k = 0; k < d->grid.rank; k++) {
    const uint64_t end = box->start[k] + box->count[k], c = d->grid.chunk_dims[k];
    if (box->start[k] % c || (end % c && end != d->grid.dims[k]))
      return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                       "%s: the selection [%llu, %llu) of dimension %u cuts its chunks of %llu; "
                       "select whole chunks, or use H5Dwrite",
                       name, (unsigned long long)box->start[k], (unsigned long long)end, k,
                       (unsigned long long)c);
  }
  if (total > src_bytes / parz_type_size(d->grid.type))
    return parz_fail(err, PARZ_ERR_BUFFER,
                     "%s: the selection holds %llu values of %zu bytes, the buffer %zu bytes", name,
                     (unsigned long long)total, parz_type_size(d->grid.type), src_bytes);
  if (box_has_partial_chunk(&d->grid, box)) {
    hid_t dcpl = h5->H5Dget_create_plist(dset);
    unsigned opts = 0;
    const int got = dcpl >= 0 && h5->H5Pget_chunk_opts(dcpl, &opts) >= 0;
    if (dcpl >= 0)
      h5->H5Pclose(dcpl);
    if (!got)
      return parz_fail(err, PARZ_ERR_ARG, "%s: HDF5 cannot give the dataset's chunk options", name);
    if (opts & H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS)
      return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                       "%s: the dataset stores partial edge chunks unfiltered "
                       "(H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS); use H5Dwrite",
                       name);
  }
  return PARZ_OK;
}

int parz_h5_write_chunks(void* writer, size_t n, const parz_chunk_ref* refs, const void* packed,
                         parz_error* err) {
  const parz_h5_chunk_writer* w = (const parz_h5_chunk_writer*)writer;
  const parz_h5_api* h5 = parz_h5();
  hsize_t offset[H5S_MAX_RANK];
  size_t i;
  unsigned k;
  for (i = 0; i < n; i++) {
    for (k = 0; k < w->rank; k++)
      offset[k] = refs[i].origin[k];
    if (h5->H5Dwrite_chunk(w->dset, H5P_DEFAULT, 0, offset, refs[i].bytes,
                           (const unsigned char*)packed + refs[i].at) < 0) {
      char where[96] = "";
      size_t len = 0;
      for (k = 0; k < w->rank && len + 24 < sizeof where; k++)
        len += (size_t)snprintf(where + len, sizeof where - len, "%s%llu", k ? "," : "",
                                (unsigned long long)refs[i].origin[k]);
      return parz_fail(err, PARZ_ERR_ARG, "%s: HDF5 cannot write the chunk at [%s]", w->who, where);
    }
  }
  return PARZ_OK;
}

/* The box encoded on the CPU, one chunk after another (each on `threads` threads), and stored. */
static int write_on_cpu(hid_t dset, const parz_h5_dataset* d, const parz_box* box, const void* src,
                        int threads, parz_error* err) {
  const parz_chunk_grid* g = &d->grid;
  const parz_filter_config* f = &d->filter;
  const size_t raw = parz_array_count(&f->chunk) * parz_type_size(g->type);
  const size_t bound = parz_chunk_bound(&f->chunk, &f->config);
  const parz_h5_chunk_writer w = {dset, g->rank, who};
  unsigned char* pad = (unsigned char*)malloc(raw ? raw : 1);
  unsigned char* out = (unsigned char*)malloc(bound ? bound : 1);
  parz_chunk_ref ref;
  unsigned k;
  int rc = PARZ_OK;
  if (!pad || !out) {
    rc = parz_fail(err, PARZ_ERR_NOMEM, "%s: no memory for a chunk of %zu bytes", who, bound);
    goto done;
  }
  memset(&ref, 0, sizeof ref);
  parz_box_first_chunk(g, box, ref.origin);
  do {
    parz_chunk_dest dest;
    parz_array a = f->chunk;
    int edge = 0;
    parz_box_chunk_dest(g, box, ref.origin, (void*)src, &dest);
    for (k = 0; k < a.dims; k++) {
      a.stride[k] = dest.stride[k];
      edge = edge || dest.hi[k] < a.shape[k];
    }
    if (edge) {
      parz_chunk_dest_gather(&f->chunk, &dest, d->fills ? d->fill : NULL, pad);
      rc = parz_omp_chunk_encode(&f->chunk, pad, &f->config, out, bound, &ref.bytes, threads, err);
    } else {
      rc = parz_omp_chunk_encode(&a, dest.data, &f->config, out, bound, &ref.bytes, threads, err);
    }
    if (rc != PARZ_OK || (rc = parz_h5_write_chunks((void*)&w, 1, &ref, out, err)) != PARZ_OK)
      goto done;
  } while (parz_box_next_chunk(g, box, ref.origin));
done:
  free(pad);
  free(out);
  return rc;
}

#ifdef PARZ_HAVE_CUDA
struct gpu_write {
  hid_t dset;
  const parz_h5_dataset* d;
  const parz_box* box;
  const void* src;
  size_t bytes;
  parz_error* err;
};

/* The box up into the context's device memory, then encoded there and stored. */
static int write_on_gpu(parz_gpu_context* ctx, void* arg) {
  struct gpu_write* r = (struct gpu_write*)arg;
  const parz_h5_dataset* d = r->d;
  void* d_box = parz_gpu_result(ctx, r->bytes, r->err);
  parz_h5_chunk_writer w = {r->dset, d->grid.rank, who};
  int rc;
  if (!d_box)
    return PARZ_ERR_DEVICE;
  if ((rc = parz_gpu_upload(ctx, r->src, d_box, r->bytes, NULL, r->err)) != PARZ_OK)
    return rc;
  return parz_gpu_encode_box(ctx, &d->grid, r->box, d_box, d->fills ? d->fill : NULL,
                             &d->filter.config, NULL, parz_h5_write_chunks, &w, r->err);
}
#endif

PARZ_H5_EXPORT int parz_h5_write(hid_t dset, hid_t file_space, const void* src, size_t src_bytes,
                                 int threads, parz_error* err) {
  parz_h5_dataset d;
  parz_box box;
  parz_exec_policy pol;
  size_t bytes;
  int rc;
  if (!src && src_bytes)
    return parz_fail(err, PARZ_ERR_ARG, "%s: NULL buffer", who);
  if ((rc = parz_h5_prepare_write(dset, file_space, src_bytes, who, &d, &box, err)) != PARZ_OK ||
      parz_h5_box_values(&d.grid, &box) == 0)
    return rc;
  parz_exec_policy_from_env(&pol);
  if (threads <= 0)
    threads = pol.exec == PARZ_EXEC_SERIAL ? 1 : pol.threads;
  bytes = (size_t)parz_h5_box_values(&d.grid, &box) * parz_type_size(d.grid.type);
  if (parz_dispatch_gpu_wanted(&pol, bytes, "encoding")) {
#ifdef PARZ_HAVE_CUDA
    parz_error gerr = {0, ""};
    struct gpu_write r = {dset, &d, &box, src, bytes, &gerr};
    rc = parz_dispatch_with_gpu(write_on_gpu, &r, &gerr);
    /* a chunk the GPU encoder does not take (NaN of more bit patterns than its mask's set
     * holds): the box again on the CPU, chunks written so far rewritten with the same bytes */
    if (rc == PARZ_ERR_UNSUPPORTED)
      return write_on_cpu(dset, &d, &box, src, threads, err);
    if (rc != PARZ_ERR_DEVICE) {
      if (rc != PARZ_OK && err)
        *err = gerr;
      return rc;
    }
    {
      char msg[sizeof gerr.message + 64];
      snprintf(msg, sizeof msg, "GPU write failed (%s); encoding on the CPU", gerr.message);
      parz_warn_once(msg);
    }
#endif
  }
  return write_on_cpu(dset, &d, &box, src, threads, err);
}
