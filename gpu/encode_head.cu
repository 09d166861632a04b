/* The GPU encoder's kernels around the block kernel: the look-back state before it, the sizes
 * read back after it, the payload moved into place, and the head (table, exception records,
 * section directory and payload checksums, header and its CRC). Each runs a
 * step of encode_chunk.cuh per thread; a call's chunks share each launch (chunk blockIdx.y,
 * their arguments in device memory), except the exception kernels, which run per chunk that
 * has any. */
#include "encode_launch.cuh"
#include "head_crc.cuh"

__device__ __forceinline__ unsigned long long thread_index() {
  return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}

size_t parz_gpu_tile_bytes(unsigned long long nblocks) {
  size_t bytes = 0;
  parz_gpu_tile_state::AllocationSize((int)parz_gpu_tiles(nblocks), bytes);
  return (bytes + 15) & ~(size_t)15;
}

/* The look-back state of every tile, and the chunk's counters. */
__global__ void tiles_kernel(const parz_gpu_enc_chunk* chunks) {
  const parz_gpu_enc_chunk& c = chunks[blockIdx.y];
  parz_gpu_tile_state tiles;
  tiles.Init(0, c.tiles, 0);
  tiles.InitializeStatus((int)parz_gpu_tiles(c.nblocks));
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *c.nexc = 0;
    *c.needs2 = 0;
    *c.risky = 0;
    *c.crc = 0;
  }
}

/* Per chunk: what the host settles the layout with (parz_gpu_enc_sizes). */
__global__ void sizes_kernel(const parz_gpu_enc_chunk* chunks, unsigned n,
                             parz_gpu_enc_sizes* sizes) {
  const unsigned i = (unsigned)thread_index();
  if (i >= n)
    return;
  const parz_gpu_enc_chunk& c = chunks[i];
  const parz_gpu_mask_set* m = c.mask.set;
  parz_gpu_enc_sizes* s = sizes + i;
  s->payload_bits = c.offsets[c.nblocks];
  s->nexceptions = *c.nexc;
  s->needs2 = *c.needs2;
  s->masked = m ? m->masked : 0;
  s->overflow = m ? m->overflow : 0;
  s->nvalues = m ? m->nvalues : 0;
  for (unsigned k = 0; k < PARZ_GPU_MASK_GROUP_SIZES; k++)
    s->record_bytes[k] = m ? m->record_bytes[k] : 0;
  s->risky = *c.risky;
}

/* One CTA per chunk, a thread per slot of its set: the patterns' first positions gathered in
 * shared memory, then each slot's value index; V from the first thread: a thread per slot
 * reading every slot's position from device memory would wait on each of those reads. */
__global__ void __launch_bounds__(PARZ_GPU_MASK_SLOTS)
    mask_rank_kernel(const parz_gpu_enc_chunk* chunks) {
  __shared__ unsigned long long firsts[PARZ_GPU_MASK_SLOTS];
  __shared__ unsigned n;
  parz_gpu_mask_set* s = chunks[blockIdx.y].mask.set;
  const unsigned i = threadIdx.x;
  if (i == 0)
    n = 0;
  __syncthreads();
  const bool used = s->key[i] != 0;
  const unsigned long long first = s->first[i];
  if (used)
    firsts[atomicAdd(&n, 1u)] = first;
  __syncthreads();
  s->code[i] = used ? parz_gpu_mask_rank_among(firsts, n, first, s->fill_seen) : -1;
  if (i == 0)
    s->nvalues = parz_gpu_mask_nvalues_of(n, s->fill_seen);
}

/* Where a walk of a group's records stands (encode_mask.cuh, parz_gpu_mask_group): one past the
 * last block with a fact so far (cursor), the last record start so far and the cursor at it,
 * the fact of the block before, and the bytes of the records so far. */
struct walk_state {
  unsigned long long cursor, start, start_at, at;
  unsigned before;
};

