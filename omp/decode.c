/* OpenMP decoder of many chunks at once, each into its destination: one team, the payload
 * checksums of every chunk verified and its segments decoded as work items side by side, each
 * decode unit starting from an absolute offset of its chunk's table, then the exceptions
 * patched. A single chunk (the filter path) is the case n = 1.
 *
 * Work units are runs of whole partitions (HYBRID) so that each starts from a partition's stored
 * absolute bit offset; when a chunk has too few partitions to keep every thread busy (a 16 MiB
 * chunk of 3D floats at C = 32, P = 64 has 32), units become runs of segments inside
 * partitions, whose offsets cost the sum of at most P - 1 lengths (O(P), still independent of the
 * chunk size). OFFSETS, NONE and LENGTHS tables are split into runs of segments; a LENGTHS table
 * is first expanded into one offset per segment (one pass, parz_chunk_offsets_view), since a
 * unit's offset is otherwise the sum of every length before it. Each chunk gets units in
 * proportion to its size, so that many small chunks are one unit each and a few large ones are
 * split; units are handed out dynamically: compressed segment sizes vary (a fill-value region
 * costs almost nothing), so a static split would leave threads idle.
 *
 * A chunk's checksum items (ranges of its partitions, as many as its decode units at most) come
 * just before its decode units, so that the lowest failed item is the error the serial decoder
 * reports: the first failing chunk, and in it a bad checksum before any other fault. */
#include <stdint.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "chunk_scratch.h"
#include "exceptions.h" /* PARZ_EXCEPTION_BYTES: the codec's record size (FORMAT.md) */
#include "parz_omp.h"
#include "team.h"

/* Units per thread: enough for dynamic scheduling to even out uneven segments: the last units
 * make the tail, where threads that are done wait for the others (a thread idles at most about
 * 1/64 of its share; bench_omp --balance replays the schedule with each unit's own decode time,
 * which is how the count was chosen: fewer units leave a longer tail). A unit costs
 * microseconds of set-up (its first offset, the dynamic hand-out), so units stay at least
 * MIN_UNIT_BYTES of decoded values where the chunk allows. */
#define UNITS_PER_THREAD 64u
#define MIN_UNIT_BYTES ((size_t)16 << 10)

/* Non-finite values patched in parallel only when there are many: each is a 16-byte record. */
#define PATCH_MIN_PER_THREAD 4096u

/* Segments per unit for a chunk that should get about `target` units. */
static uint64_t unit_segments(const parz_chunk_view* v, uint64_t target) {
  uint64_t n = v->nsegments / target + (v->nsegments % target != 0);
  if (n == 0)
    n = 1;
  if (v->table == PARZ_TABLE_HYBRID && n >= v->partition_segments)
    n -= n % v->partition_segments; /* whole partitions */
  return n;
}

/* Appends the unit at units[*count] (when filling) and counts it. */
static void add_unit(parz_omp_unit* units, uint64_t* count, size_t chunk, parz_omp_unit_kind kind,
                     uint64_t first, uint64_t n) {
  if (units) {
    units[*count].chunk = chunk;
    units[*count].kind = kind;
    units[*count].first = first;
    units[*count].count = n;
  }
  (*count)++;
}

uint64_t parz_omp_unit_share(size_t raw_bytes, uint64_t total_bytes, int nthreads,
                             unsigned per_thread) {
  const uint64_t target = (uint64_t)nthreads * (per_thread ? per_thread : UNITS_PER_THREAD);
  uint64_t want =
      total_bytes ? (uint64_t)((double)target * (double)raw_bytes / (double)total_bytes) : 1;
  if (!per_thread && want > raw_bytes / MIN_UNIT_BYTES)
    want = raw_bytes / MIN_UNIT_BYTES;
  return want ? want : 1;
}

size_t parz_omp_plan_chunk(const parz_chunk_view* v, size_t chunk, uint64_t want,
                           parz_omp_unit* units, uint64_t* ndecode) {
  /* a scratch codec's chunk is one unit: its every value needs all its segments, which that
   * unit verifies and decodes */
  const int whole = parz_chunk_is_scratch(v);
  const uint64_t per = whole ? v->nsegments : unit_segments(v, want);
  const uint64_t ndec = v->nsegments / per + (v->nsegments % per != 0);
  const uint64_t nver = v->nchecksums < ndec ? v->nchecksums : ndec;
  uint64_t count = 0, s, r;
  for (r = 0; r < nver && !whole; r++)
    add_unit(units, &count, chunk, PARZ_OMP_VERIFY, v->nchecksums * r / nver,
             v->nchecksums * (r + 1) / nver - v->nchecksums * r / nver);
  for (s = 0; s < v->nsegments; s += per)
    add_unit(units, &count, chunk, PARZ_OMP_DECODE, s,
             per < v->nsegments - s ? per : v->nsegments - s);
  if (ndecode)
    *ndecode += ndec;
  return (size_t)count;
}

