/* OpenMP chunk encoder: the chunk encoder's three steps (codec/parz_chunk.h) with the middle one
 * spread over a team. Each piece (a contiguous run of segments) is encoded into its own scratch
 * stream; once every segment length is known the head is written and the pieces are joined at
 * their bit offsets. The bytes are those of parz_chunk_encode for every thread count: the same
 * encoder computes the layout, exceptions and table, and the payload is the same bits.
 *
 * The join runs in parallel too. Pieces start at arbitrary bit offsets, so neighbours share a
 * boundary word; to write every payload word exactly once, word k belongs to the piece holding
 * its first bit, and that piece ORs in the heads of the following pieces that reach into it.
 * The payload checksums are then computed in parallel over ranges of partitions. Before all
 * that, the encoder's reads of the array (its scan, and where it holds masked values or
 * exceptions the cleaned copy and the mask) run on the team too (jobs.c). */
#include <stdlib.h>
#include <string.h>

#include "block_common.h" /* parz_bits_get, parz_word_store */
#include "parz_omp.h"
#include "team.h"

/* Pieces per thread, handed out dynamically: segments of very different cost (fill regions,
 * non-finite stand-ins) balance out. Each piece costs one scratch stream and one boundary word. */
#define PIECES_PER_THREAD 4u

typedef struct {
  uint64_t first, count; /* segments */
  unsigned char* stream; /* scratch */
  size_t stream_bytes;
  unsigned char* own; /* a stream of its own, when its share of the scratch was too small */
  uint64_t bits;      /* encoded length */
  uint64_t offset;    /* bit offset in the payload */
} piece;

/* Writes the payload words owned by piece i (see the file comment): those whose first bit lies in
 * it. Bits past the last piece stay zero, the padding zfp_compress writes. */
static void join_piece(unsigned char* payload, const piece* pc, uint64_t npieces, uint64_t i) {
  const piece* p = &pc[i];
  uint64_t lo = p->offset, hi = p->offset + p->bits;
  uint64_t k = lo / 64u + (lo % 64u != 0), kend = hi / 64u + (hi % 64u != 0);
  for (; k < kend; k++) {
    uint64_t b = 64u * k, j;
    uint64_t w = parz_bits_get(p->stream, b - lo, (unsigned)(hi - b < 64u ? hi - b : 64u));
    /* following pieces starting inside this word (several when pieces are tiny) */
    for (j = i + 1; hi - b < 64u && j < npieces && pc[j].offset < b + 64u; j++) {
      uint64_t jend = pc[j].offset + pc[j].bits;
      uint64_t n = (jend < b + 64u ? jend : b + 64u) - pc[j].offset;
      w |= parz_bits_get(pc[j].stream, 0, (unsigned)n) << (pc[j].offset - b);
    }
    parz_word_store(payload + 8u * k, w);
  }
}

int parz_omp_chunk_encode(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                          void* dst, size_t dst_bytes, size_t* written, int threads,
                          parz_error* err) {
  return parz_omp_chunk_encode_above(a, data, cfg, dst, dst_bytes, written, threads,
                                     PARZ_OMP_ENCODE_MIN_BYTES, err);
}

int parz_omp_chunk_encode_alloc(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                                parz_chunk_alloc alloc, void* alloc_arg, size_t* written,
                                int threads, parz_error* err) {
  return parz_omp_chunk_encode_alloc_above(a, data, cfg, alloc, alloc_arg, written, threads,
                                           PARZ_OMP_ENCODE_MIN_BYTES, PARZ_OMP_SLAB_SHIFT, err);
}

/* The stored chunk of the encoder's array, into dst or, with an allocator, a buffer of its
 * size. */
