/* parz_h5_read (parz_h5_read.h): the stored chunks that meet the selection read unfiltered into
 * one buffer, then assembled straight into the caller's array by parz_omp_assemble. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_policy.h"
#include "h5_chunks.h"
#include "parz_h5_read.h"
#include "parz_omp.h"

#define PARZ_H5_EXPORT __attribute__((visibility("default")))

static const char who[] = "parz_h5_read";

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
  if (!(packed = (unsigned char*)malloc(list.packed_bytes ? list.packed_bytes : 1))) {
    rc = parz_fail(err, PARZ_ERR_NOMEM, "%s: no memory for %zu bytes of chunks", who,
                   list.packed_bytes);
    goto done;
  }
  if ((rc = parz_h5_read_chunks(dset, &d, &list, packed, who, err)) != PARZ_OK)
    goto done;
  parz_exec_policy_from_env(&pol);
  if (threads <= 0)
    threads = pol.exec == PARZ_EXEC_SERIAL ? 1 : pol.threads;
  rc = parz_omp_assemble(&d.grid, &box, packed, list.packed_bytes, list.n, list.refs,
                         list.missing && d.fills ? d.fill : NULL, dst, threads, &failed, err);
  if (rc != PARZ_OK)
    rc = parz_h5_name_chunk(&list, d.grid.rank, failed, rc, err);
done:
  free(packed);
  parz_h5_chunk_list_free(&list);
  return rc;
}
