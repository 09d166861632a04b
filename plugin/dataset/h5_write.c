/* parz_h5_write (parz_h5_write.h) and what the device writer shares with it: the selected box
 * checked against the dataset's chunks, and encoded chunks stored with H5Dwrite_chunk. On the
 * CPU each chunk is encoded from the caller's array in place (through its strides), edge chunks
 * from a padded copy; where the policy sends the write to the GPU, the box goes up through
 * pinned memory and parz_gpu_encode_box encodes it in batches. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "h5_api.h"
#include "h5_chunks.h"
#include "h5_index.h"
#include "parz_h5_write.h"
#include "parz_omp.h"

#define PARZ_H5_EXPORT __attribute__((visibility("default")))

static const char who[] = "parz_h5_write";

/* Whether the box holds a chunk that crosses the dataset's extent. */
static int box_has_partial_chunk(const parz_chunk_grid* g, const parz_box* box) {
  unsigned k;
  for (k = 0; k < g->rank; k++)
    if (box->count[k] && box->start[k] + box->count[k] == g->dims[k] &&
        g->dims[k] % g->chunk_dims[k])
      return 1;
  return 0;
}

int parz_h5_prepare_write(hid_t dset, hid_t file_space, size_t src_bytes, const char* name,
                          parz_h5_dataset* d, parz_box* box, parz_error* err) {
  const parz_h5_api* h5;
  char why[sizeof err->message];
  uint64_t total;
  unsigned k;
  int rc;
  if ((rc = parz_h5_api_readers(name, why, sizeof why)) != PARZ_OK)
    return parz_fail(err, rc, "%s", why);
  h5 = parz_h5();
  if ((rc = parz_h5_describe(dset, name, d, err)) != PARZ_OK ||
      (rc = parz_h5_selected_box(file_space, &d->grid, name, box, err)) != PARZ_OK)
    return rc;
  total = parz_h5_box_values(&d->grid, box);
  if (total == 0)
    return PARZ_OK;
  for (k = 0; k < d->grid.rank; k++) {
    const uint64_t end = box->start[k] + box->count[k], c = d->grid.chunk_dims[k];
    if (box->start[k] % c || (end % c && end != d->grid.dims[k]))
      return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                       "%s: the selection [%llu, %llu) of dimension %u cuts its chunks of %llu; "
                       "select whole chunks, or use H5Dwrite",
                       name, (unsigned long long)box->start[k], (unsigned long long)end, k,
                       (unsigned long long)c);
  }
  if (total > src_bytes / parz_type_size(d->grid.type))
    return parz_fail(err, PARZ_ERR_BUFFER,
                     "%s: the selection holds %llu values of %zu bytes, the buffer %zu bytes", name,
                     (unsigned long long)total, parz_type_size(d->grid.type), src_bytes);
  if (box_has_partial_chunk(&d->grid, box)) {
    hid_t dcpl = h5->H5Dget_create_plist(dset);
    unsigned opts = 0;
    const int got = dcpl >= 0 && h5->H5Pget_chunk_opts(dcpl, &opts) >= 0;
    if (dcpl >= 0)
      h5->H5Pclose(dcpl);
    if (!got)
      return parz_fail(err, PARZ_ERR_ARG, "%s: HDF5 cannot give the dataset's chunk options", name);
    if (opts & H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS)
      return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                       "%s: the dataset stores partial edge chunks unfiltered "
                       "(H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS); use H5Dwrite",
                       name);
  }
  return PARZ_OK;
}

/* Where the chunk at `origin` stands among the box's chunks in C order; its count in *n. */
static uint64_t box_chunk_index(const parz_chunk_grid* g, const parz_box* box,
                                const uint64_t* origin, uint64_t* n) {
  uint64_t at = 0, count = 1;
  unsigned k;
  for (k = 0; k < g->rank; k++) {
    const uint64_t c = g->chunk_dims[k], first = box->start[k] / c;
    const uint64_t along = (box->start[k] + box->count[k] + c - 1) / c - first;
    at = at * along + (origin[k] / c - first);
    count *= along;
  }
  *n = count;
  return at;
}

/* The origin of the box's chunk `at` in C order (box_chunk_index reversed). */
static void box_chunk_origin(const parz_chunk_grid* g, const parz_box* box, uint64_t at,
                             uint64_t* origin) {
  unsigned k = g->rank;
  while (k-- > 0) {
    const uint64_t c = g->chunk_dims[k], first = box->start[k] / c;
    const uint64_t along = (box->start[k] + box->count[k] + c - 1) / c - first;
    origin[k] = (first + at % along) * c;
    at /= along;
  }
}

void parz_h5_chunk_writer_init(parz_h5_chunk_writer* w, hid_t dset, const parz_chunk_grid* g,
                               const parz_box* box, const char* who) {
  w->dset = dset;
  w->rank = g->rank;
  w->who = who;
  w->grid = g;
  w->box = box;
  w->stored = 0;
  w->torn = 0;
}

