/* Segment decode kernels (see decode.cu for the scheme), instantiated per scalar type in
 * decode_<type>.cu so that the four types compile in parallel. Internal to gpu/. */
#ifndef PARZ_GPU_DECODE_KERNELS_CUH
#define PARZ_GPU_DECODE_KERNELS_CUH

#include "block_small.cuh"
#include "block_type.cuh"
#include "checksum.cuh"
#include "fast_div.h"
#include "gpu_internal.h"
#include "mask.cuh"

#define WARPS_PER_CTA 4

struct seg_args {
  const unsigned char* payload;
  unsigned long long payload_bytes;
  unsigned long long* offsets;     /* nsegments + 1 absolute bit offsets (with `table`: written
                                        by the lengths kernel, the end not at all) */
  const unsigned char* table;      /* HYBRID table when the lengths kernel reads the offsets
                                        from it (parz_gpu_parse_offsets), else NULL */
  unsigned long long table_P;      /* with table: segments per partition */
  unsigned long long record_bytes; /* with table: bytes of a full partition record */
  unsigned width;                  /* with table: bytes of a length field */
  uint32_t* rel;                   /* per block, bit offset within its segment */
  unsigned long long* ready;       /* per segment, `token` once its rel entries are written */
  unsigned long long* mask_ready;  /* per mask group (absolute index), `token` once its map
                                        entries are written */
  unsigned long long token;        /* this launch's (0: block_kernel waits for the whole grid) */
  unsigned long long block_end;    /* blocks [first * C, block_end) */
  unsigned long long nblocks;
  unsigned long long first; /* segments [first, end) */
  unsigned long long end;
  unsigned long long shape[4]; /* C order */
  unsigned long long bgrid[4]; /* blocks along each dimension */
  parz_fast_div bdiv[4];       /* division by bgrid[k], k >= 1 (scatter) */
  parz_params params;
  unsigned C, G; /* G: segments per warp of lengths_kernel */
  int fixed;     /* every block is maxbits long */
  int parser;    /* the length parser: PARZ_GPU_SKIP_BLOCK, _SEGMENT or
                                        _SMALL, resolved by decode.cu's seg_setup */
  int vec;       /* full rows may be stored as aligned 16-byte vectors */
  void* dst;
  parz_gpu_fault* fault;
  int pdl;                      /* block_kernel may start while lengths_kernel runs */
  parz_gpu_sums sums;           /* payload checksums (sums.sums NULL: the chunk has none) */
  unsigned long long sum_first; /* partitions [sum_first, sum_end) verified by this launch */
  unsigned long long sum_end;
  unsigned decode_ctas; /* CTAs that decode, after the sum_ctas that verify */
  unsigned sum_ctas;    /* CTAs of WARPS_PER_CTA verifying warps */
  parz_gpu_mask mask;   /* masked values (mask.values NULL: none) */
  unsigned parse_ctas;  /* CTAs of lengths_kernel that parse segments; the
                                        mask_ctas after them expand the mask */
  unsigned mask_ctas;   /* CTAs of WARPS_PER_CTA warps expanding mask groups */
};

/* Programmatic dependent launch (compute capability 9.0 and up): lengths_kernel lets
 * block_kernel be launched as soon as all its own CTAs are running, so block_kernel's CTAs are
 * resident and waiting when the parse ends, rather than launched after it; block_kernel waits
 * for lengths_kernel to finish (its writes visible) before reading any offset. Elsewhere, and
 * in a kernel launched without the attribute, both are no-ops. */
__device__ __forceinline__ void pdl_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void pdl_wait_primary() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* A segment's parse published (lengths_kernel, after its rel entries and offset) and awaited
 * (block_kernel, before reading them): a release store and an acquire load at GPU scope. */
__device__ __forceinline__ void ready_publish(unsigned long long* p, unsigned long long token) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(token) : "memory");
#else
  *(volatile unsigned long long*)p = token;
#endif
}

__device__ __forceinline__ unsigned long long ready_load(const unsigned long long* p) {
  unsigned long long v;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
#else
  v = *(const volatile unsigned long long*)p;
#endif
  return v;
}

/* Waits until segment s is parsed: its token, or after READY_POLLS polls (a parse slowed down
 * by a debugger or sanitizer, say) the whole parse grid, which is always enough. Under
 * programmatic dependent launch every CTA of lengths_kernel is resident before any of
 * block_kernel starts, so the parse never waits for a slot that a polling CTA holds. */
