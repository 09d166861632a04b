/* The error-bounded codec's GPU encoder: the kernels of bounded_encode.cuh's steps and the driver
 * that runs them, chunk after chunk, and places the chunks (gpu_codecs.h, encode_chunks). Each
 * chunk is built in buffers of its own from the stream's allocator; the host waits for the
 * scan's findings, the symbol counts, the segments' bits and the checksums, each a few bytes or
 * a codebook's counts. Once every chunk's size is known, `place` gives each its place and its
 * head and payload are copied there. */
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <cub/device/device_scan.cuh>

#include "bounded_encode.cuh"
#include "bounded_gpu.h"
#include "gpu_codecs.h"

#define THREADS 256u
#define SEG_THREADS 64u
/* Values per thread of the holes' compaction. */
#define HOLE_RANGE 1024u

static unsigned blocks_for(unsigned long long units, unsigned threads) {
  const unsigned long long b = (units + threads - 1) / threads;
  return b ? (unsigned)b : 1u;
}

/* ---------------- kernels ---------------- */

/* The values of a strided array (element strides, C order) into a contiguous copy. */
struct gather_args {
  const unsigned char* src;
  unsigned char* dst;
  unsigned long long n, shape[4];
  long long stride[4];
  unsigned dims, size;
};

__global__ void gather_kernel(gather_args g) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < g.n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    unsigned long long r = i;
    long long off = 0;
    for (int k = (int)g.dims - 1; k >= 0; k--) {
      off += (long long)(r % g.shape[k]) * g.stride[k];
      r /= g.shape[k];
    }
    memcpy(g.dst + i * g.size, g.src + off * (long long)g.size, g.size);
  }
}

/* stats: [0] the largest finite magnitude's bits (a double >= 0 orders as its bits), [1] values
 * not finite, [2] NaN, [3] fill values. */
__global__ void scan_kernel(parz_gpu_bnd b, int fill, uint64_t fill_bits,
                            unsigned long long* stats) {
  parz_gpu_bnd_scan s = {0, 0, 0, 0};
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < b.n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    parz_gpu_bnd_scan_value(b, i, fill, fill_bits, &s);
  for (unsigned d = 16; d > 0; d >>= 1) {
    s.top = fmax(s.top, __shfl_down_sync(0xffffffffu, s.top, d));
    s.nonfinite += __shfl_down_sync(0xffffffffu, s.nonfinite, d);
    s.nan += __shfl_down_sync(0xffffffffu, s.nan, d);
    s.fill += __shfl_down_sync(0xffffffffu, s.fill, d);
  }
  if ((threadIdx.x & 31u) == 0) {
    atomicMax(stats, (unsigned long long)__double_as_longlong(s.top));
    if (s.nonfinite)
      atomicAdd(stats + 1, s.nonfinite);
    if (s.nan)
      atomicAdd(stats + 2, s.nan);
    if (s.fill)
      atomicAdd(stats + 3, s.fill);
  }
}

__global__ void quantize_kernel(parz_gpu_bnd b) {
  const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < b.n)
    parz_gpu_bnd_quantize(b, i);
}

/* The holes' positions in order: a count per range of HOLE_RANGE values, their running sum,
 * then each range's positions from its first. */
__global__ void hole_count_kernel(parz_gpu_bnd b, unsigned long long ranges,
                                  unsigned long long* counts) {
  const unsigned long long r = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (r >= ranges)
    return;
  const unsigned long long a = r * HOLE_RANGE, e = a + HOLE_RANGE < b.n ? a + HOLE_RANGE : b.n;
  unsigned long long c = 0;
  for (unsigned long long i = a; i < e; i++)
    c += b.hole[i] != PARZ_BOUNDED_KNOWN;
  counts[r] = c;
}

__global__ void hole_write_kernel(parz_gpu_bnd b, unsigned long long ranges,
                                  const unsigned long long* first, unsigned long long* pos,
                                  uint64_t* bits) {
  const unsigned long long r = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (r >= ranges)
    return;
  const unsigned long long a = r * HOLE_RANGE, e = a + HOLE_RANGE < b.n ? a + HOLE_RANGE : b.n;
  unsigned long long at = first[r];
  for (unsigned long long i = a; i < e; i++)
    if (b.hole[i] != PARZ_BOUNDED_KNOWN) {
      pos[at] = i;
      if (bits)
        parz_gpu_bnd_value(b, i, &bits[at]);
      at++;
    }
}

