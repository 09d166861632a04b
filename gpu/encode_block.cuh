/* The GPU chunk encoder's per-thread steps, one function per kernel (encode_kernels.cuh,
 * encode_head.cu run them; encode.cu says in which order). They use no CUDA intrinsic but the
 * atomic OR of parz_gpu_place_block, which is a plain OR on the host, so that
 * tests/test_gpu_encode_host.cpp runs them on the CPU as well and checks the chunks they build
 * against parz_chunk_encode where no GPU is.
 *
 * A chunk is built as the CPU encoder builds it (codec/parz_chunk.h, "Encoding in three
 * steps"), with blocks as the units:
 *   1. every block is encoded on its own into a buffer of its thread (parz_gpu_encode_block):
 *      the codec's block encoder (codec/block_encode.h) on the block as the codec's gather pads
 *      it, exceptions (NaN, Inf, and in lossy modes the values out of zfp's range) replaced by
 *      the codec's stand-in (codec/standin.h); a running sum of the lengths gives each block's
 *      bit offset, where its bits are ORed into a zeroed payload scratch
 *      (parz_gpu_place_block);
 *   2. the host settles the chunk's layout from the payload's size as the serial encoder does
 *      (parz_chunk_settle: auto C, format version, section offsets) and writes the fixed parts
 *      of its head (parz_gpu_enc_settle);
 *   3. the payload is copied after the head, and the head is written: table
 *      (parz_gpu_table_segment), exception records (parz_gpu_exc_*), the section directory and
 *      the payload checksums (parz_gpu_sections, parz_gpu_payload_share), then the header with
 *      the CRC-32C of all in front of the payload (parz_gpu_crc_piece, parz_gpu_seal). */
#ifndef PARZ_GPU_ENCODE_BLOCK_CUH
#define PARZ_GPU_ENCODE_BLOCK_CUH

#include <string.h>

#include "block_encode.h"
#include "block_type.cuh"
#include "checksum.h"
#include "crc32c.h"
#include "payload_checksum.h"
#include "standin.h"
#include "table.h"

/* One chunk's part in the encoder's kernels. The first group is set before the blocks are
 * encoded, the second once the chunk's sizes are known (encode.cu). */
struct parz_gpu_enc_chunk {
  const void* data;            /* the array */
  long long stride[4];         /* elements between neighbours along each dimension */
  unsigned long long shape[4]; /* C order */
  unsigned long long bgrid[4]; /* blocks along each dimension */
  unsigned long long nblocks;
  unsigned long long count; /* values */
  parz_params params;
  int type; /* parz_type */
  unsigned dims;
  int vec;                     /* rows of full blocks are aligned 16-byte vectors */
  parz_exception_rule rule;    /* which values are exceptions (the type's, the mode's) */
  void* tiles;                 /* the block kernel's look-back state (encode_kernels.cuh) */
  unsigned long long* scratch; /* the payload as the block kernel ORs it: zero before */
  unsigned long long* offsets; /* bit offset of every block, and the end: nblocks + 1 */
  unsigned long long* nexc;    /* exceptions in the array (the encode kernel adds) */
  unsigned* needs2;            /* nonzero once an exception is not NaN or Inf: format
                                      * version 2 (the encode kernel sets it) */

  unsigned char* chunk;                                     /* where the chunk goes */
  unsigned long long table_at, exc_at, sums_at, payload_at; /* section offsets in the chunk */
  unsigned long long payload_words;
  int table;      /* parz_table_kind, never AUTO */
  unsigned width; /* bytes of a length field */
  unsigned long long C, P, nsegments, record_bytes, table_bytes;
  unsigned long long nexceptions;
  unsigned long long nchecksums;      /* payload checksums (0: none) */
  unsigned long long checksum_blocks; /* blocks of a checksummed partition */
  unsigned long long* exc_first;      /* exception records before each range of positions */
  const unsigned char* header;        /* the head's fixed parts the host wrote (PARZ_GPU_HEAD):
                                      * header (checksum field 0) and directory, then the
                                      * checksum section's own header */
  uint32_t* crc;                      /* the raw register of all behind the header (XOR of
                                      * pieces) */
  uint32_t crc_init;                  /* the register after the header, carried over the rest */
};