static int write_stored(const parz_chunk_encoder* enc, void* dst, size_t dst_bytes,
                        parz_chunk_alloc alloc, void* alloc_arg, size_t* written, parz_error* err) {
  if (alloc) {
    dst_bytes = parz_chunk_encoder_stored_bytes(enc);
    if (!(dst = alloc(alloc_arg, dst_bytes)))
      return parz_fail(err, PARZ_ERR_NOMEM, "no buffer for a chunk of %zu bytes", dst_bytes);
  }
  return parz_chunk_encoder_write_stored(enc, dst, dst_bytes, written, err);
}

/* Pieces start at multiples of ALIGN segments when the chunk has enough of them: a piece of
 * ALIGN * k segments has a stream bound of exactly its blocks times the bits a block may take,
 * so the pieces' bounds add up to the whole payload's bound and they fit one after the other in
 * a destination of parz_chunk_bound_data's size (ALIGN * C * max block bits is a multiple of 64
 * bits). */
#define ALIGN 64u

/* Splits segments [0, nseg) into n pieces; aligned, their starts are multiples of ALIGN. */
static void split(piece* pc, uint64_t n, uint64_t nseg, int aligned) {
  uint64_t i, units = aligned ? nseg / ALIGN : nseg;
  for (i = 0; i < n; i++) {
    uint64_t lo = units * i / n, hi = units * (i + 1) / n;
    pc[i].first = aligned ? lo * ALIGN : lo;
    pc[i].count = (i + 1 == n ? nseg : aligned ? hi * ALIGN : hi) - pc[i].first;
  }
}

/* A piece's stream: into its share of the scratch (slab bytes), and where that is too small,
 * into a stream of its own of the piece's bound (from then on for every piece: the chunk
 * compresses less than the slabs assumed). */
static int encode_piece(parz_chunk_encoder* enc, piece* p, size_t slab, int* no_slabs,
                        parz_error* err) {
  int rc, skip;
#ifdef _OPENMP
#pragma omp atomic read
#endif
  skip = *no_slabs;
  if (slab && !skip) {
    rc = parz_chunk_encode_segments(enc, p->first, p->count, p->stream, slab, &p->bits, err);
    if (rc != PARZ_ERR_BUFFER)
      return rc;
#ifdef _OPENMP
#pragma omp atomic write
#endif
    *no_slabs = 1;
  }
  if (slab) {
    if (!(p->own = (unsigned char*)malloc(p->stream_bytes)))
      return parz_fail(err, PARZ_ERR_NOMEM, "out of memory for %zu bytes of encoder scratch",
                       p->stream_bytes);
    p->stream = p->own;
  }
  return parz_chunk_encode_segments(enc, p->first, p->count, p->stream, p->stream_bytes, &p->bits,
                                    err);
}

/* A chunk encoded by a team: the encoder, its pieces and where their streams go. */
typedef struct {
  parz_chunk_encoder* enc;
  piece* pc;
  uint64_t nseg, npieces;
  int nthreads;
  /* The pieces' streams lie in one of three places (place_streams): in the destination after
   * the largest head (in_place; joined is then the payload's buffer), in scratch of their
   * bounds' size, or in slabs of `slab` bytes of scratch, with a stream of a piece's own where
   * its slab is too small (no_slabs). */
  int in_place, no_slabs;
  size_t head, slab;
  unsigned char *scratch, *joined;
} team_encode;

static void team_encode_free(team_encode* t) {
  uint64_t i;
  free(t->joined);
  free(t->scratch);
  for (i = 0; t->pc && i < t->npieces; i++)
    free(t->pc[i].own);
  free(t->pc);
  parz_chunk_encoder_free(t->enc);
}

/* The chunk encoded serially: into dst, or with an allocator into a buffer of the bound of these
 * values. */
