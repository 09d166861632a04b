/* Internal to omp/: how many threads a call uses, the size thresholds below which a
 * chunk is handled serially, and the collection of the first error out of a parallel loop. */
#ifndef PARZ_OMP_TEAM_H
#define PARZ_OMP_TEAM_H

#include <stdint.h>

#include "parz_chunk.h"

/* Below these decoded sizes a chunk is decoded / encoded serially whatever the thread count:
 * waking a team costs more than the work. A hot loop hides the wake-up of a sleeping team, so
 * the cut-off sits where 2 threads win clearly even on a loaded 2-core machine, as
 * `bench_omp --threshold` shows; a 16-core host wins from smaller sizes on. Encoding costs more
 * per byte than decoding, so the same cut-off is safe. */
#define PARZ_OMP_DECODE_MIN_BYTES ((size_t)16 * 1024)
#define PARZ_OMP_ENCODE_MIN_BYTES ((size_t)16 * 1024)

/* The drivers with the serial threshold as a parameter (0 = always parallel): what the public
 * functions call with the constants above, and what bench/bench_omp --threshold uses to
 * measure where parallel decoding starts to win. The decoder also takes the number of work
 * units per thread (0 = its default), which tests raise to check that the work per unit does
 * not grow with the chunk. */
int parz_omp_chunk_decode_above(const void* src, size_t src_bytes, void* dst, size_t dst_bytes,
                                int threads, size_t min_bytes, unsigned units_per_thread,
                                parz_error* err);
int parz_omp_chunk_encode_above(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                                void* dst, size_t dst_bytes, size_t* written, int threads,
                                size_t min_bytes, parz_error* err);
/* parz_omp_chunk_encode_alloc with the cut-off and the slabs' size as parameters: each piece of
 * the chunk first goes into a slab of its bound >> slab_shift bytes (0: its bound), so that tests
 * can make every piece outgrow its slab. */
int parz_omp_chunk_encode_alloc_above(const parz_array* a, const void* data,
                                      const parz_chunk_config* cfg, parz_chunk_alloc alloc,
                                      void* alloc_arg, size_t* written, int threads,
                                      size_t min_bytes, unsigned slab_shift, parz_error* err);

/* The slabs of parz_omp_chunk_encode_alloc: a quarter of each piece's bound holds the piece of
 * any chunk that compresses 4.4x or more (the bound is about 1.1x the values), as lossy settings
 * mostly do. A chunk that compresses less encodes at most one piece twice (in part) per thread,
 * a quarter of its share: the first piece that outgrows its slab sends every piece after it to
 * a stream of its bound. */
#define PARZ_OMP_SLAB_SHIFT 2u

/* The decoder's work items (decode.c), exposed so that bench_omp --balance can time each alone
 * and replay their schedule: of chunk `chunk`, the payload checksums of partitions [first,
 * first + count) verified, segments [first, first + count) decoded, or exceptions [first,
 * first + count) patched. */
typedef enum { PARZ_OMP_VERIFY, PARZ_OMP_DECODE, PARZ_OMP_PATCH } parz_omp_unit_kind;
typedef struct {
  size_t chunk;
  parz_omp_unit_kind kind;
  uint64_t first, count;
} parz_omp_unit;

/* How the decoder cuts its work. A chunk of raw_bytes among total_bytes of chunks decoded at once
 * gets about this many decode units: its share of nthreads * per_thread (per_thread 0: the
 * default number, and no unit smaller than a floor where the chunk is large enough), at least 1.
 * plan_chunk writes the chunk's checksum items, then its decode units for about `want` of them,
 * into units (NULL: only counts them; at most 4 * want) and returns their count, adding the
 * decode units to *ndecode (when not NULL); plan_patches likewise its exception patches (at
 * most nthreads), which must wait for every decode unit of the chunk. LENGTHS tables must be
 * expanded first (parz_chunk_offsets_view). */
uint64_t parz_omp_unit_share(size_t raw_bytes, uint64_t total_bytes, int nthreads,
                             unsigned per_thread);
size_t parz_omp_plan_chunk(const parz_chunk_view* v, size_t chunk, uint64_t want,
                           parz_omp_unit* units, uint64_t* ndecode);
size_t parz_omp_plan_patches(const parz_chunk_view* v, size_t chunk, int nthreads,
                             parz_omp_unit* units);
