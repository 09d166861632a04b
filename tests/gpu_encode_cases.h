/* The synthetic arrays and configurations the GPU encoder is checked on, shared by
 * test_gpu_encode (on the GPU) and test_gpu_encode_host (its steps on the CPU), which hand each
 * to their own comparison with the serial encoder (C++, header-only: one copy per test program).
 *
 * Every type, rank 1 to 4, every mode (two expert settings), three kinds of values (smooth with
 * noise; special values among them: NaN with payloads, infinities, subnormals, signed zeros, the
 * extremes of each type, exceptions in the lossy modes; a constant with runs of zeros), every
 * table kind at several C and P with auto C, payload checksums on and off (format versions 2 and
 * 1, and 2 where the exceptions need it), strided views, then heads spanning several checksum
 * pieces (thousands of exception records) and arrays of one value. */
#ifndef GPU_ENCODE_CASES_H
#define GPU_ENCODE_CASES_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include "parz_chunk.h"

/* The comparison a test makes of one array (data, laid out as a says) and configuration. */
typedef void (*gpu_encode_compare)(const char* what, const parz_array& a, const void* data,
                                   const parz_chunk_config& cfg);

/* What runs. small_shapes: arrays of a few hundred values (compute-sanitizer runs);
 * special_only: the values with special values among them alone; every_table: every table
 * setting for every kind of values (else all for the special values of the full shapes, the
 * first two for the rest); strided: the strided views too. */
struct gpu_encode_scope {
  bool small_shapes, special_only, every_table, strided;
};

static uint64_t gpu_cases_rng = 0x9E3779B97F4A7C15ull;
static uint64_t gpu_cases_rand(void) {
  gpu_cases_rng ^= gpu_cases_rng << 13;
  gpu_cases_rng ^= gpu_cases_rng >> 7;
  gpu_cases_rng ^= gpu_cases_rng << 17;
  return gpu_cases_rng;
}

/* n values of `type` as bytes: kind 0 smooth with noise, 1 with special values among them,
 * 2 a constant with runs of zeros. */
static std::vector<unsigned char> gpu_cases_values(parz_type type, size_t n, int kind) {
  const size_t size = parz_type_size(type);
  std::vector<unsigned char> v(n * size);
  for (size_t i = 0; i < n; i++) {
    double x = sin(0.037 * (double)(i % 1013)) * 300.0 + cos(0.0011 * (double)i) * 70.0 +
               (double)(gpu_cases_rand() % 1000) * 1e-3;
    if (kind == 2)
      x = i % 97 < 40 ? 0.0 : 12.5;
    unsigned char* p = &v[i * size];
    if (type == PARZ_FLOAT) {
      static const float special[] = {NAN,     INFINITY, -INFINITY, 1e-40f, -1e-44f,
                                      FLT_MAX, -FLT_MAX, -0.0f,     0.0f,   FLT_MIN};
      float f = (float)x;
      if (kind == 1 && gpu_cases_rand() % 5 == 0)
        f = special[gpu_cases_rand() % 10];
      uint32_t u;
      memcpy(&u, &f, 4);
      if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu) && gpu_cases_rand() % 2)
        u ^= (uint32_t)(gpu_cases_rand() & 0x3fffffu); /* a NaN payload */
      memcpy(p, &u, 4);
    } else if (type == PARZ_DOUBLE) {
      static const double special[] = {NAN,     INFINITY, -INFINITY, 1e-310, -4.9e-324,
                                       DBL_MAX, -DBL_MAX, -0.0,      0.0,    DBL_MIN};
      if (kind == 1 && gpu_cases_rand() % 5 == 0)
        x = special[gpu_cases_rand() % 10];
      memcpy(p, &x, 8);
    } else if (type == PARZ_INT32) {
      int32_t k = (int32_t)(x * 1000.0);
      if (kind == 1 && gpu_cases_rand() % 5 == 0)
        k = gpu_cases_rand() % 2 ? INT32_MAX : INT32_MIN;
      memcpy(p, &k, 4);
    } else {
      int64_t k = (int64_t)(x * 1e12);
      if (kind == 1 && gpu_cases_rand() % 5 == 0)
        k = gpu_cases_rand() % 2 ? INT64_MAX : INT64_MIN;
      memcpy(p, &k, 8);
    }
  }
  return v;
}

struct gpu_cases_mode {
  const char* name;
  int mode;
  double value;
};

static int gpu_cases_params(parz_chunk_config* cfg, const gpu_cases_mode& m, parz_type type,
                            unsigned dims) {
  const bool floats = type == PARZ_FLOAT || type == PARZ_DOUBLE;
  switch (m.mode) {
    case PARZ_MODE_RATE: return parz_params_rate(&cfg->params, m.value, type, dims, NULL, NULL);
    case PARZ_MODE_PRECISION: return parz_params_precision(&cfg->params, (unsigned)m.value, NULL);
    case PARZ_MODE_ACCURACY: return parz_params_accuracy(&cfg->params, m.value, NULL, NULL);
    case PARZ_MODE_REVERSIBLE: parz_params_reversible(&cfg->params); return PARZ_OK;
    default:
      if (m.value == 0) /* a budget that cuts blocks mid-plane, minbits padding */
        return parz_params_expert(&cfg->params, 40u * dims, 90u * dims * dims, 24, floats ? -30 : 0,
                                  NULL);
      return parz_params_expert(&cfg->params, 100u * dims, 20000, 20, floats ? -30 : 0, NULL);
  }
}