/* Blocks [w0, w1) of a group ending at b1, walked by one warp from state st, 32 blocks a step,
 * to the records of the serial walk. Each lane takes a block; a record is the work of the lane
 * of its last block (a bitmap block, or a run's last), which learns from the warp's ballots
 * where the record begins (a run: the last record start so far) and where the record before it
 * ended (one past the last block with a fact before that start), both carried from step to
 * step. An exclusive sum of the records' bytes over the lanes places them. out: where the
 * group's records go, NULL to count them. st is the state after w1 on every lane. */
template <typename U>
__device__ void warp_walk(const parz_gpu_enc_chunk& c, unsigned nvalues, unsigned long long w0,
                          unsigned long long w1, unsigned long long b1, walk_state& st,
                          unsigned char* out) {
  const unsigned full = 0xffffffffu, lane = threadIdx.x & 31u;
  const unsigned* facts = c.mask.facts;
  /* the facts of this step and the next: each step loads those of the step after next, so that
   * the walk does not wait for device memory */
  unsigned f = w0 + lane < b1 ? facts[w0 + lane] : 0u;
  unsigned f1 = w0 + 32 + lane < b1 ? facts[w0 + 32 + lane] : 0u;
  for (unsigned long long base = w0; base < w1; base += 32) {
    const unsigned long long b = base + lane;
    const unsigned f2 = base + 64 + lane < b1 ? facts[base + 64 + lane] : 0u;
    unsigned prev = __shfl_up_sync(full, f, 1), next = __shfl_down_sync(full, f, 1);
    const unsigned after = __shfl_sync(full, f1, 0); /* the fact of the block after the step */
    if (lane == 0)
      prev = st.before;
    if (lane == 31)
      next = after;
    const bool run = (f & PARZ_GPU_MASK_RUN) != 0;
    const bool starts = f && (!run || prev != f), ends = f && (!run || next != f);
    const unsigned filled = __ballot_sync(full, f != 0), begun = __ballot_sync(full, starts);
    const unsigned below = filled & ((1u << lane) - 1u);
    const unsigned long long my_cursor = below ? base + (31u - __clz(below)) + 1 : st.cursor;
    const unsigned upto = begun & (lane == 31 ? full : (2u << lane) - 1u);
    const unsigned from = upto ? 31u - __clz(upto) : 0u;
    const unsigned long long from_at = __shfl_sync(full, my_cursor, from);
    unsigned long long bytes = 0, skip = 0, n = 1;
    if (ends) {
      if (run) {
        const unsigned long long s = upto ? base + from : st.start;
        skip = s - (upto ? from_at : st.start_at);
        n = b - s + 1;
      } else {
        skip = b - my_cursor;
      }
      bytes = parz_gpu_mask_record((unsigned char*)0, f, skip, n, c.dims, nvalues,
                                   [](unsigned char*) {});
    }
    unsigned long long sum = bytes; /* inclusive over the lanes */
    for (unsigned d = 1; d < 32; d <<= 1) {
      const unsigned long long t = __shfl_up_sync(full, sum, d);
      if (lane >= d)
        sum += t;
    }
    if (out && bytes)
      parz_gpu_mask_record(out + st.at + sum - bytes, f, skip, n, c.dims, nvalues,
                           [&](unsigned char* p) { parz_gpu_mask_bitmap<U>(c, b, p); });
    st.at += __shfl_sync(full, sum, 31);
    if (filled)
      st.cursor = base + (31u - __clz(filled)) + 1;
    if (begun) {
      const unsigned last = 31u - __clz(begun);
      st.start = base + last;
      st.start_at = __shfl_sync(full, my_cursor, last);
    }
    st.before = __shfl_sync(full, f, 31);
    f = f1;
    f1 = f2;
  }
}

/* A CTA walks WALK_WARPS shares of WALK_BLOCKS blocks, a warp each: one group of the largest
 * candidate G, or several smaller ones. A group of 4096 blocks walked by one warp takes 128
 * dependent steps, its shares walked at once 8, two or three times over, so the shares shorten
 * the chain of dependent steps that counts every candidate's bytes. */
#define WALK_BLOCKS PARZ_GPU_MASK_GROUP_MIN
#define WALK_WARPS (1u << (PARZ_GPU_MASK_GROUP_SIZES - 1))
#define WALK_THREADS (32 * WALK_WARPS)