size_t parz_omp_plan_patches(const parz_chunk_view* v, size_t chunk, int nthreads,
                             parz_omp_unit* units) {
  /* one range per PATCH_MIN_PER_THREAD records, at most one per thread */
  const uint64_t nexc = v->nexceptions;
  uint64_t parts = nexc / PATCH_MIN_PER_THREAD, count = 0, r;
  if (nexc == 0)
    return 0;
  parts = parts < 1 ? 1 : parts > (uint64_t)nthreads ? (uint64_t)nthreads : parts;
  for (r = 0; r < parts; r++)
    add_unit(units, &count, chunk, PARZ_OMP_PATCH, nexc * r / parts,
             nexc * (r + 1) / parts - nexc * r / parts);
  return (size_t)count;
}

parz_omp_unit* parz_omp_decode_plan(size_t n, const parz_chunk_view* views, int nthreads,
                                    unsigned per_thread, size_t* nunits, size_t* nfirst,
                                    uint64_t* ndecode) {
  uint64_t total = 0;
  size_t i, count = 0;
  parz_omp_unit* units = NULL;
  for (i = 0; i < n; i++)
    total += views[i].raw_bytes;
  /* first pass counts, second fills */
  for (int fill = 0; fill < 2; fill++) {
    if (fill && !(units = (parz_omp_unit*)malloc((count ? count : 1) * sizeof *units)))
      return NULL;
    count = 0;
    *ndecode = 0;
    for (i = 0; i < n; i++)
      count += parz_omp_plan_chunk(
          &views[i], i, parz_omp_unit_share(views[i].raw_bytes, total, nthreads, per_thread),
          units ? units + count : NULL, ndecode);
    *nfirst = count;
    for (i = 0; i < n; i++)
      count += parz_omp_plan_patches(&views[i], i, nthreads, units ? units + count : NULL);
  }
  *nunits = count;
  return units;
}

int parz_omp_run_unit(const parz_omp_unit* w, const parz_chunk_view* views,
                      const parz_chunk_dest* dests, parz_error* e) {
  const parz_chunk_view* v = &views[w->chunk];
  parz_chunk_view part;
  switch (w->kind) {
    case PARZ_OMP_VERIFY: return parz_chunk_verify_to(v, &dests[w->chunk], w->first, w->count, e);
    case PARZ_OMP_DECODE:
      return parz_chunk_decode_segments_unverified(v, &dests[w->chunk], w->first, w->count, e);
    default:
      part = *v;
      part.exceptions = v->exceptions + w->first * PARZ_EXCEPTION_BYTES;
      part.nexceptions = w->count;
      return parz_chunk_patch_exceptions_to(&part, &dests[w->chunk], e);
  }
}

/* The views with every LENGTHS table expanded into offsets (the copy and the offsets in one
 * malloc'd block, *block); views itself when none has one. NULL without memory. */
static const parz_chunk_view* expand_lengths(size_t n, const parz_chunk_view* views, void** block) {
  size_t i, bytes = 0;
  parz_chunk_view* out;
  unsigned char* at;
  *block = NULL;
  for (i = 0; i < n; i++)
    bytes += parz_chunk_offsets_bytes(&views[i]);
  if (!bytes)
    return views;
  /* offsets first: 8-byte records stay aligned */
  if (!(*block = malloc(bytes + n * sizeof *out)))
    return NULL;
  at = (unsigned char*)*block;
  out = (parz_chunk_view*)(at + bytes);
  for (i = 0; i < n; i++) {
    parz_chunk_offsets_view(&views[i], at, &out[i]);
    at += parz_chunk_offsets_bytes(&views[i]);
  }
  return out;
}

/* Whether d is the whole chunk, contiguous in C order (parz_chunk_dest_whole). */
static int dest_is_whole(const parz_chunk_view* v, const parz_chunk_dest* d) {
  parz_chunk_dest whole;
  unsigned k;
  parz_chunk_dest_whole(v, d->data, &whole);
  for (k = 0; k < v->array.dims; k++)
    if (d->stride[k] != whole.stride[k] || d->lo[k] != 0 || d->hi[k] != whole.hi[k])
      return 0;
  return 1;
}