int parz_h5_write_chunks(void* writer, size_t n, const parz_chunk_ref* refs, const void* packed,
                         parz_error* err) {
  parz_h5_chunk_writer* w = (parz_h5_chunk_writer*)writer;
  const parz_h5_api* h5 = parz_h5();
  hsize_t offset[H5S_MAX_RANK];
  char where[PARZ_MAX_RANK * 21 + 3];
  uint64_t at, total;
  size_t i;
  unsigned k;
  for (i = 0; i < n; i++) {
    /* Both encoders hand the chunks over in the box's C order, each pass from its first chunk,
     * so that the chunks stored are always the box's first w->stored: a chunk out of that order
     * would break what a failure reports, and is refused before it is stored. */
    at = box_chunk_index(w->grid, w->box, refs[i].origin, &total);
    parz_h5_origin_text(w->rank, refs[i].origin, where, sizeof where);
    if (at > w->stored || at >= total)
      return parz_fail(err, PARZ_ERR_ARG,
                       "%s: the chunk at %s came out of order (chunk %llu of %llu, %llu stored)",
                       w->who, where, (unsigned long long)at, (unsigned long long)total,
                       (unsigned long long)w->stored);
    for (k = 0; k < w->rank; k++)
      offset[k] = refs[i].origin[k];
    if (h5->H5Dwrite_chunk(w->dset, H5P_DEFAULT, 0, offset, refs[i].bytes,
                           (const unsigned char*)packed + refs[i].at) < 0) {
      w->torn = at == w->stored;
      return parz_fail(err, PARZ_ERR_ARG, "%s: HDF5 cannot write the chunk at %s", w->who, where);
    }
    if (at == w->stored) {
      w->stored++;
      w->torn = 0;
    }
  }
  return PARZ_OK;
}

int parz_h5_write_failed(const parz_h5_chunk_writer* w, int rc, parz_error* err) {
  char first[PARZ_MAX_RANK * 21 + 3], last[sizeof first], why[sizeof err->message];
  uint64_t origin[PARZ_MAX_RANK] = {0}, total;
  const size_t skip = strlen(w->who);
  if (rc == PARZ_OK || !err)
    return rc;
  /* the message without the writer's name, which starts the new one */
  snprintf(why, sizeof why, "%s",
           strncmp(err->message, w->who, skip) == 0 && strncmp(err->message + skip, ": ", 2) == 0
               ? err->message + skip + 2
               : err->message);
  box_chunk_index(w->grid, w->box, w->box->start, &total);
  box_chunk_origin(w->grid, w->box, w->stored, origin);
  parz_h5_origin_text(w->rank, origin, first, sizeof first);
  if (w->stored == 0 && !w->torn)
    return parz_fail(err, rc, "%s: no chunk written, the dataset is as it was: %s", w->who, why);
  if (w->stored == 0)
    return parz_fail(err, rc,
                     "%s: no chunk written, the chunk at %s as HDF5 left it, the others as they "
                     "were: %s",
                     w->who, first, why);
  box_chunk_origin(w->grid, w->box, w->stored - 1, origin);
  parz_h5_origin_text(w->rank, origin, last, sizeof last);
  return parz_fail(err, rc,
                   "%s: %llu of the selection's %llu chunks written (C order, through %s), the "
                   "chunk at %s%s and the %llu after it not: %s",
                   w->who, (unsigned long long)w->stored, (unsigned long long)total, last, first,
                   w->torn ? " (as HDF5 left it)" : "", (unsigned long long)(total - w->stored - 1),
                   why);
}

/* The compressed chunk, from one buffer kept from chunk to chunk and grown only when a chunk
 * needs more: the encoder asks for a chunk's own size (or its data's bound, on one thread). */
struct chunk_out {
  unsigned char* ptr;
  size_t bytes;
};

static void* chunk_out_grow(void* arg, size_t bytes) {
  struct chunk_out* o = (struct chunk_out*)arg;
  if (bytes > o->bytes) {
    free(o->ptr);
    o->ptr = (unsigned char*)malloc(bytes);
    o->bytes = o->ptr ? bytes : 0;
  }
  return o->ptr;
}

/* The box encoded on the CPU, one chunk after another (each on `threads` threads), and stored. A
 * chunk at the dataset's edge is gathered into a padded copy first (allocated at the first). */
