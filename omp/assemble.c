/* A box of a chunked array in host memory from its stored chunks (parz_omp_assemble): every
 * chunk is checked against the grid, then each chunk's values inside the box are decoded, copied
 * (chunks stored without the filter) or filled (chunks never written) straight to their places in
 * the box, on a team of threads. No chunk passes through a buffer of its own. */
#include <stdlib.h>
#include <string.h>

#include "parz_omp.h"
#include "team.h"

/* A chunk copied or filled: chunk index into the caller's list, or SIZE_MAX for a fill at
 * `origin`. */
typedef struct {
  size_t chunk;
  uint64_t origin[PARZ_MAX_RANK];
} place_item;

/* The chunk positions that meet the box: first chunk coordinate and count per dimension. */
typedef struct {
  uint64_t first[PARZ_MAX_RANK], count[PARZ_MAX_RANK];
  size_t n;
} box_chunks;

static int box_chunks_init(const parz_chunk_grid* g, const parz_box* box, box_chunks* b,
                           parz_error* err) {
  unsigned k;
  b->n = 1;
  for (k = 0; k < g->rank; k++) {
    const uint64_t cd = g->chunk_dims[k], end = box->start[k] + box->count[k];
    b->first[k] = box->start[k] / cd;
    b->count[k] = end / cd + (end % cd != 0) - b->first[k];
    if (b->count[k] && b->n > SIZE_MAX / 16 / b->count[k])
      return parz_fail(err, PARZ_ERR_NOMEM, "parz_omp_assemble: too many chunks in the box");
    b->n *= (size_t)b->count[k];
  }
  return PARZ_OK;
}

/* Index among the box's chunk positions of the chunk at `origin` (which meets the box). */
static size_t box_chunk_index(const parz_chunk_grid* g, const box_chunks* b,
                              const uint64_t* origin) {
  size_t i = 0;
  unsigned k;
  for (k = 0; k < g->rank; k++)
    i = i * (size_t)b->count[k] + (size_t)(origin[k] / g->chunk_dims[k] - b->first[k]);
  return i;
}

/* The box's chunk positions that no given chunk covers: appended to items as fills. */
static int add_fills(const parz_chunk_grid* g, const parz_box* box, size_t n,
                     const parz_chunk_ref* chunks, place_item* items, size_t* nitems,
                     size_t cap, parz_error* err) {
  box_chunks b;
  unsigned char* covered;
  size_t i, p;
  int rc;
  if ((rc = box_chunks_init(g, box, &b, err)) != PARZ_OK)
    return rc;
  if (!(covered = (unsigned char*)calloc(b.n ? b.n : 1, 1)))
    return parz_fail(err, PARZ_ERR_NOMEM, "parz_omp_assemble: no memory for %zu chunk places",
                     b.n);
  for (i = 0; i < n; i++)
    if (parz_box_meets_chunk(g, box, chunks[i].origin))
      covered[box_chunk_index(g, &b, chunks[i].origin)] = 1;
  for (p = 0; p < b.n; p++) {
    size_t rem = p;
    int k;
    if (covered[p])
      continue;
    if (*nitems == cap) {
      free(covered);
      return parz_fail(err, PARZ_ERR_NOMEM, "parz_omp_assemble: too many places");
    }
    items[*nitems].chunk = SIZE_MAX;
    for (k = (int)g->rank - 1; k >= 0; k--) {
      items[*nitems].origin[k] = (b.first[k] + rem % b.count[k]) * g->chunk_dims[k];
      rem /= b.count[k];
    }
    (*nitems)++;
  }
  free(covered);
  return PARZ_OK;
}

