/* A caller's keep (parz_keep, codec/parz_chunk.h) as the codecs use it: a codec takes the
 * chunk-wide blocks of a chunk from the keep its view names and gives them back when the chunk is
 * done, so that the next chunk of a size no larger finds them. Without a keep (NULL) a block is
 * allocated for the chunk and freed after it. */
#ifndef PARZ_CHUNK_KEEP_H
#define PARZ_CHUNK_KEEP_H

#include "parz_chunk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A block of at least `bytes` bytes (NULL without memory): one the keep holds, its contents left
 * from its last use (*zeroed = 0), or a new one of zeros (*zeroed = 1). keep may be NULL. */
void* parz_keep_take(parz_keep* keep, size_t bytes, int* zeroed);

/* Gives back a block of parz_keep_take (NULL: nothing) to the keep it came from (the same keep, or
 * NULL): held for a later take where the keep's limit allows, else freed. */
void parz_keep_give(parz_keep* keep, void* block);

#ifdef __cplusplus
}
#endif

#endif
