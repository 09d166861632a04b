/* Internals of the CUDA decoder shared by its translation units (C++/CUDA only, not installed).
 *
 * A chunk decodes in kernels queued on one stream (gpu/README.md, "How a chunk is decoded"):
 *   1. segment offsets (offsets.cu): the table (any kind) becomes one absolute u64 bit offset
 *      per segment plus the end of the payload (per-partition warp prefix sums for HYBRID). No
 *      such kernel runs where the lengths kernel reads a HYBRID table itself
 *      (parz_gpu_parse_offsets);
 *   2. segment decode (decode.cu shapes it, decode_kernels.cuh holds the kernels): block
 *      lengths are parsed (lengths_kernel, unless C = 1 or fixed rate), then one thread decodes
 *      each block (block_kernel). The payload checksums are verified a warp per partition
 *      (checksum.cuh) in block_kernel's launch. Each decoded block gets its masked values
 *      before it is stored (mask.cuh), from a map of the mask's records made in lengths_kernel's
 *      last CTAs;
 *   3. exception patch (offsets.cu): the exceptions written back at their positions.
 * Errors found on the device (a payload checksum that does not match, a segment that does not
 * end where the table says, a read past the payload) are recorded in a fault record per chunk
 * and read back once, after the kernels (parz_gpu_fault_check). */
#ifndef PARZ_GPU_INTERNAL_H
#define PARZ_GPU_INTERNAL_H

#include <cuda_runtime.h>

#include "host_pool.h"
#include "parz_gpu.h"

/* The filter path splits the decode into at most this many slices, each followed by the download
 * of the rows it completed, so that copies overlap decoding; uploads and downloads through pinned
 * memory (transfer.cu) go in as many pieces at most, of at least PARZ_GPU_PIECE_MIN_BYTES:
 * smaller ones cost more in copies, events and waits than their overlap saves. */
#define PARZ_GPU_PIECES_MAX 16
#define PARZ_GPU_PIECE_MIN_BYTES ((size_t)4 << 20)

/* Device-side error record; `segment` is the lowest failing segment and `partition` the lowest
 * partition whose payload checksum failed (atomicMin). */
struct parz_gpu_fault {
  unsigned long long segment;   /* ~0 = none */
  unsigned long long partition; /* ~0 = none */
  unsigned int code;            /* 0 = none, else an OR of parz_gpu_fault_code bits */
  unsigned int pad;
};

enum parz_gpu_fault_code {
  PARZ_GPU_FAULT_NONE = 0,
  PARZ_GPU_FAULT_END = 1,      /* segment did not end at the next segment's offset */
  PARZ_GPU_FAULT_OVERRUN = 2,  /* a read went past the payload */
  PARZ_GPU_FAULT_CHECKSUM = 4, /* a partition's payload checksum did not match */
  PARZ_GPU_FAULT_VALUE = 8     /* a decoded value left the codec's range (`segment`: the lowest
                                  such value's index) */
};

/* The shape of a chunk's parse, chosen per chunk by decode.cu (plan, seg_parser); tests and
 * benchmarks force one with parz_gpu_enqueue_chunk. */
struct parz_gpu_shape {
  unsigned group; /* G: segments per warp of lengths_kernel, 1..32; 0 = plan's */
  int parser;     /* PARZ_GPU_SKIP_*: the length parser */
  int wait;       /* PARZ_GPU_WAIT_*: what a decoding thread waits for */
};

enum {
  PARZ_GPU_WAIT_AUTO = 0,   /* SEGMENT where the decode has more CTAs than fit at once (no
                               mask), or where a masked chunk parses nothing, else GRID */
  PARZ_GPU_WAIT_GRID = 1,   /* the whole parse kernel (griddepcontrol.wait), mask expansion
                               included */
  PARZ_GPU_WAIT_SEGMENT = 2 /* its own segment's parse before decoding, and its mask group's
                               expansion after, where the launch allows it (programmatic
                               dependent launch), else GRID */
};