static int encode_serial(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                         void* dst, size_t dst_bytes, parz_chunk_alloc alloc, void* alloc_arg,
                         size_t* written, parz_error* err) {
  if (alloc) {
    dst_bytes = parz_chunk_bound_data(a, data, cfg);
    if (dst_bytes == 0) {
      /* an array or configuration the encoder refuses (its message), or no size_t bound */
      unsigned char none;
      int rc = parz_chunk_encode(a, data, cfg, &none, 0, written, err);
      return rc == PARZ_ERR_BUFFER ? parz_fail(err, PARZ_ERR_NOMEM, "chunk too large to bound")
                                   : rc;
    }
    if (!(dst = alloc(alloc_arg, dst_bytes)))
      return parz_fail(err, PARZ_ERR_NOMEM, "no buffer for a chunk of up to %zu bytes", dst_bytes);
  }
  return parz_chunk_encode(a, data, cfg, dst, dst_bytes, written, err);
}

/* Cuts the chunk's segments into pieces, at most PIECES_PER_THREAD per thread, and sets each
 * piece's stream bound; the sum of the bounds, 0 without memory or where it has no size_t. */
static size_t plan_pieces(team_encode* t) {
  size_t total = 0;
  uint64_t i;
  int aligned;
  t->nseg = parz_chunk_encoder_segments(t->enc);
  t->npieces = (uint64_t)t->nthreads * PIECES_PER_THREAD;
  aligned = t->nseg / ALIGN >= t->npieces;
  if (t->npieces > t->nseg)
    t->npieces = t->nseg;
  if ((uint64_t)t->nthreads > t->npieces)
    t->nthreads = (int)t->npieces;
  if (!(t->pc = (piece*)calloc((size_t)t->npieces, sizeof *t->pc)))
    return 0;
  split(t->pc, t->npieces, t->nseg, aligned);
  for (i = 0; i < t->npieces; i++) {
    /* a bound for the first `count` segments bounds any `count` segments (the last segment may
     * be shorter, never longer) */
    t->pc[i].stream_bytes = parz_chunk_encoder_scratch_bound(t->enc, t->pc[i].count);
    if (t->pc[i].stream_bytes == 0 || total > SIZE_MAX - t->pc[i].stream_bytes)
      return 0;
    total += t->pc[i].stream_bytes;
  }
  return total;
}

/* Where the pieces' streams go. They go into the destination, after the largest head the chunk
 * may get, when it has room for all their bounds there (it has, at parz_chunk_bound_data's
 * size, with aligned pieces); they are then joined into a buffer of the payload's actual size
 * and copied back. Otherwise they go into scratch of their bounds' size, or with an allocator
 * into its slabs of the largest bound >> slab_shift, and are joined in place in the
 * destination. */
static int place_streams(team_encode* t, unsigned char* d, size_t dst_bytes, int alloc,
                         unsigned slab_shift, const parz_params* p, size_t total, parz_error* err) {
  uint64_t i;
  t->head = parz_chunk_encoder_head_bytes(t->enc);
  t->in_place = !alloc && total && dst_bytes >= t->head && dst_bytes - t->head >= total;
  /* Fixed rate writes its bound, and lossless streams come near it: no slabs for them. */
  if (alloc && slab_shift && t->pc && p->minbits != p->maxbits && p->minexp >= PARZ_MIN_EXP) {
    /* the largest piece's bound, so that every piece's share is a whole number of words */
    size_t largest = 0;
    for (i = 0; i < t->npieces; i++)
      largest = t->pc[i].stream_bytes > largest ? t->pc[i].stream_bytes : largest;
    t->slab = ((largest >> slab_shift) + 7u) / 8u * 8u;
    t->slab = t->slab ? t->slab : 8u;
    total = t->slab * (size_t)t->npieces;
  }
  if (t->pc && total && !t->in_place)
    t->scratch = (unsigned char*)malloc(total);
  if (!t->pc || !total || (!t->in_place && !t->scratch))
    return parz_fail(err, PARZ_ERR_NOMEM, "out of memory for %zu bytes of encoder scratch", total);
  for (i = 0, total = 0; i < t->npieces; total += t->slab ? t->slab : t->pc[i].stream_bytes, i++)
    t->pc[i].stream = (t->in_place ? d + t->head : t->scratch) + total; /* word aligned */
  return PARZ_OK;
}