/* The host's image of a chunk's fixed head parts: header and section directory, then at
 * PARZ_GPU_HEAD_SUMS the checksum section's own header; 16-byte aligned in a batch. */
#define PARZ_GPU_HEAD_SUMS (PARZ_HEADER_BYTES + PARZ_SECTION_ENTRY_BYTES)
#define PARZ_GPU_HEAD 144u

/* Values per thread in the exception kernels, bytes per thread in the checksum kernel. */
#define PARZ_GPU_EXC_RANGE 1024u
#define PARZ_GPU_CRC_PIECE 32u

/* Words of the longest block any parameters give (PARZ_MAX_BITS bits). */
#define PARZ_GPU_BLOCK_WORDS (PARZ_MAX_BITS / 64 + 1)

#if defined(__CUDACC__)
#define PARZ_GPU_NOINLINE static __host__ __device__ __noinline__
#else
#define PARZ_GPU_NOINLINE static
#endif

/* Valid extent of a block along each zfp axis (x = 0): 1 to 4. */
struct parz_gpu_extent {
  unsigned m[4];
};

/* Whether buffer index idx of a block (zfp order, x fastest) lies inside the array. */
PARZ_HD bool parz_gpu_valid(unsigned idx, const parz_gpu_extent& e, unsigned dims) {
  bool in = true;
  for (unsigned a = 0; a < dims; a++)
    in = in && ((idx >> (2 * a)) & 3u) < e.m[a];
  return in;
}

/* Replaces the exceptions among a block's valid values by its stand-in. Out of line, on a copy of
 * the block: blocks rarely come here, and the block itself stays in registers. Returns how many
 * of them are not NaN or Inf (they need format version 2). */
template <parz_type T, typename U, unsigned D>
PARZ_GPU_NOINLINE unsigned parz_gpu_clean(U* q, const parz_gpu_extent e,
                                          const parz_exception_rule r) {
  const unsigned size = 1u << (2 * D);
  uint64_t v[1u << (2 * D)];
  unsigned n = 0, i, v2 = 0;
  for (i = 0; i < size; i++) /* buffer order is C order */
    if (parz_gpu_valid(i, e, D))
      v[n++] = (uint64_t)q[i];
  const U s = (U)parz_standin(v, n, T, &r);
  for (i = 0; i < size; i++)
    if (parz_gpu_valid(i, e, D) && parz_exception_test(&r, (uint64_t)q[i])) {
      v2 += !parz_nonfinite((uint64_t)q[i], T);
      q[i] = s;
    }
  return v2;
}

/* Block b's values into q as the codec encodes them: gathered (zfp order), exceptions replaced,
 * partial blocks padded. Returns the number of exceptions replaced, and in *v2 how many of them
 * need format version 2. I is the type of the block index arithmetic (32 bits where it fits:
 * 64-bit division is slow). */