/* Tiles of a chunk of nblocks blocks. */
static __host__ __device__ unsigned long long walk_tiles(unsigned long long nblocks) {
  return (nblocks + WALK_WARPS * WALK_BLOCKS - 1) / (WALK_WARPS * WALK_BLOCKS);
}

/* Marks in a share's summary for what its walk took from the state before it (block indices
 * never reach them). */
#define CARRIED_CURSOR (~0ull)
#define CARRIED_START (~0ull - 1)
#define CARRIED_START_AT (~0ull - 2)

/* The state after a share whose walk from the marks ended in sum, given the state before it. */
__device__ walk_state walk_resolve(const walk_state& sum, const walk_state& before) {
  walk_state s = sum;
  s.cursor = sum.cursor == CARRIED_CURSOR ? before.cursor : sum.cursor;
  s.start = sum.start == CARRIED_START ? before.start : sum.start;
  s.start_at = sum.start_at == CARRIED_START_AT ? before.start_at
               : sum.start_at == CARRIED_CURSOR ? before.cursor
                                                : sum.start_at;
  return s;
}

/* Tile t (WALK_WARPS shares) of chunk c's groups of candidate k, walked by the CTA: warp w's
 * share starts at block t * WALK_WARPS * WALK_BLOCKS + w * WALK_BLOCKS. A group of several
 * shares is walked in three steps: each share from the marks, which says what its walk takes
 * from the shares before it; one thread per group carrying the state across its shares; each
 * share again from the state before it, counting its records' bytes. With `write`, the
 * group's first thread sums its shares' bytes before each share, and a last walk writes the
 * records there (k is then the chosen candidate; a group of one share skips the count).
 * Returns, on the thread of each group's first share (and 0 elsewhere), the group's bytes. */
template <typename U>
__device__ unsigned long long cta_walk(const parz_gpu_enc_chunk& c, unsigned nvalues, unsigned k,
                                       unsigned long long t, bool write) {
  __shared__ walk_state states[WALK_WARPS];
  __shared__ unsigned long long bytes[WALK_WARPS];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x & 31u, per = 1u << k;
  const unsigned long long G = (unsigned long long)WALK_BLOCKS << k;
  const unsigned long long w0 = (t * WALK_WARPS + warp) * WALK_BLOCKS;
  const unsigned long long b0 = w0 / G * G, b1 = b0 + G < c.nblocks ? b0 + G : c.nblocks;
  const unsigned long long w1 = w0 + WALK_BLOCKS < b1 ? w0 + WALK_BLOCKS : b1;
  const bool here = w0 < c.nblocks;
  const unsigned before = here && w0 > b0 ? c.mask.facts[w0 - 1] : 0u;
  walk_state st = {b0, b0, b0, 0, before};
  if (per > 1) {
    if (here) {
      st = {CARRIED_CURSOR, CARRIED_START, CARRIED_START_AT, 0, before};
      warp_walk<U>(c, nvalues, w0, w1, b1, st, NULL);
      if (lane == 0)
        states[warp] = st;
    }
    __syncthreads();
    const unsigned long long g0 = (t * WALK_WARPS + threadIdx.x) * WALK_BLOCKS;
    if (threadIdx.x < WALK_WARPS && threadIdx.x % per == 0 && g0 < c.nblocks) {
      walk_state s = {g0, g0, g0, 0, 0};
      for (unsigned w = threadIdx.x; w < threadIdx.x + per && w < WALK_WARPS; w++) {
        const walk_state sum = states[w];
        states[w] = s;
        s = walk_resolve(sum, s);
      }
    }
    __syncthreads();
    if (here) { /* the state before the share; its bytes count from 0 */
      st = states[warp];
      st.at = 0;
      st.before = before;
    }
  }
  unsigned long long group = 0;
  if (!write || per > 1) {
    walk_state count = st;
    if (here)
      warp_walk<U>(c, nvalues, w0, w1, b1, count, NULL);
    if (lane == 0)
      bytes[warp] = here ? count.at : 0;
    __syncthreads();
    if (threadIdx.x < WALK_WARPS && threadIdx.x % per == 0)
      for (unsigned w = threadIdx.x; w < threadIdx.x + per && w < WALK_WARPS; w++) {
        const unsigned long long share = bytes[w];
        if (write)
          bytes[w] = group;
        group += share;
      }
    if (!write)
      return group;
    __syncthreads();
    st.at = bytes[warp];
  }
  if (here) {
    warp_walk<U>(c, nvalues, w0, w1, b1, st, parz_gpu_mask_group_records(c, w0 / G));
    if (w1 == c.nblocks && lane == 0)
      parz_gpu_mask_pad(c);
  }
  return group;
}