int parz_omp_assemble(const parz_chunk_grid* grid, const parz_box* box, const void* packed,
                      size_t packed_bytes, size_t n, const parz_chunk_ref* chunks,
                      const void* fill, void* dst, int threads, size_t* failed, parz_error* err) {
  static const char who[] = "parz_omp_assemble";
  parz_box whole;
  parz_array chunk;
  uint64_t total, chunk_values;
  parz_chunk_view* views = NULL;
  parz_chunk_dest* dests = NULL;
  size_t *decoded = NULL, ndecoded = 0, nitems = 0, cap = 0, i, bad = SIZE_MAX;
  place_item* items = NULL;
  int rc;
  if (!grid || !dst || (n && (!chunks || !packed)))
    return parz_fail(err, PARZ_ERR_ARG, "%s: NULL argument", who);
  if ((rc = parz_grid_check(grid, box, &total, &chunk_values, who, err)) != PARZ_OK ||
      (rc = parz_grid_chunk_array(grid, &chunk, err)) != PARZ_OK)
    return rc;
  if (!box) {
    memset(&whole, 0, sizeof whole);
    memcpy(whole.count, grid->dims, sizeof whole.count);
    box = &whole;
  }
  if (fill) { /* at most every position of the box */
    box_chunks b;
    if ((rc = box_chunks_init(grid, box, &b, err)) != PARZ_OK)
      return rc;
    cap = b.n;
  }
  views = (parz_chunk_view*)malloc((n ? n : 1) * sizeof *views);
  dests = (parz_chunk_dest*)malloc((n ? n : 1) * sizeof *dests);
  decoded = (size_t*)malloc((n ? n : 1) * sizeof *decoded);
  cap += n;
  items = (place_item*)malloc((cap ? cap : 1) * sizeof *items);
  if (!views || !dests || !decoded || !items) {
    rc = parz_fail(err, PARZ_ERR_NOMEM, "%s: no memory for %zu chunks", who, n);
    goto done;
  }
  /* every chunk checked before anything is written (in parallel: a check parses the chunk and
   * sums its header and table), then those in the box sorted by what they need */
  {
    parz_omp_first_error first;
    int nthreads = parz_omp_team_size(threads);
    int64_t c;
    if ((uint64_t)nthreads > n)
      nthreads = n ? (int)n : 1;
    parz_omp_first_error_init(&first);
#ifdef _OPENMP
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1)
#endif
    for (c = 0; c < (int64_t)n; c++) {
      parz_error e;
      int crc;
      if (parz_omp_first_error_skip(&first, (uint64_t)c))
        continue;
      crc = parz_chunk_ref_check(grid, packed, packed_bytes, (size_t)c, &chunks[c], &views[c], who,
                                 &e);
      if (crc != PARZ_OK)
        parz_omp_first_error_record(&first, (uint64_t)c, crc, &e);
    }
    if ((rc = parz_omp_first_error_result(&first, err)) != PARZ_OK) {
      bad = (size_t)first.index;
      goto done;
    }
    (void)nthreads;
  }
  for (i = 0; i < n && total; i++) {
    if (!parz_box_meets_chunk(grid, box, chunks[i].origin))
      continue;
    if (chunks[i].raw == PARZ_STORED_PARZ) {
      views[ndecoded] = views[i];
      parz_box_chunk_dest(grid, box, chunks[i].origin, dst, &dests[ndecoded]);
      decoded[ndecoded++] = i;
    } else {
      items[nitems].chunk = i;
      memcpy(items[nitems].origin, chunks[i].origin, sizeof items[nitems].origin);
      nitems++;
    }
  }
  if (total == 0)
    goto done;
  if (fill && (rc = add_fills(grid, box, n, chunks, items, &nitems, cap, err)) != PARZ_OK)
    goto done;

  /* chunks stored without the filter and chunks never written: one item each */
  if (nitems) {
    int nthreads = parz_omp_team_size(threads);
    int64_t t;
    if ((uint64_t)nthreads > nitems)
      nthreads = (int)nitems;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1)
#endif
    for (t = 0; t < (int64_t)nitems; t++) {
      const place_item* it = &items[t];
      parz_chunk_dest d;
      parz_box_chunk_dest(grid, box, it->origin, dst, &d);
      if (it->chunk == SIZE_MAX)
        parz_chunk_dest_fill(&chunk, &d, fill);
      else
        parz_chunk_dest_copy(&chunk, (const unsigned char*)packed + chunks[it->chunk].at,
                             chunks[it->chunk].raw == PARZ_STORED_RAW_SWAPPED, &d);
    }
    (void)nthreads;
  }
  rc = parz_omp_decode_chunks(ndecoded, views, dests, threads, &bad, err);
  if (rc != PARZ_OK && bad < ndecoded)
    bad = decoded[bad];
done:
  if (rc != PARZ_OK && failed && bad != SIZE_MAX)
    *failed = bad;
  free(views);
  free(dests);
  free(decoded);
  free(items);
  return rc;
}
