/* The GPU chunk encoder's frame: a chunk's part in the kernels (parz_gpu_enc_chunk) and the
 * per-thread steps, one function per kernel, of all but the blocks' encoding (zfp's,
 * zfp/encode_block.cuh, reached through the GPU's codec table: gpu_codecs.h): the blocks' bits
 * placed in the payload, the table, the exception records, the mask section, the payload
 * checksums and the header with its CRC-32C (encode_head.cu runs them; encode.cu says in which
 * order). They use no CUDA intrinsic but the atomic OR of parz_gpu_place_block, which is a plain
 * OR on the host, so that tests/test_gpu_encode_host.cpp runs them on the CPU as well and checks
 * the chunks they build against parz_chunk_encode where no GPU is.
 *
 * A chunk is built as the CPU encoder builds it (codec/parz_chunk.h, "Encoding in three
 * steps"), with blocks as the units:
 *   1. every block is encoded on its own into a buffer of its thread (zfp/encode_block.cuh); a
 *      running sum of the lengths gives each block's bit offset, where its bits are ORed into a
 *      zeroed payload scratch (parz_gpu_place_block);
 *   2. the host settles the chunk's layout from the payload's size as the serial encoder does
 *      (parz_chunk_settle: auto C, format version, section offsets) and writes the fixed parts
 *      of its head (parz_gpu_enc_settle);
 *   3. the payload is copied after the head, and the head is written: table
 *      (parz_gpu_table_segment), exception records (parz_gpu_exc_*), the section directory and
 *      the payload checksums (parz_gpu_sections, parz_gpu_payload_share), then the header with
 *      the CRC-32C of all in front of the payload (head_crc.h: parz_gpu_enc_head_crc, parz_gpu_seal). */
#ifndef PARZ_GPU_ENCODE_CHUNK_CUH
#define PARZ_GPU_ENCODE_CHUNK_CUH

#include <string.h>

#include "checksum.cuh"
#include "checksum.h"
#include "codecs.h"
#include "crc32c.h"
#include "encode_mask.cuh"
#include "head_crc.h"
#include "head_table.h"
#include "payload_checksum.h"
#include "standin.h"
#include "zfp_rules.h" /* parz_exception_rule_of, parz_risk_rule_of: the GPU encoder writes zfp */
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
  parz_exception_rule risk;    /* which put their block at risk of missing the accuracy bound */
  parz_exception_rule special; /* a superset of both, for the gather's one test per value */
  void* tiles;                 /* the block kernel's look-back state (encode_kernels.cuh) */
  unsigned long long* scratch; /* the payload as the block kernel ORs it: zero before */
  unsigned long long* offsets; /* bit offset of every block, and the end: nblocks + 1 */
  unsigned long long* nexc;    /* exceptions in the array (the encode kernel adds) */
  unsigned* needs2;            /* nonzero once an exception is not NaN or Inf: format
                                      * version 2 (the encode kernel sets it) */
  unsigned* risky;             /* nonzero once a block holds a known value at risk (the
                                      * encode kernel sets it): the chunk is refused */
  parz_gpu_mask mask;          /* masked values (encode_mask.cuh) */

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
#define PARZ_GPU_HEAD_SUMS (PARZ_HEADER_BYTES + 2 * PARZ_SECTION_ENTRY_BYTES)
#define PARZ_GPU_HEAD_MASK (PARZ_GPU_HEAD_SUMS + PARZ_CHECKSUM_HEAD_BYTES)
#define PARZ_GPU_HEAD (PARZ_GPU_HEAD_MASK + PARZ_MASK_HEAD_BYTES + 8u)

/* Values per thread in the exception kernels; threads sharing a partition's payload checksum. */
#define PARZ_GPU_EXC_RANGE 1024u
#define PARZ_GPU_SUM_THREADS 256u

/* ORs a block's bits into the payload at bit `at`: `bits` of them, of which the first nw words
 * are in w and the rest are zero (padding). Words that lie wholly inside the block are stored;
 * the two it may share with its neighbours are ORed in, on the GPU atomically: the payload must
 * be zero there before, which is also why the padding needs no stores. */