/* Tiles of candidate k = blockIdx.x / tiles: each group's records' bytes, summed per candidate
 * (the counting walk of the records kernel below). */
__global__ void __launch_bounds__(WALK_THREADS)
    mask_lengths_kernel(const parz_gpu_enc_chunk* chunks) {
  const parz_gpu_enc_chunk& c = chunks[blockIdx.y];
  const unsigned long long tiles = walk_tiles(c.nblocks);
  const unsigned k = (unsigned)(blockIdx.x / tiles), t = (unsigned)(blockIdx.x % tiles);
  if (k >= PARZ_GPU_MASK_GROUP_SIZES)
    return; /* the whole CTA: past this chunk's tiles */
  const unsigned long long bytes = cta_walk<uint32_t>(c, c.mask.set->nvalues, k, t, false);
  const unsigned long long g = ((unsigned long long)t * WALK_WARPS + threadIdx.x) >> k;
  if (threadIdx.x < WALK_WARPS && threadIdx.x % (1u << k) == 0 &&
      ((unsigned long long)t * WALK_WARPS + threadIdx.x) * WALK_BLOCKS < c.nblocks) {
    c.mask.group_bytes[parz_gpu_mask_groups_before(c.nblocks, k) + g] = bytes;
    atomicAdd(c.mask.set->record_bytes + k, bytes);
  }
}

/* One thread per slot: the mask section's values (chunks with a mask). */
__global__ void mask_values_kernel(const parz_gpu_enc_chunk* chunks) {
  const parz_gpu_enc_chunk& c = chunks[blockIdx.y];
  const unsigned i = (unsigned)thread_index();
  if (c.mask.at && i < PARZ_GPU_MASK_SLOTS)
    parz_gpu_mask_value(c, i);
}

/* The records of the chosen G (one chunk, after the scan of its groups' bytes), and after the
 * last group's the section's padding. */
template <typename U>
__global__ void __launch_bounds__(WALK_THREADS) mask_records_kernel(const parz_gpu_enc_chunk c) {
  cta_walk<U>(c, c.mask.nvalues, c.mask.k, blockIdx.x, true);
}

/* The payload from the scratch to its place after the head, leaving the scratch zero for the
 * next call's ORs: one word per thread. */
__global__ void payload_kernel(const parz_gpu_enc_chunk* chunks) {
  const parz_gpu_enc_chunk& c = chunks[blockIdx.y];
  const unsigned long long k = thread_index();
  if (k >= c.payload_words)
    return;
  ((unsigned long long*)(c.chunk + c.payload_at))[k] = c.scratch[k];
  c.scratch[k] = 0;
}

__global__ void table_kernel(const parz_gpu_enc_chunk* chunks) {
  const parz_gpu_enc_chunk& c = chunks[blockIdx.y];
  const unsigned long long s = thread_index();
  if (c.table != PARZ_TABLE_NONE && s < c.nsegments)
    parz_gpu_table_segment(c, s);
}

template <typename U>
__global__ void exc_count_kernel(const parz_gpu_enc_chunk c, unsigned long long ranges,
                                 unsigned long long* counts) {
  const unsigned long long r = thread_index();
  if (r < ranges)
    counts[r] = parz_gpu_exc_count<U>(c, r);
}

template <typename U>
__global__ void exc_write_kernel(const parz_gpu_enc_chunk c, unsigned long long ranges) {
  const unsigned long long r = thread_index();
  if (r < ranges)
    parz_gpu_exc_write<U>(c, r);
}

