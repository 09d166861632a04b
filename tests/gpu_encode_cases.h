/* The synthetic arrays and configurations the GPU encoder is checked on, shared by
 * test_gpu_encode (on the GPU) and test_gpu_encode_host (its steps on the CPU), which hand each
 * to their own comparison with the serial encoder (C++, header-only: one copy per test program).
 *
 * Every type, rank 1 to 4, every mode (two expert settings), three kinds of values (smooth with
 * noise; special values among them: NaN with payloads, infinities, subnormals, signed zeros, the
 * extremes of each type, exceptions in the lossy modes; a constant with runs of zeros), every
 * table kind at several C and P with auto C, payload checksums and NaN masked (the defaults)
 * or both off (format versions 2 and 1, and 2 where the exceptions need it), strided views, then
 * heads spanning several checksum pieces (thousands of exception records) and arrays of one
 * value; masked arrays (gpu_cases_masks); values that put blocks at risk of missing the accuracy
 * bound (gpu_cases_risk). */
#ifndef GPU_ENCODE_CASES_H
#define GPU_ENCODE_CASES_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include "parz_chunk.h"
#include "xorshift.h"

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

/* n values of `type` as bytes: kind 0 smooth with noise, 1 with special values among them,
 * 2 a constant with runs of zeros. */