/* Lorenzo's holes, one thread, in order. */
__global__ void lorenzo_holes_kernel(parz_gpu_bnd b, const unsigned long long* pos,
                                     unsigned long long count) {
  for (unsigned long long k = 0; k < count; k++)
    parz_gpu_bnd_lorenzo_hole(b, pos[k]);
}

__global__ void lorenzo_code_kernel(parz_gpu_bnd b) {
  const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < b.n)
    parz_gpu_bnd_lorenzo_code(b, i);
}

__global__ void pass_kernel(parz_gpu_bnd b, parz_bounded_pass p, int cubic,
                            unsigned long long count) {
  const unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (t < count)
    parz_gpu_bnd_pass_value(b, p, cubic, t);
}

/* The symbols of a CTA's segments counted in shared memory where most fall
 * (parz_gpu_bnd_shared_entry), then added to the chunk's counts: a global atomic per token on
 * the few symbols that most tokens are would make them wait for each other. */
__global__ void count_kernel(parz_gpu_bnd b) {
  __shared__ unsigned long long sh[2 * PARZ_GPU_BND_SHARED];
  for (unsigned e = threadIdx.x; e < 2 * PARZ_GPU_BND_SHARED; e += blockDim.x)
    sh[e] = 0;
  __syncthreads();
  const unsigned long long s = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  unsigned long long* counts[2] = {b.plain, b.runs};
  if (s < b.nseg)
    parz_gpu_bnd_count(b, s, [&](int c, uint32_t sym, unsigned long long v) {
      const int e = parz_gpu_bnd_shared_entry(sym);
      if (e >= 0)
        atomicAdd(&sh[c * PARZ_GPU_BND_SHARED + (unsigned)e], v);
      else
        atomicAdd(counts[c] + sym, v);
    });
  __syncthreads();
  for (unsigned e = threadIdx.x; e < 2 * PARZ_GPU_BND_SHARED; e += blockDim.x)
    if (sh[e])
      atomicAdd(
          counts[e / PARZ_GPU_BND_SHARED] + parz_gpu_bnd_shared_symbol(e % PARZ_GPU_BND_SHARED),
          sh[e]);
}

__global__ void bits_kernel(parz_gpu_bnd b) {
  const unsigned long long s = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (s < b.nseg)
    parz_gpu_bnd_bits(b, s);
}

__global__ void write_kernel(parz_gpu_bnd b) {
  const unsigned long long s = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (s < b.nseg)
    parz_gpu_bnd_write(b, s);
}

/* A CTA per checksummed partition: its lanes' shares summed (payload_checksum.h). */
__global__ void sums_kernel(const unsigned char* payload, unsigned long long nsums,
                            unsigned long long per, unsigned long long payload_bytes,
                            const unsigned long long* seg_at, unsigned long long* sums) {
  __shared__ unsigned long long part[THREADS / 32];
  unsigned long long begin, end;
  parz_gpu_bnd_partition(blockIdx.x, nsums, per, payload_bytes, seg_at, &begin, &end);
  unsigned long long v = parz_checksum_lane(payload, begin, end, threadIdx.x, blockDim.x);
  for (unsigned d = 16; d > 0; d >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, d);
  if ((threadIdx.x & 31u) == 0)
    part[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long t = 0;
    for (unsigned w = 0; w < blockDim.x / 32; w++)
      t += part[w];
    sums[blockIdx.x] = t;
  }
}

/* ---------------- the driver ---------------- */

namespace {

/* Device memory of one call (or chunk), from the stream's allocator, freed in stream order. */
struct call_memory {
  cudaStream_t st;
  std::vector<void*> dev;
  cudaError_t e = cudaSuccess;
  explicit call_memory(cudaStream_t s) : st(s) {}
  ~call_memory() {
    for (void* p : dev)
      cudaFreeAsync(p, st);
  }
  template <typename T>
  T* device(size_t count) {
    void* p = NULL;
    if (e == cudaSuccess &&
        (e = cudaMallocAsync(&p, count ? count * sizeof(T) : 1, st)) == cudaSuccess)
      dev.push_back(p);
    return (T*)p;
  }
  template <typename T>
  T* zeroed(size_t count) {
    T* p = device<T>(count);
    if (e == cudaSuccess)
      e = cudaMemsetAsync(p, 0, count ? count * sizeof(T) : 1, st);
    return p;
  }
  void release(void* p) { /* freed now, in stream order */
    for (size_t k = 0; k < dev.size(); k++)
      if (dev[k] == p) {
        cudaFreeAsync(p, st);
        dev.erase(dev.begin() + (long)k);
        return;
      }
  }
};

/* A chunk once encoded, waiting for its place. */
struct coded_chunk {
  std::vector<unsigned char> head;
  unsigned char* payload = NULL; /* device */
  size_t payload_bytes = 0;
  int stored = 0;
};

int down(call_memory& m, void* dst, const void* src, size_t bytes) {
  if (m.e == cudaSuccess && bytes)
    m.e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, m.st);
  if (m.e == cudaSuccess)
    m.e = cudaStreamSynchronize(m.st);
  return m.e == cudaSuccess;
}

}  // namespace