/* Every chunk's items, chunk by chunk, then the patches, in the order the team takes them:
 * malloc'd, their count in *nunits, the items before the patch units in *nfirst, the decode
 * units in *ndecode. NULL without memory. */
parz_omp_unit* parz_omp_decode_plan(size_t n, const parz_chunk_view* views, int nthreads,
                                    unsigned per_thread, size_t* nunits, size_t* nfirst,
                                    uint64_t* ndecode);
int parz_omp_run_unit(const parz_omp_unit* u, const parz_chunk_view* views,
                      const parz_chunk_dest* dests, parz_error* err);

/* A chunk of a scratch codec decoded into d by a team of nthreads (decode_scratch.c). */
int parz_omp_decode_scratch(const parz_chunk_view* v, const parz_chunk_dest* d, int nthreads,
                            parz_error* err);

/* jobs (codec/parz_chunk.h) on a team of *nthreads threads, which must outlive them (jobs.c);
 * one part, on the calling thread, for *nthreads <= 1. */
void parz_omp_jobs_init(parz_jobs* jobs, int* nthreads);

/* work(arg, jobs) on one thread of a team of nthreads, its jobs the team's as tasks (jobs.c):
 * one parallel region for all its runs of parts, whose parts may run parts of their own. Its
 * result; with nthreads <= 1, work(arg, NULL) on the calling thread. */
typedef int (*parz_team_work)(void* arg, const parz_jobs* jobs);
int parz_omp_team_jobs(int nthreads, parz_team_work work, void* arg);

/* Called by every thread of a parallel region on the same dst[0, bytes), a fresh destination
 * about to be written by the team: faults in this thread's contiguous slice of it, so that the
 * kernel's zeroing of new pages runs on every thread (populate.c). Leaves the contents alone and
 * does nothing on memory already resident, on small buffers, or without OpenMP. */
void parz_omp_populate_share(void* dst, size_t bytes);

/* The most threads a request gets: PARZ_OMP_THREADS_PER_CPU per CPU this process may use, and at
 * least PARZ_OMP_THREADS_MIN_CAP, within OMP_THREAD_LIMIT. Threads beyond the CPUs only share
 * them, and asked for by the tens of thousands they meet the kernel's limits on threads and
 * mappings (threads-max, RLIMIT_NPROC, vm.max_map_count), where GCC's libgomp ends the process. */
#define PARZ_OMP_THREADS_PER_CPU 4
#define PARZ_OMP_THREADS_MIN_CAP 64
int parz_omp_threads_max(void);

/* Threads a parallel region would get for a request (0 = OpenMP's default, at most the CPUs this
 * process may use; else at most parz_omp_threads_max()); 1 when this build has no OpenMP, in a process forked from the one that loaded
 * this library (its OpenMP pool did not survive the fork), or when the caller is already inside
 * as many active parallel levels as OpenMP allows (the region would run on one thread anyway, so
 * the drivers skip it). Under a memory limit, no more than parz_omp_threads_that_fit allows.
 * Reads OpenMP state only. */
int parz_omp_team_size(int threads);

/* How many of `extra` more threads can start now: `extra` when the process has no limit on its
 * address space, data or committed memory; else as many as a trial mapping of their stacks (and
 * some room to spare) shows to fit, possibly 0 (thread_room.c). */
unsigned parz_omp_threads_that_fit(unsigned extra);

/* The first error of a parallel loop over numbered work items: the one of the lowest item, so the
 * message is the one the serial driver reports, whatever the thread count. Items above a recorded
 * failure may be skipped; items below it must still run (one of them may fail first). */
typedef struct {
  uint64_t index; /* lowest failed item, UINT64_MAX while none failed */
  parz_error err;
} parz_omp_first_error;

void parz_omp_first_error_init(parz_omp_first_error* f);
/* Thread-safe: keeps the status and message of the lowest failed item. */
void parz_omp_first_error_record(parz_omp_first_error* f, uint64_t index, int code,
                                 const parz_error* e);
/* Thread-safe: nonzero when item `index` can no longer change the outcome. */
int parz_omp_first_error_skip(parz_omp_first_error* f, uint64_t index);
/* After the loop: PARZ_OK or the recorded error, copied into err. */
int parz_omp_first_error_result(const parz_omp_first_error* f, parz_error* err);

#endif