template <parz_type T, unsigned D, typename I>
PARZ_HD unsigned parz_gpu_gather(const parz_gpu_enc_chunk& c, I b, typename raw_of<T>::type* q,
                                 unsigned* v2) {
  typedef typename raw_of<T>::type U;
  const U* data = (const U*)c.data;
  const parz_exception_rule rule = c.rule;
  const bool any = rule.mask != 0; /* integers in reversible mode have no exceptions */
  parz_gpu_extent e = {{1, 1, 1, 1}};
  unsigned* mz = e.m;
  long long base = 0;
  bool full = true;
  unsigned bad = 0;
  for (int k = (int)D - 1; k >= 0; k--) {
    const I bc = b % (I)c.bgrid[k];
    b /= (I)c.bgrid[k];
    const unsigned long long left = c.shape[k] - 4 * (unsigned long long)bc;
    mz[D - 1 - k] = left < 4 ? (unsigned)left : 4u;
    full = full && left >= 4;
    base += 4 * (long long)bc * c.stride[k];
  }
  const unsigned rows = 1u << (2 * (D - 1));
  for (unsigned r = 0; r < rows; r++) {
    long long off = base;
    bool in = true;
    for (int k = (int)D - 2; k >= 0; k--) {
      const unsigned ck = (r >> (2 * (D - 2 - k))) & 3u;
      in = in && ck < mz[D - 1 - k];
      off += (long long)ck * c.stride[k];
    }
    U* o = q + 4 * r;
#if defined(__CUDA_ARCH__)
    if (full && c.vec) {
      if (sizeof(U) == 4) {
        const uint4 v = __ldg((const uint4*)(data + off));
        o[0] = (U)v.x, o[1] = (U)v.y, o[2] = (U)v.z, o[3] = (U)v.w;
      } else {
        const ulonglong2 v0 = __ldg((const ulonglong2*)(data + off));
        const ulonglong2 v1 = __ldg((const ulonglong2*)(data + off) + 1);
        o[0] = (U)v0.x, o[1] = (U)v0.y, o[2] = (U)v1.x, o[3] = (U)v1.y;
      }
      if (any)
        for (unsigned x = 0; x < 4; x++)
          bad += parz_exception_test(&rule, (uint64_t)o[x]);
      continue;
    }
#endif
    if (!in)
      continue;
    for (unsigned x = 0; x < 4; x++)
      if (x < mz[0]) {
        o[x] = data[off + (long long)x * c.stride[D - 1]];
        if (any)
          bad += parz_exception_test(&rule, (uint64_t)o[x]);
      }
  }
  *v2 = 0;
  if (bad) {
    U t[1u << (2 * D)];
    for (unsigned i = 0; i < (1u << (2 * D)); i++)
      t[i] = q[i];
    *v2 = parz_gpu_clean<T, U, D>(t, e, rule);
    for (unsigned i = 0; i < (1u << (2 * D)); i++)
      q[i] = t[i];
  }
  if (!full) {
    if (sizeof(U) == 4)
      parz_pad_block32((uint32_t*)q, mz, D);
    else
      parz_pad_block64((uint64_t*)q, mz, D);
  }
  return bad;
}

/* Encodes block b of chunk c into w; returns its bits, in *bad the exceptions it replaced and
 * in *v2 how many of them need format version 2. */
template <parz_type T, unsigned D>
PARZ_HD unsigned parz_gpu_encode_block(const parz_gpu_enc_chunk& c, unsigned long long b,
                                       parz_writer* w, unsigned* bad, unsigned* v2) {
  typedef typename raw_of<T>::type U;
  U q[1u << (2 * D)], u[1u << (2 * D)];
  const parz_params p = c.params;
  *bad = c.nblocks <= 0xffffffffu ? parz_gpu_gather<T, D, unsigned>(c, (unsigned)b, q, v2)
                                  : parz_gpu_gather<T, D, unsigned long long>(c, b, q, v2);
  if (T == PARZ_FLOAT)
    return parz_encode_fblock32(w, &p, D, (uint32_t*)q, (uint32_t*)u);
  if (T == PARZ_DOUBLE)
    return parz_encode_fblock64(w, &p, D, (uint64_t*)q, (uint64_t*)u);
  if (T == PARZ_INT32)
    return parz_encode_sblock32(w, &p, D, (uint32_t*)q, (uint32_t*)u);
  return parz_encode_sblock64(w, &p, D, (uint64_t*)q, (uint64_t*)u);
}

/* ORs a block's bits (the words w, `bits` of them) into the payload at bit `at`. Words that lie
 * wholly inside the block are stored; the two it may share with its neighbours are ORed in, on
 * the GPU atomically: the payload must be zero there before. */
