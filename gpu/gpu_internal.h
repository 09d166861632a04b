/* Internals of the CUDA decoder shared by its translation units (C++/CUDA only, not installed).
 *
 * The decoder runs in three kernels on one stream:
 *   1. segment offsets: the table (any kind) becomes one absolute u64 bit offset per segment plus
 *      the end of the payload (per-partition warp prefix sums for HYBRID);
 *   2. segment decode: see decode.cu for the warp-cooperative scheme;
 *   3. exception patch: non-finite values written back at their positions.
 * Errors found on the device (a segment that does not end where the table says, a read past the
 * payload) are recorded in a small device word and read back once, after the kernels. */
#ifndef PARZ_GPU_INTERNAL_H
#define PARZ_GPU_INTERNAL_H

#include <cuda_runtime.h>

#include "host_pool.h"
#include "parz_gpu.h"

/* The filter path splits the decode into at most this many slices, each followed by the download
 * of the rows it completed, so that copies overlap decoding. */
#define PARZ_GPU_PIECES_MAX 16

/* Device-side error record; `segment` is the lowest failing segment (atomicMin). */
struct parz_gpu_fault {
  unsigned long long segment;  /* ~0 = none */
  unsigned int code;           /* 0 = none, else an OR of parz_gpu_fault_code bits */
  unsigned int pad;
};

enum parz_gpu_fault_code {
  PARZ_GPU_FAULT_NONE = 0,
  PARZ_GPU_FAULT_END = 1,      /* segment did not end at the next segment's offset */
  PARZ_GPU_FAULT_OVERRUN = 2   /* a read went past the payload */
};

/* Decoding scheme and its shape; chosen per chunk by parz_gpu_plan, overridable for benchmarks. */
struct parz_gpu_tuning {
  int scheme;        /* PARZ_GPU_SCHEME_* ; 0 = choose */
  int group;         /* G: segments per warp, 1..32; 0 = choose */
  int round_blocks;  /* K: blocks per segment parsed per round, 1..32; 0 = min(C, 32) */
  int skip;          /* BLOCK's length parser, PARZ_GPU_SKIP_*: tests and benchmarks compare */
};

enum {
  PARZ_GPU_SCHEME_AUTO = 0,
  PARZ_GPU_SCHEME_WARP = 1,    /* lanes parse segment lengths, then decode one block per lane */
  PARZ_GPU_SCHEME_THREAD = 2,  /* one thread decodes a whole segment (the thesis's decoder) */
  PARZ_GPU_SCHEME_BLOCK = 3    /* threads parse segment lengths, then one thread per block */
};

enum {
  PARZ_GPU_SKIP_AUTO = 0,    /* the fastest parser that applies (block_skip.cuh) */
  PARZ_GPU_SKIP_BLOCK = 1,   /* parz_skip_block, block by block, with the budget arithmetic */
  PARZ_GPU_SKIP_SEGMENT = 2, /* parz_skip_segment, never the 1D/2D parz_skip_segment_small */
  PARZ_GPU_SKIP_SMALL = 3    /* parz_skip_segment_small (chosen by AUTO, not a tuning value) */
};

/* Grow-only device/pinned buffer. */
struct parz_gpu_buffer {
  void* ptr;
  size_t bytes;
};

struct parz_gpu_context {
  int device;
  int sm_count;
  int cc_major;             /* 9 and up: programmatic dependent launch (decode_kernels.cuh) */
  cudaStream_t stream;      /* filter path: uploads and kernels */
  cudaStream_t copy_stream; /* filter path: downloads */
  struct parz_gpu_buffer d_offsets;  /* u64 per segment + 1 */
  struct parz_gpu_buffer d_rel;      /* BLOCK scheme: u32 per block */
  struct parz_gpu_buffer d_fault;    /* struct parz_gpu_fault */
  int fault_dirty;                   /* d_fault may hold a fault: clear it before a decode */
  struct parz_gpu_buffer h_fault;    /* pinned copy of it */
  struct parz_gpu_buffer d_chunk;    /* filter path */
  struct parz_gpu_buffer d_out;
  struct parz_gpu_buffer h_in;       /* pinned staging */
  struct parz_gpu_buffer h_out;
  cudaEvent_t piece_done[PARZ_GPU_PIECES_MAX];
  struct parz_gpu_tuning tuning;
  struct parz_host_pool* host_pool;  /* filter path host copies (host_pool.h); NULL = one thread */
};

/* Benchmarks and tests pick a scheme explicitly (0 everywhere = choose per chunk). */
void parz_gpu_set_tuning(parz_gpu_context* ctx, int scheme, int group, int round_blocks);

/* Sets err from a CUDA error; returns PARZ_ERR_DEVICE. */
int parz_gpu_cuda_fail(parz_error* err, cudaError_t e, const char* what);

/* Makes b at least `bytes` long (device memory, or pinned host memory when pinned != 0). */
int parz_gpu_reserve(struct parz_gpu_buffer* b, size_t bytes, int pinned, parz_error* err);

/* n <= 8 little-endian bytes at p: table and exception fields, with no alignment assumed. */
__device__ __forceinline__ unsigned long long parz_gpu_load_le(const unsigned char* p, unsigned n)
{
  unsigned long long v = 0;
  for (unsigned i = 0; i < n; i++)
    v |= (unsigned long long)p[i] << (8 * i);
  return v;
}

/* Whether the BLOCK scheme's lengths kernel takes the segment offsets from the table itself
 * (HYBRID, C > 1, variable rate; decode_kernels.cuh, hybrid_span), so that
 * parz_gpu_enqueue_offsets has nothing to launch. */
int parz_gpu_parse_offsets(const parz_gpu_context* ctx, const parz_chunk_view* v);
/* Bytes of a full HYBRID partition record (FORMAT.md). */
unsigned long long parz_gpu_record_bytes(const parz_chunk_view* v);

/* Enqueues the decode of segments [first, first + count) of a chunk at d_chunk (view parsed
 * from the same bytes) into d_dst on `stream`, after parz_gpu_fault_clear and
 * parz_gpu_enqueue_offsets on the same stream. Does not wait. */
int parz_gpu_enqueue_segments(parz_gpu_context* ctx, const parz_chunk_view* v,
                              const void* d_chunk, void* d_dst, uint64_t first, uint64_t count,
                              cudaStream_t stream, parz_error* err);
int parz_gpu_enqueue_offsets(parz_gpu_context* ctx, const parz_chunk_view* v,
                             const void* d_chunk, cudaStream_t stream, parz_error* err);
int parz_gpu_enqueue_exceptions(parz_gpu_context* ctx, const parz_chunk_view* v,
                                const void* d_chunk, void* d_dst, cudaStream_t stream,
                                parz_error* err);
/* Before a decode, clears the fault word (enqueue) unless the last fault_check read it clean, in
 * which case it still is: a clean decode costs no memset. After the work, fault_check reads it
 * back (enqueue + wait). */
int parz_gpu_fault_clear(parz_gpu_context* ctx, cudaStream_t stream, parz_error* err);
int parz_gpu_fault_check(parz_gpu_context* ctx, const parz_chunk_view* v, cudaStream_t stream,
                         parz_error* err);

/* Byte offsets of the table, exceptions and payload from the start of the chunk. */
size_t parz_gpu_payload_offset(const parz_chunk_view* v);
size_t parz_gpu_table_offset(const parz_chunk_view* v);
size_t parz_gpu_exceptions_offset(const parz_chunk_view* v);

#endif
