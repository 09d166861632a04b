/* GPU encode of lossless chunks (codec 3): arrays resident in GPU memory encoded into one chunk
 * each in GPU memory (parz_gpu_encode_device), against the OpenMP encoder on the host.
 *
 * For each array and predictor (--pred: 0 Lorenzo over every dimension, 1 stack), the whole
 * parz_gpu_encode_device call (its kernels, the host's steps between them and the waits for
 * them) is timed on the host around a stream synchronization, median of --reps after a warm-up;
 * GiB/s are of the input array. The OpenMP encode (all threads) of the same array is timed the
 * same way, and the two chunks must be equal byte for byte.
 *
 * usage: bench_gpu_lossless_encode [--reps N] [--pause MS] [--pred 0,1] FILE...
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
  std::vector<double> preds = {0, 1};
  return bench_encode_main(
      argc, argv, 5, {{"--pred", &preds}}, "predictor", 1,
      [&](const bench_encode_run& run, const raw_array& r, const void* d_data) {
        for (double pd : preds) {
          parz_chunk_config cfg;
          memset(&cfg, 0, sizeof cfg);
          cfg.codec = PARZ_CODEC_LOSSLESS;
          cfg.settings.predictor = (unsigned)pd;
          char cells[16];
          snprintf(cells, sizeof cells, "%u", (unsigned)pd);
          bench_encode_row(run, r, d_data, cfg, cells);
        }
      });
}
