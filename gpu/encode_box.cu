/* The chunks of a box of a chunked array in GPU memory, encoded (parz_gpu_encode_box): the GPU
 * half of writing a dataset from device memory (plugin/dataset/parz_h5_device.h has the HDF5 half), and
 * the reverse of parz_gpu_assemble.
 *
 * Only compressed bytes cross PCIe. Per round of at most ROUND_BYTES of values, on the stream:
 *   pad     the round's chunks at the array's edge gathered into full-size chunks, their places
 *           past the extent set to the fill value (gather_kernel, one launch);
 *   encode  every chunk of the round in one batch (parz_gpu_encode_placed): the others read
 *           straight from the box through its strides; once their sizes are known the chunks
 *           are placed one after another, each at a multiple of 8 bytes;
 *   down    the round's chunks in one copy into pinned memory, then handed to the sink. */
#include <string.h>

#include <vector>

#include "block_common.h" /* PARZ_MIN, PARZ_MAX */
#include "gpu_internal.h"

/* Values encoded per round (at least one chunk): bounds the extra device memory, the pad
 * scratch and the chunks, at about twice this. */
#define ROUND_BYTES ((size_t)256 << 20)

/* An edge chunk: its values inside the array (x[k] < hi[k] in every dimension k of the chunk's
 * array, C order) at src through `stride` (elements), gathered into dst, contiguous. */
struct gather_chunk {
  const unsigned char* src;
  long long stride[4];
  unsigned long long hi[4];
  unsigned char* dst;
};

struct gather_shape {
  unsigned dims, elem;
  unsigned long long shape[4];
  unsigned long long values; /* of a chunk */
  unsigned long long fill;   /* the fill value's bytes */
};

/* Chunk blockIdx.y: every value of the full-size chunk, from the box or the fill value. */
__global__ void gather_kernel(const gather_shape g, const gather_chunk* __restrict__ chunks) {
  const gather_chunk& c = chunks[blockIdx.y];
  const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long e = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
       e < g.values; e += step) {
    unsigned long long rem = e;
    long long at = 0;
    bool inside = true;
    for (int k = (int)g.dims - 1; k >= 0; k--) {
      const unsigned long long q = parz_gpu_div(rem, g.shape[k]);
      const unsigned long long x = rem - q * g.shape[k];
      rem = q;
      inside = inside && x < c.hi[k];
      at += (long long)x * c.stride[k];
    }
    if (g.elem == 8)
      ((unsigned long long*)c.dst)[e] = inside ? ((const unsigned long long*)c.src)[at] : g.fill;
    else
      ((unsigned*)c.dst)[e] = inside ? ((const unsigned*)c.src)[at] : (unsigned)g.fill;
  }
}

/* A round's chunks placed one after another in the context's d_chunk. */
struct box_place {
  parz_gpu_context* ctx;
  parz_chunk_ref* refs;
  size_t bytes; /* of the round's chunks, each rounded up to 8 */
};

static int place_packed(void* arg, size_t n, const size_t* sizes, void** d_chunks, size_t* failed,
                        parz_error* err) {
  box_place* p = (box_place*)arg;
  size_t at = 0, i;
  int rc;
  (void)failed;
  for (i = 0; i < n; i++) {
    p->refs[i].at = at;
    p->refs[i].bytes = sizes[i];
    at += (sizes[i] + 7) & ~(size_t)7;
  }
  if ((rc = parz_gpu_reserve_slack(&p->ctx->d_chunk, at ? at : 8, 0, err)) != PARZ_OK)
    return rc;
  for (i = 0; i < n; i++)
    d_chunks[i] = (unsigned char*)p->ctx->d_chunk.ptr + p->refs[i].at;
  p->bytes = at;
  return PARZ_OK;
}