enum {
  PARZ_GPU_SKIP_AUTO = 0,    /* the fastest parser that applies (block_skip.cuh) */
  PARZ_GPU_SKIP_BLOCK = 1,   /* parz_skip_block, block by block, with the budget arithmetic */
  PARZ_GPU_SKIP_SEGMENT = 2, /* parz_skip_segment where it applies, never the 1D/2D
                                parz_skip_segment_small */
  PARZ_GPU_SKIP_SMALL = 3    /* parz_skip_segment_small (chosen by AUTO, not forced) */
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
  struct parz_gpu_buffer d_offsets; /* u64 per segment + 1, per chunk of a call */
  struct parz_gpu_buffer d_rel;     /* parsed chunks: u32 per block, per chunk of a call */
  /* per chunk of a call, u64 per segment where segments are parsed, then u64 per mask group
   * where the chunk has a mask: the token of the last launch that parsed the segment or
   * expanded the group (decode_kernels.cuh); zero when allocated, then only tokens, which grow */
  struct parz_gpu_buffer d_ready;
  struct parz_gpu_buffer d_mask;    /* mask maps: u32 per block, per masked chunk of a call */
  struct parz_gpu_buffer d_codec;   /* the codecs' scratch (gpu_codecs.h, scratch_bytes) */
  struct parz_gpu_buffer h_codec;   /* pinned, the same */
  cudaEvent_t codec_copied;         /* the last upload from h_codec is done */
  struct parz_gpu_buffer d_fault;   /* struct parz_gpu_fault per chunk of a call */
  size_t fault_clean;               /* d_fault's first fault_clean records are known clear */
  /* the lowest chunk of a call that its codec refused on the host (parz_gpu_refuse; SIZE_MAX:
   * none), with its status, reported by parz_gpu_fault_check in its turn among the faults */
  size_t refused;
  parz_error refused_err;
  struct parz_gpu_buffer h_fault; /* pinned copy of them */
  struct parz_gpu_buffer h_args;  /* batches: pinned kernel arguments, uploaded to d_args */
  struct parz_gpu_buffer d_args;
  cudaEvent_t args_copied;         /* the last upload from h_args is done */
  struct parz_gpu_buffer d_places; /* parz_gpu_assemble: the chunks' origins */
  struct parz_gpu_buffer d_chunk;  /* filter path, parz_gpu_assemble: compressed chunks */
  struct parz_gpu_buffer d_out;
  struct parz_gpu_buffer h_in; /* pinned staging (parz_gpu_staging) */
  struct parz_gpu_buffer h_out;
  struct parz_gpu_buffer d_result; /* parz_gpu_result: an array on its way to host memory */
  cudaEvent_t piece_done[PARZ_GPU_PIECES_MAX];
  /* the encoder (encode.cu): the payload scratch of a call's chunks (zero between calls unless
   * enc_dirty), block offsets, look-back state, the exception scan's scratch and counts, per
   * chunk counters and the sizes read back, the kernels' arguments followed by the headers
   * (pinned and device copies; enc_uploaded: their last upload is done) */
  struct parz_gpu_buffer enc_scratch, enc_offsets, enc_tiles, enc_scan, enc_exc, enc_counts;
  struct parz_gpu_buffer enc_sizes, h_enc_sizes, enc_args, h_enc_args;
  /* the masks' sets (per chunk whose configuration masks), and the mask pass's block facts and
   * groups' bytes (per chunk holding masked values) */
  struct parz_gpu_buffer enc_mask, enc_facts;
  /* the error-bounded codec's encoder (bounded/bounded_encode.cu): a chunk's holes, quantized
   * values and codes, and a strided array's contiguous copy */
  struct parz_gpu_buffer bnd_scratch;
  int enc_dirty;
  cudaEvent_t enc_uploaded;
  struct parz_host_pool* host_pool; /* filter path host copies (host_pool.h); NULL = one thread */
  size_t upload_piece;              /* bytes per piece of a staged upload (transfer.cu) */
  void* populate_dst;               /* parz_gpu_populate_start's destination, while it runs */
  size_t populate_bytes;
  struct parz_gpu_buffer d_run_sums; /* batches: a u64 per CTA of a run's checksum launch */
  /* the whole-chunk encoders' stream-ordered memory (whole_memory.h), kept when freed
   * (parz_gpu_enc_pool); NULL until the first such encode */
  cudaMemPool_t enc_pool;
  unsigned long long parse_token; /* the last token a launch wrote into d_ready (zfp_decode.cu) */
  /* the device's shared memory in bytes: an SM's, the most one CTA may opt into, and the
   * system's reserve per CTA (the lossless decoder sizes its CTAs' segment copies by them) */
  int smem_per_sm, smem_per_cta, smem_reserved;
};

