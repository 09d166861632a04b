/* ParZ OpenMP drivers: one chunk encoded or decoded by many threads, with the same bytes and the
 * same array as the serial codec (codec/parz_chunk.h). They never change global OpenMP state (a
 * num_threads clause only) and work when called from inside an application's parallel region. */
#ifndef PARZ_OMP_H
#define PARZ_OMP_H

#include "parz_chunk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* threads: 0 = OpenMP's default; 1 = serial. Chunks smaller than the measured threshold are
 * decoded serially whatever `threads` says. Builds without OpenMP run serially. */
int parz_omp_chunk_decode(const void* src, size_t src_bytes, void* dst, size_t dst_bytes,
                          int threads, parz_error* err);
int parz_omp_chunk_encode(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                          void* dst, size_t dst_bytes, size_t* written, int threads,
                          parz_error* err);
/* Nonzero when this build has OpenMP. */
int parz_omp_enabled(void);

#ifdef __cplusplus
}
#endif

#endif
