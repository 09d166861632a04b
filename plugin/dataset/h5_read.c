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

/* A read as read_on_gpu takes it. */
struct gpu_read {
  hid_t dset;
  const parz_h5_dataset* d;
  const parz_box* box;
  parz_h5_chunk_list* list;
  void* dst;
  size_t bytes;
  size_t failed;
};

#ifdef PARZ_HAVE_CUDA
/* The read on the GPU: chunks into pinned staging, the box assembled in device memory, then
 * brought down into dst. A fresh destination (a new numpy array) is faulted in by the context's
 * host threads while the chunks are read and decoded, so the download's copies out of pinned
 * memory run at memory speed instead of taking a fault per page. */
static int read_on_gpu(parz_gpu_context* ctx, void* arg, parz_error* err) {
  struct gpu_read* r = (struct gpu_read*)arg;
  const parz_h5_dataset* d = r->d;
  unsigned char* staging = (unsigned char*)parz_gpu_staging(ctx, r->list->packed_bytes, err);
  void* d_box = staging ? parz_gpu_result(ctx, r->bytes, err) : NULL;
  int rc;
  if (!d_box)
    return PARZ_ERR_DEVICE;
  parz_gpu_populate_start(ctx, r->dst, r->bytes);
  rc = parz_h5_read_chunks(r->dset, d, r->list, staging, who, err);
  if (rc == PARZ_OK)
    rc = parz_gpu_assemble(ctx, &d->grid, r->box, staging, r->list->packed_bytes, r->list->n,
                           r->list->refs, r->list->missing && d->fills ? d->fill : NULL, d_box,
                           NULL, &r->failed, err);
  if (rc == PARZ_OK)
    rc = parz_gpu_download(ctx, d_box, r->dst, r->bytes, NULL, err);
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
  size_t failed = SIZE_MAX;
  unsigned char* packed = NULL;
  int rc, policy_threads;
  if (!dst && dst_bytes)
    return parz_fail(err, PARZ_ERR_ARG, "%s: NULL buffer", who);
  if ((rc = parz_h5_prepare(dset, file_space, dst_bytes, who, &d, &box, &list, err)) != PARZ_OK ||
      parz_h5_box_values(&d.grid, &box) == 0)
    goto done;
  {
    /* Not where places must be left alone (chunks never written, no fill): the box comes down
     * whole. Raw chunks are only known once read: big-endian ones make parz_gpu_assemble refuse
     * (PARZ_ERR_UNSUPPORTED), and the read is done again on the CPU. */
    static const parz_gpu_step step = {"decoding", "read", "reading"};
    const size_t bytes = (size_t)parz_h5_box_values(&d.grid, &box) * parz_type_size(d.grid.type);
    parz_gpu_work gpu = NULL;
    struct gpu_read r = {dset, &d, &box, &list, dst, bytes, SIZE_MAX};
#ifdef PARZ_HAVE_CUDA
    if (!list.missing || d.fills)
      gpu = read_on_gpu;
#endif
    rc = parz_dispatch_gpu_first(&step, bytes, gpu, &r, &policy_threads, err);
    if (rc != PARZ_ERR_UNSUPPORTED) {
      if (rc != PARZ_OK)
        rc = parz_h5_name_chunk(&list, d.grid.rank, r.failed, rc, err);
      goto done;
    }
  }
  if (threads <= 0)
    threads = policy_threads;
  if (!(packed = (unsigned char*)malloc(list.packed_bytes ? list.packed_bytes : 1))) {
    rc = parz_fail(err, PARZ_ERR_NOMEM, "%s: no memory for %zu bytes of chunks", who,
                   list.packed_bytes);
    goto done;
  }
  parz_advise_huge_pages(packed, list.packed_bytes);
  {
    /* the read's chunks share the blocks of one keep: after the first chunk on each thread,
     * the next finds its blocks faulted in */
    struct chunk_reads r = {dset, &d, &list, packed};
    parz_keep* keep = parz_keep_new(0);
    rc = parz_omp_assemble_reading(&d.grid, &box, packed, list.packed_bytes, list.n, list.refs,
                                   read_one, &r, list.missing && d.fills ? d.fill : NULL, dst,
                                   threads, keep, &failed, err);
    parz_keep_free(keep);
  }
  if (rc != PARZ_OK)
    rc = parz_h5_name_chunk(&list, d.grid.rank, failed, rc, err);
done:
  free(packed);
  parz_h5_chunk_list_free(&list);
  return rc;
}