#define READY_POLLS 65536u
__device__ __forceinline__ void ready_wait(const unsigned long long* p, unsigned long long token) {
  for (unsigned k = 0; ready_load(p) != token; k++) {
    if (k == READY_POLLS) {
      pdl_wait_primary();
      return;
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    __nanosleep(200);
#endif
  }
}

__device__ __forceinline__ void report_fault(parz_gpu_fault* f, unsigned long long segment,
                                             unsigned code) {
  atomicMin(&f->segment, segment);
  atomicOr(&f->code, code);
}

/* Verifies the payload checksum of partition sum_first + w, w the warp's index among the
 * verifying warps; every lane of the warp takes part. Partition bounds from the HYBRID table
 * need nothing from an earlier kernel; segment offsets do (under programmatic dependent launch
 * this warp may start while the lengths kernel still runs). */
__device__ __forceinline__ void verify_body(const seg_args& a, unsigned long long w) {
  const unsigned lane = threadIdx.x & 31u;
  const unsigned long long p = a.sum_first + w;
  if (p >= a.sum_end)
    return; /* the whole warp */
  if (!a.sums.table)
    pdl_wait_primary();
  unsigned long long sum = parz_gpu_checksum_share(a.sums, a.payload, p, lane);
#pragma unroll
  for (unsigned d = 16; d > 0; d >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, d);
  if (lane == 0 && !parz_gpu_checksum_ok(a.sums, p, sum)) {
    atomicMin(&a.fault->partition, p);
    atomicOr(&a.fault->code, (unsigned)PARZ_GPU_FAULT_CHECKSUM);
  }
}

/* One block, by the CPU's code. Returns the bits it occupied. */
template <parz_type T, unsigned D>
__device__ __forceinline__ unsigned decode_block(parz_reader* r, const parz_params* p,
                                                 typename raw_of<T>::type* out) {
  if constexpr (T == PARZ_FLOAT)
    return parz_decode_fblock32(r, p, D, out);
  else if constexpr (T == PARZ_DOUBLE)
    return parz_decode_fblock64(r, p, D, out);
  else if constexpr (T == PARZ_INT32)
    return parz_decode_sblock32(r, p, D, out);
  else
    return parz_decode_sblock64(r, p, D, out);
}

/* Decodes the block at bit `at` of the payload; returns the bit after it and sets *overrun when
 * it read past the payload. 1D/2D blocks in modes without a budget take the window decoder. */
template <parz_type T, unsigned D>
__device__ __forceinline__ unsigned long long decode_at(const seg_args& a, const parz_params* p,
                                                        unsigned long long at,
                                                        typename raw_of<T>::type* out,
                                                        bool* overrun) {
  if constexpr (D <= 2) {
    if (a.parser == PARZ_GPU_SKIP_SMALL) {
      unsigned long long end =
          p->minexp < PARZ_MIN_EXP
              ? parz_decode_block_small<T, D, true>(a.payload, a.payload_bytes, at, p, out)
              : parz_decode_block_small<T, D, false>(a.payload, a.payload_bytes, at, p, out);
      *overrun = end > 8 * a.payload_bytes;
      return end;
    }
  }
  parz_reader r;
  parz_reader_init(&r, a.payload, a.payload_bytes, at);
  decode_block<T, D>(&r, p, out);
  *overrun = r.err;
  return parz_reader_tell(&r);
}

/* Where row `row` of a block (its coordinates in dimensions 0..D-2, dimension D-2 fastest)
 * starts, from the block's first value `base`; false when the row lies outside the array. */
template <unsigned D>
__device__ __forceinline__ bool row_at(unsigned row, unsigned long long base,
                                       const unsigned long long* lim, const unsigned long long* str,
                                       unsigned long long* off) {
  bool inside = true;
#pragma unroll
  for (int k = (int)D - 2; k >= 0; k--) {
    unsigned c = (row >> (2 * (D - 2 - k))) & 3u;
    inside = inside && c < lim[k];
    base += c * str[k];
  }
  *off = base;
  return inside;
}

/* A row of four values as one 16-byte store (two for 64-bit values) at p, which is 16-byte
 * aligned (seg_args.vec), written in PTX: as a C++ vector store, nvcc splits the store of a
 * block's first row into four scalar ones, the form of the path for partial rows. */
template <typename U>
__device__ __forceinline__ void store_row(U* p, const U* src) {
  const size_t g = __cvta_generic_to_global(p);
  if constexpr (sizeof(U) == 4)
    asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(g), "r"(src[0]), "r"(src[1]),
                 "r"(src[2]), "r"(src[3])
                 : "memory");
  else
    asm volatile("st.global.v2.u64 [%0], {%1, %2};\n\tst.global.v2.u64 [%0+16], {%3, %4};" ::"l"(g),
                 "l"(src[0]), "l"(src[1]), "l"(src[2]), "l"(src[3])
                 : "memory");
}