PARZ_HD void parz_gpu_place_block(unsigned long long* payload, unsigned long long at,
                                  unsigned long long bits, const unsigned long long* w) {
  const unsigned long long end = at + bits, q = at >> 6, nw = (bits + 63) >> 6;
  const unsigned r = (unsigned)(at & 63u);
  for (unsigned long long k = q; 64 * k < end; k++) {
    const unsigned long long j = k - q;
    unsigned long long v = j < nw ? w[j] << r : 0;
    if (r && j > 0)
      v |= w[j - 1] >> (64 - r);
    if (64 * k >= at && 64 * k + 64 <= end)
      payload[k] = v;
    else
#if defined(__CUDA_ARCH__)
      atomicOr(payload + k, v);
#else
      payload[k] |= v;
#endif
  }
}

/* n little-endian bytes of v at p. */
PARZ_HD void parz_gpu_store_le(unsigned char* p, unsigned long long v, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

/* Segment s's entries in the table (codec/FORMAT.md, "Table"), and the padding after them that
 * falls to it: the last segment's for LENGTHS, each partition's first segment's for HYBRID. */
PARZ_HD void parz_gpu_table_segment(const parz_gpu_enc_chunk& c, unsigned long long s) {
  const unsigned long long b0 = s * c.C, b1 = b0 + c.C < c.nblocks ? b0 + c.C : c.nblocks;
  const unsigned long long off = c.offsets[b0], len = c.offsets[b1] - c.offsets[b0];
  unsigned char* t = c.chunk + c.table_at;
  const unsigned w = c.width;
  if (c.table == PARZ_TABLE_OFFSETS) {
    parz_gpu_store_le(t + 8 * s, off, 8);
  } else if (c.table == PARZ_TABLE_LENGTHS) {
    parz_gpu_store_le(t + w * s, len, w);
    if (s + 1 == c.nsegments)
      for (unsigned long long j = w * c.nsegments; j < c.table_bytes; j++)
        t[j] = 0;
  } else if (c.table == PARZ_TABLE_HYBRID) {
    const unsigned long long p = s / c.P, k = s - p * c.P;
    unsigned char* rec = t + p * c.record_bytes;
    if (k == 0) {
      const unsigned long long m = c.nsegments - s < c.P ? c.nsegments - s : c.P;
      parz_gpu_store_le(rec, off, 8);
      for (unsigned long long j = 8 + w * m; j < 8 + ((w * m + 7) & ~7ull); j++)
        rec[j] = 0;
    }
    parz_gpu_store_le(rec + 8 + w * k, len, w);
  }
}

/* Bit pattern of the value at C-order position pos (its index in the chunk's array). */
template <typename U>
PARZ_HD U parz_gpu_value_at(const parz_gpu_enc_chunk& c, unsigned long long pos) {
  long long off = 0;
  for (int k = (int)c.dims - 1; k >= 0; k--) {
    off += (long long)(pos % c.shape[k]) * c.stride[k];
    pos /= c.shape[k];
  }
  return ((const U*)c.data)[off];
}

/* Exceptions at positions [r R, (r + 1) R), R = PARZ_GPU_EXC_RANGE. */
template <typename U>
PARZ_HD unsigned long long parz_gpu_exc_count(const parz_gpu_enc_chunk& c, unsigned long long r) {
  unsigned long long n = 0, pos = r * PARZ_GPU_EXC_RANGE;
  const unsigned long long end =
      pos + PARZ_GPU_EXC_RANGE < c.count ? pos + PARZ_GPU_EXC_RANGE : c.count;
  for (; pos < end; pos++)
    n += parz_exception_test(&c.rule, (uint64_t)parz_gpu_value_at<U>(c, pos));
  return n;
}

/* The records of the exceptions at positions [r R, (r + 1) R), from record c.exc_first[r] on
 * (codec/exceptions.h: u64 position, u64 bit pattern). */
template <typename U>
PARZ_HD void parz_gpu_exc_write(const parz_gpu_enc_chunk& c, unsigned long long r) {
  unsigned char* rec = c.chunk + c.exc_at + 16 * c.exc_first[r];
  unsigned long long pos = r * PARZ_GPU_EXC_RANGE;
  const unsigned long long end =
      pos + PARZ_GPU_EXC_RANGE < c.count ? pos + PARZ_GPU_EXC_RANGE : c.count;
  for (; pos < end; pos++) {
    const U v = parz_gpu_value_at<U>(c, pos);
    if (parz_exception_test(&c.rule, (uint64_t)v)) {
      parz_gpu_store_le(rec, pos, 8);
      parz_gpu_store_le(rec + 8, (unsigned long long)v, 8);
      rec += 16;
    }
  }
}

/* The section directory and the checksum section's own header, from the host's image (chunks
 * with payload checksums: those are their only sections; nothing for the others). */
PARZ_HD void parz_gpu_sections(const parz_gpu_enc_chunk& c) {
  if (!c.nchecksums)
    return;
  for (unsigned i = PARZ_HEADER_BYTES; i < c.table_at; i += 8)
    parz_word_store(c.chunk + i, parz_word_load(c.header + i));
  parz_word_store(c.chunk + c.sums_at - PARZ_CHECKSUM_HEAD_BYTES,
                  parz_word_load(c.header + PARZ_GPU_HEAD_SUMS));
}

/* Lane `lane` of `lanes`' share of the payload checksum of checksummed partition p (its blocks'
 * bits, the last one's up to the payload's end), from the payload in place in the chunk: the
 * codec's own arithmetic (payload_checksum.h), whose shares add up to the serial sum. */
PARZ_HD unsigned long long parz_gpu_payload_share(const parz_gpu_enc_chunk& c, unsigned long long p,
                                                  unsigned lane, unsigned lanes) {
  const unsigned long long b0 = p * c.checksum_blocks, b1 = b0 + c.checksum_blocks;
  const unsigned long long begin = c.offsets[b0 < c.nblocks ? b0 : c.nblocks];
  const unsigned long long end = p + 1 == c.nchecksums ? 64 * c.payload_words : c.offsets[b1];
  return parz_checksum_lane(c.chunk + c.payload_at, begin, end, lane, lanes);
}

/* The CRC-32C of all behind the header ([PARZ_HEADER_BYTES, payload_at) of the chunk, len bytes),
 * in pieces of PARZ_GPU_CRC_PIECE bytes, PARZ_GPU_CRC_THREADS pieces a span (a CTA's work).
 * The bytes are counted as if zeros filled the front up to whole spans: leading zeros leave a
 * register from 0 at 0, so the raw register (crc32c.h) is the same, and then every piece and
 * span has one length. A CTA joins its pieces pairwise in a tree, each level by one constant
 * multiplication (parz_gpu_crc_join), and shifts its span's register over the spans after it. */
#define PARZ_GPU_CRC_THREADS 256u
#define PARZ_GPU_CRC_SPAN (PARZ_GPU_CRC_PIECE * PARZ_GPU_CRC_THREADS)

PARZ_HD unsigned long long parz_gpu_crc_spans(const parz_gpu_enc_chunk& c) {
  return (c.payload_at - PARZ_HEADER_BYTES + PARZ_GPU_CRC_SPAN - 1) / PARZ_GPU_CRC_SPAN;
}

/* The raw register of piece p (table: parz_crc32c_table, on the GPU a copy in shared memory). */
PARZ_HD uint32_t parz_gpu_crc_piece(const parz_gpu_enc_chunk& c, unsigned long long p,
                                    const uint32_t* table) {
  const unsigned long long len = c.payload_at - PARZ_HEADER_BYTES;
  const unsigned long long pad = parz_gpu_crc_spans(c) * PARZ_GPU_CRC_SPAN - len;
  const unsigned long long to = (p + 1) * PARZ_GPU_CRC_PIECE;
  const unsigned char* t = c.chunk + PARZ_HEADER_BYTES;
  uint32_t reg = 0;
  if (to <= pad)
    return 0;
  for (unsigned long long i = p * PARZ_GPU_CRC_PIECE < pad ? pad : p * PARZ_GPU_CRC_PIECE; i < to;
       i += 8) { /* sections are whole words, so pad is one too */
    const uint64_t w = parz_word_load(t + i - pad);
    for (unsigned k = 0; k < 8; k++)
      reg = table[(reg ^ (unsigned)(w >> (8 * k))) & 0xffu] ^ (reg >> 8);
  }
  return reg;
}

/* The register of 2^level pieces (left) followed by as many (right). */
PARZ_HD uint32_t parz_gpu_crc_join(uint32_t left, uint32_t right, unsigned level) {
  /* x^(8 * PARZ_GPU_CRC_PIECE * 2^level): one entry of the shift table (PIECE = 2^5) */
  return parz_crc32c_mulmod(left, PARZ_TABLE(parz_crc32c_x8)[5 + level]) ^ right;
}

/* A span's register, shifted over the spans after it: its share of the raw register. */
PARZ_HD uint32_t parz_gpu_crc_span(const parz_gpu_enc_chunk& c, unsigned long long span,
                                   uint32_t reg) {
  return parz_crc32c_shift(reg, (parz_gpu_crc_spans(c) - 1 - span) * PARZ_GPU_CRC_SPAN);
}

/* The header, its checksum the CRC-32C of all in front of the payload: the register after the
 * header carried over the rest (crc_init) XOR the rest's raw register, inverted. */
PARZ_HD void parz_gpu_seal(const parz_gpu_enc_chunk& c, uint32_t raw) {
  for (unsigned i = 0; i < PARZ_HEADER_BYTES; i += 8)
    parz_word_store(c.chunk + i, parz_word_load(c.header + i));
  parz_gpu_store_le(c.chunk + PARZ_HEADER_BYTES - 4, ~(c.crc_init ^ raw) & 0xffffffffu, 4);
}

/* ---- Host side: a chunk's arguments before and after its blocks are encoded (encode.cu) ---- */

/* PARZ_ERR_UNSUPPORTED with a message when chunks of `type` under cfg may need a mask section
 * (parz_chunk_config_masks), which this encoder does not write: it could not then write the
 * bytes the CPU encoder writes. Callers that can encode on the CPU instead ask first. */
static inline int parz_gpu_enc_mask_check(parz_type type, const parz_chunk_config* cfg,
                                          const char* who, parz_error* err) {
  if (!parz_chunk_config_masks(cfg, type))
    return PARZ_OK;
  return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                   "%s: the GPU encoder writes no mask section, and %s chunks under this "
                   "configuration may need one (%s masked): turn the mask off (mask=False, "
                   "cd_values mask setting 2) to encode them on the GPU, or encode on the CPU",
                   who, parz_type_name(type),
                   cfg->fill ? (type == PARZ_FLOAT || type == PARZ_DOUBLE ? "NaN and the fill value"
                                                                          : "the fill value")
                             : "NaN");
}

