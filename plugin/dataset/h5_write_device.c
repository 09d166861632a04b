/* parz_h5_write_device (parz_h5_device.h): the HDF5 half. The selected box checked as
 * parz_h5_write checks it (h5_chunks.h), its chunks encoded on the GPU by parz_gpu_encode_box and
 * stored by parz_h5_write_chunks as each round of them comes down. */
#include <stdint.h>
#include <stdlib.h>

#include "dispatch.h"
#include "h5_chunks.h"
#include "parz_h5_device.h"

#define PARZ_H5_EXPORT __attribute__((visibility("default")))

static const char who[] = "parz_h5_write_device";

/* A write whose dataset and box have been checked. */
struct device_write {
  hid_t dset;
  parz_h5_dataset d;
  parz_box box;
  const void* d_src;
  void* stream;
  parz_error* err;
};

/* A chunk the GPU encoder does not take (NaN of more bit patterns than its mask's set holds, a
 * value that puts its block at risk of the accuracy bound): the box comes down and is encoded on
 * the CPU from its first chunk (the chunks stored so far are stored again, the same bytes). */
static int write_refused(parz_gpu_context* ctx, struct device_write* w,
                         parz_h5_chunk_writer* sink) {
  const size_t bytes =
      (size_t)parz_h5_box_values(&w->d.grid, &w->box) * parz_type_size(w->d.grid.type);
  void* host = malloc(bytes ? bytes : 1);
  int rc;
  if (!host)
    return parz_fail(w->err, PARZ_ERR_NOMEM,
                     "%s: the GPU encoder refused a chunk (%s), and there is no host memory for "
                     "the %zu bytes of the selection to encode it on the CPU",
                     who, w->err->message, bytes);
  rc = parz_gpu_download(ctx, w->d_src, host, bytes, w->stream, w->err);
  if (rc == PARZ_OK)
    rc = parz_h5_write_on_cpu(sink, &w->d, host, 0, w->err);
  free(host);
  return rc;
}

static int write_checked(parz_gpu_context* ctx, void* arg) {
  struct device_write* w = (struct device_write*)arg;
  parz_h5_chunk_writer sink;
  parz_error e = {0, ""};
  int rc = parz_gpu_check_memory(ctx, w->d_src, &e);
  if (rc != PARZ_OK)
    return parz_fail(w->err, rc, "%s: %s", who, e.message);
  parz_h5_chunk_writer_init(&sink, w->dset, &w->d.grid, &w->box, who);
  rc = parz_gpu_encode_box(ctx, &w->d.grid, &w->box, w->d_src, w->d.fills ? w->d.fill : NULL,
                           &w->d.filter.config, w->stream, parz_h5_write_chunks, &sink, w->err);
  if (rc == PARZ_ERR_UNSUPPORTED)
    rc = write_refused(ctx, w, &sink);
  return parz_h5_write_failed(&sink, rc, w->err);
}

/* The checks of both entry points: 1 when there is something to write, 0 when the box is empty,
 * -1 on a refusal (*rc its status). */
static int check(struct device_write* w, hid_t file_space, size_t src_bytes, int* rc) {
  *rc = parz_h5_prepare_write(w->dset, file_space, src_bytes, who, &w->d, &w->box, w->err);
  if (*rc != PARZ_OK)
    return -1;
  if (parz_h5_box_values(&w->d.grid, &w->box) == 0)
    return 0;
  if (!w->d_src) {
    *rc = parz_fail(w->err, PARZ_ERR_ARG, "%s: NULL array", who);
    return -1;
  }
  return 1;
}

PARZ_H5_EXPORT int parz_h5_write_device(parz_gpu_context* ctx, hid_t dset, hid_t file_space,
                                        const void* d_src, size_t src_bytes, void* stream,
                                        parz_error* err) {
  struct device_write w;
  int rc;
  if (!ctx)
    return parz_fail(err, PARZ_ERR_ARG, "%s: NULL context", who);
  w.dset = dset;
  w.d_src = d_src;
  w.stream = stream;
  w.err = err;
  return check(&w, file_space, src_bytes, &rc) > 0 ? write_checked(ctx, &w) : rc;
}

PARZ_H5_EXPORT int parz_h5_write_cuda(hid_t dset, hid_t file_space, const void* d_src,
                                      size_t src_bytes, void* stream, parz_error* err) {
  struct device_write w;
  int rc;
  w.dset = dset;
  w.d_src = d_src;
  w.stream = stream;
  w.err = err;
  /* the dataset and the selection are checked before any GPU is needed */
  return check(&w, file_space, src_bytes, &rc) > 0 ? parz_dispatch_with_gpu(write_checked, &w, err)
                                                   : rc;
}