/* The holes in order: their number (counts per range of HOLE_RANGE values and their running
 * sum, the total downloaded into *total), then their positions into pos (with bits, their
 * values' bits). */
struct hole_scan {
  unsigned long long ranges;
  unsigned long long* first; /* ranges + 1: each range's first hole, then the total */
};

static int count_holes(call_memory& m, const parz_gpu_bnd& b, hole_scan* h,
                       unsigned long long* small, unsigned long long* total) {
  h->ranges = (b.n + HOLE_RANGE - 1) / HOLE_RANGE;
  /* counts[ranges] stays 0, so that first[ranges] is the total */
  unsigned long long* counts = m.zeroed<unsigned long long>(h->ranges + 1);
  h->first = m.device<unsigned long long>(h->ranges + 1);
  size_t scan_bytes = 0;
  if (m.e == cudaSuccess)
    m.e = cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, counts, h->first, (int64_t)h->ranges + 1,
                                        m.st);
  void* scan = m.device<unsigned char>(scan_bytes);
  if (m.e == cudaSuccess)
    hole_count_kernel<<<blocks_for(h->ranges, THREADS), THREADS, 0, m.st>>>(b, h->ranges, counts);
  if (m.e == cudaSuccess)
    m.e = cub::DeviceScan::ExclusiveSum(scan, scan_bytes, counts, h->first, (int64_t)h->ranges + 1,
                                        m.st);
  m.release(scan);
  m.release(counts);
  if (!down(m, small, h->first + h->ranges, sizeof *small))
    return 0;
  *total = small[0];
  return 1;
}

static void write_holes(call_memory& m, const parz_gpu_bnd& b, const hole_scan& h,
                        unsigned long long* pos, uint64_t* bits) {
  if (m.e == cudaSuccess)
    hole_write_kernel<<<blocks_for(h.ranges, THREADS), THREADS, 0, m.st>>>(b, h.ranges, h.first,
                                                                           pos, bits);
  m.release(h.first);
}

/* The context's host threads as the codec's jobs (parz_jobs): part i on thread i mod size. */
static void pool_run(void* pool, uint64_t n, void (*job)(void* arg, uint64_t i), void* arg) {
  parz_host_pool* hp = (parz_host_pool*)pool;
  const uint64_t size = (uint64_t)parz_host_pool_size(hp);
  parz_host_pool_each(hp, [&](int t) {
    for (uint64_t i = (uint64_t)t; i < n; i += size)
      job(arg, i);
  });
}

static size_t round256(size_t bytes) { return (bytes + 255) & ~(size_t)255; }

/* Chunk a encoded into c (its head on the host, its payload in device memory from keep) and its
 * size; its scratch is freed on return, in stream order. small: pinned words for the host's
 * reads, counts: pinned room for the symbol counts. */
