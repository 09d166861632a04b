/* The GPU's codec table: what the GPU drivers (decode.cu, chunk_decode.cu, encode.cu) ask of the
 * codec that turns a chunk's values into payload bits, by the header's codec id, as the frame
 * asks the codec library's table (codec/frame/codecs.h). The drivers do the frame's work (scratch,
 * table offsets, exceptions, fault records, transfers, batches) and reach a codec's kernels only
 * through its entry here. A codec is one folder (zfp/, stored/, bounded/) and one entry in
 * gpu_codec_table.cu; a codec of the library without an entry has no GPU kernels, and the GPU
 * refuses its chunks before any work (PARZ_ERR_UNSUPPORTED, naming it), which the plugin then
 * decodes or encodes on the CPU. Internal to gpu/ (C++/CUDA). */
#ifndef PARZ_GPU_CODECS_H
#define PARZ_GPU_CODECS_H

#include "gpu_internal.h"

struct parz_gpu_enc_chunk;

struct parz_gpu_codec {
  unsigned id; /* the header's codec field: PARZ_CODEC_* */
  /* Enqueues the whole decode of one chunk (v, at d_chunk) into d_dst on st, with its scratch s,
   * after parz_gpu_fault_clear; shape forces a parse shape where the codec has one (NULL: its
   * own choice). Does not wait. */
  int (*enqueue_chunk)(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                       void* d_dst, const parz_gpu_scratch* s, const parz_gpu_shape* shape,
                       cudaStream_t st, parz_error* err);
  /* Enqueues n > 1 chunks of this codec, of one type and rank, sharing each kernel launch: their
   * arguments go up in one copy from h_args (pinned) to d_args, run_bytes per chunk. NULL: each
   * chunk alone. */
  int (*enqueue_run)(parz_gpu_context* ctx, const parz_chunk_view* v, const void* const* d_chunks,
                     void* const* d_dsts, size_t n, const parz_gpu_scratch* s,
                     unsigned char* h_args, unsigned char* d_args, cudaStream_t st,
                     parz_error* err);
  size_t run_bytes;
  /* The filter path's slices: enqueues the decode of segments [first, first + count) of the
   * chunk after parz_gpu_enqueue_offsets on st, the exceptions left to the host. NULL: the
   * filter path decodes the chunk on the host (a stored chunk is a copy, which through the GPU
   * would be three). */
  int (*enqueue_segments)(parz_gpu_context* ctx, const parz_chunk_view* v, const void* d_chunk,
                          void* d_dst, uint64_t first, uint64_t count, const parz_gpu_scratch* s,
                          cudaStream_t st, parz_error* err);
  /* The encoder's block kernel over chunks h[0..n) (d: their device copy) on st. NULL: the GPU
   * encoder does not write this codec. */
  int (*launch_blocks)(const struct parz_gpu_enc_chunk* h, const struct parz_gpu_enc_chunk* d,
                       size_t n, cudaStream_t st, parz_error* err);
  /* The scratch the codec's decode of chunk v needs beyond the frame's: bytes of device memory
   * (returned) and of pinned host memory (*pinned), handed out by parz_gpu_scratch_reserve as
   * each chunk's codec and h_codec. NULL: none. */
  size_t (*scratch_bytes)(const parz_chunk_view* v, size_t* pinned);
  /* 1: the filter path decodes the chunk in one slice (enqueue_segments of all its segments),
   * since every value needs every segment (a scratch codec's inverse passes). */
  int whole;
  /* PARZ_OK when the kernels decode chunk i (v) of this codec, else PARZ_ERR_UNSUPPORTED naming
   * what they lack (a mode of the codec added since): asked before any work, so that the plugin
   * decodes such a chunk on the CPU. NULL: every chunk of the codec. */
  int (*decodes)(const parz_chunk_view* v, size_t i, parz_error* err);
  /* Encodes n chunks of this codec whole and places them (parz_gpu_encode_placed's contract,
   * which hands the call over): a scratch codec, whose codes need the whole chunk's passes
   * before any segment is written. NULL: the block kernel (launch_blocks), or no GPU encoder. */
  int (*encode_chunks)(parz_gpu_context* ctx, size_t n, const parz_array* arrays,
                       const void* const* d_data, const parz_chunk_config* cfg,
                       parz_gpu_enc_place place, void* place_arg, size_t* written, cudaStream_t st,
                       size_t* failed, parz_error* err);
};

/* The GPU codec of that id, or NULL when it has no GPU kernels. */
const parz_gpu_codec* parz_gpu_codec_find(unsigned id);

/* The GPU codec that decodes chunk i (v) into *codec: PARZ_OK, or PARZ_ERR_UNSUPPORTED with a
 * message naming the chunk's codec, or the mode of it that its kernels lack (decodes). */
int parz_gpu_codec_decoder(const parz_chunk_view* v, size_t i, const parz_gpu_codec** codec,
                           parz_error* err);

/* The layout of the chunk the configuration writes for a (parz_chunk_layout: PARZ_ERR_PARAM for
 * a codec no encoder writes) into *v, and the GPU codec that writes it into *codec: PARZ_OK, or
 * PARZ_ERR_UNSUPPORTED with a message naming a codec without a GPU encoder. */
int parz_gpu_codec_encoder(const parz_array* a, const parz_chunk_config* cfg, parz_chunk_view* v,
                           const parz_gpu_codec** codec, parz_error* err);

/* The largest run_bytes of the table: a batch's share of the argument buffers per chunk. */
size_t parz_gpu_codec_run_bytes(void);

/* The codecs with GPU kernels (zfp/, stored/, bounded/, lossless/). */
extern const parz_gpu_codec parz_gpu_codec_zfp;
extern const parz_gpu_codec parz_gpu_codec_stored;
extern const parz_gpu_codec parz_gpu_codec_bounded;
extern const parz_gpu_codec parz_gpu_codec_lossless;

#endif
