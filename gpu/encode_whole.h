/* What the GPU encoders of whole chunks (gpu_codecs.h, encode_chunks: the scratch codecs) share
 * of the frame on the host: the chunk's layout once its payload's size is known (chunk_encode.c,
 * settle) and its head written with the frame's functions (header, directory, table, exception
 * records, codec data, payload checksums, the header's CRC-32C), or its fixed parts and the key of
 * the header's CRC-32C where the GPU writes the rest (head_crc.h). Plain C++ with no CUDA, so that
 * the host tests of the encoders' steps build chunks with it too; whole_memory.h holds their
 * device memory, places a call's one chunk and seals heads on the GPU. Internal to gpu/. */
#ifndef PARZ_GPU_ENCODE_WHOLE_H
#define PARZ_GPU_ENCODE_WHOLE_H

#include <string.h>

#include <vector>

#include "checksum.h"
#include "codecs.h"
#include "crc32c.h"
#include "exceptions.h"
#include "head_crc.h"
#include "stored.h"
#include "table.h"
#include "table_endian.h"

/* The layout of chunk a under cfg (parz_chunk_layout) into *v, checked as
 * parz_chunk_encoder_begin checks it: its codec must be `codec`, the one the GPU encoder `name`
 * writes, and take the parameters (check_encode); a without its strides (contiguous) into *flat. */
static inline int parz_gpu_whole_layout(parz_chunk_view* v, parz_array* flat, const parz_array* a,
                                        const parz_chunk_config* cfg, unsigned codec,
                                        const char* name, parz_error* err) {
  int rc = parz_chunk_layout(v, a, cfg, err);
  if (rc == PARZ_OK && v->codec != codec)
    return parz_fail(err, PARZ_ERR_ARG, "GPU %s encode: codec %u", name, v->codec);
  if (rc == PARZ_OK)
    rc = parz_codec_find(v->codec)->check_encode(&v->params, a->type, a->dims, err);
  if (rc != PARZ_OK)
    return rc;
  *flat = *a;
  memset(flat->stride, 0, sizeof flat->stride);
  return PARZ_OK;
}

/* The chunk of array a (contiguous) under cfg, whose layout (parz_chunk_layout, with the codec's
 * parameters as it chose them) is v, once its payload's bits and exceptions are known: its layout
 * as the serial encoder settles it (format version `version`) into *fin, its size into *size and
 * head bytes into *head; *stored set when the configuration stores a chunk that would be larger
 * than its values. */
static inline int parz_gpu_whole_settle(const parz_array* a, const parz_chunk_view* v,
                                        const parz_chunk_config* cfg, unsigned long long bits,
                                        unsigned long long nexc, size_t codec_data_bytes,
                                        unsigned version, parz_chunk_view* fin, size_t* head,
                                        size_t* size, int* stored, parz_error* err) {
  int rc = parz_chunk_settle(fin, a, cfg, v->codec_params, bits, nexc, 0, version, err);
  if (rc != PARZ_OK)
    return rc;
  memcpy(fin->codec_params, v->codec_params, PARZ_CODEC_PARAM_BYTES);
  fin->codec_data_bytes = codec_data_bytes;
  *head = parz_chunk_head_bytes(fin);
  *size = *head + fin->payload_bytes;
  *stored = cfg->stored == PARZ_STORED_WHEN_SMALLER && *size > parz_stored_bytes(a, cfg);
  if (*stored)
    *size = parz_stored_bytes(a, cfg);
  return PARZ_OK;
}

/* The head (head bytes) of fin as the host writes it where the GPU writes its table, exception
 * records and payload checksums: header (the CRC-32C's field 0), directory, the checksum
 * section's own header, codec data (NULL: none), and zeros in the GPU's places. */
static inline void parz_gpu_whole_fixed(const parz_chunk_view* fin, const unsigned char* codec_data,
                                        unsigned char* head, size_t head_bytes) {
  parz_chunk_offsets o;
  memset(head, 0, head_bytes);
  parz_chunk_section_offsets(fin, &o);
  parz_chunk_header_write(fin, head);
  if (fin->codec_data_bytes)
    memcpy(head + o.codec_data, codec_data, (size_t)fin->codec_data_bytes);
}

