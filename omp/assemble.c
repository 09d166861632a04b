/* A box of a chunked array in host memory from its stored chunks (parz_omp_assemble,
 * parz_omp_assemble_reading): each chunk's values inside the box are decoded, copied (chunks
 * stored without the filter) or filled (chunks never written) straight to their places in the
 * box, on a team of threads. No chunk passes through a buffer of its own.
 *
 * The chunks are taken in order by one thread of the team, the first: it reads each (when the
 * caller gives a reader: the dataset readers' HDF5 calls, which must stay on one thread), checks
 * it and appends its work items (its checksum items and decode units, as the decoder of many
 * chunks cuts them, or one copy) to a queue, while the other threads take the items already
 * there, in queue order; once every chunk is in, the first thread takes items too. So decoding
 * starts with the first chunk read instead of after the last. The places of chunks never written
 * are filled first, while the first chunk is read. Exceptions are patched once every value is
 * decoded.
 *
 * Items are numbered in chunk order, and a chunk that fails its check counts as failing at the
 * place where its items would have started: the lowest failed number is the first failing chunk
 * in chunk order, with the message the serial decoder gives for it, whatever the thread count. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "parz_omp.h"
#include "team.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Items beyond the decoder's (team.h): a raw chunk copied to its places, a place of the box
 * without a chunk filled (`chunk`: its index among the fills). */
#define ITEM_COPY ((parz_omp_unit_kind)(PARZ_OMP_PATCH + 1))
#define ITEM_FILL ((parz_omp_unit_kind)(PARZ_OMP_PATCH + 2))

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

/* The origins of the box's chunk positions that no given chunk covers (malloc'd, *nfills of
 * them; NULL with *nfills 0 when there are none). */
static int find_fills(const parz_chunk_grid* g, const parz_box* box, size_t n,
                      const parz_chunk_ref* chunks, uint64_t (**fills)[PARZ_MAX_RANK],
                      size_t* nfills, parz_error* err) {
  box_chunks b;
  unsigned char* covered;
  size_t i, p;
  int rc;
  *fills = NULL;
  *nfills = 0;
  if ((rc = box_chunks_init(g, box, &b, err)) != PARZ_OK)
    return rc;
  if (!(covered = (unsigned char*)calloc(b.n ? b.n : 1, 1)) ||
      !(*fills = (uint64_t(*)[PARZ_MAX_RANK])malloc((b.n ? b.n : 1) * sizeof **fills))) {
    free(covered);
    return parz_fail(err, PARZ_ERR_NOMEM, "parz_omp_assemble: no memory for %zu chunk places", b.n);
  }
  for (i = 0; i < n; i++)
    if (parz_box_meets_chunk(g, box, chunks[i].origin))
      covered[box_chunk_index(g, &b, chunks[i].origin)] = 1;
  for (p = 0; p < b.n; p++) {
    size_t rem = p;
    int k;
    if (covered[p])
      continue;
    for (k = (int)g->rank - 1; k >= 0; k--) {
      (*fills)[*nfills][k] = (b.first[k] + rem % b.count[k]) * g->chunk_dims[k];
      rem /= b.count[k];
    }
    (*nfills)++;
  }
  free(covered);
  return PARZ_OK;
}

/* One assembly: what the first thread appends and the others take. */
typedef struct {
  const parz_chunk_grid* grid;
  const parz_box* box;
  const unsigned char* packed;
  size_t packed_bytes, n;
  parz_chunk_ref* chunks;
  parz_chunk_reader read;
  void* ctx;
  parz_keep* keep; /* the caller's, named in every view */
  const void* fill;
  void* dst;
  size_t dst_bytes;
  parz_array chunk; /* the codec's shape of a chunk */
  uint64_t (*fills)[PARZ_MAX_RANK];
  int nthreads;
  int empty;              /* the box holds no value: the chunks are only checked */
  uint64_t want;          /* decode units per chunk */
  parz_chunk_view* views; /* per chunk, written by the first thread */
  parz_chunk_dest* dests;
  void** offsets;                 /* LENGTHS tables expanded, per chunk */
  parz_omp_unit *items, *patches; /* the queue; patches wait for every item */
  size_t npatches, cap;           /* patches, room for items */
  size_t appended;                /* items the first thread has written */
  size_t published;               /* items[0 .. published) may be taken */
  size_t next;                    /* the next item to take */
  int all_in;                     /* no item will be added */
  parz_omp_first_error first;
} assembly;

/* Lets the other threads take every item appended so far. */
static void publish(assembly* a, int all_in) {
#ifdef _OPENMP
#pragma omp flush
#pragma omp atomic write
#endif
  a->published = a->appended;
  if (all_in) {
#ifdef _OPENMP
#pragma omp flush
#pragma omp atomic write
#endif
    a->all_in = 1;
  }
}