/* Every piece's stream, on the team; the first error by piece. */
static int encode_pieces(team_encode* t, parz_error* err) {
  parz_omp_first_error first;
  parz_omp_first_error_init(&first);
#ifdef _OPENMP
#pragma omp parallel for num_threads(t->nthreads) schedule(dynamic, 1)
#endif
  for (int64_t j = 0; j < (int64_t)t->npieces; j++) {
    parz_error e;
    int prc;
    if (parz_omp_first_error_skip(&first, (uint64_t)j))
      continue;
    prc = encode_piece(t->enc, &t->pc[j], t->slab, &t->no_slabs, &e);
    if (prc != PARZ_OK)
      parz_omp_first_error_record(&first, (uint64_t)j, prc, &e);
  }
  return parz_omp_first_error_result(&first, err);
}

/* The head, the pieces joined into the payload (through `joined` when they lie in the
 * destination) and the payload checksums, on the team; *written the chunk's size. */
static int write_chunk(team_encode* t, unsigned char* d, size_t dst_bytes, size_t* written,
                       parz_error* err) {
  size_t payload_offset = 0, size, payload_bytes;
  uint64_t i, nsums, nranges;
  unsigned char* payload;
  int rc;
  if (t->in_place) {
    uint64_t bits = parz_chunk_encoder_bit_offset(t->enc, t->nseg);
    size_t bytes = (size_t)(8u * (bits / 64u + (bits % 64u != 0)));
    if (!(t->joined = (unsigned char*)malloc(bytes ? bytes : 8)))
      return parz_fail(err, PARZ_ERR_NOMEM, "out of memory for the %zu-byte payload", bytes);
  }
  if ((rc = parz_chunk_encoder_write_head(t->enc, d, dst_bytes, &payload_offset, err)) != PARZ_OK)
    return rc;
  payload = t->in_place ? t->joined : d + payload_offset;
  size = parz_chunk_encoder_size(t->enc);
  payload_bytes = size - payload_offset;
  nsums = parz_chunk_encoder_partitions(t->enc);
  nranges = nsums < t->npieces ? nsums : t->npieces;
  for (i = 0; i < t->npieces; i++)
    t->pc[i].offset = parz_chunk_encoder_bit_offset(t->enc, t->pc[i].first);
#ifdef _OPENMP
#pragma omp parallel num_threads(t->nthreads)
#endif
  {
    const uint64_t npieces = t->npieces;
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
    for (int64_t j = 0; j < (int64_t)npieces; j++)
      join_piece(payload, t->pc, npieces, (uint64_t)j);
    /* implicit barriers: the payload is complete, then in its place, before its checksums */
    if (t->in_place) {
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
      for (int64_t j = 0; j < (int64_t)npieces; j++) {
        size_t lo = payload_bytes / 8 * (size_t)j / npieces * 8;
        size_t hi = j + 1 == (int64_t)npieces ? payload_bytes
                                              : payload_bytes / 8 * (size_t)(j + 1) / npieces * 8;
        memcpy(d + payload_offset + lo, t->joined + lo, hi - lo);
      }
    }
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (int64_t j = 0; j < (int64_t)nranges; j++) {
      uint64_t p0 = nsums * (uint64_t)j / nranges, p1 = nsums * (uint64_t)(j + 1) / nranges;
      parz_chunk_encoder_checksum(t->enc, d, p0, p1 - p0);
    }
  }
  parz_chunk_encoder_seal(t->enc, d);
  if (written)
    *written = size;
  return PARZ_OK;
}

/* The encoder's begin, its passes on the team's tasks (parz_omp_team_jobs). */
typedef struct {
  team_encode* t;
  const parz_array* a;
  const void* data;
  const parz_chunk_config* cfg;
  parz_error* err;
} begin_call;