static std::vector<unsigned char> gpu_cases_values(parz_type type, size_t n, int kind) {
  const size_t size = parz_type_size(type);
  std::vector<unsigned char> v(n * size);
  for (size_t i = 0; i < n; i++) {
    double x = sin(0.037 * (double)(i % 1013)) * 300.0 + cos(0.0011 * (double)i) * 70.0 +
               (double)(xorshift_next() % 1000) * 1e-3;
    if (kind == 2)
      x = i % 97 < 40 ? 0.0 : 12.5;
    unsigned char* p = &v[i * size];
    if (type == PARZ_FLOAT) {
      static const float special[] = {NAN,     INFINITY, -INFINITY, 1e-40f, -1e-44f,
                                      FLT_MAX, -FLT_MAX, -0.0f,     0.0f,   FLT_MIN};
      float f = (float)x;
      if (kind == 1 && xorshift_next() % 5 == 0)
        f = special[xorshift_next() % 10];
      uint32_t u;
      memcpy(&u, &f, 4);
      if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu) && xorshift_next() % 2)
        u ^= (uint32_t)(xorshift_next() & 0x3fffffu); /* a NaN payload */
      memcpy(p, &u, 4);
    } else if (type == PARZ_DOUBLE) {
      static const double special[] = {NAN,     INFINITY, -INFINITY, 1e-310, -4.9e-324,
                                       DBL_MAX, -DBL_MAX, -0.0,      0.0,    DBL_MIN};
      if (kind == 1 && xorshift_next() % 5 == 0)
        x = special[xorshift_next() % 10];
      memcpy(p, &x, 8);
    } else if (type == PARZ_INT32) {
      int32_t k = (int32_t)(x * 1000.0);
      if (kind == 1 && xorshift_next() % 5 == 0)
        k = xorshift_next() % 2 ? INT32_MAX : INT32_MIN;
      memcpy(p, &k, 4);
    } else {
      int64_t k = (int64_t)(x * 1e12);
      if (kind == 1 && xorshift_next() % 5 == 0)
        k = xorshift_next() % 2 ? INT64_MAX : INT64_MIN;
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

/* The types, modes (two expert settings) and shapes of rank 1 to 4 (full and small) of the
 * cases. */
static const parz_type gpu_cases_types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
static const gpu_cases_mode gpu_cases_modes[] = {
    {"rate", PARZ_MODE_RATE, 11.5},         {"precision", PARZ_MODE_PRECISION, 19},
    {"accuracy", PARZ_MODE_ACCURACY, 1e-2}, {"reversible", PARZ_MODE_REVERSIBLE, 0},
    {"expert", PARZ_MODE_EXPERT, 0},        {"expert-pad", PARZ_MODE_EXPERT, 1}};
static const size_t gpu_cases_shapes[2][4][4] = {
    {{1003, 0, 0, 0}, {37, 61, 0, 0}, {9, 14, 23, 0}, {5, 6, 7, 9}},
    {{203, 0, 0, 0}, {13, 22, 0, 0}, {5, 7, 9, 0}, {3, 5, 6, 5}}};

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
      /* minbits padding: past the GPU thread's block buffer of any type in 1D (and past the
       * longest block, PARZ_MAX_BITS) and 2D, inside it in 3D and 4D */
      return parz_params_expert(&cfg->params,
                                dims == 1   ? 17000u
                                : dims == 2 ? 1200u
                                            : 100u * dims,
                                20000, 20, floats ? -30 : 0, NULL);
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
  /* table kind, C, P */
  static const int tables[][3] = {{PARZ_TABLE_AUTO, 0, 0},     {PARZ_TABLE_HYBRID, 3, 5},
                                  {PARZ_TABLE_HYBRID, 64, 2},  {PARZ_TABLE_OFFSETS, 7, 0},
                                  {PARZ_TABLE_LENGTHS, 33, 0}, {PARZ_TABLE_HYBRID, 1, 40},
                                  {PARZ_TABLE_LENGTHS, 0, 0}};
  const int all_tables = (int)(sizeof tables / sizeof tables[0]);
  int refused = 0;
  char what[200];
  for (parz_type type : gpu_cases_types)
    for (unsigned dims = 1; dims <= 4; dims++)
      for (const gpu_cases_mode& m : gpu_cases_modes)
        for (int kind = 0; kind < 3; kind++) {
          const bool floats = type == PARZ_FLOAT || type == PARZ_DOUBLE;
          if ((m.mode == PARZ_MODE_ACCURACY && !floats) || (scope.special_only && kind != 1))
            continue;
          parz_array a;
          memset(&a, 0, sizeof a);
          a.type = type;
          a.dims = dims;
          memcpy(a.shape, gpu_cases_shapes[scope.small_shapes][dims - 1], sizeof a.shape);
          std::vector<unsigned char> data = gpu_cases_values(type, parz_array_count(&a), kind);
          const int ntables =
              scope.every_table || (kind == 1 && !scope.small_shapes) ? all_tables : 2;
          for (int t = 0; t < ntables; t++) {
            parz_chunk_config cfg;
            memset(&cfg, 0, sizeof cfg);
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
              /* NaN masked with the defaults; exceptions as format version 1 wrote them */
              cfg.checksum = off ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_DEFAULT;
              cfg.mask = off ? PARZ_MASK_OFF : PARZ_MASK_DEFAULT;
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
    cfg.mask = PARZ_MASK_OFF; /* NaN as exceptions */
    a.type = PARZ_FLOAT;
    a.dims = 1;
    a.shape[0] = 9000;
    std::vector<float> v(9000);
    for (size_t i = 0; i < v.size(); i++)
      v[i] = xorshift_next() % 8 < 5 ? NAN : (float)i * 0.5f;
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
    cfg.mask = PARZ_MASK_OFF; /* a NaN as an exception (gpu_cases_masks: masked) */
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

/* Masked values (codec/FORMAT.md, "Mask") laid over smooth values of `type`, n of them in an
 * array whose last extent is `row`: kind 0, a region of fill values (fill_bits) over a smooth
 * boundary, so wholly masked blocks in runs and bitmaps along its edge; 1, a region of one NaN
 * with infinities and (lossy modes) huge values inside and next to it, exceptions in the blocks
 * of masked values; 2, NaN of 7 patterns in scattered spots and a region, the fill value and
 * exceptions among them; 3, NaN of 300 patterns (more than the 255 a mask takes, the rest
 * exceptions) and the fill value; 4, a few isolated NaN or fill values (sparse: groups larger than 256 blocks);
 * 5, every value masked. Integers get the fill value where floats get NaN. */
static std::vector<unsigned char> gpu_cases_masked_values(parz_type type, size_t n, size_t row,
                                                          int kind, uint64_t fill_bits) {
  std::vector<unsigned char> v = gpu_cases_values(type, n, 0);
  const size_t size = parz_type_size(type);
  const bool floats = type == PARZ_FLOAT || type == PARZ_DOUBLE;
  for (size_t i = 0; i < n; i++) {
    const double x = (double)(i % row) / (double)row, y = (double)(i / row) / (double)(n / row + 1);
    const bool region = sin(6.0 * x + 2.0 * y) + 0.6 * cos(9.0 * y) > 0.7;
    uint64_t bits;
    memcpy(&bits, &v[i * size], size);
    if (size == 4)
      bits &= 0xffffffffu;
    const uint64_t nan = size == 4 ? 0x7fc00000u : 0x7ff8000000000000ull;
    const uint64_t inf = size == 4 ? 0x7f800000u : 0x7ff0000000000000ull;
    const uint64_t huge = size == 4 ? 0x7f7fffffu : 0x7fefffffffffffffull;
    const uint64_t masked = floats && kind != 0 ? nan : fill_bits;
    const uint64_t r = xorshift_next();
    switch (kind) {
      case 0: bits = region ? fill_bits : bits; break;
      case 1:
        if (region)
          bits = r % 11 == 0 ? inf : r % 13 == 0 ? huge : masked;
        else if (r % 17 == 0)
          bits = inf ^ (size == 4 ? 0x80000000u : 0x8000000000000000ull);
        break;
      case 2:
        if (region || r % 9 == 0)
          bits = r % 5 == 0 ? fill_bits : floats ? nan | (r >> 20) % 7 : masked;
        else if (r % 23 == 0)
          bits = floats ? huge : (size == 4 ? 0x7fffffffu : 0x7fffffffffffffffull);
        break;
      case 3:
        if (i % 2)
          bits = floats ? nan | (1 + (i / 2) % 300) : fill_bits;
        else if (i % 7 == 4)
          bits = fill_bits;
        break;
      case 4:
        if (i % 1531 == 7 || i == n - 1)
          bits = r % 2 ? fill_bits : masked;
        break;
      default: bits = masked; break;
    }
    memcpy(&v[i * size], &bits, size);
  }
  return v;
}

/* Masked arrays: every type (integers with a fill value), rank 1 to 4 (partial edge blocks),
 * every mode, kinds of masked values (gpu_cases_masked_values), fill value or none, two
 * tables, payload checksums on and off, a strided view; 1D arrays of 6000 to 60000 values whose
 * masks choose G from 256 to 4096 and have runs across group boundaries; an array of a few
 * values at most; the default configuration on arrays without masked values (no mask
 * section). Each goes to compare; an array of NaN of more distinct patterns than the GPU's
 * set takes goes to refuse, with the word its refusal must name. */
template <typename R>
static void gpu_cases_masks(gpu_encode_scope scope, gpu_encode_compare compare, R refuse) {
  char what[200];
  for (parz_type type : gpu_cases_types)
    for (unsigned dims = 1; dims <= 4; dims++)
      for (const gpu_cases_mode& m : gpu_cases_modes)
        for (int kind = 0; kind < 6; kind++)
          for (int fill = 0; fill < 2; fill++) {
            const bool floats = type == PARZ_FLOAT || type == PARZ_DOUBLE;
            if ((m.mode == PARZ_MODE_ACCURACY && !floats) || (!floats && !fill) ||
                (scope.special_only && kind != 2))
              continue;
            parz_array a;
            parz_chunk_config cfg;
            memset(&a, 0, sizeof a);
            memset(&cfg, 0, sizeof cfg);
            a.type = type;
            a.dims = dims;
            memcpy(a.shape, gpu_cases_shapes[scope.small_shapes][dims - 1], sizeof a.shape);
            const uint64_t fill_bits = type == PARZ_FLOAT    ? 0xc61c3c00u /* -9999 */
                                       : type == PARZ_DOUBLE ? 0xc0c3878000000000ull
                                       : type == PARZ_INT32  ? 0x80000001u
                                                             : 0x8000000000000001ull;
            std::vector<unsigned char> data = gpu_cases_masked_values(
                type, parz_array_count(&a), a.shape[dims - 1], kind, fill_bits);
            gpu_cases_params(&cfg, m, type, dims);
            cfg.fill = fill;
            cfg.fill_bits = fill_bits;
            cfg.mask = fill ? PARZ_MASK_ON : PARZ_MASK_DEFAULT;
            for (int t = 0; t < 2; t++)
              for (int off = 0; off < 2; off++) {
                cfg.table = m.mode == PARZ_MODE_RATE ? PARZ_TABLE_NONE : PARZ_TABLE_AUTO;
                cfg.segment_blocks = cfg.partition_segments = 0;
                if (t) {
                  cfg.table = PARZ_TABLE_HYBRID;
                  cfg.segment_blocks = 3;
                  cfg.partition_segments = 5;
                }
                cfg.checksum = off ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_ON;
                snprintf(what, sizeof what, "%s %uD %s masked kind %d%s table %d checksums %s",
                         parz_type_name(type), dims, m.name, kind, fill ? " fill" : "", t,
                         off ? "off" : "on");
                compare(what, a, data.data(), cfg);
              }
            if (!scope.strided || kind != 2)
              continue;
            parz_array s;
            std::vector<unsigned char> wide;
            gpu_cases_strided(a, data, &s, wide);
            cfg.table = m.mode == PARZ_MODE_RATE ? PARZ_TABLE_NONE : PARZ_TABLE_AUTO;
            cfg.segment_blocks = cfg.partition_segments = 0;
            snprintf(what, sizeof what, "%s %uD %s masked kind %d%s strided", parz_type_name(type),
                     dims, m.name, kind, fill ? " fill" : "");
            compare(what, s, wide.data(), cfg);
          }
  /* long 1D arrays: masks sparse to dense choose G from 4096 down to 256; a NaN run of 1900
   * blocks crosses group boundaries whatever G */
  for (size_t n : {6000, 60000})
    for (int density = 0; density < 6; density++) {
      if (scope.small_shapes && n > 6000)
        continue;
      parz_array a;
      parz_chunk_config cfg;
      memset(&a, 0, sizeof a);
      memset(&cfg, 0, sizeof cfg);
      a.type = PARZ_FLOAT;
      a.dims = 1;
      a.shape[0] = n;
      std::vector<float> v(n);
      for (size_t i = 0; i < n; i++) {
        v[i] = (float)sin(0.01 * (double)i) * 50.0f;
        const uint64_t r = xorshift_next();
        /* 1, 30 or 50 NaN far apart, then one in 400, 60 or 7 and a run */
        static const size_t apart[3] = {1, 30, 50}, odds[3] = {400, 60, 7};
        if (density < 3 ? i % (n / apart[density]) == n / (2 * apart[density])
                        : r % odds[density - 3] == 0)
          v[i] = NAN;
        if (density == 5 && i >= 1000 && i < 1000 + 4 * 1900)
          v[i] = NAN;
      }
      parz_params_accuracy(&cfg.params, 1e-3, NULL, NULL);
      for (int off = 0; off < 2; off++) {
        cfg.checksum = off ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_ON;
        snprintf(what, sizeof what, "float 1D %zu values, masks of density %d, checksums %s", n,
                 density, off ? "off" : "on");
        compare(what, a, v.data(), cfg);
      }
    }
  /* tiny arrays: one NaN, one fill value, every rank */
  for (unsigned dims = 1; dims <= 4; dims++) {
    parz_array a;
    parz_chunk_config cfg;
    memset(&a, 0, sizeof a);
    memset(&cfg, 0, sizeof cfg);
    a.type = PARZ_DOUBLE;
    a.dims = dims;
    for (unsigned k = 0; k < dims; k++)
      a.shape[k] = 1;
    parz_params_accuracy(&cfg.params, 1e-3, NULL, NULL);
    double x = NAN;
    compare("one NaN, masked", a, &x, cfg);
    x = -5.0;
    cfg.fill = 1;
    memcpy(&cfg.fill_bits, &x, 8);
    compare("one fill value", a, &x, cfg);
  }
  /* the default configuration on values without masked ones: no mask section, the chunk of
   * the mask turned off */
  for (parz_type type : gpu_cases_types) {
    parz_array a;
    parz_chunk_config cfg;
    memset(&a, 0, sizeof a);
    memset(&cfg, 0, sizeof cfg);
    a.type = type;
    a.dims = 2;
    a.shape[0] = 37;
    a.shape[1] = 61;
    std::vector<unsigned char> data = gpu_cases_values(type, parz_array_count(&a), 0);
    if (type == PARZ_FLOAT || type == PARZ_DOUBLE)
      parz_params_accuracy(&cfg.params, 1e-3, NULL, NULL);
    else
      parz_params_precision(&cfg.params, 24, NULL);
    snprintf(what, sizeof what, "%s without masked values, default mask", parz_type_name(type));
    compare(what, a, data.data(), cfg);
  }
  /* NaN of 3000 distinct patterns: more than the GPU's set holds */
  {
    parz_array a;
    parz_chunk_config cfg;
    memset(&a, 0, sizeof a);
    memset(&cfg, 0, sizeof cfg);
    a.type = PARZ_FLOAT;
    a.dims = 2;
    a.shape[0] = 64;
    a.shape[1] = 100;
    std::vector<uint32_t> v(6400);
    for (size_t i = 0; i < v.size(); i++)
      v[i] = i % 2 ? 0x7fc00000u | (uint32_t)(i / 2 + 1) : 0x3f800000u;
    parz_params_accuracy(&cfg.params, 1e-3, NULL, NULL);
    refuse("NaN of 3200 patterns", a, v.data(), cfg, "NaN");
  }
}

/* Values that put blocks at risk of missing the accuracy bound (codec/FORMAT.md, "The accuracy
 * bound"): a region of -1e34 (a netCDF fill value) over smooth values, float32 and float64,
 * rank 1 to 4, and a block of float32 values near 1000 at a tolerance below their spacing (at
 * risk, though zfp codes them exactly). In accuracy mode the GPU encoder refuses them, the mask
 * on or off (refuse); with -1e34 named as the fill value (masked, so no block is at risk), and
 * in precision and rate modes, which promise no absolute bound, it encodes them as the serial
 * encoder does (compare). refuse gets the word the refusal must name. */
template <typename R>
static void gpu_cases_risk(gpu_encode_scope scope, gpu_encode_compare compare, R refuse) {
  char what[200];
  for (parz_type type : {PARZ_FLOAT, PARZ_DOUBLE})
    for (unsigned dims = 1; dims <= 4; dims++) {
      parz_array a;
      memset(&a, 0, sizeof a);
      a.type = type;
      a.dims = dims;
      memcpy(a.shape, gpu_cases_shapes[scope.small_shapes][dims - 1], sizeof a.shape);
      const float f = -1e34f;
      const double d = -1e34;
      uint64_t sentinel = 0;
      if (type == PARZ_FLOAT)
        memcpy(&sentinel, &f, 4);
      else
        memcpy(&sentinel, &d, 8);
      std::vector<unsigned char> data =
          gpu_cases_masked_values(type, parz_array_count(&a), a.shape[dims - 1], 0, sentinel);
      for (int setting = 0; setting < 5; setting++) {
        parz_chunk_config cfg;
        memset(&cfg, 0, sizeof cfg);
        if (setting == 3)
          parz_params_precision(&cfg.params, 19, NULL);
        else if (setting == 4)
          parz_params_rate(&cfg.params, 11.5, type, dims, NULL, NULL);
        else
          parz_params_accuracy(&cfg.params, 1e-2, NULL, NULL);
        cfg.mask = setting == 1 ? PARZ_MASK_OFF : PARZ_MASK_DEFAULT;
        cfg.fill = setting == 2;
        cfg.fill_bits = sentinel;
        if (setting == 4)
          cfg.table = PARZ_TABLE_NONE;
        static const char* const names[] = {"accuracy", "accuracy, mask off",
                                            "accuracy, -1e34 the fill value", "precision", "rate"};
        snprintf(what, sizeof what, "%s %uD -1e34 beside smooth values, %s", parz_type_name(type),
                 dims, names[setting]);
        if (setting < 2)
          refuse(what, a, data.data(), cfg, "tolerance");
        else
          compare(what, a, data.data(), cfg);
      }
      if (type != PARZ_FLOAT || dims != 2)
        continue;
      /* values near 1000 at 1e-7 */
      std::vector<float> v(parz_array_count(&a));
      for (size_t i = 0; i < v.size(); i++)
        v[i] = 1000.0f + (float)(i % 7) * 0.25f;
      parz_chunk_config cfg;
      memset(&cfg, 0, sizeof cfg);
      parz_params_accuracy(&cfg.params, 1e-7, NULL, NULL);
      refuse("float 2D near 1000 at accuracy 1e-7", a, v.data(), cfg, "tolerance");
    }
}

#endif
