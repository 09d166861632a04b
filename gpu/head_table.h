/* A chunk's table (codec/FORMAT.md, "Table") as the GPU encoders write it, a segment per thread:
 * the zfp encoder from its blocks' offsets (encode_chunk.cuh), the bounded encoder from its
 * segments' (bounded_encode.cu). PARZ_HD, so that the host tests write tables as the GPU does.
 * Internal to gpu/. */
#ifndef PARZ_GPU_HEAD_TABLE_H
#define PARZ_GPU_HEAD_TABLE_H

#include "block_common.h"
#include "parz_chunk.h"

/* Where a chunk's table lies and its shape (a chunk view's, parz_gpu_table_of). */
struct parz_gpu_table {
  unsigned char* at;
  int kind;       /* parz_table_kind, never AUTO */
  unsigned width; /* bytes of a length field */
  unsigned long long P, nsegments, record_bytes, table_bytes;
};

/* The table of chunk v (its head at head). */
static inline parz_gpu_table parz_gpu_table_of(const parz_chunk_view* v, unsigned char* table) {
  parz_gpu_table t;
  t.at = table;
  t.kind = (int)v->table;
  t.width = v->length_bytes;
  t.P = v->partition_segments;
  t.nsegments = v->nsegments;
  t.record_bytes = 8 + ((unsigned long long)v->length_bytes * v->partition_segments + 7) / 8 * 8;
  t.table_bytes = v->table_bytes;
  return t;
}

/* n little-endian bytes of v at p. */
PARZ_HD void parz_gpu_store_le(unsigned char* p, unsigned long long v, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

/* Segment s's entries (its first bit off, its bits len), and the padding after them that falls
 * to it: the last segment's for LENGTHS, each partition's first segment's for HYBRID. */
PARZ_HD void parz_gpu_table_entry(const parz_gpu_table& t, unsigned long long s,
                                  unsigned long long off, unsigned long long len) {
  const unsigned w = t.width;
  if (t.kind == PARZ_TABLE_OFFSETS) {
    parz_gpu_store_le(t.at + 8 * s, off, 8);
  } else if (t.kind == PARZ_TABLE_LENGTHS) {
    parz_gpu_store_le(t.at + w * s, len, w);
    if (s + 1 == t.nsegments)
      for (unsigned long long j = w * t.nsegments; j < t.table_bytes; j++)
        t.at[j] = 0;
  } else if (t.kind == PARZ_TABLE_HYBRID) {
    const unsigned long long p = s / t.P, k = s - p * t.P;
    unsigned char* rec = t.at + p * t.record_bytes;
    if (k == 0) {
      const unsigned long long m = t.nsegments - s < t.P ? t.nsegments - s : t.P;
      parz_gpu_store_le(rec, off, 8);
      for (unsigned long long j = 8 + w * m; j < 8 + ((w * m + 7) & ~7ull); j++)
        rec[j] = 0;
    }
    parz_gpu_store_le(rec + 8 + w * k, len, w);
  }
}

#endif