static int begin_work(void* arg, const parz_jobs* jobs) {
  begin_call* b = (begin_call*)arg;
  return parz_chunk_encoder_begin_jobs(&b->t->enc, b->a, b->data, b->cfg, jobs, b->err);
}

/* The chunk into dst (dst_bytes), or, where alloc is given, into a buffer of exactly its size
 * from alloc, asked once every segment is encoded: each piece then starts in a slab of its
 * bound >> slab_shift (none where slab_shift is 0) of one scratch buffer, so that nothing of
 * the bound's size is allocated while the chunk compresses that well. Serially below min_bytes
 * of values or with one thread. */
static int encode_core(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                       void* dst, size_t dst_bytes, parz_chunk_alloc alloc, void* alloc_arg,
                       size_t* written, int threads, size_t min_bytes, unsigned slab_shift,
                       parz_error* err) {
  team_encode t;
  begin_call b;
  size_t raw;
  int rc;
  memset(&t, 0, sizeof t);
  t.nthreads = parz_omp_team_size(threads);
  if (written)
    *written = 0;
  raw = parz_array_check(a, NULL) == PARZ_OK ? parz_array_count(a) * parz_type_size(a->type) : 0;
  if (t.nthreads <= 1 || raw < min_bytes)
    return encode_serial(a, data, cfg, dst, dst_bytes, alloc, alloc_arg, written, err);
  if (!dst && !alloc)
    return parz_fail(err, PARZ_ERR_ARG, "parz_omp_chunk_encode: NULL destination");
  b.t = &t;
  b.a = a;
  b.data = data;
  b.cfg = cfg;
  b.err = err;
  if ((rc = parz_omp_team_jobs(t.nthreads, begin_work, &b)) != PARZ_OK)
    return rc;
  if (!parz_chunk_encoder_stores(t.enc)) { /* exceptions or a mask alone outgrow the values */
    const size_t total = plan_pieces(&t);
    rc = place_streams(&t, (unsigned char*)dst, dst_bytes, alloc != NULL, slab_shift, &cfg->params,
                       total, err);
    if (rc == PARZ_OK)
      rc = encode_pieces(&t, err);
  }
  if (rc == PARZ_OK && parz_chunk_encoder_stores(t.enc)) {
    rc = write_stored(t.enc, dst, dst_bytes, alloc, alloc_arg, written, err);
  } else if (rc == PARZ_OK) {
    if (alloc) {
      dst_bytes = parz_chunk_encoder_size(t.enc);
      if (!(dst = alloc(alloc_arg, dst_bytes)))
        rc = parz_fail(err, PARZ_ERR_NOMEM, "no buffer for a chunk of %zu bytes", dst_bytes);
    }
    if (rc == PARZ_OK)
      rc = write_chunk(&t, (unsigned char*)dst, dst_bytes, written, err);
  }
  team_encode_free(&t);
  return rc;
}

int parz_omp_chunk_encode_above(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                                void* dst, size_t dst_bytes, size_t* written, int threads,
                                size_t min_bytes, parz_error* err) {
  if (written)
    *written = 0;
  if (!dst)
    return parz_fail(err, PARZ_ERR_ARG, "parz_omp_chunk_encode: NULL destination");
  return encode_core(a, data, cfg, dst, dst_bytes, NULL, NULL, written, threads, min_bytes, 0, err);
}

int parz_omp_chunk_encode_alloc_above(const parz_array* a, const void* data,
                                      const parz_chunk_config* cfg, parz_chunk_alloc alloc,
                                      void* alloc_arg, size_t* written, int threads,
                                      size_t min_bytes, unsigned slab_shift, parz_error* err) {
  if (written)
    *written = 0;
  if (!alloc)
    return parz_fail(err, PARZ_ERR_ARG, "parz_omp_chunk_encode_alloc: NULL allocator");
  return encode_core(a, data, cfg, NULL, 0, alloc, alloc_arg, written, threads, min_bytes,
                     slab_shift, err);
}
