/* Payload checksums on the GPU (codec/FORMAT.md, "Payload checksums"): one warp per checksummed
 * partition. Lane l adds the partition's payload words l, l + 32, ... with the codec's own
 * parz_checksum_lane, and a warp reduction adds the 32 shares: a sum, so any split of the words
 * gives the checksum the CPU computes. A partition's bits come from the HYBRID table's records
 * (nothing to wait for: its warps can run while the lengths kernel parses) or, for the other
 * table kinds, from the segment offsets the offsets kernel wrote.
 *
 * The partition arithmetic is __host__ __device__ so that tests/test_gpu_parse_host.cpp checks
 * it on the CPU, lane by lane, against the codec's verification. Internal to gpu/. */
#ifndef PARZ_GPU_CHECKSUM_CUH
#define PARZ_GPU_CHECKSUM_CUH

#include "payload_checksum.h"

/* What a launch needs to verify a chunk's partitions. */
struct parz_gpu_sums {
  const unsigned char* sums;         /* the stored u64 checksums; NULL: the chunk has none */
  const unsigned char* table;        /* HYBRID table (partition p starts at record p), or NULL */
  const unsigned long long* offsets; /* otherwise: every segment's bit offset */
  unsigned long long record_bytes;   /* HYBRID: bytes of a full partition record */
  unsigned long long P;              /* segments per checksummed partition */
  unsigned long long count;          /* partitions */
  unsigned long long payload_end;    /* 8 * payload_bytes: the last partition's end */
};


/* Bits [*begin, *end) of partition p < s.count: up to the next partition's first bit, the last
 * one to the end of the payload's last word. */
PARZ_HD void parz_gpu_partition_bits(const parz_gpu_sums& s, unsigned long long p,
                                     unsigned long long* begin, unsigned long long* end) {
  *begin = s.table ? parz_word_load(s.table + p * s.record_bytes) : s.offsets[p * s.P];
  if (p + 1 == s.count)
    *end = s.payload_end;
  else
    *end = s.table ? parz_word_load(s.table + (p + 1) * s.record_bytes) : s.offsets[(p + 1) * s.P];
}

/* Lane `lane` of 32's share of partition p's checksum. */
PARZ_HD unsigned long long parz_gpu_checksum_share(const parz_gpu_sums& s,
                                                   const unsigned char* payload,
                                                   unsigned long long p, unsigned lane) {
  unsigned long long begin, end;
  parz_gpu_partition_bits(s, p, &begin, &end);
  return parz_checksum_lane(payload, begin, end, lane, 32);
}

/* Whether partition p's stored checksum equals `sum`. */
PARZ_HD bool parz_gpu_checksum_ok(const parz_gpu_sums& s, unsigned long long p,
                                  unsigned long long sum) {
  return parz_word_load(s.sums + 8 * p) == sum;
}

/* A chunk's partitions [first, end) among the chunks of a run (a batch's chunks of one codec)
 * whose sums share one launch (checksum.cu, parz_gpu_enqueue_run_checksums): each partition
 * spread over `per` CTAs of PARZ_GPU_RUN_THREADS, the chunk's from CTA `cta` of the launch on. */
struct parz_gpu_run_sums {
  parz_gpu_sums sums;
  const unsigned char* payload;
  struct parz_gpu_fault* fault;
  unsigned long long first, end; /* partitions */
  unsigned long long cta, per;
};

#define PARZ_GPU_RUN_THREADS 256u
/* A run's CTAs: about this many payload bytes each (8 words a thread), at most
 * PARZ_GPU_RUN_PER_MAX to a partition. */
#define PARZ_GPU_RUN_CTA_BYTES 16384u
#define PARZ_GPU_RUN_PER_MAX 4096u

/* CTAs per partition of a chunk of payload_bytes in `count` partitions (count > 0): a
 * partition's mean bytes in CTAs of PARZ_GPU_RUN_CTA_BYTES. */
PARZ_HD unsigned long long parz_gpu_run_per(unsigned long long payload_bytes,
                                            unsigned long long count) {
  const unsigned long long per =
      (payload_bytes / count + PARZ_GPU_RUN_CTA_BYTES - 1) / PARZ_GPU_RUN_CTA_BYTES;
  return per < 1 ? 1 : per > PARZ_GPU_RUN_PER_MAX ? PARZ_GPU_RUN_PER_MAX : per;
}

/* The chunk of r[0..n) (n > 0) whose CTAs hold CTA g of the run's launch: the last one whose
 * first CTA is at most g (a chunk of no CTAs has the next one's first). */
PARZ_HD unsigned parz_gpu_run_chunk(const parz_gpu_run_sums* r, unsigned n, unsigned long long g) {
  unsigned lo = 0, hi = n;
  while (hi - lo > 1) {
    const unsigned mid = lo + (hi - lo) / 2;
    if (r[mid].cta <= g)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* Thread t's share of CTA g of chunk c's CTAs (g in [c.cta, c.cta + c.per * (c.end - c.first)))
 * and its partition *p: the CTA's threads take the partition's words in lanes of per * threads. */
PARZ_HD unsigned long long parz_gpu_run_share(const parz_gpu_run_sums& c, unsigned long long g,
                                              unsigned t, unsigned long long* p) {
  const unsigned long long k = g - c.cta;
  unsigned long long begin, end;
  *p = c.first + k / c.per;
  parz_gpu_partition_bits(c.sums, *p, &begin, &end);
  return parz_checksum_lane(c.payload, begin, end, (unsigned)(k % c.per) * PARZ_GPU_RUN_THREADS + t,
                            (unsigned)(c.per * PARZ_GPU_RUN_THREADS));
}

#if defined(__CUDACC__)
/* Partition p's check by one whole warp (lane = its lane): the lanes' shares summed, and a sum
 * that is not the stored one recorded in the fault record (the lowest such partition). */
template <typename Fault>
__device__ __forceinline__ void parz_gpu_checksum_verify(const parz_gpu_sums& s,
                                                         const unsigned char* payload,
                                                         unsigned long long p, unsigned lane,
                                                         Fault* fault, unsigned code) {
  unsigned long long sum = parz_gpu_checksum_share(s, payload, p, lane);
#pragma unroll
  for (unsigned d = 16; d > 0; d >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, d);
  if (lane == 0 && !parz_gpu_checksum_ok(s, p, sum)) {
    atomicMin(&fault->partition, p);
    atomicOr(&fault->code, code);
  }
}
#endif

#endif