extern "C" int parz_gpu_encode_box(parz_gpu_context* ctx, const parz_chunk_grid* grid,
                                   const parz_box* box, const void* d_box, const void* fill,
                                   const parz_chunk_config* cfg, void* stream,
                                   parz_gpu_chunk_sink sink, void* sink_arg, parz_error* err) {
  static const char who[] = "parz_gpu_encode_box";
  const cudaStream_t st = (cudaStream_t)stream;
  parz_box whole;
  parz_array a;
  uint64_t total, chunk_values, origin[PARZ_MAX_RANK];
  cudaError_t e;
  int rc;
  if (!ctx || !grid || !cfg || !sink)
    return parz_fail(err, PARZ_ERR_ARG, "%s: NULL argument", who);
  if ((rc = parz_grid_check(grid, box, &total, &chunk_values, who, err)) != PARZ_OK ||
      (rc = parz_grid_chunk_array(grid, &a, err)) != PARZ_OK)
    return rc;
  if (!box) {
    memset(&whole, 0, sizeof whole);
    memcpy(whole.count, grid->dims, sizeof whole.count);
    box = &whole;
  }
  for (unsigned k = 0; k < grid->rank; k++) {
    const uint64_t end = box->start[k] + box->count[k];
    if (box->start[k] % grid->chunk_dims[k] || (end % grid->chunk_dims[k] && end != grid->dims[k]))
      return parz_fail(err, PARZ_ERR_ARG,
                       "%s: the box [%llu, %llu) of dimension %u cuts its chunks of %llu", who,
                       (unsigned long long)box->start[k], (unsigned long long)end, k,
                       (unsigned long long)grid->chunk_dims[k]);
  }
  if (total == 0)
    return PARZ_OK;
  const size_t elem = parz_type_size(grid->type), chunk_bytes = (size_t)chunk_values * elem;
  if (!d_box || (uintptr_t)d_box % elem)
    return parz_fail(err, PARZ_ERR_ARG, "%s: the box is NULL or not %zu-byte aligned", who, elem);
  if ((e = cudaSetDevice(ctx->device)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "selecting the device");

  gather_shape g;
  memset(&g, 0, sizeof g);
  g.dims = a.dims;
  g.elem = (unsigned)elem;
  g.values = chunk_values;
  for (unsigned k = 0; k < a.dims; k++)
    g.shape[k] = a.shape[k];
  if (fill)
    memcpy(&g.fill, fill, elem);

  /* at most 65535 chunks: one launch's grid.y */
  const size_t round = PARZ_MIN(PARZ_MAX((size_t)1, ROUND_BYTES / chunk_bytes), (size_t)65535);
  std::vector<parz_chunk_dest> dests;
  std::vector<parz_array> arrays;
  std::vector<const void*> data;
  std::vector<parz_chunk_ref> refs;
  std::vector<gather_chunk> edges;
  std::vector<size_t> sizes;
  parz_box_first_chunk(grid, box, origin);
  for (int more = 1; more;) {
    /* the round's chunks: where each lies in the box, and which cross the array's edge */
    size_t n = 0, nedges = 0;
    dests.clear();
    refs.clear();
    while (more && n < round) {
      parz_chunk_dest d;
      parz_chunk_ref r;
      parz_box_chunk_dest(grid, box, origin, (void*)d_box, &d);
      for (unsigned k = 0; k < a.dims; k++)
        if (d.hi[k] < a.shape[k]) {
          nedges++;
          break;
        }
      memset(&r, 0, sizeof r);
      memcpy(r.origin, origin, grid->rank * sizeof *origin);
      dests.push_back(d);
      refs.push_back(r);
      n++;
      more = parz_box_next_chunk(grid, box, origin);
    }
    if (nedges &&
        ((rc = parz_gpu_reserve(&ctx->d_out, nedges * chunk_bytes, 0, err)) != PARZ_OK ||
         (rc = parz_gpu_reserve(&ctx->d_places, nedges * sizeof(gather_chunk), 0, err)) != PARZ_OK))
      return rc;
    /* inner chunks read through the box's strides, edge chunks from the pad scratch */
    arrays.assign(n, a);
    data.resize(n);
    edges.clear();
    for (size_t i = 0; i < n; i++) {
      const parz_chunk_dest& d = dests[i];
      bool edge = false;
      for (unsigned k = 0; k < a.dims; k++) {
        arrays[i].stride[k] = d.stride[k];
        edge = edge || d.hi[k] < a.shape[k];
      }
      data[i] = d.data;
      if (!edge)
        continue;
      gather_chunk c;
      memset(&c, 0, sizeof c);
      c.src = (const unsigned char*)d.data;
      for (unsigned k = 0; k < a.dims; k++) {
        c.stride[k] = (long long)d.stride[k];
        c.hi[k] = d.hi[k];
      }
      c.dst = (unsigned char*)ctx->d_out.ptr + edges.size() * chunk_bytes;
      edges.push_back(c);
      memset(arrays[i].stride, 0, sizeof arrays[i].stride);
      data[i] = c.dst;
    }
    if (nedges) {
      e = cudaMemcpyAsync(ctx->d_places.ptr, edges.data(), nedges * sizeof(gather_chunk),
                          cudaMemcpyHostToDevice, st);
      if (e == cudaSuccess) {
        const unsigned long long ctas = PARZ_MIN((chunk_values + 255) / 256, 4096ull);
        gather_kernel<<<dim3((unsigned)ctas, (unsigned)nedges), 256, 0, st>>>(
            g, (const gather_chunk*)ctx->d_places.ptr);
        e = cudaGetLastError();
      }
      if (e != cudaSuccess)
        return parz_gpu_cuda_fail(err, e, "padding the chunks at the array's edge");
    }
    sizes.resize(n);
    box_place place = {ctx, refs.data(), 0};
    if ((rc = parz_gpu_encode_placed(ctx, n, arrays.data(), data.data(), cfg, place_packed, &place,
                                     sizes.data(), st, NULL, err)) != PARZ_OK ||
        (rc = parz_gpu_reserve_slack(&ctx->h_out, place.bytes ? place.bytes : 8, 1, err)) !=
            PARZ_OK)
      return rc;
    e = cudaMemcpyAsync(ctx->h_out.ptr, ctx->d_chunk.ptr, place.bytes, cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess)
      e = cudaStreamSynchronize(st);
    if (e != cudaSuccess)
      return parz_gpu_cuda_fail(err, e, "downloading the chunks");
    if ((rc = sink(sink_arg, n, refs.data(), ctx->h_out.ptr, err)) != PARZ_OK)
      return rc;
  }
  return PARZ_OK;
}