/* A chunk's share of the context's scratch in one call: its segment offsets, block offsets
 * (where segments are parsed), mask map (a chunk with a mask: mask.cuh), fault record and what
 * its codec asks for.
 * Chunks decoded in one call get disjoint shares, so one launch may serve them all. */
struct parz_gpu_scratch {
  unsigned long long* offsets;
  unsigned long long* sums; /* per checksummed partition (parz_gpu_enqueue_checksums) */
  uint32_t* rel;
  unsigned long long* ready; /* a token per parsed segment, then per mask group (d_ready) */
  uint32_t* mask;
  struct parz_gpu_fault* fault;
  void* codec;            /* the codec's device scratch (gpu_codecs.h, scratch_bytes), or NULL */
  unsigned char* h_codec; /* its pinned host scratch, or NULL; the codec records
                             ctx->codec_copied after its last upload from it */
};

/* Arguments of the offsets kernels (offsets.cu) for one chunk. */
struct parz_gpu_table_args {
  const unsigned char* table;
  unsigned long long* offsets;
  unsigned long long nsegments;
  unsigned long long payload_bits;
  unsigned long long fixed_segment_bits; /* NONE: C * maxbits */
  unsigned long long record_bytes;       /* HYBRID: bytes of a full partition record */
  unsigned long long P;                  /* segments per partition (LENGTHS: all) */
  unsigned long long units;              /* threads (NONE, OFFSETS) or warps (HYBRID, LENGTHS) */
  unsigned width;                        /* length field bytes */
  int kind;
};

/* Sets err from a CUDA error; returns PARZ_ERR_DEVICE. */
int parz_gpu_cuda_fail(parz_error* err, cudaError_t e, const char* what);

/* Makes b at least `bytes` long (device memory, or pinned host memory when pinned != 0). */
int parz_gpu_reserve(struct parz_gpu_buffer* b, size_t bytes, int pinned, parz_error* err);
/* The same with room to spare when it grows (half as much again): for buffers sized to what an
 * encode produced, which creeps up from chunk to chunk, so that it is not freed and allocated
 * again (a device-wide wait) at every new largest size. */
int parz_gpu_reserve_slack(struct parz_gpu_buffer* b, size_t bytes, int pinned, parz_error* err);
/* The context's pool for the whole-chunk encoders' buffers into *pool, made at the first call:
 * the stream allocator's, but with nothing released to the driver at a synchronization, so that
 * the buffers of a call's steps after a wait, and of the next call, take pages already mapped;
 * its memory goes with the context. */
int parz_gpu_enc_pool(parz_gpu_context* ctx, cudaMemPool_t* pool, parz_error* err);

/* n <= 8 little-endian bytes at p: table and exception fields, with no alignment assumed. */
__device__ __forceinline__ unsigned long long parz_gpu_load_le(const unsigned char* p, unsigned n) {
  unsigned long long v = 0;
  for (unsigned i = 0; i < n; i++)
    v |= (unsigned long long)p[i] << (8 * i);
  return v;
}

