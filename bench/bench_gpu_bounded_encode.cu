/* GPU encode of error-bounded chunks (codec 4): arrays resident in GPU memory encoded into one
 * chunk each in GPU memory (parz_gpu_encode_device), against the OpenMP encoder on the host.
 *
 * For each array, bound (--rel, times the array's range), predictor (--pred, 0 = chosen per
 * chunk) and segment size (--seg, codes per segment, 0 = the codec's), the whole parz_gpu_encode_device call (its kernels, the host's steps between them and
 * the waits for them) is timed on the host around a stream synchronization, median of --reps
 * after a warm-up; GiB/s are of the input array. The OpenMP encode (all threads) of the same
 * array is timed the same way, and the two chunks must be equal byte for byte.
 *
 * usage: bench_gpu_bounded_encode [--reps N] [--pause MS] [--rel 1e-3,1e-5] [--pred 0,1,2,3,4,5]
 *   [--seg 0] FILE...
 *   --pause MS: the host asleep MS milliseconds before each GPU call (its host threads asleep).
 *   FILE: raw little-endian array named like name_f32le_AxBxC.bin (f32 or f64, C order).
 * Output: Markdown table rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <cuda_runtime.h>

#include "bench_gpu_args.h"
#include "bench_gpu_encode_time.h"
#include "bench_raw_file.h"
#include "parz_gpu.h"
#include "parz_omp.h"

int main(int argc, char** argv) {
  std::vector<double> rels = {1e-3}, preds = {0, 1, 2, 3, 4, 5}, segs = {0};
  return bench_encode_main(
      argc, argv, 5, {{"--rel", &rels}, {"--pred", &preds}, {"--seg", &segs}},
      "eb / range | predictor | segment", 3,
      [&](const bench_encode_run& run, const raw_array& r, const void* d_data) {
        for (double rel : rels)
          for (double pd : preds)
            for (double seg : segs) {
              parz_chunk_config cfg;
              memset(&cfg, 0, sizeof cfg);
              cfg.codec = PARZ_CODEC_BOUNDED;
              cfg.settings.error_bound = rel * r.range;
              cfg.settings.predictor = (unsigned)pd;
              cfg.segment_blocks = (uint32_t)seg;
              char cells[64];
              snprintf(cells, sizeof cells, "%g | %u | %u", rel, (unsigned)pd, (unsigned)seg);
              bench_encode_row(run, r, d_data, cfg, cells);
            }
      });
}