/* One CTA per checksummed partition, its threads' shares added by shuffles and through shared
 * memory (a warp per partition left most of the GPU idle: partitions are few and their sums long);
 * the first thread also writes the section directory and the checksum section's header. */
__global__ void __launch_bounds__(PARZ_GPU_SUM_THREADS)
    sums_kernel(const parz_gpu_enc_chunk* chunks) {
  __shared__ unsigned long long warps[PARZ_GPU_SUM_THREADS / 32];
  const parz_gpu_enc_chunk& c = chunks[blockIdx.y];
  const unsigned long long p = blockIdx.x;
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  if (p == 0 && threadIdx.x == 0)
    parz_gpu_sections(c);
  if (p >= c.nchecksums)
    return; /* the whole CTA */
  unsigned long long sum = parz_gpu_payload_share(c, p, threadIdx.x, PARZ_GPU_SUM_THREADS);
  for (unsigned d = 16; d > 0; d >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, d);
  if (lane == 0)
    warps[warp] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned w = 1; w < PARZ_GPU_SUM_THREADS / 32; w++)
      sum += warps[w];
    parz_word_store(c.chunk + c.sums_at + 8 * p, sum);
  }
}

/* One span per CTA of chunk blockIdx.y's head behind its header (head_crc.cuh). */
__global__ void __launch_bounds__(PARZ_GPU_CRC_THREADS)
    crc_kernel(const parz_gpu_enc_chunk* chunks) {
  const parz_gpu_head_crc s = parz_gpu_enc_head_crc(chunks[blockIdx.y]);
  if (blockIdx.x >= parz_gpu_crc_spans(s))
    return; /* the whole CTA */
  parz_gpu_crc_cta(s, blockIdx.x);
}

__global__ void seal_kernel(const parz_gpu_enc_chunk* chunks, unsigned n) {
  const unsigned i = (unsigned)thread_index();
  if (i >= n)
    return;
  const parz_gpu_enc_chunk& c = chunks[i];
  parz_gpu_seal(c, *c.crc);
}

/* Chunks per launch: gridDim.y's limit. */
#define RUN_MAX 65535u

/* Launches kernel k over the n chunks (h on the host, d the same in device memory) with
 * units(c) threads for chunk c, `threads` per CTA. */
template <typename K, typename UNITS>
static cudaError_t over_chunks(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d, unsigned n,
                               unsigned threads, cudaStream_t st, K k, UNITS units) {
  for (unsigned i = 0; i < n; i += RUN_MAX) {
    const unsigned m = n - i < RUN_MAX ? n - i : RUN_MAX;
    unsigned long long most = 0;
    for (unsigned j = i; j < i + m; j++)
      most = PARZ_MAX(most, units(h[j]));
    if (most)
      k<<<dim3((unsigned)((most + threads - 1) / threads), m), threads, 0, st>>>(d + i);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
      return e;
  }
  return cudaSuccess;
}

cudaError_t parz_gpu_launch_tiles(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                  unsigned n, cudaStream_t st) {
  /* InitializeStatus also sets the 32 entries before the first tile: at least one CTA */
  return over_chunks(h, d, n, 128, st, tiles_kernel,
                     [](const parz_gpu_enc_chunk& c) { return parz_gpu_tiles(c.nblocks) + 1; });
}

cudaError_t parz_gpu_launch_sizes(const parz_gpu_enc_chunk* d, unsigned n,
                                  parz_gpu_enc_sizes* sizes, cudaStream_t st) {
  sizes_kernel<<<(n + 127) / 128, 128, 0, st>>>(d, n, sizes);
  return cudaGetLastError();
}

cudaError_t parz_gpu_launch_mask_rank(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                      unsigned n, cudaStream_t st) {
  return over_chunks(
      h, d, n, PARZ_GPU_MASK_SLOTS, st, mask_rank_kernel,
      [](const parz_gpu_enc_chunk&) { return (unsigned long long)PARZ_GPU_MASK_SLOTS; });
}