/* Inclusive prefix sum of v over the lanes of a warp (all of them take part), restarting at
 * every lane whose `head` is set and at lane 0: the table's segment lengths become offsets with
 * it, one partition at a time (offsets.cu) or across partition starts (decode_kernels.cuh,
 * hybrid_span). */
__device__ __forceinline__ unsigned long long parz_gpu_warp_scan(unsigned long long v, bool head) {
  const unsigned lane = threadIdx.x & 31u;
  head = head || lane == 0;
#pragma unroll
  for (unsigned d = 1; d < 32; d <<= 1) {
    const unsigned long long t = __shfl_up_sync(0xffffffffu, v, d);
    const bool th = __shfl_up_sync(0xffffffffu, head, d);
    if (!head) {
      v += t;
      head = th;
    }
  }
  return v;
}

/* x / y, in 32 bits where both fit: a 64-bit division is a long software routine. */
__device__ __forceinline__ unsigned long long parz_gpu_div(unsigned long long x,
                                                           unsigned long long y) {
  return (x | y) >> 32 ? x / y : (unsigned long long)((unsigned)x / (unsigned)y);
}

/* Whether the lengths kernel takes the segment offsets from the table itself
 * (HYBRID, C > 1, variable rate; decode_kernels.cuh, hybrid_span), so that no offsets kernel
 * runs. */
int parz_gpu_parse_offsets(const parz_gpu_context* ctx, const parz_chunk_view* v);

/* Where a chunk's mask groups' tokens start in its share of d_ready (scratch.ready), in tokens. */
size_t parz_gpu_ready_groups(const parz_chunk_view* v);
/* Bytes of a full HYBRID partition record (FORMAT.md). */
unsigned long long parz_gpu_record_bytes(const parz_chunk_view* v);

/* Grows the context's scratch for n chunks decoded in one call (segment and block offsets,
 * fault records) and hands out each chunk's share (s[0..n)); refuses chunks the decoder does
 * not take (parz_gpu_view_fits). */
int parz_gpu_scratch_reserve(parz_gpu_context* ctx, const parz_chunk_view* views, size_t n,
                             struct parz_gpu_scratch* s, parz_error* err);

/* Enqueues the whole decode of n chunks (views[i] parsed from the bytes at d_chunks[i], decoded
 * into d_dsts[i]) on `stream`, chunk i using s[i], after parz_gpu_fault_clear(ctx, n): runs of
 * chunks of one codec, type and rank share each kernel launch where the codec batches
 * (parz_gpu_decode_device_batch). Does not wait. */
int parz_gpu_enqueue_chunks(parz_gpu_context* ctx, const parz_chunk_view* views,
                            const void* const* d_chunks, void* const* d_dsts, size_t n,
                            const struct parz_gpu_scratch* s, cudaStream_t stream, parz_error* err);

/* The same for one chunk alone (s its scratch, after parz_gpu_fault_clear(ctx, 1)), its parse
 * shaped by `shape` (NULL: chosen per chunk, as parz_gpu_enqueue_chunks does); a chunk of a
 * codec without GPU kernels is refused (PARZ_ERR_UNSUPPORTED). */
int parz_gpu_enqueue_chunk(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                           void* d_dst, const struct parz_gpu_scratch* s,
                           const struct parz_gpu_shape* shape, cudaStream_t stream,
                           parz_error* err);

/* Writes the stored chunk of an array in device memory (d_data, as `a` lays it out) into d_chunk
 * (parz_stored_bytes long) through host memory, and waits: the encoder's path for the chunks its
 * encoding would make larger than their values, which are few. */
int parz_gpu_store_chunk(const parz_array* a, const void* d_data, const parz_chunk_config* cfg,
                         void* d_chunk, cudaStream_t stream, parz_error* err);