int parz_h5_write_on_cpu(parz_h5_chunk_writer* w, const parz_h5_dataset* d, const void* src,
                         int threads, parz_error* err) {
  const parz_chunk_grid* g = &d->grid;
  const parz_filter_config* f = &d->filter;
  const size_t raw = parz_array_count(&f->chunk) * parz_type_size(g->type);
  struct chunk_out out = {NULL, 0};
  unsigned char* pad = NULL;
  parz_chunk_config config = f->config;
  parz_chunk_ref ref;
  unsigned k;
  int rc = PARZ_OK;
  if (threads <= 0)
    threads = parz_dispatch_cpu_threads();
  /* the write's chunks share the blocks of one keep (without memory for it, each chunk
   * allocates its own) */
  config.keep = parz_keep_new(0);
  memset(&ref, 0, sizeof ref);
  parz_box_first_chunk(g, w->box, ref.origin);
  do {
    parz_chunk_dest dest;
    parz_array a = f->chunk;
    int edge = 0;
    parz_box_chunk_dest(g, w->box, ref.origin, (void*)src, &dest);
    for (k = 0; k < a.dims; k++) {
      a.stride[k] = dest.stride[k];
      edge = edge || dest.hi[k] < a.shape[k];
    }
    if (edge && !pad && !(pad = (unsigned char*)malloc(raw ? raw : 1))) {
      rc = parz_fail(err, PARZ_ERR_NOMEM, "%s: no memory for an edge chunk of %zu bytes", w->who,
                     raw);
      break;
    }
    if (edge) {
      parz_chunk_dest_gather(&f->chunk, &dest, d->fills ? d->fill : NULL, pad);
      rc = parz_omp_chunk_encode_alloc(&f->chunk, pad, &config, chunk_out_grow, &out, &ref.bytes,
                                       threads, err);
    } else {
      rc = parz_omp_chunk_encode_alloc(&a, dest.data, &config, chunk_out_grow, &out, &ref.bytes,
                                       threads, err);
    }
    if (rc != PARZ_OK || (rc = parz_h5_write_chunks(w, 1, &ref, out.ptr, err)) != PARZ_OK)
      break;
  } while (parz_box_next_chunk(g, w->box, ref.origin));
  parz_keep_free(config.keep);
  free(pad);
  free(out.ptr);
  return rc;
}

/* A write as write_on_gpu takes it. */
struct gpu_write {
  parz_h5_chunk_writer* w;
  const parz_h5_dataset* d;
  const void* src;
  size_t bytes;
};

#ifdef PARZ_HAVE_CUDA
/* The box up into the context's device memory, then encoded there and stored. */
static int write_on_gpu(parz_gpu_context* ctx, void* arg, parz_error* err) {
  struct gpu_write* r = (struct gpu_write*)arg;
  const parz_h5_dataset* d = r->d;
  void* d_box = parz_gpu_result(ctx, r->bytes, err);
  int rc;
  if (!d_box)
    return PARZ_ERR_DEVICE;
  if ((rc = parz_gpu_upload(ctx, r->src, d_box, r->bytes, NULL, err)) != PARZ_OK)
    return rc;
  return parz_gpu_encode_box(ctx, &d->grid, r->w->box, d_box, d->fills ? d->fill : NULL,
                             &d->filter.config, NULL, parz_h5_write_chunks, r->w, err);
}
#endif

PARZ_H5_EXPORT int parz_h5_write(hid_t dset, hid_t file_space, const void* src, size_t src_bytes,
                                 int threads, parz_error* err) {
  parz_h5_dataset d;
  static const parz_gpu_step step = {"encoding", "write", "encoding"};
  parz_box box;
  parz_h5_chunk_writer w;
  parz_gpu_work gpu = NULL;
  size_t bytes;
  int rc, policy_threads;
  if (!src && src_bytes)
    return parz_fail(err, PARZ_ERR_ARG, "%s: NULL buffer", who);
  if ((rc = parz_h5_prepare_write(dset, file_space, src_bytes, who, &d, &box, err)) != PARZ_OK ||
      parz_h5_box_values(&d.grid, &box) == 0)
    return rc;
  parz_h5_chunk_writer_init(&w, dset, &d.grid, &box, who);
  bytes = (size_t)parz_h5_box_values(&d.grid, &box) * parz_type_size(d.grid.type);
#ifdef PARZ_HAVE_CUDA
  gpu = write_on_gpu;
#endif
  {
    struct gpu_write r = {&w, &d, src, bytes};
    rc = parz_dispatch_gpu_first(&step, bytes, gpu, &r, &policy_threads, err);
  }
  /* PARZ_ERR_UNSUPPORTED also where the GPU encoder did not take a chunk (NaN of more bit
   * patterns than its mask's set holds): the box again on the CPU, chunks written so far
   * rewritten with the same bytes */
  if (rc != PARZ_ERR_UNSUPPORTED)
    return parz_h5_write_failed(&w, rc, err);
  if (threads <= 0)
    threads = policy_threads;
  return parz_h5_write_failed(&w, parz_h5_write_on_cpu(&w, &d, src, threads, err), err);
}
