/* ParZ CUDA decoder. Plain C interface (no CUDA types) so that plugin/ and C programs include it
 * without nvcc; streams are passed as void* (a cudaStream_t). Output is bit-identical to the
 * serial decoder (codec/parz_chunk.h), non-finite exceptions included. */
#ifndef PARZ_GPU_H
#define PARZ_GPU_H

#include "parz_chunk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Nonzero when a usable CUDA device is present. */
int parz_gpu_available(void);

/* Reusable device state (buffers, pinned staging, streams). Not shared between threads. */
typedef struct parz_gpu_context parz_gpu_context;
int parz_gpu_context_create(parz_gpu_context** ctx, int device, parz_error* err);
void parz_gpu_context_free(parz_gpu_context* ctx);

/* Device API: decodes a chunk that already lies in GPU memory (d_chunk, `view` parsed on the host
 * from the same bytes) into GPU memory (d_dst, view->raw_bytes) on the caller's stream. */
int parz_gpu_decode_device(parz_gpu_context* ctx, const parz_chunk_view* view,
                           const void* d_chunk, void* d_dst, void* stream, parz_error* err);

/* Device API for many chunks (a dataset's, say): chunk i at d_chunks[i], described by views[i],
 * decoded into d_dsts[i]. Chunks of one type and rank share every kernel launch, so chunks too
 * small to fill the GPU alone decode together at the speed of one large chunk. Every chunk is
 * decoded; on PARZ_ERR_STREAM *failed (when not NULL) is the first corrupt one. */
int parz_gpu_decode_device_batch(parz_gpu_context* ctx, size_t n, const parz_chunk_view* views,
                                 const void* const* d_chunks, void* const* d_dsts, void* stream,
                                 size_t* failed, parz_error* err);

/* Filter path: host chunk in, host array out, with pinned staging and copies overlapped with
 * decoding. Any CUDA failure returns PARZ_ERR_DEVICE (the caller falls back to the CPU). */
int parz_gpu_chunk_decode(parz_gpu_context* ctx, const void* src, size_t src_bytes, void* dst,
                          size_t dst_bytes, parz_error* err);

#ifdef __cplusplus
}
#endif

#endif
