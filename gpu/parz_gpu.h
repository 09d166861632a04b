/* ParZ on CUDA: decoder and encoder. Plain C interface (no CUDA types) so that plugin/ and C
 * programs include it without nvcc; streams are passed as void* (a cudaStream_t). Output is
 * bit-identical to the serial decoder and encoder (codec/parz_chunk.h): the same arrays from a
 * chunk, the same chunk from an array, non-finite exceptions included. */
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

/* Device API: encodes an array in GPU memory (d_data, laid out as `a` says: C order or its
 * strides, values aligned to their size) into a ParZ chunk in GPU memory (d_chunk, 8-byte
 * aligned, chunk_bytes long) on the caller's stream: the bytes parz_chunk_encode writes for the
 * same array and configuration. chunk_bytes = parz_chunk_bound always suffices; a smaller buffer
 * works when the chunk fits, else PARZ_ERR_BUFFER and nothing is written. Returns once the
 * chunk's size (*written) is known, with the rest of the work queued on the stream: the chunk is
 * complete when the stream has run up to here. */
int parz_gpu_encode_device(parz_gpu_context* ctx, const parz_array* a, const void* d_data,
                           const parz_chunk_config* cfg, void* d_chunk, size_t chunk_bytes,
                           size_t* written, void* stream, parz_error* err);

/* Device API for many chunks under one configuration (the chunks of a dataset, say, each a box
 * of one array seen through its strides): array i at d_data[i] into chunk i at d_chunks[i]
 * (chunk_bytes[i] long), its size into written[i]. Chunks of one type and rank share every
 * kernel launch. A chunk that does not fit its buffer fails the call before anything is written
 * (PARZ_ERR_BUFFER; *failed, when not NULL, is its index). */
int parz_gpu_encode_device_batch(parz_gpu_context* ctx, size_t n, const parz_array* arrays,
                                 const void* const* d_data, const parz_chunk_config* cfg,
                                 void* const* d_chunks, const size_t* chunk_bytes, size_t* written,
                                 void* stream, size_t* failed, parz_error* err);

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

/* Device memory owned by the context (valid until its next call), for an array on its way
 * between host memory and the GPU: parz_gpu_assemble builds a box there and parz_gpu_download
 * brings it down; parz_gpu_upload brings one up for parz_gpu_encode_box. */
void* parz_gpu_result(parz_gpu_context* ctx, size_t bytes, parz_error* err);

/* Copies bytes from device memory (d_src, once the work queued on `stream` is done) into pageable
 * host memory (dst) at the speed PCIe has into pinned memory: in pieces through the context's
 * pinned buffer, each moved on by its host threads while the next is in flight. Waits. */
int parz_gpu_download(parz_gpu_context* ctx, const void* d_src, void* dst, size_t bytes,
                      void* stream, parz_error* err);

/* Starts faulting in a fresh pageable destination (dst[0, bytes), a new numpy array, say) on the
 * context's host threads and returns at once, so that the caller's own work (reading chunks, the
 * GPU's decode) hides the page faults a parz_gpu_download into it would take. Contents are left
 * alone; resident memory costs nothing. The next call on the context that uses its host threads
 * (a download, an upload, a chunk) waits for it; parz_gpu_populate_wait does so explicitly, and
 * must be called before dst may go away. */
void parz_gpu_populate_start(parz_gpu_context* ctx, void* dst, size_t bytes);
void parz_gpu_populate_wait(parz_gpu_context* ctx);

/* The reverse: copies bytes from pageable host memory (src) into device memory (d_dst) on
 * `stream` at the speed PCIe has from pinned memory, through the context's pinned buffer in
 * pieces, each filled by its host threads while the one before is on its way. Waits. */
int parz_gpu_upload(parz_gpu_context* ctx, const void* src, void* d_dst, size_t bytes, void* stream,
                    parz_error* err);

/* PARZ_OK when the GPU of the context can read ptr: device memory of that GPU, managed memory,
 * or pinned host memory; else PARZ_ERR_ARG and what it is (pageable host memory, another GPU's
 * memory): kernels handed such a pointer would fault. */
int parz_gpu_check_memory(parz_gpu_context* ctx, const void* ptr, parz_error* err);

/* Receives the chunks parz_gpu_encode_box encodes, some at a time: chunk i's bytes at
 * packed + refs[i].at (pinned host memory, valid until the sink returns), refs[i].bytes long,
 * its first value at refs[i].origin. A status other than PARZ_OK stops the encode, which
 * returns it. */
typedef int (*parz_gpu_chunk_sink)(void* arg, size_t n, const parz_chunk_ref* refs,
                                   const void* packed, parz_error* err);

/* The reverse of parz_gpu_assemble: encodes the chunks that make up a box of a chunked array
 * (codec/parz_chunked.h; NULL: the whole array) from its values in GPU memory (d_box: the box
 * densely in C order, ready on `stream`) under one configuration, and hands them to `sink` in
 * the grid's C order, in rounds of bounded size. The box must consist of whole chunks (start at
 * chunk boundaries, end at one or at the array's extent). A chunk at the array's edge is encoded
 * at full chunk size, its places past the extent holding *fill (one value; NULL: zero bytes), as
 * HDF5 pads edge chunks. The chunks are those parz_chunk_encode writes for the same values. */
int parz_gpu_encode_box(parz_gpu_context* ctx, const parz_chunk_grid* grid, const parz_box* box,
                        const void* d_box, const void* fill, const parz_chunk_config* cfg,
                        void* stream, parz_gpu_chunk_sink sink, void* sink_arg, parz_error* err);

/* Device memory for programs without a CUDA runtime of their own (Python's parz.read): bytes on
 * device `device`, or NULL and a message. Freed with parz_gpu_free. */
void* parz_gpu_malloc(int device, size_t bytes, parz_error* err);
void parz_gpu_free(int device, void* ptr);

/* Filter path for writes: host array in (contiguous, as `a` says), host chunk out, through
 * pinned staging; the bytes of parz_chunk_encode. The chunk goes to dst (dst_bytes) or, when dst
 * is NULL, to alloc(alloc_arg, size) once its size is known, so that the caller needs no bound
 * (which takes a pass over the array) and allocates no more than the chunk; a NULL from alloc
 * returns PARZ_ERR_NOMEM. Any CUDA failure returns PARZ_ERR_DEVICE (the caller falls back to the
 * CPU); what alloc gave stays the caller's on every return. */
int parz_gpu_chunk_encode(parz_gpu_context* ctx, const parz_array* a, const void* data,
                          const parz_chunk_config* cfg, void* dst, size_t dst_bytes,
                          parz_chunk_alloc alloc, void* alloc_arg, size_t* written,
                          parz_error* err);

/* Filter path: host chunk in, host array out, with pinned staging and copies overlapped with
 * decoding. Any CUDA failure returns PARZ_ERR_DEVICE (the caller falls back to the CPU). */
int parz_gpu_chunk_decode(parz_gpu_context* ctx, const void* src, size_t src_bytes, void* dst,
                          size_t dst_bytes, parz_error* err);

#ifdef __cplusplus
}
#endif

#endif