/* The frame's pieces of one chunk's decode (offsets.cu), for the filter path's slices and the
 * codecs whose segments lie where the table says (gpu_codecs.h, enqueue_segments): the segment
 * offsets, after parz_gpu_fault_clear, and the exceptions written back after the segments, on
 * `stream`. Do not wait. */
int parz_gpu_enqueue_offsets(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                             const struct parz_gpu_scratch* s, cudaStream_t stream,
                             parz_error* err);
/* Verifies partitions [first, end) of chunk v's payload checksums on `stream`, after its
 * segment offsets: each partition's sum spread over enough CTAs to fill the GPU, added up in
 * s->sums and checked; a partition that does not match sets the chunk's fault record (the
 * lowest one). Does not wait. */
int parz_gpu_enqueue_checksums(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                               const struct parz_gpu_scratch* s, unsigned long long first,
                               unsigned long long end, cudaStream_t stream, parz_error* err);
struct parz_gpu_sums;
/* The sums of partitions [first, end) of a payload (checksum.cuh's parz_gpu_sums s, whose sums
 * field is not read) into acc[first..end), spread over CTAs as parz_gpu_enqueue_checksums spreads
 * them: what the encoders store as the payload checksums. Does not wait. */
int parz_gpu_enqueue_sums(parz_gpu_context* ctx, const struct parz_gpu_sums* s,
                          const unsigned char* payload, unsigned long long first,
                          unsigned long long end, unsigned long long* acc, cudaStream_t stream,
                          parz_error* err);
struct parz_gpu_run_sums;
/* Chunk v's partitions [first, end) as the CTAs of a run's checksum launch from CTA `cta` on
 * (checksum.cuh's parz_gpu_run_sums r, each partition's CTAs by its payload bytes); returns how
 * many CTAs it takes (0: none, the chunk having no checksums there). */
unsigned long long parz_gpu_run_sums_init(const parz_chunk_view* v, const void* d_chunk,
                                          const struct parz_gpu_scratch* s,
                                          unsigned long long first, unsigned long long end,
                                          unsigned long long cta, struct parz_gpu_run_sums* r);
/* Verifies the payload checksums of a run of n chunks (their parz_gpu_run_sums_init records
 * h[0..n), the same at d[0..n) in device memory, after their segment offsets) in two launches
 * for the whole run: every CTA's share of its partition into the context's d_run_sums, then each
 * partition's shares against its stored checksum; a partition that does not match sets its
 * chunk's fault record (the lowest one). Does not wait. */
int parz_gpu_enqueue_run_checksums(parz_gpu_context* ctx, const struct parz_gpu_run_sums* h,
                                   const struct parz_gpu_run_sums* d, unsigned n,
                                   cudaStream_t stream, parz_error* err);
int parz_gpu_enqueue_exceptions(parz_gpu_context* ctx, const parz_chunk_view* v,
                                const void* d_chunk, void* d_dst, cudaStream_t stream,
                                parz_error* err);

/* The offsets kernels' arguments for a chunk; 0 when it needs no offsets kernel. */
int parz_gpu_table_args_init(const parz_gpu_context* ctx, const parz_chunk_view* v,
                             const void* d_chunk, const struct parz_gpu_scratch* s,
                             struct parz_gpu_table_args* a);
/* Enqueues the offsets kernels of n chunks, whose arguments h[0..n) are also at d[0..n) in
 * device memory (n == 1 and d == NULL: passed by value). */
cudaError_t parz_gpu_launch_offsets(const struct parz_gpu_table_args* h,
                                    const struct parz_gpu_table_args* d, unsigned n,
                                    cudaStream_t stream);

/* Before a decode of n chunks, clears their fault records (enqueue) unless the last
 * fault_check read them clean, in which case they still are: a clean decode costs no clear.
 * After the work, fault_check reads them back (enqueue + wait) and reports the first chunk with
 * a fault (*failed, when not NULL; the message names the chunk when n > 1). */