/* The same values as a strided view: every other element along the last dimension, one element
 * of padding after each row and one row after each plane; into *s and wide. */
static void gpu_cases_strided(const parz_array& a, const std::vector<unsigned char>& data,
                              parz_array* s, std::vector<unsigned char>& wide) {
  const unsigned dims = a.dims;
  const size_t size = parz_type_size(a.type), count = parz_array_count(&a);
  ptrdiff_t span = 2 * (ptrdiff_t)a.shape[dims - 1] + 1;
  size_t big = 1;
  *s = a;
  s->stride[dims - 1] = 2;
  for (int k = (int)dims - 2; k >= 0; k--) {
    s->stride[k] = span;
    span *= (ptrdiff_t)a.shape[k] + 1;
  }
  for (unsigned k = 0; k < dims; k++)
    big += (a.shape[k] - 1) * (size_t)s->stride[k];
  wide.assign(big * size, 0xEE);
  for (size_t i = 0; i < count; i++) {
    size_t rest = i;
    ptrdiff_t off = 0;
    for (int k = (int)dims - 1; k >= 0; k--) {
      off += (ptrdiff_t)(rest % a.shape[k]) * s->stride[k];
      rest /= a.shape[k];
    }
    memcpy(&wide[(size_t)off * size], &data[i * size], size);
  }
}

/* Every case of the scope, each handed to compare. Returns how many configurations could not be
 * set up (0 unless the codec refuses one of these parameter sets). */