/* Chunk c's arguments for the block kernel from the array a at data and the configuration, both
 * checked as parz_chunk_encode checks them; scratch pointers are the caller's to set. A zero
 * stride means contiguous along that axis, as the codec's grid reads it. */
static inline int parz_gpu_enc_plan(parz_gpu_enc_chunk* c, const parz_array* a, const void* data,
                                    const parz_chunk_config* cfg, parz_error* err) {
  parz_chunk_view v;
  int rc = parz_chunk_layout(&v, a, cfg, err);
  if (rc == PARZ_OK)
    rc = parz_params_check_encode(&v.params, a->type, a->dims, err);
  if (rc == PARZ_OK)
    rc = parz_gpu_enc_mask_check(a->type, cfg, "GPU encode", err);
  if (rc != PARZ_OK)
    return rc;
  const size_t size = parz_type_size(a->type);
  long long run = 1;
  if (!data)
    return parz_fail(err, PARZ_ERR_ARG, "NULL array");
  if ((uintptr_t)data % size)
    return parz_fail(err, PARZ_ERR_ARG, "array not aligned to its %zu-byte values", size);
  memset(c, 0, sizeof *c);
  c->data = data;
  c->type = (int)a->type;
  c->dims = a->dims;
  c->params = v.params;
  c->rule = parz_exception_rule_of(a->type, &v.params);
  c->nblocks = v.nblocks;
  c->count = v.raw_bytes / size;
  for (int k = (int)a->dims - 1; k >= 0; k--) {
    c->stride[k] = a->stride[k] ? (long long)a->stride[k] : run;
    run *= (long long)a->shape[k];
    c->shape[k] = a->shape[k];
    c->bgrid[k] = (a->shape[k] + 3) / 4;
  }
  c->vec = (uintptr_t)data % 16 == 0 && c->stride[a->dims - 1] == 1;
  for (unsigned k = 0; k + 1 < a->dims; k++)
    if ((c->stride[k] * (long long)size) % 16)
      c->vec = 0;
  return PARZ_OK;
}

