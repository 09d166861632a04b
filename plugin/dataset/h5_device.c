/* parz_h5_read_device (parz_h5_device.h): the HDF5 half. The stored chunks that meet the selected
 * box (h5_chunks.h) read unfiltered into the GPU context's pinned staging, handed to
 * parz_gpu_assemble. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "h5_chunks.h"
#include "parz_h5_device.h"

#define PARZ_H5_EXPORT __attribute__((visibility("default")))

static const char who[] = "parz_h5_read_device";

PARZ_H5_EXPORT int parz_h5_read_device(parz_gpu_context* ctx, hid_t dset, hid_t file_space,
                                       void* d_dst, size_t dst_bytes, void* stream,
                                       parz_error* err) {
  parz_h5_dataset d;
  parz_box box;
  parz_h5_chunk_list list;
  size_t failed = SIZE_MAX, i;
  unsigned char* staging;
  int rc;
  if (!ctx || !d_dst)
    return parz_fail(err, PARZ_ERR_ARG, "%s: NULL argument", who);
  if ((rc = parz_h5_prepare(dset, file_space, dst_bytes, who, &d, &box, &list, err)) != PARZ_OK ||
      parz_h5_box_values(&d.grid, &box) == 0)
    goto done;
  if (!(staging = (unsigned char*)parz_gpu_staging(ctx, list.packed_bytes, err))) {
    rc = PARZ_ERR_NOMEM;
    goto done;
  }
  if ((rc = parz_h5_read_chunks(dset, &d, &list, staging, who, err)) != PARZ_OK)
    goto done;
  for (i = 0; i < list.n; i++)
    if (list.refs[i].raw == PARZ_STORED_RAW_SWAPPED) {
      rc = parz_h5_name_chunk(
          &list, d.grid.rank, i,
          parz_fail(err, PARZ_ERR_UNSUPPORTED,
                    "%s: a chunk was stored without the filter in big-endian order; read the "
                    "dataset with H5Dread or parz_h5_read",
                    who),
          err);
      goto done;
    }
  rc = parz_gpu_assemble(ctx, &d.grid, &box, staging, list.packed_bytes, list.n, list.refs,
                         list.missing && d.fills ? d.fill : NULL, d_dst, stream, &failed, err);
  if (rc != PARZ_OK)
    rc = parz_h5_name_chunk(&list, d.grid.rank, failed, rc, err);
done:
  parz_h5_chunk_list_free(&list);
  return rc;
}

struct device_read {
  hid_t dset, file_space;
  void* d_dst;
  size_t dst_bytes;
  void* stream;
  parz_error* err;
};

static int read_with_context(parz_gpu_context* ctx, void* arg) {
  struct device_read* r = (struct device_read*)arg;
  return parz_h5_read_device(ctx, r->dset, r->file_space, r->d_dst, r->dst_bytes, r->stream,
                             r->err);
}

PARZ_H5_EXPORT int parz_h5_read_cuda(hid_t dset, hid_t file_space, void* d_dst, size_t dst_bytes,
                                     void* stream, parz_error* err) {
  struct device_read r = {dset, file_space, d_dst, dst_bytes, stream, err};
  return parz_dispatch_with_gpu(read_with_context, &r, err);
}
