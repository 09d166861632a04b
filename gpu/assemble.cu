/* An array, or a box of it, in GPU memory from its stored chunks (parz_gpu_assemble): the GPU
 * half of reading a chunked dataset straight into device memory (plugin/dataset/parz_h5_device.h has the
 * HDF5 half).
 *
 * Through HDF5's filter path every chunk is decoded, then copied into the caller's host buffer,
 * which bounds a read at host copy speed whatever the decoder does. Here only the compressed
 * bytes cross PCIe, once, in one upload; the chunks decode in batches (one set of kernel launches
 * for many chunks, parz_gpu_decode_device_batch) into a staging area of at most ROUND_BYTES, and
 * a placement kernel moves each chunk's values that lie inside the box to their places. */
#include <stdio.h>
#include <string.h>

#include <vector>

#include "block_common.h"
#include "gpu_internal.h"

/* Decoded bytes staged per round (at least one chunk): bounds the extra device memory. */
#define ROUND_BYTES ((size_t)256 << 20)

struct place_args {
  unsigned rank;
  unsigned elem; /* 4 or 8 */
  unsigned long long chunk_elems;
  unsigned long long lo[PARZ_MAX_RANK];    /* the box's first element */
  unsigned long long count[PARZ_MAX_RANK]; /* and its extent */
  unsigned long long chunk_dims[PARZ_MAX_RANK];
};

/* Chunk blockIdx.y of a round (its values at dec + chunk * chunk_elems, its first element at
 * origins[chunk * rank ...]): every value inside the box goes to its place in dst, which holds
 * the box densely. Values past the array's extent are outside every box. */
__global__ void place_kernel(const place_args g, const unsigned char* __restrict__ dec,
                             const unsigned long long* __restrict__ origins, unsigned char* dst) {
  const unsigned long long c = blockIdx.y;
  const unsigned long long* o = origins + c * g.rank;
  const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long e = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
       e < g.chunk_elems; e += step) {
    unsigned long long rem = e, at = 0, stride = 1;
    bool inside = true;
    for (int k = (int)g.rank - 1; k >= 0; k--) {
      const unsigned long long q = parz_gpu_div(rem, g.chunk_dims[k]);
      /* below the box the difference wraps to a huge value: one comparison for both ends */
      const unsigned long long x = o[k] + (rem - q * g.chunk_dims[k]) - g.lo[k];
      rem = q;
      inside = inside && x < g.count[k];
      at += x * stride;
      stride *= g.count[k];
    }
    if (!inside)
      continue;
    const unsigned long long from = c * g.chunk_elems + e;
    if (g.elem == 8)
      ((unsigned long long*)dst)[at] = ((const unsigned long long*)dec)[from];
    else
      ((unsigned*)dst)[at] = ((const unsigned*)dec)[from];
  }
}

__global__ void fill_kernel(unsigned char* dst, unsigned long long n, unsigned long long value,
                            unsigned elem) {
  const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += step) {
    if (elem == 8)
      ((unsigned long long*)dst)[i] = value;
    else
      ((unsigned*)dst)[i] = (unsigned)value;
  }
}

extern "C" void* parz_gpu_staging(parz_gpu_context* ctx, size_t bytes, parz_error* err) {
  if (!ctx) {
    parz_fail(err, PARZ_ERR_ARG, "parz_gpu_staging: NULL context");
    return NULL;
  }
  return parz_gpu_reserve(&ctx->h_in, bytes ? bytes : 1, 1, err) == PARZ_OK ? ctx->h_in.ptr : NULL;
}

extern "C" int parz_gpu_assemble(parz_gpu_context* ctx, const parz_chunk_grid* grid,
                                 const parz_box* box, const void* packed, size_t packed_bytes,
                                 size_t n, const parz_chunk_ref* chunks, const void* fill,
                                 void* d_dst, void* stream, size_t* failed, parz_error* err) {
  return parz_gpu_assemble_rounds(ctx, grid, box, packed, packed_bytes, n, chunks, fill, d_dst,
                                  (cudaStream_t)stream, ROUND_BYTES, failed, err);
}

