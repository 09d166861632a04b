/* The lossless codec's GPU encoder on the device: parz_gpu_encode_device's chunks against
 * parz_chunk_encode's, byte for byte, and decoded bit for bit, on the crafted cases of
 * gpu_lossless_encode_cases.h (the refused ones refused with PARZ_ERR_UNSUPPORTED, and then
 * encoded on the CPU by parz_gpu_encode_box's writer path, which falls back), a batch of chunks,
 * and every real array of DATA_DIR and SERIES_DIR whole, under both predictors (series under
 * predictor 0 are refused). Exits 77 (ctest SKIP) when no CUDA device is usable.
 * Usage: test_gpu_lossless_encode [--small] [DATA_DIR [SERIES_DIR]] (--small: a few crafted
 * cases, for compute-sanitizer) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <cuda_runtime.h>

#include "check.h"
#include "gpu_encode_compare.h"
#include "gpu_encode_device.h"
#include "gpu_lossless_encode_cases.h"
#include "gpu_test_context.h"
#include "parz_gpu.h"
#include "real_arrays.h"

static parz_gpu_context* ctx;

/* The GPU's chunk of a (host values at data) against the CPU's; refused: the answer must be
 * PARZ_ERR_UNSUPPORTED. */
static void check_case(const char* name, const parz_array& a, const void* data,
                       const parz_chunk_config& cfg, int refused) {
  parz_error e = {0, ""};
  std::vector<unsigned char> got;
  const int rc = gpu_encode_on_device(ctx, a, data, ll_reach(a) * ll_size(a.type), cfg, &got, &e);
  if (gpu_encode_same_as_cpu(name, a, data, cfg, refused, rc, e, 0, got)) {
    const std::vector<unsigned char> values = ll_contiguous(a, data);
    std::vector<unsigned char> back(values.size());
    CHECK(parz_chunk_decode(got.data(), got.size(), back.data(), back.size(), &e) == PARZ_OK &&
              back == values,
          ": %s: does not decode to its values bit for bit (%s)", name, e.message);
  }
}

/* The crafted cases of one configuration, encoded together in gpu_encode_check_batch. */
static bool batchable(const ll_case& c) {
  return !c.refused && c.cfg.settings.predictor == 1 && c.cfg.table == PARZ_TABLE_AUTO &&
         c.cfg.segment_blocks == 0 && !c.cfg.stored && c.a.type == PARZ_DOUBLE &&
         ll_reach(c.a) == gpu_case_count(c.a) && !c.a.stride[0];
}

/* Every array of dir whole, under both predictors. */
static void check_dir(const char* dir) {
  size_t m = 0;
  real_array* r = real_arrays_load(dir, 0, &m);
  for (size_t i = 0; i < m; i++) {
    unsigned used = 0;
    for (unsigned k = 0; k < r[i].array.dims; k++)
      used += r[i].array.shape[k] > 1;
    for (unsigned pred = 0; pred <= 1; pred++) {
      char name[160];
      snprintf(name, sizeof name, "%s, predictor %u", r[i].name, pred);
      check_case(name, r[i].array, r[i].data, ll_config(pred), pred == 0 && used <= 1);
    }
    printf("%s: checked\n", r[i].name);
    fflush(stdout);
  }
  printf("%zu arrays of %s\n", m, dir);
  real_arrays_free(r, m);
}

int main(int argc, char** argv) {
  int small = 0, rc;
  const char* dirs[2] = {NULL, NULL};
  unsigned ndirs = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--small"))
      small = 1;
    else if (ndirs < 2)
      dirs[ndirs++] = argv[i];
  }
  if ((rc = gpu_test_context(&ctx)) != 0)
    return rc;
  const std::vector<ll_case> cases = ll_cases();
  size_t done = 0;
  for (size_t i = 0; i < cases.size(); i++) {
    /* --small: the 9x31 and 40x60 cases of every type and the refusals */
    if (small && cases[i].name.find("9x31") == std::string::npos &&
        cases[i].name.find("40x60") == std::string::npos && !cases[i].refused)
      continue;
    check_case(cases[i].name.c_str(), cases[i].a, cases[i].data.data(), cases[i].cfg,
               cases[i].refused);
    done++;
  }
  printf("%zu crafted cases\n", done);
  if (!small) {
    gpu_encode_check_batch(ctx, cases, ll_config(1), batchable);
    for (unsigned d = 0; d < ndirs; d++)
      check_dir(dirs[d]);
  }
  parz_gpu_context_free(ctx);
  return test_finish("gpu_lossless_encode");
}
