/* One chunk through the decoder or encoder the execution policy picks (plugin/exec/exec_policy.h):
 * serial, OpenMP or CUDA, with fallbacks so that a read or write that can succeed never fails
 * because of the policy. Every path gives the same bytes and the same array. */
#ifndef PARZ_DISPATCH_H
#define PARZ_DISPATCH_H

#include "exec_policy.h"
#include "parz_chunk.h"
#ifdef PARZ_HAVE_CUDA
#include "parz_gpu.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Decodes one compressed chunk (src, src_bytes) into dst, which must hold the chunk's decoded
 * size (as parz_chunk_decode). Reads PARZ_EXEC / PARZ_THREADS on every call.
 *   serial: parz_chunk_decode.  omp: parz_omp_chunk_decode (serial below its threshold).
 *   cuda:   the GPU; without a usable GPU or a CUDA build, one warning, then OpenMP.
 *   auto:   the GPU for chunks of at least PARZ_DISPATCH_GPU_MIN_BYTES (dispatch.c) when one is usable, else
 *           OpenMP.
 * The CUDA decoder is loaded from its module (gpu/cuda_module.h) when the GPU is first wanted;
 * where that fails, cuda and auto warn once (naming the module and why) and decode on the CPU.
 * A GPU failure prints one warning and the chunk is decoded on the CPU. A process forked
 * (without exec) from one that loaded the dispatcher decodes on the CPU, on its calling thread. */
int parz_dispatch_decode(const void* src, size_t src_bytes, void* dst, size_t dst_bytes,
                         parz_error* err);
/* The same for a chunk already parsed (v, from src): the filter's path, one parse per chunk. */
int parz_dispatch_decode_view(const parz_chunk_view* v, const void* src, size_t src_bytes,
                              void* dst, size_t dst_bytes, parz_error* err);

/* Whether the policy sends work on `bytes` decoded bytes to the GPU: cuda, or auto for at least
 * PARZ_DISPATCH_GPU_MIN_BYTES, with a usable GPU (cuda without one warns once, as both do where
 * the CUDA module cannot be loaded, naming the work: `what` is "decoding" or "encoding"). */
int parz_dispatch_gpu_wanted(const parz_exec_policy* pol, size_t bytes, const char* what);

/* A piece of work for the GPU, as parz_dispatch_gpu_first runs it: PARZ_OK when done,
 * PARZ_ERR_UNSUPPORTED when the GPU does not take it (the CPU then does), PARZ_ERR_DEVICE when the
 * GPU failed, anything else an error of the work itself; its message in err. */
struct parz_gpu_context;
typedef int (*parz_gpu_work)(struct parz_gpu_context* ctx, void* arg, parz_error* err);

/* How a piece of work is named in the policy's warnings: `work` is what the CPU does in place of
 * the GPU ("decoding" or "encoding": "PARZ_EXEC=cuda but no usable CUDA GPU: decoding with
 * OpenMP"); when the GPU fails, "GPU <step> failed (<why>); <fallback> on the CPU". */
typedef struct {
  const char* work;
  const char* step;
  const char* fallback;
} parz_gpu_step;

/* The one policy of every piece of work the plugin runs: a chunk through the filter, a box read
 * or written by the dataset readers and writers. Reads PARZ_EXEC and PARZ_THREADS; *threads (if
 * not NULL) gets the CPU's thread count (1 under serial, else PARZ_THREADS, 0 for OpenMP's
 * default). Where the policy sends `bytes` decoded bytes of work to the GPU
 * (parz_dispatch_gpu_wanted, with its warnings), gpu(ctx, arg, err) runs under the process's GPU
 * context. Returns
 *   PARZ_OK               the GPU did the work;
 *   PARZ_ERR_UNSUPPORTED  the caller does it on the CPU, err untouched: the GPU was not wanted,
 *                         not usable or not built (gpu NULL), it did not take the work, or it
 *                         failed (PARZ_ERR_DEVICE, warned once per message);
 *   anything else         gpu's error, final, in err. */
int parz_dispatch_gpu_first(const parz_gpu_step* step, size_t bytes, parz_gpu_work gpu, void* arg,
                            int* threads, parz_error* err);

/* The CPU's thread count under the policy, as parz_dispatch_gpu_first gives it, for work that
 * is already bound to the CPU. */
int parz_dispatch_cpu_threads(void);

#ifdef PARZ_HAVE_CUDA
/* Runs fn(ctx, arg) with the process's GPU context (created on first use, on device 0) under its
 * lock: the filter path and the dataset readers share one context, one caller at a time.
 * Returns fn's status; a device failure (PARZ_ERR_DEVICE) drops the context, created again by
 * the next call. PARZ_ERR_DEVICE without calling fn when no GPU is usable (the message says why:
 * the CUDA module's failure to load, or no GPU). */
int parz_dispatch_with_gpu(int (*fn)(parz_gpu_context* ctx, void* arg), void* arg, parz_error* err);
#endif

/* Encodes one chunk (the array a, data) into dst, as parz_chunk_encode, under the same policy
 * as the decode: serial, OpenMP, or the GPU (cuda; auto for arrays of at least
 * PARZ_DISPATCH_GPU_MIN_BYTES), with the same warnings and fallbacks (a chunk the GPU encoder
 * refuses, such as one of NaN of too many bit patterns, is encoded on the CPU). Every path gives
 * the same bytes. */
int parz_dispatch_encode(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                         void* dst, size_t dst_bytes, size_t* written, parz_error* err);

/* parz_dispatch_encode into a buffer from alloc(alloc_arg, bytes): the chunk's size, asked once
 * the chunk is encoded (on the GPU, and on an OpenMP team: parz_omp_chunk_encode_alloc); on one
 * thread parz_chunk_bound_data's bound, asked before. PARZ_ERR_NOMEM when alloc gives NULL. When
 * a GPU encode fails and the CPU takes over, alloc is asked again: the allocator then owns (and
 * may free) what it gave before. */
int parz_dispatch_encode_alloc(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                               parz_chunk_alloc alloc, void* alloc_arg, size_t* written,
                               parz_error* err);

/* What this build can run: OpenMP threads (openmp), the CUDA decoder (cuda: built with it and its
 * module loaded, which this call does; 0 in a process forked without exec), and whether a CUDA
 * GPU is usable now (gpu; asked once per process, as the decoder does). */
void parz_dispatch_backends(int* openmp, int* cuda, int* gpu);

#ifdef __cplusplus
}
#endif

#endif