/* The first thread's part: every chunk read (when there is a reader), checked, and its items
 * appended in chunk order; stops at the first failure (nothing later can fail first). */
static void take_in_chunks(assembly* a) {
  size_t i;
  for (i = 0; i < a->n; i++) {
    parz_chunk_ref* c = &a->chunks[i];
    parz_chunk_view* v = &a->views[i];
    parz_error e;
    int rc = PARZ_OK;
    size_t extra;
    if (parz_omp_first_error_skip(&a->first, a->appended))
      break;
    if (a->read)
      rc = a->read(a->ctx, i, c, &e);
    if (rc == PARZ_OK)
      rc = parz_chunk_ref_check(a->grid, a->packed, a->packed_bytes, i, c, v, "parz_omp_assemble",
                                &e);
    v->keep = a->keep;
    if (rc == PARZ_OK && c->raw == PARZ_STORED_PARZ && (extra = parz_chunk_offsets_bytes(v))) {
      parz_chunk_view expanded;
      if (!(a->offsets[i] = malloc(extra)))
        rc = parz_fail(&e, PARZ_ERR_NOMEM,
                       "parz_omp_assemble: no memory for the segment "
                       "offsets of chunk %zu",
                       i);
      else {
        parz_chunk_offsets_view(v, a->offsets[i], &expanded);
        *v = expanded;
      }
    }
    if (rc != PARZ_OK) {
      a->items[a->appended].chunk = i; /* where its items would have started: never taken */
      parz_omp_first_error_record(&a->first, a->appended, rc, &e);
      break;
    }
    if (a->empty || !parz_box_meets_chunk(a->grid, a->box, c->origin))
      continue;
    parz_box_chunk_dest(a->grid, a->box, c->origin, a->dst, &a->dests[i]);
    if (c->raw != PARZ_STORED_PARZ) {
      a->items[a->appended].chunk = i;
      a->items[a->appended++].kind = ITEM_COPY;
    } else {
      a->appended += parz_omp_plan_chunk(v, i, a->want, a->items + a->appended, NULL);
      a->npatches += parz_omp_plan_patches(v, i, a->nthreads, a->patches + a->npatches);
    }
    publish(a, 0);
  }
  publish(a, 1);
}

static int run_item(const assembly* a, const parz_omp_unit* u, parz_error* e) {
  parz_chunk_dest d;
  switch ((int)u->kind) {
    case ITEM_FILL:
      parz_box_chunk_dest(a->grid, a->box, a->fills[u->chunk], a->dst, &d);
      parz_chunk_dest_fill(&a->chunk, &d, a->fill);
      return PARZ_OK;
    case ITEM_COPY: {
      const parz_chunk_ref* c = &a->chunks[u->chunk];
      parz_chunk_dest_copy(&a->chunk, a->packed + c->at, c->raw == PARZ_STORED_RAW_SWAPPED,
                           &a->dests[u->chunk]);
      return PARZ_OK;
    }
    default: return parz_omp_run_unit(u, a->views, a->dests, e);
  }
}

/* Every thread's part: items taken one at a time in queue order, waiting for the first thread
 * where it has not appended them yet; those past a failure are skipped. */
static void take_items(assembly* a) {
  parz_error e;
  for (;;) {
    size_t u, published;
    int all_in, rc;
#ifdef _OPENMP
#pragma omp atomic capture
#endif
    u = a->next++;
    for (;;) {
      /* all_in first: once it is set, the count read after it is the last */
#ifdef _OPENMP
#pragma omp atomic read
#endif
      all_in = a->all_in;
#ifdef _OPENMP
#pragma omp flush
#pragma omp atomic read
#endif
      published = a->published;
      if (u < published || all_in)
        break;
      sched_yield(); /* the first thread is reading: leave it the processor */
    }
    if (u >= published)
      return;
#ifdef _OPENMP
#pragma omp flush
#endif
    if (parz_omp_first_error_skip(&a->first, u))
      continue;
    if ((rc = run_item(a, &a->items[u], &e)) != PARZ_OK)
      parz_omp_first_error_record(&a->first, u, rc, &e);
  }
}

static void assemble(assembly* a) {
#ifdef _OPENMP
#pragma omp parallel num_threads(a->nthreads)
#endif
  {
    parz_error e;
    int64_t p;
    /* no barrier: a thread writing into a page not yet populated faults it */
    parz_omp_populate_share(a->dst, a->dst_bytes);
#ifdef _OPENMP
    if (omp_get_thread_num() == 0)
#endif
      take_in_chunks(a);
    take_items(a);
    /* every value decoded before any exception overwrites one */
#ifdef _OPENMP
#pragma omp barrier
#pragma omp for schedule(dynamic, 1)
#endif
    for (p = 0; p < (int64_t)a->npatches; p++) {
      int rc;
      if (a->first.index != UINT64_MAX) /* read after the barrier */
        continue;
      /* numbered after every item */
      if ((rc = parz_omp_run_unit(&a->patches[p], a->views, a->dests, &e)) != PARZ_OK)
        parz_omp_first_error_record(&a->first, a->cap + (uint64_t)p, rc, &e);
    }
  }
}