cudaError_t parz_gpu_launch_mask_lengths(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                         unsigned n, cudaStream_t st) {
  return over_chunks(h, d, n, WALK_THREADS, st, mask_lengths_kernel,
                     [](const parz_gpu_enc_chunk& c) {
                       return WALK_THREADS * PARZ_GPU_MASK_GROUP_SIZES * walk_tiles(c.nblocks);
                     });
}

cudaError_t parz_gpu_launch_mask_values(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                        unsigned n, cudaStream_t st) {
  return over_chunks(h, d, n, 128, st, mask_values_kernel, [](const parz_gpu_enc_chunk& c) {
    return c.mask.at ? (unsigned long long)PARZ_GPU_MASK_SLOTS : 0ull;
  });
}

cudaError_t parz_gpu_launch_mask_records(const parz_gpu_enc_chunk& c, cudaStream_t st) {
  const unsigned ctas = (unsigned)walk_tiles(c.nblocks);
  if (parz_type_size((parz_type)c.type) == 4)
    mask_records_kernel<uint32_t><<<ctas, WALK_THREADS, 0, st>>>(c);
  else
    mask_records_kernel<uint64_t><<<ctas, WALK_THREADS, 0, st>>>(c);
  return cudaGetLastError();
}

cudaError_t parz_gpu_launch_payload(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                    unsigned n, cudaStream_t st) {
  return over_chunks(h, d, n, 256, st, payload_kernel,
                     [](const parz_gpu_enc_chunk& c) { return c.payload_words; });
}

cudaError_t parz_gpu_launch_table(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                  unsigned n, cudaStream_t st) {
  return over_chunks(h, d, n, 128, st, table_kernel, [](const parz_gpu_enc_chunk& c) {
    return c.table == PARZ_TABLE_NONE ? 0ull : c.nsegments;
  });
}

cudaError_t parz_gpu_launch_exc_count(const parz_gpu_enc_chunk& c, unsigned long long ranges,
                                      unsigned long long* counts, cudaStream_t st) {
  const unsigned ctas = (unsigned)((ranges + 127) / 128);
  if (parz_type_size((parz_type)c.type) == 4)
    exc_count_kernel<uint32_t><<<ctas, 128, 0, st>>>(c, ranges, counts);
  else
    exc_count_kernel<uint64_t><<<ctas, 128, 0, st>>>(c, ranges, counts);
  return cudaGetLastError();
}

cudaError_t parz_gpu_launch_exc_write(const parz_gpu_enc_chunk& c, unsigned long long ranges,
                                      cudaStream_t st) {
  const unsigned ctas = (unsigned)((ranges + 127) / 128);
  if (parz_type_size((parz_type)c.type) == 4)
    exc_write_kernel<uint32_t><<<ctas, 128, 0, st>>>(c, ranges);
  else
    exc_write_kernel<uint64_t><<<ctas, 128, 0, st>>>(c, ranges);
  return cudaGetLastError();
}

cudaError_t parz_gpu_launch_sums(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                 unsigned n, cudaStream_t st) {
  /* at least one warp for the directory of a chunk whose only section is its mask */
  return over_chunks(h, d, n, PARZ_GPU_SUM_THREADS, st, sums_kernel,
                     [](const parz_gpu_enc_chunk& c) {
                       const unsigned long long ctas = c.nchecksums ? c.nchecksums : c.mask.at != 0;
                       return ctas * PARZ_GPU_SUM_THREADS;
                     });
}

cudaError_t parz_gpu_launch_crc(const parz_gpu_enc_chunk* h, const parz_gpu_enc_chunk* d,
                                unsigned n, cudaStream_t st) {
  return over_chunks(h, d, n, PARZ_GPU_CRC_THREADS, st, crc_kernel,
                     [](const parz_gpu_enc_chunk& c) {
                       return parz_gpu_crc_spans(parz_gpu_enc_head_crc(c)) * PARZ_GPU_CRC_THREADS;
                     });
}

cudaError_t parz_gpu_launch_seal(const parz_gpu_enc_chunk* d, unsigned n, cudaStream_t st) {
  seal_kernel<<<(n + 127) / 128, 128, 0, st>>>(d, n);
  return cudaGetLastError();
}
