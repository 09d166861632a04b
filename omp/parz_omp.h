/* ParZ OpenMP drivers: one chunk encoded or decoded by many threads, many chunks decoded at
 * once, a box of a chunked array built from its chunks, with the same bytes and the same array as
 * the serial codec (codec/parz_chunk.h). They never change global OpenMP state (a num_threads
 * clause only) and work when called from inside an application's parallel region. */
#ifndef PARZ_OMP_H
#define PARZ_OMP_H

#include "parz_chunked.h"

#ifdef __cplusplus
extern "C" {
#endif

/* threads: 0 = OpenMP's default; 1 = serial. Chunks smaller than a fixed threshold are
 * decoded serially whatever `threads` says. Builds without OpenMP run serially. */
int parz_omp_chunk_decode(const void* src, size_t src_bytes, void* dst, size_t dst_bytes,
                          int threads, parz_error* err);
int parz_omp_chunk_encode(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                          void* dst, size_t dst_bytes, size_t* written, int threads,
                          parz_error* err);
/* parz_omp_chunk_encode into a buffer from alloc(alloc_arg, bytes), asked once for the chunk's
 * exact size after its segments are encoded (on a team; serially, for the bound of these values,
 * before). Nothing of the array's size is allocated on the way while the chunk compresses well:
 * no pass over the array to bound it, and the segments' streams go into scratch of a fraction of
 * their bound. PARZ_ERR_NOMEM when alloc gives NULL; the buffer, once given, is the caller's. */
int parz_omp_chunk_encode_alloc(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                                parz_chunk_alloc alloc, void* alloc_arg, size_t* written,
                                int threads, parz_error* err);
/* parz_chunk_bound_data with its read of the array spread over the threads. */
size_t parz_omp_chunk_bound_data(const parz_array* a, const void* data,
                                 const parz_chunk_config* cfg, int threads);

/* Decodes n chunks at once, chunk i (views[i], parsed from its bytes) into dests[i]
 * (codec/parz_chunk.h): chunks are spread over the threads and large ones split among them, so
 * that a dataset of many small chunks and one of a few large ones both keep every thread busy.
 * The payload checksums of the partitions holding each window are verified, as
 * parz_chunk_decode_segments_to does. Destinations must not overlap. On failure *failed (when not
 * NULL) is the chunk that failed first in chunk order, its message in err: the serial decoder's
 * for that chunk, whatever the thread count. */
int parz_omp_decode_chunks(size_t n, const parz_chunk_view* views, const parz_chunk_dest* dests,
                           int threads, size_t* failed, parz_error* err);
/* Builds a box of a chunked array (codec/parz_chunked.h; NULL: the whole array) in host memory
 * (dst: the product of the box's counts, values of the grid's type, densely in C order) from the
 * stored chunks that cover it (in `packed`), as parz_gpu_assemble does on the GPU: every chunk is
 * checked (parz_chunk_ref_check), and the values of those that meet the box are decoded, or
 * copied for chunks stored without the filter, straight into their places. Where `fill` is not
 * NULL (one value) the places no given chunk covers take it (chunks never written). A chunk at
 * fault fails the call; *failed (when not NULL) is then the index of the first in chunk order
 * (chunks before it may have been written). The same `threads` as above. */
int parz_omp_assemble(const parz_chunk_grid* grid, const parz_box* box, const void* packed,
                      size_t packed_bytes, size_t n, const parz_chunk_ref* chunks, const void* fill,
                      void* dst, int threads, size_t* failed, parz_error* err);

/* The same, with the stored chunks read as the assembly goes, and the chunks' blocks taken from
 * keep (codec/parz_chunk.h; NULL: allocated per chunk): read(ctx, i, &chunks[i], err) puts
 * chunk i's bytes (chunks[i].bytes of them) into `packed` at chunks[i].at and sets
 * chunks[i].raw, PARZ_OK or an error in err. It is called for i = 0, 1, ... in order, on the
 * calling thread, while the team decodes the chunks read before (a dataset reader's HDF5
 * calls); the first failure stops the reads. Chunks are checked as they come in, so a failing
 * chunk may come after others were written: *failed is the first failing chunk in chunk order
 * either way. */
typedef int (*parz_chunk_reader)(void* ctx, size_t i, parz_chunk_ref* chunk, parz_error* err);
int parz_omp_assemble_reading(const parz_chunk_grid* grid, const parz_box* box, void* packed,
                              size_t packed_bytes, size_t n, parz_chunk_ref* chunks,
                              parz_chunk_reader read, void* ctx, const void* fill, void* dst,
                              int threads, parz_keep* keep, size_t* failed, parz_error* err);

/* Nonzero when this build has OpenMP. */
int parz_omp_enabled(void);

#ifdef __cplusplus
}
#endif

#endif