int parz_omp_assemble_reading(const parz_chunk_grid* grid, const parz_box* box, void* packed,
                              size_t packed_bytes, size_t n, parz_chunk_ref* chunks,
                              parz_chunk_reader read, void* ctx, const void* fill, void* dst,
                              int threads, parz_keep* keep, size_t* failed, parz_error* err) {
  static const char who[] = "parz_omp_assemble";
  const size_t size = parz_type_size(grid ? grid->type : PARZ_FLOAT);
  parz_box whole;
  uint64_t total, chunk_values;
  size_t nfills = 0, i, meets = 0;
  assembly a;
  int rc;
  if (!grid || !dst || (n && (!chunks || !packed)))
    return parz_fail(err, PARZ_ERR_ARG, "%s: NULL argument", who);
  if ((rc = parz_grid_check(grid, box, &total, &chunk_values, who, err)) != PARZ_OK)
    return rc;
  memset(&a, 0, sizeof a);
  if ((rc = parz_grid_chunk_array(grid, &a.chunk, err)) != PARZ_OK)
    return rc;
  if (!box) {
    memset(&whole, 0, sizeof whole);
    memcpy(whole.count, grid->dims, sizeof whole.count);
    box = &whole;
  }
  a.grid = grid;
  a.box = box;
  a.packed = (const unsigned char*)packed;
  a.packed_bytes = packed_bytes;
  a.n = n;
  a.chunks = chunks;
  a.read = read;
  a.ctx = ctx;
  a.keep = keep;
  a.fill = fill;
  a.dst = dst;
  a.dst_bytes = (size_t)total * size;
  a.empty = total == 0;
  parz_omp_first_error_init(&a.first);
  if (fill && total && (rc = find_fills(grid, box, n, chunks, &a.fills, &nfills, err)) != PARZ_OK)
    return rc;
  /* a team only where the box holds enough values to pay for it */
  a.nthreads = total * size >= PARZ_OMP_DECODE_MIN_BYTES ? parz_omp_team_size(threads) : 1;
  for (i = 0; i < n && total; i++)
    meets += parz_box_meets_chunk(grid, box, chunks[i].origin) != 0;
  a.want = parz_omp_unit_share(chunk_values * size,
                               (uint64_t)(meets ? meets : 1) * chunk_values * size, a.nthreads, 0);
  /* room for the fills, every item a chunk may get (team.h), and the place of a failing chunk */
  a.cap = nfills + meets * (size_t)(4 * a.want) + 1;
  a.views = (parz_chunk_view*)calloc(n ? n : 1, sizeof *a.views);
  a.dests = (parz_chunk_dest*)calloc(n ? n : 1, sizeof *a.dests);
  a.offsets = (void**)calloc(n ? n : 1, sizeof *a.offsets);
  a.items = (parz_omp_unit*)malloc(a.cap * sizeof *a.items);
  a.patches = (parz_omp_unit*)malloc((n ? n : 1) * (size_t)a.nthreads * sizeof *a.patches);
  if (!a.views || !a.dests || !a.offsets || !a.items || !a.patches) {
    rc = parz_fail(err, PARZ_ERR_NOMEM, "%s: no memory for %zu chunks", who, n);
    goto done;
  }
  for (i = 0; i < nfills; i++) {
    a.items[i].chunk = i;
    a.items[i].kind = ITEM_FILL;
  }
  a.appended = a.published = nfills;
  assemble(&a);
  rc = parz_omp_first_error_result(&a.first, err);
  if (rc != PARZ_OK && failed)
    *failed = a.first.index < a.cap ? a.items[a.first.index].chunk
                                    : a.patches[a.first.index - a.cap].chunk;
done:
  for (i = 0; a.offsets && i < n; i++)
    free(a.offsets[i]);
  free(a.offsets);
  free(a.views);
  free(a.dests);
  free(a.items);
  free(a.patches);
  free(a.fills);
  return rc;
}

int parz_omp_assemble(const parz_chunk_grid* grid, const parz_box* box, const void* packed,
                      size_t packed_bytes, size_t n, const parz_chunk_ref* chunks, const void* fill,
                      void* dst, int threads, size_t* failed, parz_error* err) {
  /* without a reader nothing is written through these: the chunks stay as given */
  return parz_omp_assemble_reading(grid, box, (void*)(uintptr_t)packed, packed_bytes, n,
                                   (parz_chunk_ref*)(uintptr_t)chunks, NULL, NULL, fill, dst,
                                   threads, NULL, failed, err);
}
