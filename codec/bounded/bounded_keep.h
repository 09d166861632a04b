/* The chunk-wide blocks of the error-bounded codec (its decoder's codes and quantized values, its
 * encoder's quantized values) kept between chunks: a chunk's block, freed, is what the next chunk
 * of the same size needs, and a fresh one costs a page fault and the clearing of a page for every
 * 4 KiB on its first write (the system's memory for a block that large is mapped anew each time)
 * and the unmapping at its free, work that a team of threads waits for. A few blocks are kept, each
 * of at most PARZ_BOUNDED_KEEP_MAX bytes, for the whole process: a decoder or encoder of many
 * threads and many chunks at once takes what is kept and allocates the rest. */
#ifndef PARZ_BOUNDED_KEEP_H
#define PARZ_BOUNDED_KEEP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most bytes of one kept block, and how many are kept. */
#define PARZ_BOUNDED_KEEP_MAX ((size_t)64 << 20)
#define PARZ_BOUNDED_KEEP_SLOTS 4

/* A block of at least `bytes` bytes (NULL without memory): a kept one, its contents left from its
 * last use (*zeroed = 0), or a new one of zeros (*zeroed = 1). */
void* parz_bounded_take(size_t bytes, int* zeroed);

/* Gives back a block of parz_bounded_take (NULL: nothing): kept for a later take, or freed. */
void parz_bounded_give(void* block);

#ifdef __cplusplus
}
#endif

#endif
