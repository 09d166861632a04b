/* ParZ CUDA decoder. Plain C interface (no CUDA types) so that plugin/ and C programs include it
 * without nvcc; streams are passed as void* (a cudaStream_t). Output is bit-identical to the
 * serial decoder (codec/parz_chunk.h), non-finite exceptions included. */
#ifndef PARZ_GPU_H
#define PARZ_GPU_H

#include "parz_chunked.h"

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
int parz_gpu_decode_device(parz_gpu_context* ctx, const parz_chunk_view* view, const void* d_chunk,
                           void* d_dst, void* stream, parz_error* err);

/* Device API for many chunks (a dataset's, say): chunk i at d_chunks[i], described by views[i],
 * decoded into d_dsts[i]. Chunks of one type and rank share every kernel launch, so chunks too
 * small to fill the GPU alone decode together at the speed of one large chunk. Every chunk is
 * decoded; on PARZ_ERR_STREAM or PARZ_ERR_CHECKSUM *failed (when not NULL) is the first corrupt
 * one. */
int parz_gpu_decode_device_batch(parz_gpu_context* ctx, size_t n, const parz_chunk_view* views,
                                 const void* const* d_chunks, void* const* d_dsts, void* stream,
                                 size_t* failed, parz_error* err);

/* Host memory for parz_gpu_assemble's `packed` (pinned, so that it uploads at full speed),
 * owned by the context and valid until the context's next call; NULL on failure. */
void* parz_gpu_staging(parz_gpu_context* ctx, size_t bytes, parz_error* err);

/* Builds a box of an array (codec/parz_chunked.h; NULL: the whole array) in GPU memory (d_dst:
 * the product of the box's counts, values of the grid's type) from the stored chunks that cover
 * it, which lie in host memory (`packed`, packed_bytes long): uploads them, decodes them with
 * parz_gpu_decode_device_batch in rounds of bounded size, and moves each chunk's values that fall
 * inside the box to their places. Where `fill` is not NULL (one value) the box is set to it
 * first, for chunks that were never written. Waits for the work. A chunk that is not a valid ParZ
 * chunk of the grid's type and chunk shape (parz_chunk_ref_check), or is corrupt, or a raw chunk
 * in the other byte order, fails the call (PARZ_ERR_FORMAT, PARZ_ERR_STREAM, ...; *failed, when
 * not NULL, is its index). */
int parz_gpu_assemble(parz_gpu_context* ctx, const parz_chunk_grid* grid, const parz_box* box,
                      const void* packed, size_t packed_bytes, size_t n,
                      const parz_chunk_ref* chunks, const void* fill, void* d_dst, void* stream,
                      size_t* failed, parz_error* err);

/* Device memory owned by the context (valid until its next call), for an array on its way to
 * host memory: parz_gpu_assemble builds a box there, parz_gpu_download brings it down. */
void* parz_gpu_result(parz_gpu_context* ctx, size_t bytes, parz_error* err);

/* Copies bytes from device memory (d_src, once the work queued on `stream` is done) into pageable
 * host memory (dst) at the speed PCIe has into pinned memory: in pieces through the context's
 * pinned buffer, each moved on by its host threads while the next is in flight. Waits. */
int parz_gpu_download(parz_gpu_context* ctx, const void* d_src, void* dst, size_t bytes,
                      void* stream, parz_error* err);

/* Device memory for programs without a CUDA runtime of their own (Python's parz.read): bytes on
 * device `device`, or NULL and a message. Freed with parz_gpu_free. */
void* parz_gpu_malloc(int device, size_t bytes, parz_error* err);
void parz_gpu_free(int device, void* ptr);

/* Filter path: host chunk in, host array out, with pinned staging and copies overlapped with
 * decoding. Any CUDA failure returns PARZ_ERR_DEVICE (the caller falls back to the CPU). */
int parz_gpu_chunk_decode(parz_gpu_context* ctx, const void* src, size_t src_bytes, void* dst,
                          size_t dst_bytes, parz_error* err);

#ifdef __cplusplus
}
#endif

#endif
