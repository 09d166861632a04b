/* What the GPU encoders of whole chunks (gpu_codecs.h, encode_chunks: the scratch codecs) share
 * of the frame on the host: the chunk's layout once its payload's size is known (chunk_encode.c,
 * settle) and its head written with the frame's functions (header, directory, table, exception
 * records, codec data, payload checksums, the header's CRC-32C), or the header's CRC-32C taken in
 * two parts where the GPU writes the sums into the chunk's place (parz_gpu_seal). Plain C++ with
 * no CUDA (the seal's steps compiled for the GPU too), so that the host tests of the encoders'
 * steps build chunks with it too; whole_memory.h holds their device memory and places a call's
 * one chunk. Internal to gpu/. */
#ifndef PARZ_GPU_ENCODE_WHOLE_H
#define PARZ_GPU_ENCODE_WHOLE_H

#include <string.h>

#include <vector>

#include "checksum.h"
#include "codecs.h"
#include "crc32c.h"
#include "exceptions.h"
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

/* The head (head bytes) of fin but its payload checksums and the header's CRC-32C
 * (parz_gpu_whole_seal): header, directory, table from the segments' bits, exception records (pos
 * and bits, nexc of them, in order; NULL where there are none), codec data (NULL: none). What
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
  memset(head, 0, head_bytes);
  parz_chunk_section_offsets(fin, &o);
  parz_chunk_header_write(fin, head);
  int rc = parz_table_write(fin, lens.data(), 1, fin->nsegments, head + o.table, err);
  if (rc != PARZ_OK)
    return rc;
  for (uint64_t e = 0; e < fin->nexceptions; e++) {
    parz_store64(head + o.exceptions + e * PARZ_EXCEPTION_BYTES, pos[e]);
    parz_store64(head + o.exceptions + e * PARZ_EXCEPTION_BYTES + 8, bits[e]);
  }
  if (fin->codec_data_bytes)
    memcpy(head + o.codec_data, codec_data, (size_t)fin->codec_data_bytes);
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

/* The header's CRC-32C (parz_chunk_header_seal's) of a head in the chunk's place whose payload
 * sums the GPU writes there, in two parts (crc32c.h: the raw registers of a message's pieces,
 * each shifted by the bytes after it, XOR to the whole's): the host's from the head's other
 * bytes, before the sums are known; the GPU's from the sums, `words` of them from byte `at` of
 * the head, `after` head bytes after them. */
#define PARZ_GPU_SEAL_LANES 32u
struct parz_gpu_seal {
  uint32_t key; /* the register of the bytes before the sums shifted past the rest, XOR the raw
                 * register of the bytes after them */
  unsigned long long at, words, after;
  /* lane l's multiplier: x^(8n) mod P for the n head bytes after its run of sums */
  uint32_t shift[PARZ_GPU_SEAL_LANES];
};

/* The sums [*k0, *k1) of lane `lane` of PARZ_GPU_SEAL_LANES: a run of neighbours each. */
PARZ_HD void parz_gpu_seal_run(const parz_gpu_seal& s, unsigned lane, unsigned long long* k0,
                               unsigned long long* k1) {
  const unsigned long long per = (s.words + PARZ_GPU_SEAL_LANES - 1) / PARZ_GPU_SEAL_LANES;
  *k0 = lane * per < s.words ? lane * per : s.words;
  *k1 = *k0 + per < s.words ? *k0 + per : s.words;
}

/* The host's part of fin's head (head_bytes at head, its sums' bytes not read). */
static inline void parz_gpu_seal_of(const parz_chunk_view* fin, const unsigned char* head,
                                    size_t head_bytes, parz_gpu_seal* s) {
  parz_chunk_offsets o;
  parz_chunk_section_offsets(fin, &o);
  s->at = o.checksums;
  s->words = fin->nchecksums;
  s->after = head_bytes - o.checksums - 8 * fin->nchecksums;
  /* the CRC's field left out: the header's bytes before it, then from the directory on */
  uint32_t crc = parz_crc32c(0, head, PARZ_HEADER_BYTES - 4);
  crc = parz_crc32c(crc, head + PARZ_HEADER_BYTES, o.checksums - PARZ_HEADER_BYTES);
  s->key = parz_crc32c_shift(~crc, 8 * s->words + s->after) ^
           ~parz_crc32c(~0u, head + o.checksums + 8 * s->words, (size_t)s->after);
  for (unsigned lane = 0; lane < PARZ_GPU_SEAL_LANES; lane++) {
    unsigned long long k0, k1;
    parz_gpu_seal_run(*s, lane, &k0, &k1);
    s->shift[lane] = parz_crc32c_x8n(8 * (s->words - k1) + s->after);
  }
}

/* Lane `lane`'s share of the GPU's part (the sums' bytes at `sums`): the raw register of its run
 * of neighbouring sums, shifted by the head's bytes after the run. */
PARZ_HD uint32_t parz_gpu_seal_share(const parz_gpu_seal& s, const unsigned char* sums,
                                     unsigned lane) {
  unsigned long long k0, k1;
  uint32_t reg = 0;
  parz_gpu_seal_run(s, lane, &k0, &k1);
  if (k0 == k1)
    return 0;
  for (unsigned long long b = 8 * k0; b < 8 * k1; b++)
    reg = parz_crc32c_step(reg, sums[b]);
  return parz_crc32c_mulmod(reg, s.shift[lane]);
}

/* The header's CRC-32C from the lanes' shares XORed. */
PARZ_HD uint32_t parz_gpu_seal_crc(const parz_gpu_seal& s, uint32_t shares) {
  return ~(s.key ^ shares);
}

#endif
