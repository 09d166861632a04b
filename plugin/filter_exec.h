/* Where the filter hands a chunk to the codec: the execution-policy dispatcher (serial, OpenMP
 * or CUDA per PARZ_EXEC / PARZ_THREADS) when it is built, else the serial chunk codec. */
#ifndef PARZ_FILTER_EXEC_H
#define PARZ_FILTER_EXEC_H

#include "parz_chunk.h"

#ifdef PARZ_HAVE_DISPATCH
#include "dispatch.h"
#define parz_filter_exec_encode parz_dispatch_encode
#define parz_filter_exec_decode parz_dispatch_decode
#else
#define parz_filter_exec_encode parz_chunk_encode
#define parz_filter_exec_decode parz_chunk_decode
#endif

#endif