static int encode_one(parz_gpu_context* ctx, call_memory& keep, const parz_array* a,
                      const void* d_data, const parz_chunk_config* cfg, coded_chunk* c,
                      size_t* size, unsigned long long* small, unsigned long long* h_counts,
                      parz_error* err) {
  call_memory m(keep.st);
  parz_gpu_bnd_plan p;
  parz_gpu_bnd b;
  int rc = parz_gpu_bnd_plan_of(&p, a, cfg, err);
  if (rc != PARZ_OK)
    return rc;
  parz_gpu_bnd_args(&p, &b);
  const size_t n = (size_t)b.n, w = parz_type_size(a->type);
  bool contiguous = true;
  {
    long long run = 1;
    for (int k = (int)a->dims - 1; k >= 0; k--) {
      if (a->stride[k] && a->stride[k] != run)
        contiguous = false;
      run *= (long long)a->shape[k];
    }
  }
  /* the chunk's holes, quantized values and codes (and a strided array's contiguous copy) in the
   * context's scratch, which only grows */
  const size_t need = round256(n) + 2 * round256(4 * n) + (contiguous ? 0 : round256(n * w));
  if ((rc = parz_gpu_reserve(&ctx->bnd_scratch, need, 0, err)) != PARZ_OK)
    return rc;
  unsigned char* scratch = (unsigned char*)ctx->bnd_scratch.ptr;
  b.hole = (uint8_t*)scratch;
  b.q = (int32_t*)(scratch + round256(n));
  b.codes = (int32_t*)(scratch + round256(n) + round256(4 * n));
  if (contiguous) {
    b.src = d_data;
  } else {
    gather_args g;
    long long run = 1;
    memset(&g, 0, sizeof g);
    g.src = (const unsigned char*)d_data;
    g.dst = scratch + round256(n) + 2 * round256(4 * n);
    g.n = n;
    g.dims = a->dims;
    g.size = (unsigned)w;
    for (int k = (int)a->dims - 1; k >= 0; k--) {
      g.shape[k] = a->shape[k];
      g.stride[k] = a->stride[k] ? (long long)a->stride[k] : run;
      run *= (long long)a->shape[k];
    }
    gather_kernel<<<blocks_for(n, THREADS), THREADS, 0, m.st>>>(g);
    b.src = g.dst;
  }
  unsigned long long* stats = m.zeroed<unsigned long long>(4);
  if (m.e != cudaSuccess)
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: scratch");
  const unsigned scan_blocks = blocks_for(n, THREADS) < 4096 ? blocks_for(n, THREADS) : 4096;
  scan_kernel<<<scan_blocks, THREADS, 0, m.st>>>(b, p.fill, p.fill_bits, stats);
  if (!down(m, small, stats, 4 * sizeof *small))
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: scanning the values");
  parz_gpu_bnd_scan found;
  memcpy(&found.top, &small[0], 8);
  found.nonfinite = small[1];
  found.nan = small[2];
  found.fill = small[3];
  if ((rc = parz_gpu_bnd_after_scan(&p, &found, &b, err)) != PARZ_OK)
    return rc;
  if (!p.predictor) { /* the CPU's choice, on the values as the CPU has them, on host threads */
    const parz_jobs jobs = {pool_run, ctx->host_pool,
                            (uint64_t)parz_host_pool_size(ctx->host_pool)};
    if ((rc = parz_gpu_reserve_slack(&ctx->h_out, n * w, 1, err)) != PARZ_OK)
      return rc;
    if (!down(m, ctx->h_out.ptr, b.src, n * w))
      return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: values for the predictor's choice");
    p.predictor = parz_gpu_bnd_choose(&p, ctx->h_out.ptr, ctx->host_pool ? &jobs : NULL);
  }
  hole_scan holes;
  unsigned long long nholes = 0;
  if (p.predictor == PARZ_BOUNDED_LORENZO) {
    quantize_kernel<<<blocks_for(n, THREADS), THREADS, 0, m.st>>>(b);
    if (!count_holes(m, b, &holes, small, &nholes))
      return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: Lorenzo's holes");
    unsigned long long* pos = m.device<unsigned long long>(nholes);
    write_holes(m, b, holes, pos, NULL);
    if (m.e == cudaSuccess && nholes)
      lorenzo_holes_kernel<<<1, 1, 0, m.st>>>(b, pos, nholes);
    m.release(pos);
    if (m.e == cudaSuccess)
      lorenzo_code_kernel<<<blocks_for(n, THREADS), THREADS, 0, m.st>>>(b);
  } else {
    size_t n4[4], st4[4];
    std::vector<parz_bounded_pass> passes(PARZ_BOUNDED_PASSES_MAX);
    parz_bounded_shape4(&p.s, n4, st4);
    const unsigned np = parz_bounded_interp_passes(n4, p.predictor, passes.data());
    const int cubic = p.predictor == PARZ_BOUNDED_CUBIC || p.predictor == PARZ_BOUNDED_CUBIC_FAST;
    for (unsigned k = 0; k < np; k++) {
      const parz_bounded_pass& ps = passes[k];
      const unsigned long long count =
          (unsigned long long)ps.cnt[0] * ps.cnt[1] * ps.cnt[2] * ps.cnt[3];
      if (count)
        pass_kernel<<<blocks_for(count, THREADS), THREADS, 0, m.st>>>(b, ps, cubic, count);
    }
  }
  if (m.e == cudaSuccess)
    m.e = cudaGetLastError();
  if (m.e != cudaSuccess)
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: the forward pass");

  /* the exceptions: every hole, in order, with its value's bits */
  unsigned long long nexc = 0;
  if (!count_holes(m, b, &holes, small, &nexc))
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: the exceptions");
  unsigned long long* pos = m.device<unsigned long long>(nexc);
  uint64_t* bits = m.device<uint64_t>(nexc);
  write_holes(m, b, holes, pos, bits);

  /* the symbol counts, the codebook */
  b.plain = m.zeroed<unsigned long long>(2 * (size_t)PARZ_BOUNDED_SYMBOLS);
  b.runs = b.plain + PARZ_BOUNDED_SYMBOLS;
  if (m.e == cudaSuccess)
    count_kernel<<<blocks_for(b.nseg, SEG_THREADS), SEG_THREADS, 0, m.st>>>(b);
  if (!down(m, h_counts, b.plain, 2 * (size_t)PARZ_BOUNDED_SYMBOLS * sizeof *h_counts))
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: counting the symbols");
  m.release(b.plain);
  b.plain = b.runs = NULL;
  parz_bounded_coded coded;
  memset(&coded, 0, sizeof coded);
  const parz_bounded_range all = {0, PARZ_BOUNDED_SYMBOLS}; /* counts over the whole alphabet */
  rc = parz_bounded_coded_book(&all, (const uint64_t*)h_counts,
                               (const uint64_t*)h_counts + PARZ_BOUNDED_SYMBOLS, 2, &coded, err);
  std::vector<unsigned char> codec_data;
  if (rc == PARZ_OK) {
    codec_data.resize(parz_bounded_codec_data(b.step, p.predictor, coded.runs, coded.book_bytes,
                                              coded.book_size, NULL));
    parz_bounded_codec_data(b.step, p.predictor, coded.runs, coded.book_bytes, coded.book_size,
                            codec_data.data());
    uint8_t* len = m.device<uint8_t>(PARZ_BOUNDED_SYMBOLS);
    uint32_t* code = m.device<uint32_t>(PARZ_BOUNDED_SYMBOLS);
    if (m.e == cudaSuccess)
      m.e =
          cudaMemcpyAsync(len, coded.book.len, PARZ_BOUNDED_SYMBOLS, cudaMemcpyHostToDevice, m.st);
    if (m.e == cudaSuccess)
      m.e = cudaMemcpyAsync(code, coded.book.code, PARZ_BOUNDED_SYMBOLS * sizeof(uint32_t),
                            cudaMemcpyHostToDevice, m.st);
    b.len = len;
    b.code = code;
    b.use_runs = coded.runs;
  }

  /* the segments' bits, their offsets, the layout */
  std::vector<unsigned long long> seg_bits((size_t)b.nseg), seg_at((size_t)b.nseg + 1);
  std::vector<unsigned long long> h_pos((size_t)nexc);
  std::vector<uint64_t> h_bits((size_t)nexc);
  b.seg_bits = m.device<unsigned long long>((size_t)b.nseg);
  if (rc == PARZ_OK && m.e == cudaSuccess)
    bits_kernel<<<blocks_for(b.nseg, SEG_THREADS), SEG_THREADS, 0, m.st>>>(b);
  if (rc == PARZ_OK && m.e == cudaSuccess && nexc)
    m.e = cudaMemcpyAsync(h_pos.data(), pos, nexc * sizeof(unsigned long long),
                          cudaMemcpyDeviceToHost, m.st);
  if (rc == PARZ_OK && m.e == cudaSuccess && nexc)
    m.e =
        cudaMemcpyAsync(h_bits.data(), bits, nexc * sizeof(uint64_t), cudaMemcpyDeviceToHost, m.st);
  /* the wait also ends the codebook's uploads from its host arrays, freed next */
  if (rc == PARZ_OK &&
      !down(m, seg_bits.data(), b.seg_bits, seg_bits.size() * sizeof(unsigned long long)))
    rc = parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: the segments' bits");
  if (rc != PARZ_OK)
    cudaStreamSynchronize(m.st); /* the uploads from coded's arrays, if any were queued */
  parz_bounded_coded_free(&coded);
  if (rc != PARZ_OK)
    return rc;
  m.release(pos);
  m.release(bits);
  seg_at[0] = 0;
  for (size_t k = 0; k < seg_bits.size(); k++)
    seg_at[k + 1] = seg_at[k] + seg_bits[k];
  parz_chunk_view fin;
  size_t head = 0;
  rc = parz_gpu_bnd_settle(&p, cfg, seg_at.back(), nexc, codec_data.size(), &fin, &head, size,
                           &c->stored, err);
  if (rc != PARZ_OK || c->stored)
    return rc;

  /* the payload, its checksums, the head */
  unsigned long long* d_at = m.device<unsigned long long>(seg_at.size());
  unsigned long long* d_sums = m.device<unsigned long long>((size_t)fin.nchecksums);
  c->payload_bytes = fin.payload_bytes;
  b.payload = keep.zeroed<unsigned long long>(fin.payload_bytes / 8);
  if (keep.e != cudaSuccess)
    return parz_gpu_cuda_fail(err, keep.e, "bounded GPU encode: the payload");
  b.seg_at = d_at;
  if (m.e == cudaSuccess)
    m.e = cudaMemcpyAsync(d_at, seg_at.data(), seg_at.size() * sizeof(unsigned long long),
                          cudaMemcpyHostToDevice, m.st);
  if (m.e == cudaSuccess)
    write_kernel<<<blocks_for(b.nseg, SEG_THREADS), SEG_THREADS, 0, m.st>>>(b);
  if (m.e == cudaSuccess && fin.nchecksums)
    sums_kernel<<<(unsigned)fin.nchecksums, THREADS, 0, m.st>>>(
        (const unsigned char*)b.payload, fin.nchecksums, fin.checksum_segments, fin.payload_bytes,
        d_at, d_sums);
  std::vector<uint64_t> sums((size_t)fin.nchecksums);
  if (!down(m, sums.data(), d_sums, sums.size() * sizeof(uint64_t)))
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: the payload");
  c->payload = (unsigned char*)b.payload;
  c->head.resize(head);
  return parz_gpu_bnd_head(&fin, seg_bits.data(), h_pos.data(), h_bits.data(), codec_data.data(),
                           sums.data(), c->head.data(), head, err);
}