/* Once the payload's size and the exceptions are known (nexc of them, needs2 nonzero when one
 * is not NaN or Inf): the chunk's layout as the serial encoder settles it (parz_chunk_settle),
 * the fixed parts of its head into head[0..PARZ_GPU_HEAD) (header with a zero checksum,
 * directory, the checksum section's own header), and c's fields for the kernels that follow
 * (c->chunk and c->header are the caller's to set). *size gets the chunk's size. */
static inline int parz_gpu_enc_settle(parz_gpu_enc_chunk* c, const parz_array* a,
                                      const parz_chunk_config* cfg, unsigned long long bits,
                                      unsigned long long nexc, unsigned needs2, unsigned char* head,
                                      size_t* size, parz_error* err) {
  parz_chunk_view fin;
  parz_chunk_offsets o;
  int rc = parz_chunk_settle(&fin, a, cfg, bits, nexc, 0, needs2 ? 2u : 1u, err);
  if (rc != PARZ_OK)
    return rc;
  parz_chunk_section_offsets(&fin, &o);
  *size = o.payload + fin.payload_bytes;
  c->table_at = o.table;
  c->exc_at = o.exceptions;
  c->sums_at = o.checksums;
  c->payload_at = o.payload;
  c->payload_words = fin.payload_bytes / 8;
  c->table = (int)fin.table;
  c->width = fin.length_bytes;
  c->C = fin.segment_blocks;
  c->P = fin.partition_segments;
  c->nsegments = fin.nsegments;
  c->record_bytes = 8 + ((unsigned long long)fin.length_bytes * fin.partition_segments + 7) / 8 * 8;
  c->table_bytes = fin.table_bytes;
  c->nexceptions = fin.nexceptions;
  c->nchecksums = fin.nchecksums;
  c->checksum_blocks = (unsigned long long)fin.checksum_segments * fin.segment_blocks;
  memset(head, 0, PARZ_GPU_HEAD);
  parz_chunk_head_fixed(&fin, head, head + PARZ_GPU_HEAD_SUMS);
  /* the register after the header (its checksum field aside), carried over the rest of the
   * head: parz_gpu_seal XORs in the rest's raw register */
  c->crc_init = parz_crc32c_shift(~parz_crc32c(0, head, PARZ_HEADER_BYTES - 4),
                                  o.payload - PARZ_HEADER_BYTES);
  return PARZ_OK;
}

#endif