static int gpu_encode_cases(gpu_encode_scope scope, gpu_encode_compare compare) {
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  static const gpu_cases_mode modes[] = {
      {"rate", PARZ_MODE_RATE, 11.5},         {"precision", PARZ_MODE_PRECISION, 19},
      {"accuracy", PARZ_MODE_ACCURACY, 1e-2}, {"reversible", PARZ_MODE_REVERSIBLE, 0},
      {"expert", PARZ_MODE_EXPERT, 0},        {"expert-pad", PARZ_MODE_EXPERT, 1}};
  static const size_t shapes[4][4] = {
      {1003, 0, 0, 0}, {37, 61, 0, 0}, {9, 14, 23, 0}, {5, 6, 7, 9}};
  static const size_t shapes_small[4][4] = {
      {203, 0, 0, 0}, {13, 22, 0, 0}, {5, 7, 9, 0}, {3, 5, 6, 5}};
  /* table kind, C, P */
  static const int tables[][3] = {{PARZ_TABLE_AUTO, 0, 0},     {PARZ_TABLE_HYBRID, 3, 5},
                                  {PARZ_TABLE_HYBRID, 64, 2},  {PARZ_TABLE_OFFSETS, 7, 0},
                                  {PARZ_TABLE_LENGTHS, 33, 0}, {PARZ_TABLE_HYBRID, 1, 40},
                                  {PARZ_TABLE_LENGTHS, 0, 0}};
  const int all_tables = (int)(sizeof tables / sizeof tables[0]);
  int refused = 0;
  char what[200];
  for (parz_type type : types)
    for (unsigned dims = 1; dims <= 4; dims++)
      for (const gpu_cases_mode& m : modes)
        for (int kind = 0; kind < 3; kind++) {
          const bool floats = type == PARZ_FLOAT || type == PARZ_DOUBLE;
          if ((m.mode == PARZ_MODE_ACCURACY && !floats) || (scope.special_only && kind != 1))
            continue;
          parz_array a;
          memset(&a, 0, sizeof a);
          a.type = type;
          a.dims = dims;
          memcpy(a.shape, scope.small_shapes ? shapes_small[dims - 1] : shapes[dims - 1],
                 sizeof a.shape);
          std::vector<unsigned char> data = gpu_cases_values(type, parz_array_count(&a), kind);
          const int ntables =
              scope.every_table || (kind == 1 && !scope.small_shapes) ? all_tables : 2;
          for (int t = 0; t < ntables; t++) {
            parz_chunk_config cfg;
            memset(&cfg, 0, sizeof cfg);
            cfg.mask = PARZ_MASK_OFF; /* the GPU encoder writes no mask section */
            if (gpu_cases_params(&cfg, m, type, dims) != PARZ_OK) {
              refused++;
              continue;
            }
            cfg.table = (parz_table_kind)tables[t][0];
            cfg.segment_blocks = (uint32_t)tables[t][1];
            cfg.partition_segments = (uint32_t)tables[t][2];
            if (m.mode == PARZ_MODE_RATE && cfg.table == PARZ_TABLE_AUTO)
              cfg.table = PARZ_TABLE_NONE;
            for (int off = 0; off < 2; off++) {
              cfg.checksum = off ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_DEFAULT;
              snprintf(what, sizeof what, "%s %uD %s data %d table %d C=%d P=%d checksums %s",
                       parz_type_name(type), dims, m.name, kind, tables[t][0], tables[t][1],
                       tables[t][2], off ? "off" : "on");
              compare(what, a, data.data(), cfg);
            }
          }
          if (!scope.strided)
            continue;
          parz_array s;
          std::vector<unsigned char> wide;
          gpu_cases_strided(a, data, &s, wide);
          parz_chunk_config cfg;
          memset(&cfg, 0, sizeof cfg);
          cfg.mask = PARZ_MASK_OFF; /* the GPU encoder writes no mask section */
          gpu_cases_params(&cfg, m, type, dims);
          if (m.mode == PARZ_MODE_RATE)
            cfg.table = PARZ_TABLE_NONE;
          snprintf(what, sizeof what, "%s %uD %s data %d strided", parz_type_name(type), dims,
                   m.name, kind);
          compare(what, s, wide.data(), cfg);
        }
  /* heads of several checksum spans: 9000 floats, most of them NaN (records of about 90 KB),
   * with C = 1 (a table of about 5 KB) */
  {
    parz_array a;
    parz_chunk_config cfg;
    memset(&a, 0, sizeof a);
    memset(&cfg, 0, sizeof cfg);
    cfg.mask = PARZ_MASK_OFF; /* the GPU encoder writes no mask section */
    a.type = PARZ_FLOAT;
    a.dims = 1;
    a.shape[0] = 9000;
    std::vector<float> v(9000);
    for (size_t i = 0; i < v.size(); i++)
      v[i] = gpu_cases_rand() % 8 < 5 ? NAN : (float)i * 0.5f;
    parz_params_accuracy(&cfg.params, 1e-3, NULL, NULL);
    cfg.segment_blocks = 1;
    compare("many exceptions", a, v.data(), cfg);
    cfg.table = PARZ_TABLE_OFFSETS;
    compare("many exceptions, OFFSETS", a, v.data(), cfg);
  }
  /* arrays of one value (partial blocks of one value), every rank, one of them NaN */
  for (unsigned dims = 1; dims <= 4; dims++) {
    parz_array a;
    parz_chunk_config cfg;
    memset(&a, 0, sizeof a);
    memset(&cfg, 0, sizeof cfg);
    cfg.mask = PARZ_MASK_OFF; /* the GPU encoder writes no mask section */
    a.type = PARZ_FLOAT;
    a.dims = dims;
    for (unsigned k = 0; k < dims; k++)
      a.shape[k] = 1;
    parz_params_accuracy(&cfg.params, 1e-3, NULL, NULL);
    float v = NAN;
    compare("one NaN", a, &v, cfg);
    v = -3.25f;
    compare("one value", a, &v, cfg);
  }
  return refused;
}

/* Configurations whose chunks may need a mask section (parz_chunk_config_masks), which the GPU
 * encoder does not write: each goes to refuse(what, a, data, cfg), which expects the GPU to
 * refuse it (PARZ_ERR_UNSUPPORTED, nothing written) where the serial encoder encodes it; an
 * integer array under the default mask, which masks nothing, goes to compare. */
template <typename R, typename F>
static void gpu_cases_masked(R refuse, F compare) {
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  for (parz_type type : types)
    for (int fill = 0; fill < 2; fill++)
      for (int kind = 0; kind < 2; kind++) {
        const bool floats = type == PARZ_FLOAT || type == PARZ_DOUBLE;
        parz_array a;
        parz_chunk_config cfg;
        char what[160];
        memset(&a, 0, sizeof a);
        memset(&cfg, 0, sizeof cfg);
        a.type = type;
        a.dims = 2;
        a.shape[0] = 37;
        a.shape[1] = 61;
        /* smooth values (masked values or not, the parameters decide) and special values */
        std::vector<unsigned char> data = gpu_cases_values(type, parz_array_count(&a), kind);
        if (floats)
          parz_params_accuracy(&cfg.params, 1e-3, NULL, NULL);
        else
          parz_params_precision(&cfg.params, 24, NULL);
        cfg.mask = fill ? PARZ_MASK_ON : PARZ_MASK_DEFAULT;
        cfg.fill = fill;
        memcpy(&cfg.fill_bits, data.data(), parz_type_size(type)); /* the first value */
        if (parz_type_size(type) == 4)
          cfg.fill_bits &= 0xffffffffu;
        snprintf(what, sizeof what, "%s data %d, mask %s", parz_type_name(type), kind,
                 fill ? "with a fill value" : "default");
        if (floats || fill)
          refuse(what, a, data.data(), cfg);
        else
          compare(what, a, data.data(), cfg);
      }
}

#endif