/* Writes decoded block b (4^D raw values, x fastest) into its place in the array; values of
 * partial blocks that fall outside the array are dropped. */
template <parz_type T, unsigned D>
__device__ __forceinline__ void scatter(const seg_args& a, unsigned b,
                                        const typename raw_of<T>::type* v) {
  typedef typename raw_of<T>::type U;
  U* dst = (U*)a.dst;
  unsigned long long base = 0, stride = 1;
  unsigned long long lim[4]; /* values of the block inside the array, per dimension */
  unsigned long long str[4]; /* element stride per dimension */
#pragma unroll
  for (int k = (int)D - 1; k >= 0; k--) {
    /* block indices are 32-bit (parz_gpu_view_fits), so the divisions are seg_args' multiplies;
     * what is left of b for the outermost dimension is below its block count (b < nblocks) */
    unsigned bc = b;
    if (k > 0) {
      const unsigned q = parz_fast_div_of(b, a.bdiv[k]);
      bc = b - q * (unsigned)a.bgrid[k];
      b = q;
    }
    unsigned long long left = a.shape[k] - 4ull * bc;
    lim[k] = left < 4 ? left : 4;
    str[k] = stride;
    base += 4ull * bc * stride;
    stride *= a.shape[k];
  }
  const unsigned rows = 1u << (2 * (D - 1));
  unsigned long long off;
  if (a.vec && lim[D - 1] == 4) {
#pragma unroll
    for (unsigned row = 0; row < rows; row++)
      if (row_at<D>(row, base, lim, str, &off))
        store_row(dst + off, v + 4 * row);
    return;
  }
#pragma unroll
  for (unsigned row = 0; row < rows; row++) {
    if (!row_at<D>(row, base, lim, str, &off))
      continue;
#pragma unroll
    for (unsigned x = 0; x < 4; x++)
      if (x < lim[D - 1])
        dst[off + x] = v[4 * row + x];
  }
}

/* Records segment s's faults: a read past the payload (overrun), or an end other than `want`,
 * where the next segment starts. */
__device__ __forceinline__ void check_segment(const seg_args& a, unsigned long long s, bool overrun,
                                              unsigned long long end, unsigned long long want) {
  if (overrun)
    report_fault(a.fault, s, PARZ_GPU_FAULT_OVERRUN);
  if (end != want)
    report_fault(a.fault, s, PARZ_GPU_FAULT_END);
}

/* Where segment s0 + lane starts and how many bits it has, straight from the HYBRID table, for
 * lanes < G inside [first, end) (others get zeros); s0 itself must be inside. Every lane of
 * the warp takes part: the partition offset goes to the first lane of each partition (or to
 * lane 0, with the lengths before s0 added), then a prefix sum that restarts at those lanes.
 * parz_chunk_parse has checked on the host that each partition's lengths add up to the next
 * one's offset. So no offsets kernel runs before the lengths kernel: one launch less per chunk,
 * which counts in chunks of a few MiB, whose launches cost as much as their decode. */
__device__ __forceinline__ void hybrid_span(const seg_args& a, unsigned long long s0, unsigned lane,
                                            unsigned long long* start, unsigned long long* len) {
  const unsigned long long P = a.table_P;
  const unsigned long long p0 = parz_gpu_div(s0, P), k0 = s0 - p0 * P;
  const unsigned long long dp = parz_gpu_div(k0 + lane, P), k = k0 + lane - dp * P;
  const unsigned long long s = s0 + lane;
  const bool in = lane < a.G && s < a.end;
  const unsigned char* rec = a.table + (p0 + dp) * a.record_bytes;
  const unsigned long long l = in ? parz_gpu_load_le(rec + 8 + a.width * k, a.width) : 0;
  unsigned long long v = l;
  if (in && k == 0)
    v += parz_gpu_load_le(rec, 8);
  if (k0) { /* the same in every lane */
    const unsigned char* r0 = a.table + p0 * a.record_bytes;
    unsigned long long before = 0;
    for (unsigned long long j = lane; j < k0; j += 32)
      before += parz_gpu_load_le(r0 + 8 + a.width * j, a.width);
#pragma unroll
    for (unsigned d = 16; d > 0; d >>= 1)
      before += __shfl_xor_sync(0xffffffffu, before, d);
    if (lane == 0)
      v += parz_gpu_load_le(r0, 8) + before;
  }
  v = parz_gpu_warp_scan(v, k == 0);
  *start = v - l;
  *len = l;
}

