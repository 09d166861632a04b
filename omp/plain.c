/* Whether an array is plain (codec/parz_chunk.h: no masked value, no exception), checked by a
 * team: every thread reads its own part, a run of a contiguous array or a slab along the first
 * dimension of a strided one. The encoder reads a chunk this way before it encodes, once to size
 * the buffer and once more in parz_chunk_encoder_begin; read by one thread, those reads cost as
 * much as the parallel encode itself at 16 threads. */
#include "parz_omp.h"
#include "team.h"

int parz_omp_plain(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                   int nthreads) {
  size_t n, size;
  ptrdiff_t step;
  int contiguous = 1, special = 0;
  unsigned k;
  if (nthreads <= 1 || !data || !cfg || parz_array_check(a, NULL) != PARZ_OK)
    return parz_chunk_plain(a, data, cfg);
  for (k = 0; k < a->dims; k++)
    contiguous = contiguous && a->stride[k] == 0;
  n = contiguous ? parz_array_count(a) : a->shape[0];
  step = contiguous ? 1 : a->stride[0];
  size = parz_type_size(a->type);
  if ((size_t)nthreads > n)
    nthreads = (int)n;
  if (nthreads <= 1)
    return parz_chunk_plain(a, data, cfg);
#ifdef _OPENMP
#pragma omp parallel for num_threads(nthreads) schedule(static) reduction(| : special)
#endif
  for (int t = 0; t < nthreads; t++) {
    const size_t q = n / (size_t)nthreads, r = n % (size_t)nthreads, u = (size_t)t;
    const size_t lo = q * u + (u < r ? u : r), hi = lo + q + (u < r);
    parz_array part = *a;
    if (contiguous) {
      part.dims = 1;
      for (k = 1; k < 4; k++)
        part.shape[k] = 0;
    }
    part.shape[0] = hi - lo;
    special |=
        !parz_chunk_plain(&part, (const unsigned char*)data + (ptrdiff_t)(size * lo) * step, cfg);
  }
  return !special;
}

size_t parz_omp_chunk_bound_data(const parz_array* a, const void* data,
                                 const parz_chunk_config* cfg, int threads) {
  size_t raw =
      parz_array_check(a, NULL) == PARZ_OK ? parz_array_count(a) * parz_type_size(a->type) : 0;
  int nthreads = raw < PARZ_OMP_ENCODE_MIN_BYTES ? 1 : parz_omp_team_size(threads);
  return parz_omp_plain(a, data, cfg, nthreads) ? parz_chunk_bound_plain(a, cfg)
                                                : parz_chunk_bound_data(a, data, cfg);
}
