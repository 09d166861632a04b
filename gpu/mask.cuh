/* Masks on the GPU (codec/FORMAT.md, "Mask"): a chunk's masked values are written into each
 * decoded block by the thread that decodes it, before the block is stored, as the CPU decoders
 * do; no pass over the array is added.
 *
 * A block's record lies somewhere in its group's records, which only a walk from the group's
 * start finds. So one warp per group walks them first (in the launch before the decode: extra
 * CTAs of lengths_kernel) and writes, for every block of the group, where its record starts
 * (PARZ_GPU_MASK_NONE for a block without one): 4 bytes a block, the size of the block offsets;
 * the blocks between records included (parz_gpu_mask_expand says how). The decoding thread then reads its block's entry and the
 * record there (the codec's parz_mask_read) and writes the masked values into the block. Records
 * were validated on the host (parz_chunk_parse); internal to gpu/. */
#ifndef PARZ_GPU_MASK_CUH
#define PARZ_GPU_MASK_CUH

#include "gpu_internal.h"
#include "mask_block.h"
#include "view_fits.h"

/* What a launch needs of a chunk's mask. */
struct parz_gpu_mask {
  const unsigned char* values; /* the section's values; NULL: the chunk has no mask */
  const unsigned char* starts; /* the groups' starts */
  const unsigned char* records;
  unsigned long long record_bytes; /* below PARZ_GPU_MASK_NONE (parz_gpu_view_fits) */
  unsigned long long ngroups;
  unsigned long long nblocks;
  uint32_t* map; /* per block: where its record starts, or NONE */
  unsigned G, V, dims;
  unsigned long long group_first; /* the groups this launch expands */
  unsigned long long group_end;
};

/* Warp `w` of the launch's expanding warps fills the map of group group_first + w; every lane
 * of the warp takes part. A group's records can only be walked one after the other, so the walk
 * is the expansion's time: every lane walks the same records (the same loads, no divergence,
 * nothing to broadcast) with the codec's parz_mask_hop, up to 32 of them a round, lane r keeping
 * the round's r-th record; then each lane finds among them, by a binary search over the lanes'
 * record ends, the record of each of its blocks, and the warp stores the round's entries
 * coalesced. Before each round the lanes prefetch the next 4 KiB of records into L1, so the
 * walk's loads do not wait for L2. Block indices fit in 32 bits (parz_gpu_view_fits), as do the
 * record offsets. */
__device__ __forceinline__ void parz_gpu_mask_expand(const parz_gpu_mask& m, unsigned long long w) {
  const unsigned lane = threadIdx.x & 31u;
  const unsigned long long g = m.group_first + w;
  if (g >= m.group_end)
    return; /* the whole warp */
  const uint32_t end = (uint32_t)((g + 1) * m.G < m.nblocks ? (g + 1) * m.G : m.nblocks);
  const uint32_t stop =
      (uint32_t)(g + 1 < m.ngroups ? parz_gpu_load_le(m.starts + 8 * (g + 1), 8) : m.record_bytes);
  uint32_t at = (uint32_t)parz_gpu_load_le(m.starts + 8 * g, 8), cursor = (uint32_t)(g * m.G);
  for (bool more = true; more;) {
#ifdef __CUDA_ARCH__
    if (at + 128u * lane < stop)
      asm volatile("prefetch.L1 [%0];" ::"l"(m.records + at + 128u * lane));
#endif
    /* lanes past the round's records: no block, an end past every block */
    uint32_t my_first = PARZ_GPU_MASK_NONE, my_end = PARZ_GPU_MASK_NONE, my_off = 0;
    const uint32_t from = cursor;
    for (unsigned r = 0; r < 32; r++) {
      uint32_t skip = 0, count = 0, next = 0;
      if (at < stop)
        next = parz_mask_hop(m.records, stop, at, m.dims, m.V, &skip, &count);
      if (!next && at < stop) { /* long varints; records were validated on the host */
        parz_mask_record rec;
        if (parz_mask_read(m.records + at, m.records + stop, m.dims, m.V, &rec)) {
          skip = (uint32_t)rec.skip;
          count = (uint32_t)rec.count;
          next = (uint32_t)(rec.next - m.records);
        }
      }
      if (!next) {
        more = false;
        break;
      }
      const uint32_t first = cursor + skip;
      if (lane == r) {
        my_first = first;
        my_end = first + count;
        my_off = at;
      }
      cursor = first + count;
      at = next;
    }
    /* the round's blocks, and after the last record the group's blocks left */
    const uint32_t upto = more ? (cursor < end ? cursor : end) : end;
    for (uint32_t base = from; base < upto; base += 32) {
      const uint32_t b = base + lane;
      unsigned k = 0; /* the first lane whose record ends after b, or 31 */
#pragma unroll
      for (unsigned d = 16; d > 0; d >>= 1)
        if (__shfl_sync(0xffffffffu, my_end, k + d - 1) <= b)
          k += d;
      const uint32_t f = __shfl_sync(0xffffffffu, my_first, k);
      const uint32_t e = __shfl_sync(0xffffffffu, my_end, k);
      const uint32_t o = __shfl_sync(0xffffffffu, my_off, k);
      if (b < upto)
        m.map[b] = b >= f && b < e ? o : PARZ_GPU_MASK_NONE;
    }
  }
}

/* Writes the masked values of block b into its decoded values (4^D raw values of U). The loops
 * over the block's positions are unrolled, so that every store has a fixed index and the block
 * stays in registers (the codec's parz_mask_apply visits set bits at computed indices). */
template <unsigned D, typename U>
__device__ __forceinline__ void parz_gpu_mask_block(const parz_gpu_mask& m, unsigned long long b,
                                                    U* out) {
  constexpr unsigned n = 1u << (2 * D);
  if (!m.values)
    return;
  const uint32_t at = m.map[b];
  parz_mask_record r;
  if (at == PARZ_GPU_MASK_NONE ||
      !parz_mask_read(m.records + at, m.records + m.record_bytes, D, m.V, &r))
    return;
  const unsigned char* q = r.index;
  U v = (U)parz_mask_value(m.values, m.V > 1 ? q[0] : 0u);
  if (r.kind == PARZ_MASK_RUN) {
#pragma unroll
    for (unsigned i = 0; i < n; i++)
      out[i] = v;
    return;
  }
#pragma unroll
  for (unsigned i = 0; i < n; i++)
    if ((r.bitmap[i >> 3] >> (i & 7u)) & 1u) {
      if (m.V > 1)
        v = (U)parz_mask_value(m.values, *q++);
      out[i] = v;
    }
}

/* Expanding warps of a launch, WARPS_PER_CTA to a CTA of lengths_kernel. */
inline unsigned long long parz_gpu_mask_ctas(const parz_gpu_mask& m, unsigned warps_per_cta) {
  return m.values ? (m.group_end - m.group_first + warps_per_cta - 1) / warps_per_cta : 0;
}

#endif