__device__ __forceinline__ unsigned long long seg_blocks(const seg_args& a, unsigned long long s) {
  unsigned long long left = a.nblocks - s * a.C;
  return left < a.C ? left : a.C;
}

/* Walks segment s from bit `start`, writing where each block starts into rel, and checks that
 * it ends at `want`. */
template <parz_type T, unsigned D>
__device__ __forceinline__ void lengths_walk(const seg_args& a, unsigned long long s,
                                             unsigned long long start, unsigned long long want) {
  const parz_params p = a.params;
  const unsigned nb = (unsigned)seg_blocks(a, s);
  uint32_t* rel = a.rel + s * a.C;
  if constexpr (D <= 2) {
    if (a.parser == PARZ_GPU_SKIP_SMALL) {
      check_segment(a, s, false,
                    p.minexp < PARZ_MIN_EXP ? parz_skip_segment_small<T, D, true>(
                                                  a.payload, a.payload_bytes, start, nb, &p, rel)
                                            : parz_skip_segment_small<T, D, false>(
                                                  a.payload, a.payload_bytes, start, nb, &p, rel),
                    want);
      return;
    }
  }
  if (a.parser == PARZ_GPU_SKIP_SEGMENT) {
    check_segment(a, s, false,
                  parz_skip_segment<T, D>(a.payload, a.payload_bytes, start, nb, &p, rel), want);
    return;
  }
  parz_reader r;
  uint32_t at = 0;
  parz_reader_init(&r, a.payload, a.payload_bytes, start);
  for (unsigned i = 0; i < nb; i++) {
    rel[i] = at;
    at += parz_skip_block<T, D>(&r, &p);
  }
  check_segment(a, s, r.err, start + at, want);
}

/* Kernel 1: one thread per segment walks its blocks with the length-only parser
 * and writes where each block starts, relative to its segment (u32: a segment of 2^32 bits or
 * more, which only an expert minbits in the billions makes, wraps and fails the end check). It
 * also checks the segment's end against the table. */
template <parz_type T, unsigned D>
__device__ __forceinline__ void lengths_body(const seg_args& a) {
  /* G segments per warp (plan() in decode.cu), lanes G..31 idle: where the lanes of a warp
   * diverge at every plane (the 3D/4D parsers), fewer of them per warp, in more warps, finish
   * sooner; the 1D/2D parser keeps its lanes in step and takes G >= 8 */
  const unsigned lane = threadIdx.x & 31u;
  const unsigned long long warp = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const unsigned long long s = a.first + warp * a.G + lane;
  /* the 1D/2D parser's test positions, in shared memory: lanes index it by their own n, which
   * the constant cache would serialize */
  if (threadIdx.x < 16)
    parz_tests_sh[threadIdx.x] = parz_test_pattern(threadIdx.x);
  __syncthreads();
  pdl_launch_dependents();
  unsigned long long start = 0, want = 0;
  if (s - lane >= a.end)
    return;      /* the whole warp: the grid is rounded up to whole CTAs */
  if (a.table) { /* the whole warp, before any lane leaves */
    unsigned long long len;
    hybrid_span(a, s - lane, lane, &start, &len);
    want = start + len;
  }
  if (lane >= a.G || s >= a.end)
    return;
  if (a.table) {
    a.offsets[s] = start; /* for block_kernel */
  } else {
    start = a.offsets[s];
    want = a.offsets[s + 1];
  }
  lengths_walk<T, D>(a, s, start, want);
  if (a.token) /* after the walk's rel entries and the offset above */
    ready_publish(a.ready + s, a.token);
}

/* Whether the chunk's segments are parsed (lengths_kernel) before its blocks decode. */
__host__ __device__ inline bool block_parses(const seg_args& a) { return a.C > 1 && !a.fixed; }