/* The head (head bytes) of fin but its payload checksums and the header's CRC-32C
 * (parz_gpu_whole_seal): parz_gpu_whole_fixed's, then the table from the segments' bits and the
 * exception records (pos and bits, nexc of them, in order; NULL where there are none). What
 * needs no payload, so that an encoder writes it while the payload is written. */
static inline int parz_gpu_whole_unsealed(const parz_chunk_view* fin,
                                          const unsigned long long* seg_bits,
                                          const unsigned long long* pos, const uint64_t* bits,
                                          const unsigned char* codec_data, unsigned char* head,
                                          size_t head_bytes, parz_error* err) {
  parz_chunk_offsets o;
  std::vector<uint32_t> lens((size_t)fin->nsegments);
  for (size_t k = 0; k < lens.size(); k++)
    lens[k] = seg_bits[k] > UINT32_MAX ? UINT32_MAX : (uint32_t)seg_bits[k];
  parz_gpu_whole_fixed(fin, codec_data, head, head_bytes);
  parz_chunk_section_offsets(fin, &o);
  int rc = parz_table_write(fin, lens.data(), 1, fin->nsegments, head + o.table, err);
  if (rc != PARZ_OK)
    return rc;
  for (uint64_t e = 0; e < fin->nexceptions; e++) {
    parz_store64(head + o.exceptions + e * PARZ_EXCEPTION_BYTES, pos[e]);
    parz_store64(head + o.exceptions + e * PARZ_EXCEPTION_BYTES + 8, bits[e]);
  }
  return PARZ_OK;
}

/* The payload checksums (sums) into fin's head written by parz_gpu_whole_unsealed, then the
 * header's CRC-32C over it all. */
static inline void parz_gpu_whole_seal(const parz_chunk_view* fin, const uint64_t* sums,
                                       unsigned char* head, size_t head_bytes) {
  parz_chunk_offsets o;
  parz_chunk_section_offsets(fin, &o);
  for (uint64_t k = 0; k < fin->nchecksums; k++)
    parz_store64(head + o.checksums + 8 * k, sums[k]);
  parz_chunk_header_seal(head, head_bytes);
}

/* The head (head bytes) of fin: parz_gpu_whole_unsealed's sections, then the payload checksums
 * (sums) and the header's CRC-32C (parz_gpu_whole_seal). */
static inline int parz_gpu_whole_head(const parz_chunk_view* fin,
                                      const unsigned long long* seg_bits,
                                      const unsigned long long* pos, const uint64_t* bits,
                                      const unsigned char* codec_data, const uint64_t* sums,
                                      unsigned char* head, size_t head_bytes, parz_error* err) {
  const int rc =
      parz_gpu_whole_unsealed(fin, seg_bits, pos, bits, codec_data, head, head_bytes, err);
  if (rc == PARZ_OK)
    parz_gpu_whole_seal(fin, sums, head, head_bytes);
  return rc;
}

/* ---------------- the head sealed on the GPU ---------------- */

/* The header's CRC-32C of a head whose bytes [from, to) the GPU writes at chunk (whole words,
 * from 8-aligned), their raw register XORed into *raw (zero before): into *s, the key from the
 * host's copy of the head (head_bytes at head; its bytes outside [from, to) as they will be). */
static inline void parz_gpu_whole_crc_of(const unsigned char* head, size_t head_bytes, size_t from,
                                         size_t to, unsigned char* chunk, uint32_t* raw,
                                         parz_gpu_head_crc* s) {
  /* the CRC's field left out: the header's bytes before it, then from the directory on */
  uint32_t crc = parz_crc32c(0, head, PARZ_HEADER_BYTES - 4);
  crc = parz_crc32c(crc, head + PARZ_HEADER_BYTES, from - PARZ_HEADER_BYTES);
  s->chunk = chunk;
  s->from = from;
  s->to = to;
  s->raw = raw;
  s->key =
      parz_crc32c_shift(~crc, head_bytes - from) ^ ~parz_crc32c(~0u, head + to, head_bytes - to);
  s->shift = parz_crc32c_x8n(head_bytes - to);
}

#endif
