/* Masks on the GPU (codec/FORMAT.md, "Mask"): a chunk's masked values are written into each
 * decoded block by the thread that decodes it, before the block is stored, as the CPU decoders
 * do; no pass over the array is added.
 *
 * A block's record lies somewhere in its group's records, which only a walk from the group's
 * start finds. So one warp per group walks them first (in the launch before the decode: extra
 * CTAs of lengths_kernel) and writes, for every block of the group, where its record starts
 * (PARZ_GPU_MASK_NONE for a block without one): 4 bytes a block, the size of the block offsets. Lane 0 reads the records with the
 * codec's parz_mask_read and the warp writes the entries of each, the blocks between records
 * included, with coalesced stores. The decoding thread then reads its block's entry and the
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
 * of the warp takes part. */
__device__ __forceinline__ void parz_gpu_mask_expand(const parz_gpu_mask& m, unsigned long long w) {
  const unsigned lane = threadIdx.x & 31u;
  const unsigned long long g = m.group_first + w;
  if (g >= m.group_end)
    return; /* the whole warp */
  const unsigned long long end = (g + 1) * m.G < m.nblocks ? (g + 1) * m.G : m.nblocks;
  const unsigned long long stop =
      g + 1 < m.ngroups ? parz_gpu_load_le(m.starts + 8 * (g + 1), 8) : m.record_bytes;
  unsigned long long at = parz_gpu_load_le(m.starts + 8 * g, 8), cursor = g * m.G;
  for (;;) {
    /* lane 0 reads the next record; every lane gets its blocks [first, first + count) */
    unsigned long long first = end, count = 0, off = 0;
    int more = 0;
    if (lane == 0 && at < stop) {
      parz_mask_record r;
      if (parz_mask_read(m.records + at, m.records + stop, m.dims, m.V, &r)) {
        first = cursor + r.skip;
        count = r.count;
        off = at;
        at = (unsigned long long)(r.next - m.records);
        more = 1;
      }
    }
    more = __shfl_sync(0xffffffffu, more, 0);
    first = __shfl_sync(0xffffffffu, first, 0);
    count = __shfl_sync(0xffffffffu, count, 0);
    off = __shfl_sync(0xffffffffu, off, 0);
    for (unsigned long long b = cursor + lane; b < first + count; b += 32)
      m.map[b] = b < first ? PARZ_GPU_MASK_NONE : (uint32_t)off;
    cursor = first + count;
    if (!more)
      return;
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