/* parz_omp_decode_chunks with the serial cut-off and the units per thread as parameters. */
static int decode_chunks(size_t n, const parz_chunk_view* views, const parz_chunk_dest* dests,
                         int threads, size_t min_bytes, unsigned per_thread, size_t* failed,
                         parz_error* err) {
  parz_omp_first_error first;
  parz_omp_unit* units = NULL;
  size_t nunits = 0, nfirst = 0, i;
  uint64_t total = 0, ndecode = 0;
  void* offsets = NULL;
  int nthreads = parz_omp_team_size(threads), rc, populate, scratch = 0;
  for (i = 0; i < n; i++) {
    if ((rc = parz_chunk_dest_check(&views[i], &dests[i], err)) != PARZ_OK) {
      if (failed)
        *failed = i;
      return rc;
    }
    total += views[i].raw_bytes;
    scratch |= parz_chunk_is_scratch(&views[i]);
  }
  /* one chunk of a scratch codec decodes in steps on the whole team (the plan below has no
   * barrier between a chunk's steps, and gives such a chunk one unit) */
  if (n == 1 && scratch && nthreads > 1 && total >= min_bytes)
    return parz_omp_decode_scratch(&views[0], &dests[0], nthreads, err);
  if (nthreads > 1 && total >= min_bytes) {
    if (!(units = parz_omp_decode_plan(n, views, nthreads, per_thread, &nunits, &nfirst, &ndecode)))
      return parz_fail(err, PARZ_ERR_NOMEM, "no memory to plan the decode of %zu chunks", n);
    if (ndecode < 2) { /* one unit: no team */
      free(units);
      units = NULL;
    }
  }
  if (!units) {
    for (i = 0; i < n; i++)
      if ((rc = parz_chunk_decode_segments_to(&views[i], &dests[i], 0, views[i].nsegments, err)) !=
              PARZ_OK ||
          (rc = parz_chunk_patch_exceptions_to(&views[i], &dests[i], err)) != PARZ_OK) {
        if (failed)
          *failed = i;
        return rc;
      }
    return PARZ_OK;
  }
  if (!(views = expand_lengths(n, views, &offsets))) {
    free(units);
    return parz_fail(err, PARZ_ERR_NOMEM, "no memory for the segment offsets of %zu chunks", n);
  }
  if ((uint64_t)nthreads > nfirst)
    nthreads = (int)nfirst;
  populate = n == 1 && dest_is_whole(&views[0], &dests[0]);
  parz_omp_first_error_init(&first);

#ifdef _OPENMP
#pragma omp parallel num_threads(nthreads)
#endif
  {
    parz_error e;
    int64_t u;
    if (populate) /* no barrier: a thread decoding into a page not yet populated faults it */
      parz_omp_populate_share(dests[0].data, views[0].raw_bytes);
      /* signed loop variables: OpenMP 2.5 compilers still exist */
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (u = 0; u < (int64_t)nfirst; u++) {
      int urc;
      if (parz_omp_first_error_skip(&first, (uint64_t)u))
        continue;
      if ((urc = parz_omp_run_unit(&units[u], views, dests, &e)) != PARZ_OK)
        parz_omp_first_error_record(&first, (uint64_t)u, urc, &e);
    }
    /* implicit barrier: every value is decoded before any exception overwrites one */
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (u = (int64_t)nfirst; u < (int64_t)nunits; u++) {
      int urc;
      if (first.index != UINT64_MAX) /* decoding failed (read after the barrier) */
        continue;
      if ((urc = parz_omp_run_unit(&units[u], views, dests, &e)) != PARZ_OK)
        parz_omp_first_error_record(&first, (uint64_t)u, urc, &e);
    }
  }
  rc = parz_omp_first_error_result(&first, err);
  if (rc != PARZ_OK && failed)
    *failed = units[first.index].chunk;
  free(units);
  free(offsets);
  return rc;
}

int parz_omp_decode_chunks(size_t n, const parz_chunk_view* views, const parz_chunk_dest* dests,
                           int threads, size_t* failed, parz_error* err) {
  if (n && (!views || !dests))
    return parz_fail(err, PARZ_ERR_ARG, "parz_omp_decode_chunks: NULL argument");
  return decode_chunks(n, views, dests, threads, PARZ_OMP_DECODE_MIN_BYTES, 0, failed, err);
}

int parz_omp_chunk_decode(const void* src, size_t src_bytes, void* dst, size_t dst_bytes,
                          int threads, parz_error* err) {
  return parz_omp_chunk_decode_above(src, src_bytes, dst, dst_bytes, threads,
                                     PARZ_OMP_DECODE_MIN_BYTES, 0, err);
}

int parz_omp_chunk_decode_above(const void* src, size_t src_bytes, void* dst, size_t dst_bytes,
                                int threads, size_t min_bytes, unsigned units_per_thread,
                                parz_error* err) {
  parz_chunk_view v;
  parz_chunk_dest d;
  int rc = parz_chunk_parse(src, src_bytes, &v, err);
  if (rc != PARZ_OK || (rc = parz_chunk_fits(&v, dst, dst_bytes, err)) != PARZ_OK)
    return rc;
  parz_chunk_dest_whole(&v, dst, &d);
  return decode_chunks(1, &v, &d, threads, min_bytes, units_per_thread, NULL, err);
}