int parz_gpu_fault_clear(parz_gpu_context* ctx, size_t n, cudaStream_t stream, parz_error* err);
/* A chunk of the call that its codec refused on the host while enqueueing (a codebook, say),
 * known by its scratch s: the codec skips its kernels and goes on with the other chunks, and
 * fault_check reports the lowest such chunk with e's status and message unless a chunk before
 * it faulted on the device, as for every other corrupt chunk of a batch. */
void parz_gpu_refuse(parz_gpu_context* ctx, const struct parz_gpu_scratch* s, const parz_error* e);
int parz_gpu_fault_check(parz_gpu_context* ctx, const parz_chunk_view* views, size_t n,
                         cudaStream_t stream, size_t* failed, parz_error* err);

/* Where the encoder (encode.cu) puts chunks: once every chunk's size is known (sizes[i], from
 * the blocks' lengths), place(arg, n, sizes, d_chunks, failed, err) gives chunk i its place
 * d_chunks[i] in device memory (8-byte aligned, sizes[i] bytes), or fails the call with its
 * status (*failed: the chunk) before any chunk is written. */
typedef int (*parz_gpu_enc_place)(void* arg, size_t n, const size_t* sizes, void** d_chunks,
                                  size_t* failed, parz_error* err);

/* parz_gpu_encode_device_batch with the chunks placed by `place` (their sizes into written[]):
 * the filter path and parz_gpu_encode_box size their device buffers exactly. Returns once the
 * sizes are known and the rest is queued on st. */
int parz_gpu_encode_placed(parz_gpu_context* ctx, size_t n, const parz_array* arrays,
                           const void* const* d_data, const parz_chunk_config* cfg,
                           parz_gpu_enc_place place, void* place_arg, size_t* written,
                           cudaStream_t st, size_t* failed, parz_error* err);

/* Queues the upload of `bytes` of pageable host memory (src) into device memory (d_dst) on st,
 * through the context's pinned h_in in pieces: the host threads copy piece k into it while piece
 * k - 1 is on its way. Returns once src has been read; h_in stays in use until st gets there. */
int parz_gpu_enqueue_upload(parz_gpu_context* ctx, const void* src, void* d_dst, size_t bytes,
                            cudaStream_t st, parz_error* err);

/* parz_gpu_assemble (parz_gpu.h) in rounds of at most round_bytes decoded bytes (at least one
 * chunk): the public function's are ROUND_BYTES (assemble.cu); tests make them small. */
int parz_gpu_assemble_rounds(parz_gpu_context* ctx, const parz_chunk_grid* grid,
                             const parz_box* box, const void* packed, size_t packed_bytes, size_t n,
                             const parz_chunk_ref* chunks, const void* fill, void* d_dst,
                             cudaStream_t stream, size_t round_bytes, size_t* failed,
                             parz_error* err);

/* Copies thread t's share (of n) of bytes bytes from src to dst. */
void parz_gpu_copy_share(unsigned char* dst, const unsigned char* src, size_t bytes, int t, int n);

/* Moves pieces [0, npieces) of the context's pinned h_out (piece p ends at piece_end[p]) on to
 * dst with the context's host threads, each piece as soon as its event piece_done[p] completes:
 * the second half of a download whose pieces were queued on the copy stream. */
int parz_gpu_drain_pieces(parz_gpu_context* ctx, void* dst, const size_t* piece_end, int npieces,
                          parz_error* err);

/* Byte offsets of the table, exceptions, payload checksums and payload from the start of the
 * chunk. */
size_t parz_gpu_payload_offset(const parz_chunk_view* v);
size_t parz_gpu_table_offset(const parz_chunk_view* v);
size_t parz_gpu_exceptions_offset(const parz_chunk_view* v);
size_t parz_gpu_checksums_offset(const parz_chunk_view* v);
/* Byte offset of a chunk's section part at p (a pointer into the host chunk v describes). */
size_t parz_gpu_section_offset(const parz_chunk_view* v, const unsigned char* p);

#endif