int parz_gpu_assemble_rounds(parz_gpu_context* ctx, const parz_chunk_grid* grid,
                             const parz_box* box, const void* packed, size_t packed_bytes, size_t n,
                             const parz_chunk_ref* chunks, const void* fill, void* d_dst,
                             cudaStream_t st, size_t round_bytes, size_t* failed, parz_error* err) {
  uint64_t total, chunk_elems;
  size_t i, r0;
  int rc;
  cudaError_t e;
  if (!ctx || !grid || !d_dst || (n && (!chunks || !packed)))
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_assemble: NULL argument");
  if ((rc = parz_grid_check(grid, box, &total, &chunk_elems, "parz_gpu_assemble", err)) != PARZ_OK)
    return rc;
  const size_t elem = parz_type_size(grid->type), chunk_bytes = (size_t)chunk_elems * elem;
  if ((uintptr_t)d_dst % elem)
    return parz_fail(err, PARZ_ERR_ARG, "parz_gpu_assemble: the array is not %zu-byte aligned",
                     elem);
  const unsigned char* host = (const unsigned char*)packed;
  std::vector<parz_chunk_view> views(n);
  for (i = 0; i < n; i++) {
    rc = chunks[i].raw == PARZ_STORED_RAW_SWAPPED
             ? parz_fail(err, PARZ_ERR_UNSUPPORTED,
                         "parz_gpu_assemble: chunk %zu holds values in the other byte order", i)
             : parz_chunk_ref_check(grid, host, packed_bytes, i, &chunks[i], &views[i],
                                    "parz_gpu_assemble", err);
    if (rc != PARZ_OK) {
      if (failed)
        *failed = i;
      return rc;
    }
  }
  if ((e = cudaSetDevice(ctx->device)) != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "selecting the device");

  place_args g;
  memset(&g, 0, sizeof g);
  g.rank = grid->rank;
  g.elem = (unsigned)elem;
  g.chunk_elems = chunk_elems;
  for (unsigned k = 0; k < grid->rank; k++) {
    g.lo[k] = box ? box->start[k] : 0;
    g.count[k] = box ? box->count[k] : grid->dims[k];
    g.chunk_dims[k] = grid->chunk_dims[k];
  }
  if (total == 0)
    return PARZ_OK; /* an empty box (the chunks were still checked) */
  parz_box whole;
  if (!box) {
    memset(&whole, 0, sizeof whole);
    memcpy(whole.count, grid->dims, sizeof whole.count);
    box = &whole;
  }
  std::vector<size_t> use; /* the chunks with values in the box, in the caller's order */
  for (i = 0; i < n; i++)
    if (parz_box_meets_chunk(grid, box, chunks[i].origin))
      use.push_back(i);
  const size_t nu = use.size();
  const size_t per_round = PARZ_MAX((size_t)1, round_bytes / chunk_bytes);
  const size_t round = PARZ_MIN(per_round, nu);
  const size_t slots = PARZ_MAX(round, (size_t)1);
  if ((rc = parz_gpu_reserve(&ctx->d_chunk, PARZ_MAX(packed_bytes, (size_t)1), 0, err)) !=
          PARZ_OK ||
      (rc = parz_gpu_reserve(&ctx->d_out, slots * chunk_bytes, 0, err)) != PARZ_OK ||
      (rc = parz_gpu_reserve(&ctx->d_places, PARZ_MAX(nu, (size_t)1) * grid->rank * 8, 0, err)) !=
          PARZ_OK)
    return rc;
  std::vector<unsigned long long> origins(nu * grid->rank);
  for (i = 0; i < nu; i++)
    memcpy(&origins[i * grid->rank], chunks[use[i]].origin, grid->rank * 8);
  unsigned char* d_packed = (unsigned char*)ctx->d_chunk.ptr;
  unsigned char* d_dec = (unsigned char*)ctx->d_out.ptr;
  e = nu ? cudaMemcpyAsync(d_packed, packed, packed_bytes, cudaMemcpyHostToDevice, st)
         : cudaSuccess;
  if (e == cudaSuccess && nu)
    e = cudaMemcpyAsync(ctx->d_places.ptr, origins.data(), origins.size() * 8,
                        cudaMemcpyHostToDevice, st);
  if (e == cudaSuccess && fill) {
    unsigned long long value = 0;
    memcpy(&value, fill, elem);
    fill_kernel<<<(unsigned)PARZ_MIN((total + 255) / 256, 65535ull), 256, 0, st>>>(
        (unsigned char*)d_dst, total, value, (unsigned)elem);
    e = cudaGetLastError();
  }
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "uploading the chunks");

  std::vector<parz_chunk_view> bv;
  std::vector<const void*> bsrc;
  std::vector<void*> bdst;
  std::vector<size_t> bidx;
  for (r0 = 0; r0 < nu; r0 += round) {
    const size_t m = PARZ_MIN(round, nu - r0);
    bv.clear();
    bsrc.clear();
    bdst.clear();
    bidx.clear();
    for (i = 0; i < m; i++) {
      const parz_chunk_ref* c = &chunks[use[r0 + i]];
      unsigned char* slot = d_dec + i * chunk_bytes;
      if (c->raw) {
        e = cudaMemcpyAsync(slot, d_packed + c->at, chunk_bytes, cudaMemcpyDeviceToDevice, st);
        if (e != cudaSuccess)
          return parz_gpu_cuda_fail(err, e, "placing an unfiltered chunk");
        continue;
      }
      bv.push_back(views[use[r0 + i]]);
      bsrc.push_back(d_packed + c->at);
      bdst.push_back(slot);
      bidx.push_back(use[r0 + i]);
    }
    size_t bad = SIZE_MAX;
    rc = parz_gpu_decode_device_batch(ctx, bv.size(), bv.data(), bsrc.data(), bdst.data(), st, &bad,
                                      err);
    if (rc != PARZ_OK) {
      /* set for every fault found in a chunk (stream, checksum), not for CUDA failures */
      if (failed && bad < bidx.size())
        *failed = bidx[bad];
      return rc;
    }
    /* the next round's decode into the same slots follows this placement in stream order */
    const unsigned long long ctas =
        PARZ_MIN((unsigned long long)(chunk_elems + 255) / 256, 4096ull);
    place_kernel<<<dim3((unsigned)ctas, (unsigned)m), 256, 0, st>>>(
        g, d_dec, (const unsigned long long*)ctx->d_places.ptr + r0 * grid->rank,
        (unsigned char*)d_dst);
    e = cudaGetLastError();
    if (e != cudaSuccess)
      return parz_gpu_cuda_fail(err, e, "placing the decoded chunks");
  }
  e = cudaStreamSynchronize(st);
  return e == cudaSuccess ? PARZ_OK : parz_gpu_cuda_fail(err, e, "assembling the array");
}
