/* Where the filter hands a chunk to the codec: the execution-policy dispatcher (serial, OpenMP
 * or CUDA per PARZ_EXEC / PARZ_THREADS) when it is built, else the serial chunk codec. */
#ifndef PARZ_FILTER_EXEC_H
#define PARZ_FILTER_EXEC_H

#include "parz_chunk.h"

/* Encoding writes into a buffer from the filter's allocator (parz_dispatch_encode_alloc says how
 * large); decoding takes the chunk parsed (v, from src), so that it is parsed once. */
#ifdef PARZ_HAVE_DISPATCH
#include "dispatch.h"
#define parz_filter_exec_encode parz_dispatch_encode_alloc
#define parz_filter_exec_decode parz_dispatch_decode_view
#else
static inline int parz_filter_exec_encode(const parz_array* a, const void* data,
                                          const parz_chunk_config* cfg, parz_chunk_alloc alloc,
                                          void* alloc_arg, size_t* written, parz_error* err) {
  size_t bound = parz_chunk_bound_data(a, data, cfg);
  void* dst = bound ? alloc(alloc_arg, bound) : NULL;
  if (!dst)
    return parz_fail(err, PARZ_ERR_NOMEM, "no buffer for a chunk of up to %zu bytes", bound);
  return parz_chunk_encode(a, data, cfg, dst, bound, written, err);
}
static inline int parz_filter_exec_decode(const parz_chunk_view* v, const void* src,
                                          size_t src_bytes, void* dst, size_t dst_bytes,
                                          parz_error* err) {
  int rc;
  (void)src;
  (void)src_bytes;
  if ((rc = parz_chunk_fits(v, dst, dst_bytes, err)) != PARZ_OK)
    return rc;
  rc = parz_chunk_decode_segments(v, dst, 0, v->nsegments, err);
  return rc != PARZ_OK ? rc : parz_chunk_patch_exceptions(v, dst, err);
}
#endif

#endif
