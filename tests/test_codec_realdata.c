/* Real arrays (../shared/data): for each file given on the command line, our stream equals
 * libzfp's in fixed accuracy, precision, rate and reversible modes; our decoder reproduces
 * libzfp's decoded array from libzfp's stream; accuracy mode keeps |error| <= tolerance
 * wherever float precision allows (values in a block with magnitudes 2^20 (float) or 2^50
 * (double) times the tolerance, such as levitus's -1e10 fill next to temperatures, are
 * limited by the block-floating-point precision, as in zfp); reversible mode is bit-exact.
 * Files above --max values are cut to their leading slabs to keep the test short. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_codec_common.h"

static double get(parz_type t, const void* d, size_t i) {
  return t == PARZ_FLOAT ? ((const float*)d)[i] : ((const double*)d)[i];
}

/* Largest magnitude of the block holding each value. */
static double* block_max(const parz_array* a, const void* d) {
  size_t n = parz_array_count(a), i, nb = parz_block_count(a);
  double* bm = calloc(nb, sizeof *bm);
  double* out = malloc(n * sizeof *out);
  size_t* bi = malloc(n * sizeof *bi);
  for (i = 0; i < n; i++) {
    size_t rest = i, b = 0, mul = 1;
    int k;
    for (k = (int)a->dims - 1; k >= 0; k--) {
      size_t c = rest % a->shape[k];
      rest /= a->shape[k];
      b += (c / 4) * mul;
      mul *= (a->shape[k] + 3) / 4;
    }
    bi[i] = b;
    if (fabs(get(a->type, d, i)) > bm[b])
      bm[b] = fabs(get(a->type, d, i));
  }
  for (i = 0; i < n; i++)
    out[i] = bm[bi[i]];
  free(bm);
  free(bi);
  return out;
}

static void run(const char* name, const parz_array* a, const void* data) {
  size_t n = parz_array_count(a), es = parz_type_size(a->type), i;
  double lo = INFINITY, hi = -INFINITY;
  parz_params ps[5];
  const char* names[5] = {"accuracy 1e-3*range", "accuracy 0.05", "precision 18", "rate 6",
                          "reversible"};
  double tols[5] = {0, 0.05, 0, 0, 0};
  double* bmax = block_max(a, data);
  int m;
  for (i = 0; i < n; i++) {
    double v = get(a->type, data, i);
    if (v < lo)
      lo = v;
    if (v > hi)
      hi = v;
  }
  tols[0] = 1e-3 * (hi - lo);
  parz_params_accuracy(&ps[0], tols[0], NULL, NULL);
  parz_params_accuracy(&ps[1], tols[1], NULL, NULL);
  parz_params_precision(&ps[2], 18, NULL);
  parz_params_rate(&ps[3], 6, a->type, a->dims, NULL, NULL);
  parz_params_reversible(&ps[4]);
  for (m = 0; m < 5; m++) {
    size_t bound = parz_stream_bound(a->type, a->dims, &ps[m], parz_block_count(a));
    unsigned char* s = malloc(bound);
    unsigned char* z = malloc(bound + 64);
    void* ours = malloc(n * es);
    void* ref = malloc(n * es);
    size_t written = 0, zbytes;
    parz_error err;
    CHECK(parz_compress(a, data, &ps[m], s, bound, &written, &err) == PARZ_OK, "%s %s: %s", name,
          names[m], err.message);
    zbytes = tc_zfp_compress(a, data, &ps[m], z, bound + 64);
    CHECK(tc_same_stream(s, written, z, zbytes), "%s %s: stream differs from libzfp", name,
          names[m]);
    CHECK(tc_zfp_decompress(a, ref, &ps[m], z, zbytes), "libzfp decode");
    CHECK(parz_decompress(a, ours, &ps[m], z, zbytes, &err) == PARZ_OK, "%s", err.message);
    CHECK(!memcmp(ours, ref, n * es), "%s %s: decoded array differs from libzfp's", name, names[m]);
    if (tols[m] > 0) {
      double worst = 0;
      size_t limited = 0;
      for (i = 0; i < n; i++) {
        double e = fabs(get(a->type, ours, i) - get(a->type, data, i));
        if (tols[m] < ldexp(bmax[i], a->type == PARZ_FLOAT ? -20 : -50)) {
          limited++;
          continue;
        }
        if (e > worst)
          worst = e;
      }
      CHECK(worst <= tols[m], "%s %s: max error %g above tolerance %g", name, names[m], worst,
            tols[m]);
      printf("%s %s: ratio %.2f, max error %.3g <= %.3g (%zu values precision-limited)\n", name,
             names[m], (double)(n * es) / (double)written, worst, tols[m], limited);
    } else {
      printf("%s %s: ratio %.2f\n", name, names[m], (double)(n * es) / (double)written);
    }
    if (m == 4)
      CHECK(!memcmp(ours, data, n * es), "%s reversible: not bit-exact", name);
    free(s);
    free(z);
    free(ours);
    free(ref);
  }
  free(bmax);
}

int main(int argc, char** argv) {
  size_t maxvals = 1u << 20;
  int i;
  if (argc < 2) {
    printf("usage: %s [--max N] FILE.bin...; no data files given: nothing to test\n", argv[0]);
    return 0;
  }
  for (i = 1; i < argc; i++) {
    parz_array a;
    size_t bytes = 0, n, es;
    void* data;
    const char* base;
    if (!strcmp(argv[i], "--max") && i + 1 < argc) {
      maxvals = strtoul(argv[++i], NULL, 10);
      continue;
    }
    base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
    if (!tc_parse_data_name(base, &a)) {
      printf("%s: name has no <type>_<shape>, skipped\n", base);
      continue;
    }
    data = tc_read_file(argv[i], &bytes);
    n = parz_array_count(&a);
    es = parz_type_size(a.type);
    CHECK(data && bytes == n * es, "%s: cannot read %zu bytes", base, n * es);
    if (!data)
      continue;
    if (n > maxvals) {
      /* keep the leading slabs along the slowest axis */
      size_t slab = n / a.shape[0];
      a.shape[0] = maxvals / slab ? maxvals / slab : 1;
      printf("%s: testing the first %zu of its slabs\n", base, a.shape[0]);
    }
    run(base, &a, data);
    free(data);
  }
  return test_finish("test_codec_realdata");
}
