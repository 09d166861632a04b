/* The error-bounded codec's GPU encoder on the device: parz_gpu_encode_device's chunks against
 * parz_chunk_encode's, byte for byte, and decoded within the bound, on the crafted cases of
 * gpu_bounded_encode_cases.h (the refused ones refused with PARZ_ERR_UNSUPPORTED; each also at
 * the writers' segment sizes), a strided array, a batch of chunks, and the real arrays: whole,
 * the predictor chosen, at 1e-3 and 1e-5 x their range; every predictor at 1e-3 x range on their
 * first 8 MiB, at segments of 1024 and 4096 codes. Exits 77 (ctest SKIP) when
 * no CUDA device is usable.
 * Usage: test_gpu_bounded_encode [--small | --tiny] [DATA_DIR] (--small: the crafted cases alone,
 * at the codec's segment size, for compute-sanitizer; --tiny: the cases whose codebook the device
 * builds over a small alphabet, bnd_tiny_cases, alone, for its racecheck) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <cuda_runtime.h>

#include "check.h"
#include "gpu_bounded_encode_cases.h"
#include "gpu_encode_compare.h"
#include "gpu_encode_device.h"
#include "gpu_test_context.h"
#include "parz_gpu.h"
#include "real_arrays.h"

static parz_gpu_context* ctx;

/* The values' elements a strided array a reaches: the extent of its buffer. */
static size_t reach(const parz_array& a) {
  size_t last = 0;
  for (unsigned k = 0; k < a.dims; k++)
    last += (a.shape[k] - 1) * (size_t)(a.stride[k] ? a.stride[k] : 1);
  return last + 1;
}

/* The GPU's chunk of a (host values at data, elements reachable through its strides) against the
 * CPU's; refused: the answer must be PARZ_ERR_UNSUPPORTED. */
static void check_case(const char* name, const parz_array& a, const void* data, size_t elements,
                       const parz_chunk_config& cfg, int refused) {
  const size_t w = a.type == PARZ_FLOAT ? 4 : 8;
  parz_error e = {0, ""};
  std::vector<unsigned char> got;
  const int rc = gpu_encode_on_device(ctx, a, data, elements * w, cfg, &got, &e);
  if (gpu_encode_same_as_cpu(name, a, data, cfg, refused, rc, e, 0, got)) {
    /* decoded within the bound (the CPU's decoder: the GPU's is test_gpu_bounded's) */
    const size_t n = gpu_case_count(a);
    std::vector<unsigned char> back(n * w);
    CHECK(parz_chunk_decode(got.data(), got.size(), back.data(), back.size(), &e) == PARZ_OK,
          ": %s: decode: %s", name, e.message);
    const size_t bad = bnd_outside(a, data, back, cfg.settings.error_bound);
    CHECK(bad == 0, ": %s: %zu values outside the bound", name, bad);
  }
}

/* The crafted cases of one configuration, encoded together in gpu_encode_check_batch. */
static bool batchable(const bnd_case& c) {
  return !c.refused && c.cfg.settings.predictor == 2 && c.cfg.settings.error_bound == 0.01 &&
         c.cfg.table == PARZ_TABLE_AUTO && c.cfg.segment_blocks == 0 && !c.cfg.stored &&
         c.cfg.mask == PARZ_MASK_DEFAULT;
}

int main(int argc, char** argv) {
  int small = 0, tiny = 0, rc;
  const char* dir = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--small"))
      small = 1;
    else if (!strcmp(argv[i], "--tiny"))
      tiny = 1;
    else
      dir = argv[i];
  }
  if ((rc = gpu_test_context(&ctx)) != 0)
    return rc;
  if (tiny) {
    const std::vector<bnd_case> few = bnd_tiny_cases();
    for (const bnd_case& c : few)
      check_case(c.name.c_str(), c.a, c.data.data(), gpu_case_count(c.a), c.cfg, c.refused);
    printf("%zu tiny cases\n", few.size());
    parz_gpu_context_free(ctx);
    return test_finish("gpu_bounded_encode");
  }
  /* the sanitizers' run (--small) at the codec's segment size alone: the other sizes take the
   * same kernels through the same steps, and three times their time */
  const std::vector<bnd_case> cases = small ? bnd_cases() : bnd_cases_segments();
  for (const bnd_case& c : cases)
    check_case(c.name.c_str(), c.a, c.data.data(), gpu_case_count(c.a), c.cfg, c.refused);
  printf("%zu crafted cases\n", cases.size());
  {
    /* a strided array: a 40 x 50 box of a 97 x 131 one, every other column of a 3-D one */
    const bnd_case& c = cases[2 * 6 + 2]; /* 2-D f32, predictor 2 */
    parz_array a = c.a;
    a.shape[0] = 40;
    a.shape[1] = 50;
    a.stride[0] = 131;
    a.stride[1] = 1;
    check_case("strided 2-D box", a, c.data.data(), reach(a), c.cfg, 0);
    const bnd_case& d = cases[4 * 6 + 1]; /* 3-D f32, predictor 1 */
    parz_array b = d.a;
    b.shape[2] = (d.a.shape[2] + 1) / 2;
    b.stride[0] = (ptrdiff_t)(d.a.shape[1] * d.a.shape[2]);
    b.stride[1] = (ptrdiff_t)d.a.shape[2];
    b.stride[2] = 2;
    check_case("strided 3-D, every other column", b, d.data.data(), reach(b), d.cfg, 0);
  }
  gpu_encode_check_batch(ctx, cases, bnd_config(0.01, 2), batchable);
  if (dir && !small) {
    size_t m = 0;
    real_array* r = real_arrays_load(dir, 0, &m);
    for (size_t i = 0; i < m; i++) {
      const double range = real_array_value_range(&r[i]);
      const int nan = real_array_holds_nan(&r[i]);
      char name[160];
      for (double rel : {1e-3, 1e-5}) {
        snprintf(name, sizeof name, "%s eb %g x range, chosen", r[i].name, rel);
        check_case(name, r[i].array, r[i].data, gpu_case_count(r[i].array),
                   bnd_config(rel * range, 0), nan);
      }
      /* the first 8 MiB, every predictor */
      parz_array a = r[i].array;
      const size_t row = gpu_case_count(a) / a.shape[0] * (a.type == PARZ_FLOAT ? 4 : 8);
      if (a.shape[0] > 1 && row * a.shape[0] > ((size_t)8 << 20))
        a.shape[0] = ((size_t)8 << 20) / row > 0 ? ((size_t)8 << 20) / row : 1;
      for (unsigned pred = 1; pred <= 5; pred++)
        for (uint32_t C : {bnd_segment_sizes[0], bnd_segment_sizes[1]}) {
          parz_chunk_config cfg = bnd_config(1e-3 * range, pred);
          cfg.segment_blocks = C;
          snprintf(name, sizeof name, "%s (%zu rows) eb 1e-3 x range, predictor %u, segments of %u",
                   r[i].name, a.shape[0], pred, C);
          check_case(name, a, r[i].data, gpu_case_count(a), cfg, nan);
        }
      printf("%s: checked\n", r[i].name);
      fflush(stdout);
    }
    printf("%zu real arrays\n", m);
    real_arrays_free(r, m);
  }
  parz_gpu_context_free(ctx);
  return test_finish("gpu_bounded_encode");
}