/* Kernel 2: one thread per block, so the parallelism is the number of blocks
 * whatever C is, and neighbouring threads store neighbouring blocks. Where a block starts comes
 * from kernel 1 (variable rate) or from its index (fixed rate; C = 1 needs no offsets either).
 * With a token, a thread waits for its own segment's parse before decoding and for its mask
 * group's expansion only after, so that a chunk's blocks decode while kernel 1 still walks the
 * mask's records; the segment offsets of a chunk that kernel 1 does not parse come from the
 * offsets kernel, which finished before kernel 1 began. Block indices are 32-bit, the grid's
 * last CTA included (parz_gpu_view_fits refuses chunks of more blocks). */
template <parz_type T, unsigned D>
__device__ __forceinline__ void block_body(const seg_args& a, unsigned cta) {
  typedef typename raw_of<T>::type U;
  const unsigned b = (unsigned)(a.first * a.C) + cta * blockDim.x + threadIdx.x;
  if (b >= (unsigned)a.block_end)
    return;
  const parz_params p = a.params;
  /* C is a power of two but where the caller chose otherwise (16 by default): a shift in place
   * of the division, which is a routine of about 15 instructions */
  const unsigned s = (a.C & (a.C - 1)) == 0 ? b >> (__ffs((int)a.C) - 1) : b / a.C;
  const unsigned i = b - s * a.C;
  /* the offsets may come from lengths_kernel; while it runs, read past the L1 cache, which
   * may hold a line of rel read for a neighbouring segment before this one's entries were
   * written */
  unsigned long long at;
  if (a.token && block_parses(a)) {
    ready_wait(a.ready + s, a.token);
    at = *(volatile const unsigned long long*)(a.offsets + s) + *(volatile const uint32_t*)(a.rel + b);
  } else {
    if (!a.token)
      pdl_wait_primary();
    at = a.offsets[s];
    if (a.fixed)
      at += (unsigned long long)i * p.maxbits;
    else if (a.C > 1)
      at += a.rel[b];
  }
  U out[1u << (2 * D)];
  bool overrun;
  const unsigned long long end = decode_at<T, D>(a, &p, at, out, &overrun);
  if (a.C == 1 && !a.fixed)
    check_segment(a, s, overrun, end, a.offsets[s + 1]); /* no kernel 1 checked its end */
  else if (overrun)
    report_fault(a.fault, s, PARZ_GPU_FAULT_OVERRUN);
  if (a.mask.values && a.token) /* the acquire orders the map's read after its writes */
    ready_wait(a.mask_ready + b / a.mask.G, a.token);
  parz_gpu_mask_block<D>(a.mask, b, out);
  scatter<T, D>(a, b, out);
}

/* A CTA of lengths_kernel past the parsing ones: a warp per mask group (mask.cuh). With a
 * token the warp then publishes its group: every lane's map entries are made visible before
 * lane 0's release. */
__device__ __forceinline__ void expand_body(const seg_args& a) {
  pdl_launch_dependents();
  const unsigned long long w =
      (unsigned long long)(blockIdx.x - a.parse_ctas) * WARPS_PER_CTA + (threadIdx.x >> 5);
  parz_gpu_mask_expand(a.mask, w);
  if (a.token && a.mask.group_first + w < a.mask.group_end) { /* the same in the whole warp */
    __threadfence();
    __syncwarp();
    if ((threadIdx.x & 31u) == 0)
      ready_publish(a.mask_ready + a.mask.group_first + w, a.token);
  }
}

/* The kernels for one chunk, its arguments by value (read from the parameter bank), or
 * (BATCH) for chunk blockIdx.y of `many` in device memory: one launch serves a batch of chunks
 * of one type and rank (parz_gpu_decode_device_batch), each with its own grid of CTAs along x,
 * those past a chunk's own count leaving at once. lengths_kernel's CTAs parse segments
 * (parse_ctas of them, where the chunk's segments need it), then (MASK) expand the mask. The
 * launches without a masked chunk take the kernel without the expansion, whose code the parse
 * then does not share registers and scheduling with. */
template <parz_type T, unsigned D, bool BATCH, bool MASK>
__global__ void __launch_bounds__(128)
    lengths_kernel(const seg_args one, const seg_args* __restrict__ many) {
  const seg_args& a = BATCH ? many[blockIdx.y] : one;
  if (blockIdx.x < a.parse_ctas) /* the same in the whole CTA: lengths_body's barrier is safe */
    lengths_body<T, D>(a);
  else if (MASK && blockIdx.x < a.parse_ctas + a.mask_ctas)
    expand_body(a);
}