PARZ_HD void parz_gpu_place_block(unsigned long long* payload, unsigned long long at,
                                  unsigned long long bits, const unsigned long long* w,
                                  unsigned long long nw) {
  const unsigned long long end = at + bits, q = at >> 6;
  const unsigned r = (unsigned)(at & 63u);
  if ((bits + 63) >> 6 < nw)
    nw = (bits + 63) >> 6;
  for (unsigned long long k = q; 64 * k < end && k - q <= nw; k++) {
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

/* Segment s's entries in the table (head_table.h) from its blocks' offsets. */
PARZ_HD void parz_gpu_table_segment(const parz_gpu_enc_chunk& c, unsigned long long s) {
  const unsigned long long b0 = s * c.C, b1 = b0 + c.C < c.nblocks ? b0 + c.C : c.nblocks;
  const parz_gpu_table t = {c.chunk + c.table_at, c.table,        c.width,      c.P,
                            c.nsegments,          c.record_bytes, c.table_bytes};
  parz_gpu_table_entry(t, s, c.offsets[b0], c.offsets[b1] - c.offsets[b0]);
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

/* Whether v gets an exception record: an exception the chunk's mask (if it has one) does not
 * take. */
template <typename U>
PARZ_HD bool parz_gpu_is_exception(const parz_gpu_enc_chunk& c, U v) {
  return parz_exception_test(&c.rule, (uint64_t)v) &&
         !(c.mask.at && parz_gpu_mask_code(c.mask, c.type, (uint64_t)v) >= 0);
}

/* Exceptions at positions [r R, (r + 1) R), R = PARZ_GPU_EXC_RANGE. */
template <typename U>
PARZ_HD unsigned long long parz_gpu_exc_count(const parz_gpu_enc_chunk& c, unsigned long long r) {
  unsigned long long n = 0, pos = r * PARZ_GPU_EXC_RANGE;
  const unsigned long long end =
      pos + PARZ_GPU_EXC_RANGE < c.count ? pos + PARZ_GPU_EXC_RANGE : c.count;
  for (; pos < end; pos++)
    n += parz_gpu_is_exception<U>(c, parz_gpu_value_at<U>(c, pos));
  return n;
}

/* The records of the exceptions at positions [r R, (r + 1) R), from record c.exc_first[r] on
 * (codec/frame/exceptions.h: u64 position, u64 bit pattern). */
template <typename U>
PARZ_HD void parz_gpu_exc_write(const parz_gpu_enc_chunk& c, unsigned long long r) {
  unsigned char* rec = c.chunk + c.exc_at + 16 * c.exc_first[r];
  unsigned long long pos = r * PARZ_GPU_EXC_RANGE;
  const unsigned long long end =
      pos + PARZ_GPU_EXC_RANGE < c.count ? pos + PARZ_GPU_EXC_RANGE : c.count;
  for (; pos < end; pos++) {
    const U v = parz_gpu_value_at<U>(c, pos);
    if (parz_gpu_is_exception<U>(c, v)) {
      parz_gpu_store_le(rec, pos, 8);
      parz_gpu_store_le(rec + 8, (unsigned long long)v, 8);
      rec += 16;
    }
  }
}

/* The section directory, the checksum section's own header and the mask section's, from the
 * host's image (nothing for chunks without sections). */
PARZ_HD void parz_gpu_sections(const parz_gpu_enc_chunk& c) {
  for (unsigned i = PARZ_HEADER_BYTES; i < c.table_at; i += 8)
    parz_word_store(c.chunk + i, parz_word_load(c.header + i));
  if (c.nchecksums)
    parz_word_store(c.chunk + c.sums_at - PARZ_CHECKSUM_HEAD_BYTES,
                    parz_word_load(c.header + PARZ_GPU_HEAD_SUMS));
  if (c.mask.at)
    for (unsigned i = 0; i < PARZ_MASK_HEAD_BYTES; i += 8)
      parz_word_store(c.chunk + c.mask.at + i, parz_word_load(c.header + PARZ_GPU_HEAD_MASK + i));
}

/* The mask section's values: slot i's NaN pattern at its value index, and from slot 0 the fill
 * value when the array holds it. */
PARZ_HD void parz_gpu_mask_value(const parz_gpu_enc_chunk& c, unsigned i) {
  const parz_gpu_mask_set* s = c.mask.set;
  unsigned char* values = c.chunk + c.mask.at + PARZ_MASK_HEAD_BYTES;
  if (i == 0 && s->fill_seen)
    parz_word_store(values, c.mask.fill_bits);
  if (s->key[i] && s->code[i] >= 0)
    parz_word_store(values + 8 * (unsigned)s->code[i], s->key[i]);
}

/* Where group starts and records lie in the mask section. */
PARZ_HD unsigned char* parz_gpu_mask_starts(const parz_gpu_enc_chunk& c) {
  return c.chunk + c.mask.at + PARZ_MASK_HEAD_BYTES + 8 * c.mask.nvalues;
}

/* Block b's bitmap and, with several values, the value index of each masked value, at p. */
template <typename U>
PARZ_HD void parz_gpu_mask_bitmap(const parz_gpu_enc_chunk& c, unsigned long long b,
                                  unsigned char* p) {
  const unsigned n = 1u << (2 * c.dims), bb = parz_mask_bitmap_bytes(c.dims);
  long long base = 0;
  unsigned e[4] = {1, 1, 1, 1}, at = bb;
  /* the bitmap is built here and stored at the end: p may alias the values, so bits ORed into
   * it in place would make every value wait for the store before it */
  uint64_t map[4] = {0, 0, 0, 0};
  for (int k = (int)c.dims - 1; k >= 0; k--) {
    const unsigned long long bc = b % c.bgrid[k], left = c.shape[k] - 4 * bc;
    b /= c.bgrid[k];
    e[c.dims - 1 - k] = left < 4 ? (unsigned)left : 4u;
    base += 4 * (long long)bc * c.stride[k];
  }
  for (unsigned i = 0; i < n; i++) {
    long long off = base;
    bool in = true;
    for (unsigned a = 0; a < c.dims; a++) {
      const unsigned x = (i >> (2 * a)) & 3u;
      in = in && x < e[a];
      off += (long long)x * c.stride[c.dims - 1 - a];
    }
    if (!in)
      continue;
    const int code = parz_gpu_mask_code(c.mask, c.type, (uint64_t)((const U*)c.data)[off]);
    if (code < 0)
      continue;
    map[i >> 6] |= 1ull << (i & 63u);
    if (c.mask.nvalues > 1)
      p[at++] = (unsigned char)code;
  }
  for (unsigned j = 0; j < bb; j++)
    p[j] = (unsigned char)(map[j >> 3] >> (8 * (j & 7u)));
}

/* Where group g's records go (the chosen G): at its start, which the scan of the groups' bytes
 * wrote. */
PARZ_HD unsigned char* parz_gpu_mask_group_records(const parz_gpu_enc_chunk& c,
                                                   unsigned long long g) {
  unsigned char* starts = parz_gpu_mask_starts(c);
  return starts + 8 * c.mask.ngroups + parz_word_load(starts + 8 * g);
}

/* The zero bytes after the last group's records, to the section's 8-byte end. */
PARZ_HD void parz_gpu_mask_pad(const parz_gpu_enc_chunk& c) {
  unsigned char* records = parz_gpu_mask_starts(c) + 8 * c.mask.ngroups;
  for (unsigned long long j = c.mask.record_bytes; j % 8; j++)
    records[j] = 0;
}

/* Group g's records, walked by one thread, and after the last group's the padding: the serial
 * form of the records kernel's warp walk (encode_head.cu), which the host tests run. */
template <typename U>
PARZ_HD void parz_gpu_mask_records(const parz_gpu_enc_chunk& c, unsigned long long g) {
  const parz_gpu_mask& m = c.mask;
  parz_gpu_mask_group(
      m.facts, c.nblocks, c.dims, m.nvalues, m.group_blocks, g, parz_gpu_mask_group_records(c, g),
      [&](unsigned long long b, unsigned char* p) { parz_gpu_mask_bitmap<U>(c, b, p); });
  if (g + 1 == m.ngroups)
    parz_gpu_mask_pad(c);
}

/* Group g of candidate k's G: its records' bytes, for the host's choice of G, walked by one
 * thread (the serial form of the lengths kernel's warp walk, which the host tests run). */
PARZ_HD unsigned long long parz_gpu_mask_length(const parz_gpu_enc_chunk& c, unsigned k,
                                                unsigned long long g) {
  const unsigned long long n =
      parz_gpu_mask_group(c.mask.facts, c.nblocks, c.dims, c.mask.set->nvalues,
                          (unsigned long long)PARZ_GPU_MASK_GROUP_MIN << k, g, (unsigned char*)0,
                          [](unsigned long long, unsigned char*) {});
  c.mask.group_bytes[parz_gpu_mask_groups_before(c.nblocks, k) + g] = n;
  return n;
}

/* Lane `lane` of `lanes`' share of the payload checksum of checksummed partition p (its blocks'
 * bits, the last one's up to the payload's end), from the payload in place in the chunk: the
 * partitions as the decoders' checksum launches find them (checksum.cuh, over the per-block
 * offsets, a partition's blocks its "P") and the codec's own arithmetic (payload_checksum.h),
 * whose shares add up to the serial sum. */
PARZ_HD unsigned long long parz_gpu_payload_share(const parz_gpu_enc_chunk& c, unsigned long long p,
                                                  unsigned lane, unsigned lanes) {
  const parz_gpu_sums s = {
      NULL, NULL, c.offsets, 0, c.checksum_blocks, c.nchecksums, 64 * c.payload_words};
  unsigned long long begin, end;
  parz_gpu_partition_bits(s, p, &begin, &end);
  return parz_checksum_lane(c.chunk + c.payload_at, begin, end, lane, lanes);
}

/* The CRC-32C of all behind the header ([PARZ_HEADER_BYTES, payload_at) of the chunk) as the
 * GPU takes it (head_crc.h): every byte there the GPU's, the register after the header carried
 * over them (crc_init) the key. */
PARZ_HD parz_gpu_head_crc parz_gpu_enc_head_crc(const parz_gpu_enc_chunk& c) {
  const parz_gpu_head_crc s = {c.chunk,    PARZ_HEADER_BYTES,     c.payload_at,
                               c.crc_init, 0x80000000u /* x^0 */, c.crc};
  return s;
}

/* The header, its checksum the CRC-32C of all in front of the payload: the register after the
 * header carried over the rest (crc_init) XOR the rest's raw register, inverted. */
PARZ_HD void parz_gpu_seal(const parz_gpu_enc_chunk& c, uint32_t raw) {
  for (unsigned i = 0; i < PARZ_HEADER_BYTES; i += 8)
    parz_word_store(c.chunk + i, parz_word_load(c.header + i));
  parz_gpu_store_le(c.chunk + PARZ_HEADER_BYTES - 4,
                    parz_gpu_head_crc_value(parz_gpu_enc_head_crc(c), raw), 4);
}

/* ---- Host side: a chunk's arguments before and after its blocks are encoded (encode.cu) ---- */

/* What values chunks of `type` under cfg mask, checked as the codec's palette checks the
 * configuration (mask.c). */
static inline int parz_gpu_enc_mask_plan(parz_gpu_mask* m, parz_type type,
                                         const parz_chunk_config* cfg, parz_error* err) {
  memset(m, 0, sizeof *m);
  if (cfg->mask != PARZ_MASK_DEFAULT && cfg->mask != PARZ_MASK_ON && cfg->mask != PARZ_MASK_OFF)
    return parz_fail(err, PARZ_ERR_PARAM, "unknown mask setting %d", (int)cfg->mask);
  if (!parz_chunk_config_masks(cfg, type))
    return PARZ_OK;
  if (cfg->fill && parz_type_size(type) == 4 && cfg->fill_bits >> 32)
    return parz_fail(err, PARZ_ERR_PARAM, "fill value 0x%llx has more bits than a 32-bit %s value",
                     (unsigned long long)cfg->fill_bits, parz_type_name(type));
  m->nan = type == PARZ_FLOAT || type == PARZ_DOUBLE;
  m->fill = cfg->fill != 0;
  m->fill_bits = cfg->fill_bits;
  return PARZ_OK;
}

/* The refusal of a chunk whose NaN patterns overflowed its set (encode_mask.cuh): the CPU
 * encoder takes it. */
static inline int parz_gpu_enc_mask_refuse(parz_error* err) {
  return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                   "GPU encode: a chunk holds NaN of more than %u distinct bit patterns, more "
                   "than the GPU encoder's mask takes: encode it on the CPU",
                   PARZ_GPU_MASK_SLOTS);
}

/* The refusal of a chunk holding a block at risk of missing the accuracy bound (zfp/encode_block.cuh,
 * parz_gpu_risk):
 * the CPU encoder checks such blocks and takes out what would miss it. */
static inline int parz_gpu_enc_risk_refuse(parz_error* err) {
  return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                   "GPU encode: a chunk holds values so large beside the tolerance that zfp cannot "
                   "code their blocks to it (a fill value the dataset does not name, say), which "
                   "the GPU encoder does not check: encode it on the CPU");
}

/* Chunk c's arguments for the block kernel from the array a at data and the configuration, both
 * checked as parz_chunk_encode checks them; scratch pointers are the caller's to set. A zero
 * stride means contiguous along that axis, as the codec's grid reads it. */
static inline int parz_gpu_enc_plan(parz_gpu_enc_chunk* c, const parz_array* a, const void* data,
                                    const parz_chunk_config* cfg, parz_error* err) {
  parz_chunk_view v;
  int rc = parz_chunk_layout(&v, a, cfg, err);
  if (rc == PARZ_OK && v.codec != PARZ_CODEC_ZFP) /* the kernels encode zfp's blocks only */
    rc = parz_fail(err, PARZ_ERR_UNSUPPORTED,
                   "GPU encode: codec %u in the chunk configuration; the GPU encoder writes zfp "
                   "(codec %u) only: encode it on the CPU",
                   v.codec, PARZ_CODEC_ZFP);
  if (rc == PARZ_OK)
    rc = parz_codec_find(v.codec)->check_encode(&v.params, a->type, a->dims, err);
  parz_gpu_mask m;
  if (rc == PARZ_OK)
    rc = parz_gpu_enc_mask_plan(&m, a->type, cfg, err);
  if (rc != PARZ_OK)
    return rc;
  const size_t size = parz_type_size(a->type);
  long long run = 1;
  if (!data)
    return parz_fail(err, PARZ_ERR_ARG, "NULL array");
  if ((uintptr_t)data % size)
    return parz_fail(err, PARZ_ERR_ARG, "array not aligned to its %zu-byte values", size);
  memset(c, 0, sizeof *c);
  c->mask = m; /* its set is the caller's to give, when the configuration masks */
  c->data = data;
  c->type = (int)a->type;
  c->dims = a->dims;
  c->params = v.params;
  c->rule = parz_exception_rule_of(a->type, &v.params);
  c->risk = parz_risk_rule_of(a->type, a->dims, &v.params,
                              parz_params_bounded(&v.params, a->type, a->dims));
  c->special = parz_rule_union(&c->rule, &c->risk);
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

/* Once the mask pass has counted the records' bytes of every candidate G (R) and the palette's
 * values (V): G as the codec chooses it (mask.c: the smallest whose index, 8 bytes a group, is
 * no larger than its records, else the largest) into c's mask; returns the section's bytes. */
static inline size_t parz_gpu_enc_mask_layout(parz_gpu_enc_chunk* c, unsigned nvalues,
                                              const unsigned long long* R) {
  parz_gpu_mask* m = &c->mask;
  unsigned k = 0;
  while (k + 1 < PARZ_GPU_MASK_GROUP_SIZES && 8 * parz_gpu_mask_groups(c->nblocks, k) > R[k])
    k++;
  m->k = k;
  m->group_blocks = (unsigned long long)PARZ_GPU_MASK_GROUP_MIN << k;
  m->ngroups = parz_gpu_mask_groups(c->nblocks, k);
  m->nvalues = nvalues;
  m->record_bytes = R[k];
  return PARZ_MASK_HEAD_BYTES + 8 * (size_t)(nvalues + m->ngroups) + (size_t)((R[k] + 7) / 8 * 8);
}

/* Once the payload's size and the exceptions are known (nexc of them, needs2 nonzero when one
 * is not NaN or Inf) and the mask's (mask_bytes, 0 without one: parz_gpu_enc_mask_layout): the
 * chunk's layout as the serial encoder settles it (parz_chunk_settle), the fixed parts of its
 * head into head[0..PARZ_GPU_HEAD) (header with a zero checksum, directory, the checksum
 * section's own header, the mask section's), and c's fields for the kernels that follow
 * (c->chunk and c->header are the caller's to set). *size gets the chunk's size. */
static inline int parz_gpu_enc_settle(parz_gpu_enc_chunk* c, const parz_array* a,
                                      const parz_chunk_config* cfg, unsigned long long bits,
                                      unsigned long long nexc, unsigned needs2, size_t mask_bytes,
                                      unsigned char* head, size_t* size, parz_error* err) {
  parz_chunk_view fin;
  parz_chunk_offsets o;
  int rc = parz_chunk_settle(&fin, a, cfg, NULL, bits, nexc, mask_bytes,
                             needs2 || mask_bytes ? 2u : 1u, err);
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
  c->mask.at = mask_bytes ? o.mask : 0;
  if (mask_bytes) {
    unsigned char* mh = head + PARZ_GPU_HEAD_MASK;
    parz_gpu_store_le(mh, c->mask.group_blocks, 4);
    parz_gpu_store_le(mh + 4, c->mask.nvalues, 4);
    parz_gpu_store_le(mh + 8, c->mask.record_bytes, 8);
  }
  /* the register after the header (its checksum field aside), carried over the rest of the
   * head: parz_gpu_seal XORs in the rest's raw register */
  c->crc_init = parz_crc32c_shift(~parz_crc32c(0, head, PARZ_HEADER_BYTES - 4),
                                  o.payload - PARZ_HEADER_BYTES);
  return PARZ_OK;
}

#endif
