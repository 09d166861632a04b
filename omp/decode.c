/* OpenMP chunk decoder: one parse, then the payload checksums verified and the segments decoded
 * by a team of threads, each work unit starting from an absolute offset of the chunk's table,
 * then the exceptions patched.
 *
 * Work units are runs of whole partitions (HYBRID) so that each starts from a partition's stored
 * absolute bit offset; when a chunk has too few partitions to keep every thread busy (a 16 MiB
 * chunk of 3D floats at C = 32, P = 64 has 32), units become runs of segments inside
 * partitions, whose offsets cost the sum of at most P - 1 lengths (O(P), still independent of the
 * chunk size). OFFSETS, NONE and LENGTHS tables are split into runs of segments; a LENGTHS table
 * is first expanded into one offset per segment (one pass, parz_chunk_offsets_view), since a
 * unit's offset is otherwise the sum of every length before it. Units are
 * handed out dynamically: compressed segment sizes vary (a fill-value region costs almost
 * nothing), so a static split would leave threads idle. */
#include <stdint.h>
#include <stdlib.h>

#include "exceptions.h"   /* PARZ_EXCEPTION_BYTES: the codec's record size (FORMAT.md) */
#include "parz_omp.h"
#include "team.h"

/* Units per thread: enough for dynamic scheduling to even out uneven segments (the last units
 * bound the tail: at 16 per thread a thread idles at most about 1/16 of its share), few enough
 * that each unit is a long run of blocks (16 MiB chunk, 16 threads: 256 units of 64 KiB). */
#define UNITS_PER_THREAD 16u

typedef struct {
  uint64_t unit_segments;   /* segments per work unit (the last may hold fewer) */
  uint64_t nunits;
} decode_plan;

static decode_plan plan_units(const parz_chunk_view* v, int nthreads, unsigned per_thread) {
  decode_plan pl;
  uint64_t target = (uint64_t)nthreads * (per_thread ? per_thread : UNITS_PER_THREAD);
  uint64_t n = v->nsegments / target + (v->nsegments % target != 0);
  if (n == 0)
    n = 1;
  if (v->table == PARZ_TABLE_HYBRID && n >= v->partition_segments)
    n -= n % v->partition_segments;   /* whole partitions */
  pl.unit_segments = n;
  pl.nunits = v->nsegments / n + (v->nsegments % n != 0);
  return pl;
}

/* Non-finite values patched in parallel only when there are many: each is a 16-byte record. */
#define PATCH_MIN_PER_THREAD 4096u

int parz_omp_chunk_decode(const void* src, size_t src_bytes, void* dst, size_t dst_bytes,
                          int threads, parz_error* err) {
  return parz_omp_chunk_decode_above(src, src_bytes, dst, dst_bytes, threads,
                                     PARZ_OMP_DECODE_MIN_BYTES, 0, err);
}

int parz_omp_chunk_decode_above(const void* src, size_t src_bytes, void* dst, size_t dst_bytes,
                                int threads, size_t min_bytes, unsigned units_per_thread,
                                parz_error* err) {
  parz_chunk_view v;
  decode_plan pl;
  parz_omp_first_error first;
  int nthreads, rc = parz_chunk_parse(src, src_bytes, &v, err);
  uint64_t npatch, nverify;
  void* offsets;
  if (rc != PARZ_OK)
    return rc;
  if (!dst || dst_bytes < v.raw_bytes)
    return parz_fail(err, PARZ_ERR_BUFFER, "chunk decodes to %zu bytes, buffer has %zu",
                     v.raw_bytes, dst ? dst_bytes : 0);
  nthreads = parz_omp_team_size(threads);
  pl = plan_units(&v, nthreads, units_per_thread);
  if (nthreads <= 1 || v.raw_bytes < min_bytes || pl.nunits < 2) {
    if ((rc = parz_chunk_decode_segments(&v, dst, 0, v.nsegments, err)) != PARZ_OK)
      return rc;
    return parz_chunk_patch_exceptions(&v, dst, err);
  }
  offsets = NULL;
  if (parz_chunk_offsets_bytes(&v)) {
    if (!(offsets = malloc(parz_chunk_offsets_bytes(&v))))
      return parz_fail(err, PARZ_ERR_NOMEM, "out of memory for the offsets of %llu segments",
                       (unsigned long long)v.nsegments);
    parz_chunk_view lengths = v;
    parz_chunk_offsets_view(&lengths, offsets, &v);
  }
  if ((uint64_t)nthreads > pl.nunits)
    nthreads = (int)pl.nunits;
  /* work items: first ranges of partitions whose payload checksums are verified, then the
   * units decoded; both kinds run at once, and a failure is reported as the serial decoder
   * would (every checksum is verified before any segment is decoded) */
  nverify = v.nchecksums < pl.nunits ? v.nchecksums : pl.nunits;
  npatch = v.nexceptions / PATCH_MIN_PER_THREAD;   /* patch ranges, at most one per thread */
  if (npatch > (uint64_t)nthreads)
    npatch = (uint64_t)nthreads;
  parz_omp_first_error_init(&first);

#ifdef _OPENMP
#pragma omp parallel num_threads(nthreads)
#endif
  {
    parz_error e;
    int64_t i, r;
    /* signed loop variables: OpenMP 2.5 compilers still exist */
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (i = 0; i < (int64_t)(nverify + pl.nunits); i++) {
      int urc;
      if (parz_omp_first_error_skip(&first, (uint64_t)i))
        continue;
      if ((uint64_t)i < nverify) {
        uint64_t p0 = v.nchecksums * (uint64_t)i / nverify;
        uint64_t p1 = v.nchecksums * (uint64_t)(i + 1) / nverify;
        urc = parz_chunk_verify(&v, p0, p1 - p0, &e);
      } else {
        uint64_t s0 = ((uint64_t)i - nverify) * pl.unit_segments, n = pl.unit_segments;
        if (n > v.nsegments - s0)
          n = v.nsegments - s0;
        urc = parz_chunk_decode_segments_only(&v, dst, s0, n, &e);
      }
      if (urc != PARZ_OK)
        parz_omp_first_error_record(&first, (uint64_t)i, urc, &e);
    }
    /* implicit barrier: every value is decoded before any exception overwrites one */
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
    for (r = 0; r < (int64_t)npatch; r++) {
      parz_chunk_view part = v;
      uint64_t i0 = v.nexceptions * (uint64_t)r / npatch;
      uint64_t i1 = v.nexceptions * (uint64_t)(r + 1) / npatch;
      int prc;
      if (first.index != UINT64_MAX)   /* decoding failed (read after the barrier) */
        continue;
      part.exceptions = v.exceptions + i0 * PARZ_EXCEPTION_BYTES;
      part.nexceptions = i1 - i0;
      prc = parz_chunk_patch_exceptions(&part, dst, &e);
      if (prc != PARZ_OK)
        parz_omp_first_error_record(&first, nverify + pl.nunits + (uint64_t)r, prc, &e);
    }
  }
  free(offsets);
  if ((rc = parz_omp_first_error_result(&first, err)) != PARZ_OK)
    return rc;
  return npatch ? PARZ_OK : parz_chunk_patch_exceptions(&v, dst, err);
}