template <parz_type T, unsigned D, bool BATCH>
__global__ void __launch_bounds__(128)
    block_kernel(const seg_args one, const seg_args* __restrict__ many) {
  const seg_args& a = BATCH ? many[blockIdx.y] : one;
  /* The CTAs that verify checksums come first: CTAs start in the order of their index, so
   * these run beside the decoding ones (and, under programmatic dependent launch, beside the
   * parse: where the table is HYBRID a verification waits for nothing) rather than in the
   * grid's last wave, after every decoding CTA has started. */
  if (blockIdx.x < a.sum_ctas)
    verify_body(a, (unsigned long long)blockIdx.x * WARPS_PER_CTA + (threadIdx.x >> 5));
  else
    block_body<T, D>(a, blockIdx.x - a.sum_ctas);
}

/* CTAs of lengths_kernel and block_kernel for a chunk. */
inline unsigned long long lengths_ctas(const seg_args& a) {
  const unsigned long long warps = (a.end - a.first + a.G - 1) / a.G;
  return (32 * warps + 127) / 128;
}
inline unsigned long long block_ctas(const seg_args& a) {
  return (a.block_end - a.first * a.C + 127) / 128;
}

/* lengths_kernel where some chunk parses, then block_kernel, launched while the first
 * runs (programmatic dependent launch, seg_args.pdl). h[0..n) are the chunks' arguments; with
 * d (their copy in device memory) one launch of each serves them all, else n is 1. */
template <parz_type T, unsigned D>
cudaError_t launch_block(const seg_args* h, const seg_args* d, unsigned n, cudaStream_t stream) {
  unsigned long long lctas = 0, bctas = 0;
  bool mask = false;
  for (unsigned i = 0; i < n; i++) {
    lctas = PARZ_MAX(lctas, (unsigned long long)h[i].parse_ctas + h[i].mask_ctas);
    bctas = PARZ_MAX(bctas, (unsigned long long)h[i].decode_ctas + h[i].sum_ctas);
    mask = mask || h[i].mask_ctas;
  }
  if (lctas) {
    const dim3 grid((unsigned)lctas, d ? n : 1);
    if (d && mask)
      lengths_kernel<T, D, true, true><<<grid, 128, 0, stream>>>(h[0], d);
    else if (d)
      lengths_kernel<T, D, true, false><<<grid, 128, 0, stream>>>(h[0], d);
    else if (mask)
      lengths_kernel<T, D, false, true><<<grid, 128, 0, stream>>>(h[0], NULL);
    else
      lengths_kernel<T, D, false, false><<<grid, 128, 0, stream>>>(h[0], NULL);
  }
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr = {};
  cfg.gridDim = dim3((unsigned)bctas, n);
  cfg.blockDim = dim3(128);
  cfg.stream = stream;
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = lctas && h[0].pdl ? 1 : 0;
  return d ? cudaLaunchKernelEx(&cfg, block_kernel<T, D, true>, h[0], d)
           : cudaLaunchKernelEx(&cfg, block_kernel<T, D, false>, h[0], (const seg_args*)NULL);
}

template <parz_type T>
cudaError_t launch_dims(unsigned dims, const seg_args* h, const seg_args* d, unsigned n,
                        cudaStream_t st) {
  cudaError_t e;
  switch (dims) {
    case 1: e = launch_block<T, 1>(h, d, n, st); break;
    case 2: e = launch_block<T, 2>(h, d, n, st); break;
    case 3: e = launch_block<T, 3>(h, d, n, st); break;
    default: e = launch_block<T, 4>(h, d, n, st); break;
  }
  return e == cudaSuccess ? cudaGetLastError() : e;
}

/* One per scalar type (decode_<type>.cu): the kernels of n chunks, h their arguments on the
 * host and d the same in device memory (n = 1 and d = NULL: one chunk, arguments by value). */
#define PARZ_GPU_DECLARE_LAUNCH(name)                                                     \
  cudaError_t parz_gpu_launch_##name(unsigned dims, const seg_args* h, const seg_args* d, \
                                     unsigned n, cudaStream_t st);
PARZ_GPU_DECLARE_LAUNCH(f32)
PARZ_GPU_DECLARE_LAUNCH(f64)
PARZ_GPU_DECLARE_LAUNCH(i32)
PARZ_GPU_DECLARE_LAUNCH(i64)

#endif