int parz_gpu_bounded_encode_chunks(parz_gpu_context* ctx, size_t n, const parz_array* arrays,
                                   const void* const* d_data, const parz_chunk_config* cfg,
                                   parz_gpu_enc_place place, void* place_arg, size_t* written,
                                   cudaStream_t st, size_t* failed, parz_error* err) {
  cudaError_t e = cudaSetDevice(ctx->device);
  if (e != cudaSuccess)
    return parz_gpu_cuda_fail(err, e, "selecting the device");
  /* the host's reads: a few words, then the symbol counts (the context's pinned sizes buffer,
   * which the zfp encoder uses only within its own calls) */
  const size_t small_words = 8, counts_words = 2 * (size_t)PARZ_BOUNDED_SYMBOLS;
  int rc = parz_gpu_reserve(&ctx->h_enc_sizes, 8 * (small_words + counts_words), 1, err);
  if (rc != PARZ_OK)
    return rc;
  unsigned long long* small = (unsigned long long*)ctx->h_enc_sizes.ptr;
  call_memory m(st);
  std::vector<coded_chunk> chunks(n);
  for (size_t i = 0; i < n; i++) {
    rc = encode_one(ctx, m, &arrays[i], d_data[i], cfg, &chunks[i], &written[i], small,
                    small + small_words, err);
    if (rc != PARZ_OK) {
      if (failed)
        *failed = i;
      return rc;
    }
  }
  std::vector<void*> d_chunks(n);
  if ((rc = place(place_arg, n, written, d_chunks.data(), failed, err)) != PARZ_OK)
    return rc;
  for (size_t i = 0; i < n && m.e == cudaSuccess; i++) {
    const coded_chunk& c = chunks[i];
    if (c.stored) {
      if ((rc = parz_gpu_store_chunk(&arrays[i], d_data[i], cfg, d_chunks[i], st, err)) !=
          PARZ_OK) {
        if (failed)
          *failed = i;
        return rc;
      }
      continue;
    }
    m.e = cudaMemcpyAsync(d_chunks[i], c.head.data(), c.head.size(), cudaMemcpyHostToDevice, st);
    if (m.e == cudaSuccess)
      m.e = cudaMemcpyAsync((unsigned char*)d_chunks[i] + c.head.size(), c.payload, c.payload_bytes,
                            cudaMemcpyDeviceToDevice, st);
  }
  if (m.e == cudaSuccess)
    m.e = cudaStreamSynchronize(st);
  if (m.e != cudaSuccess)
    return parz_gpu_cuda_fail(err, m.e, "bounded GPU encode: writing the chunks");
  return PARZ_OK;
}
