/* The parser's validation of a mask section (mask_parse.h; FORMAT.md, "Mask"). */
#include <string.h>

#include "mask_block.h"
#include "mask_parse.h"
#include "table_endian.h"

/* Whether every set bit of a bitmap lies at a value of block `block` inside the array. Only
 * blocks at the array's upper edges (and 1-D blocks, whose byte has 4 unused bits) need the
 * bits looked at one by one. */
static int bitmap_inside(const parz_chunk_view* v, uint64_t block, const unsigned char* bitmap) {
  const unsigned d = v->array.dims, n = 1u << (2 * d), bytes = parz_mask_bitmap_bytes(d);
  unsigned e[4], a, i, edge = d == 1;
  for (a = 0; a < 4; a++) { /* the block's extent along axis a (x first) */
    e[a] = 1;
    if (a < d) {
      uint64_t len = v->array.shape[d - 1 - a], nb = (len + 3u) / 4u,
               left = len - 4u * (block % nb);
      e[a] = left < 4u ? (unsigned)left : 4u;
      edge |= e[a] < 4u;
      block /= nb;
    }
  }
  for (i = 0; edge && i < 8u * bytes; i++) {
    if (!((bitmap[i >> 3] >> (i & 7u)) & 1u))
      continue;
    if (i >= n)
      return 0;
    for (a = 0; a < 4; a++)
      if (((i >> (2 * a)) & 3u) >= e[a])
        return 0;
  }
  return 1;
}

int parz_mask_parse(parz_chunk_view* v, const unsigned char* s, uint64_t bytes, parz_error* err) {
  const unsigned dims = v->array.dims;
  parz_chunk_mask m;
  uint64_t G, V, R, g, k, room, nblocks;
  memset(&m, 0, sizeof m);
  if (bytes < PARZ_MASK_HEAD_BYTES)
    return parz_fail(err, PARZ_ERR_FORMAT, "mask section of %llu bytes", (unsigned long long)bytes);
  G = parz_load32(s);
  V = parz_load32(s + 4);
  R = parz_load64(s + 8);
  if (G < 1 || G > PARZ_MASK_MAX_GROUP_BLOCKS || V < 1 || V > PARZ_MASK_MAX_VALUES)
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "mask of %llu values in groups of %llu blocks (1..%u values, groups of "
                     "1..%u blocks)",
                     (unsigned long long)V, (unsigned long long)G, PARZ_MASK_MAX_VALUES,
                     PARZ_MASK_MAX_GROUP_BLOCKS);
  /* the mask's blocks are 4^d values whatever the codec's own (FORMAT.md, "Mask") */
  nblocks = parz_block_count(&v->array);
  m.ngroups = nblocks / G + (nblocks % G != 0);
  room = (bytes - PARZ_MASK_HEAD_BYTES) / 8u;
  if (V > room || m.ngroups > room - V || R > 8u * (room - V - m.ngroups) ||
      bytes != PARZ_MASK_HEAD_BYTES + 8u * (V + m.ngroups) + parz_mask_records_padded((size_t)R))
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "mask section of %llu bytes for %llu values, %llu groups and %llu bytes of "
                     "records",
                     (unsigned long long)bytes, (unsigned long long)V,
                     (unsigned long long)m.ngroups, (unsigned long long)R);
  m.values = s + PARZ_MASK_HEAD_BYTES;
  m.starts = m.values + 8u * V;
  m.records = m.starts + 8u * m.ngroups;
  m.record_bytes = R;
  m.group_blocks = (uint32_t)G;
  m.nvalues = (uint32_t)V;
  m.section_bytes = bytes;
  for (k = R; k < parz_mask_records_padded((size_t)R); k++)
    if (m.records[k])
      return parz_fail(err, PARZ_ERR_FORMAT, "nonzero padding after the mask's records");
  for (k = 0; k < V; k++) {
    uint64_t bits = parz_load64(m.values + 8u * k);
    if (parz_type_size(v->array.type) == 4 && bits >> 32)
      return parz_fail(err, PARZ_ERR_FORMAT,
                       "mask value %llu is 0x%llx, wider than the chunk's 32-bit %s values",
                       (unsigned long long)k, (unsigned long long)bits,
                       parz_type_name(v->array.type));
  }
  for (g = 0; g < m.ngroups; g++) {
    uint64_t at = parz_load64(m.starts + 8u * g);
    uint64_t stop = g + 1 < m.ngroups ? parz_load64(m.starts + 8u * (g + 1)) : R;
    uint64_t cursor = g * G, end = cursor + G < nblocks ? cursor + G : nblocks;
    const unsigned char* p;
    if ((g == 0 && at != 0) || at > stop || stop > R)
      return parz_fail(err, PARZ_ERR_FORMAT,
                       "mask group %llu's records at bytes %llu to %llu of %llu",
                       (unsigned long long)g, (unsigned long long)at, (unsigned long long)stop,
                       (unsigned long long)R);
    for (p = m.records + at; p < m.records + stop;) {
      parz_mask_record r;
      uint64_t first, i, nidx;
      if (!parz_mask_read(p, m.records + stop, dims, m.nvalues, &r))
        return parz_fail(err, PARZ_ERR_FORMAT,
                         "mask record at byte %llu runs past its group's records (group %llu)",
                         (unsigned long long)(p - m.records), (unsigned long long)g);
      if (r.skip >= end - cursor || r.count > end - cursor - r.skip)
        return parz_fail(err, PARZ_ERR_FORMAT,
                         "mask record at byte %llu covers %llu blocks from block %llu + %llu, "
                         "past group %llu's last block %llu",
                         (unsigned long long)(p - m.records), (unsigned long long)r.count,
                         (unsigned long long)cursor, (unsigned long long)r.skip,
                         (unsigned long long)g, (unsigned long long)(end - 1));
      first = cursor + r.skip;
      if (r.kind == PARZ_MASK_BITMAP &&
          (!parz_mask_popcount(r.bitmap, parz_mask_bitmap_bytes(dims)) ||
           !bitmap_inside(v, first, r.bitmap)))
        return parz_fail(err, PARZ_ERR_FORMAT,
                         "mask bitmap of block %llu is empty or marks values outside the array",
                         (unsigned long long)first);
      nidx = m.nvalues > 1 ? (uint64_t)(r.next - r.index) : 0;
      for (i = 0; i < nidx; i++)
        if (r.index[i] >= V)
          return parz_fail(err, PARZ_ERR_FORMAT, "mask record of block %llu names value %u of %llu",
                           (unsigned long long)first, (unsigned)r.index[i], (unsigned long long)V);
      cursor = first + r.count;
      p = r.next;
    }
  }
  v->mask = m;
  return PARZ_OK;
}
