/* parz_h5_read (parz_h5_read.h): the stored chunks that meet the selection read unfiltered into
 * one buffer and assembled straight into the caller's array by parz_omp_assemble_reading, which
 * decodes the chunks already read while the next are read; or, where the policy sends the read
 * to the GPU, assembled there (parz_gpu_assemble) and brought down through pinned memory
 * (parz_gpu_download). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "h5_chunks.h"
#include "huge_pages.h"
#include "parz_h5_read.h"
#include "parz_omp.h"

#define PARZ_H5_EXPORT __attribute__((visibility("default")))

static const char who[] = "parz_h5_read";

#ifdef PARZ_HAVE_CUDA
struct gpu_read {
  hid_t dset;
  const parz_h5_dataset* d;
  const parz_box* box;
  parz_h5_chunk_list* list;
  void* dst;
  size_t bytes;
  size_t failed;
  parz_error* err;
};

/* The read on the GPU: chunks into pinned staging, the box assembled in device memory, then
 * brought down into dst. A fresh destination (a new numpy array) is faulted in by the context's
 * host threads while the chunks are read and decoded, so the download's copies out of pinned
 * memory run at memory speed instead of taking a fault per page. */
static int read_on_gpu(parz_gpu_context* ctx, void* arg) {
  struct gpu_read* r = (struct gpu_read*)arg;
  const parz_h5_dataset* d = r->d;
  unsigned char* staging = (unsigned char*)parz_gpu_staging(ctx, r->list->packed_bytes, r->err);
  void* d_box = staging ? parz_gpu_result(ctx, r->bytes, r->err) : NULL;
  int rc;
  if (!d_box)
    return PARZ_ERR_DEVICE;
  parz_gpu_populate_start(ctx, r->dst, r->bytes);
  rc = parz_h5_read_chunks(r->dset, d, r->list, staging, who, r->err);
  if (rc == PARZ_OK)
    rc = parz_gpu_assemble(ctx, &d->grid, r->box, staging, r->list->packed_bytes, r->list->n,
                           r->list->refs, r->list->missing && d->fills ? d->fill : NULL, d_box,
                           NULL, &r->failed, r->err);
  if (rc == PARZ_OK)
    rc = parz_gpu_download(ctx, d_box, r->dst, r->bytes, NULL, r->err);
  parz_gpu_populate_wait(ctx);
  return rc;
}

#endif

/* The stored chunks read one by one as the assembly asks for them (parz_chunk_reader). */
struct chunk_reads {
  hid_t dset;
  const parz_h5_dataset* d;
  parz_h5_chunk_list* list;
  void* packed;
};

static int read_one(void* ctx, size_t i, parz_chunk_ref* chunk, parz_error* err) {
  struct chunk_reads* r = (struct chunk_reads*)ctx;
  (void)chunk; /* the list's own entry, which parz_h5_read_chunk fills in */
  return parz_h5_read_chunk(r->dset, r->d, r->list, i, r->packed, who, err);
}

PARZ_H5_EXPORT int parz_h5_read(hid_t dset, hid_t file_space, void* dst, size_t dst_bytes,
                                int threads, parz_error* err) {
  parz_h5_dataset d;
  parz_box box;
  parz_h5_chunk_list list;
  parz_exec_policy pol;
  size_t failed = SIZE_MAX;
  unsigned char* packed = NULL;
  int rc;
  if (!dst && dst_bytes)
    return parz_fail(err, PARZ_ERR_ARG, "%s: NULL buffer", who);
  if ((rc = parz_h5_prepare(dset, file_space, dst_bytes, who, &d, &box, &list, err)) != PARZ_OK ||
      parz_h5_box_values(&d.grid, &box) == 0)
    goto done;
  parz_exec_policy_from_env(&pol);
  if (threads <= 0)
    threads = pol.exec == PARZ_EXEC_SERIAL ? 1 : pol.threads;
#ifdef PARZ_HAVE_CUDA
  {
    /* Not where places must be left alone (chunks never written, no fill): the box comes down
     * whole. Raw chunks are only known once read: big-endian ones make parz_gpu_assemble refuse
     * (PARZ_ERR_UNSUPPORTED), and the read is done again on the CPU. */
    const size_t bytes = (size_t)parz_h5_box_values(&d.grid, &box) * parz_type_size(d.grid.type);
    if ((!list.missing || d.fills) && parz_dispatch_gpu_wanted(&pol, bytes, "decoding")) {
      parz_error gerr = {0, ""};
      struct gpu_read r = {dset, &d, &box, &list, dst, bytes, SIZE_MAX, &gerr};
      rc = parz_dispatch_with_gpu(read_on_gpu, &r, &gerr);
      if (rc != PARZ_ERR_DEVICE && rc != PARZ_ERR_UNSUPPORTED) {
        if (rc != PARZ_OK && err)
          *err = gerr;
        if (rc != PARZ_OK)
          rc = parz_h5_name_chunk(&list, d.grid.rank, r.failed, rc, err);
        goto done;
      }
      if (rc == PARZ_ERR_DEVICE) {
        char msg[sizeof gerr.message + 64];
        snprintf(msg, sizeof msg, "GPU read failed (%s); reading on the CPU", gerr.message);
        parz_warn_once(msg);
      }
    }
  }
#endif
  if (!(packed = (unsigned char*)malloc(list.packed_bytes ? list.packed_bytes : 1))) {
    rc = parz_fail(err, PARZ_ERR_NOMEM, "%s: no memory for %zu bytes of chunks", who,
                   list.packed_bytes);
    goto done;
  }
  parz_advise_huge_pages(packed, list.packed_bytes);
  {
    struct chunk_reads r = {dset, &d, &list, packed};
    rc = parz_omp_assemble_reading(&d.grid, &box, packed, list.packed_bytes, list.n, list.refs,
                                   read_one, &r, list.missing && d.fills ? d.fill : NULL, dst,
                                   threads, &failed, err);
  }
  if (rc != PARZ_OK)
    rc = parz_h5_name_chunk(&list, d.grid.rank, failed, rc, err);
done:
  free(packed);
  parz_h5_chunk_list_free(&list);
  return rc;
}
