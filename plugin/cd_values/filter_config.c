/* cd_values of the ParZ filter (layouts in filter_config.h and docs/cd_values.md). */
#include "filter_config.h"

#include <stdio.h>
#include <string.h>

int parz_cd_mode_values(unsigned mode) {
  switch (mode) {
    case PARZ_MODE_RATE: return 2;      /* binary64 hi, lo */
    case PARZ_MODE_PRECISION: return 1; /* precision */
    case PARZ_MODE_ACCURACY: return 2;  /* binary64 hi, lo */
    case PARZ_MODE_EXPERT: return 4;    /* minbits, maxbits, maxprec, minexp */
    case PARZ_MODE_REVERSIBLE: return 0;
    default: return -1;
  }
}

const char* parz_cd_mode_name(unsigned mode) {
  static const char* const names[] = {"?", "rate", "precision", "accuracy", "expert", "reversible"};
  return mode <= 5 ? names[mode] : "?";
}

double parz_cd_double(uint32_t hi, uint32_t lo) {
  uint64_t bits = ((uint64_t)hi << 32) | lo;
  double x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

static int check_table(parz_filter_request* req, parz_error* err) {
  if (req->table > PARZ_TABLE_HYBRID)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: table kind %u is unknown (0 auto, 1 none, 2 offsets, 3 lengths, "
                     "4 hybrid)",
                     req->table);
  if (req->segment_blocks > PARZ_CD_MAX_SEGMENT_BLOCKS)
    return parz_fail(err, PARZ_ERR_PARAM, "parz: segment_blocks %u is above the limit %u",
                     (unsigned)req->segment_blocks, PARZ_CD_MAX_SEGMENT_BLOCKS);
  if (req->partition_segments > PARZ_CD_MAX_PARTITION_SEGMENTS)
    return parz_fail(err, PARZ_ERR_PARAM, "parz: partition_segments %u is above the limit %u",
                     (unsigned)req->partition_segments, PARZ_CD_MAX_PARTITION_SEGMENTS);
  if (req->checksum > PARZ_CHECKSUM_OFF)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: payload checksum setting %u is unknown (0 default = on, 1 on, 2 off)",
                     req->checksum);
  if (req->mask > PARZ_CD_MASK_FILL)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: mask setting %u is unknown (0 default = on, 1 on, 2 off, 3 on with "
                     "the fill value that follows)",
                     req->mask);
  return PARZ_OK;
}

/* The fields an internal form holds beyond the request: cd[7] of version 1, cd[1] of version 2
 * (its type, byte order and flag bits), and where C and P are. */
typedef struct {
  unsigned type;  /* parz_type, unchecked */
  unsigned flags; /* PARZ_CD_BIG_ENDIAN, PARZ_CD_NO_CHECKSUM, PARZ_CD_NO_MASK, PARZ_CD_FILL */
  unsigned mode, table;
  uint32_t C, P;
  uint64_t fill_bits;
  int bad; /* bits no version of the form defines */
} internal_fields;

static internal_fields read_internal(const unsigned* cd) {
  internal_fields f;
  memset(&f, 0, sizeof f);
  if (cd[0] == PARZ_CD_INTERNAL_V1) {
    f.type = cd[PARZ_CD_V1_TYPE] & (PARZ_CD_BIG_ENDIAN - 1u);
    f.flags = cd[PARZ_CD_V1_TYPE] & (PARZ_CD_BIG_ENDIAN | PARZ_CD_NO_CHECKSUM);
    f.bad = (cd[PARZ_CD_V1_TYPE] & ~(2 * PARZ_CD_NO_CHECKSUM - 1u)) != 0;
    f.mode = cd[PARZ_CD_V1_MODE];
    f.table = cd[PARZ_CD_V1_TABLE];
    f.C = cd[PARZ_CD_V1_SEGMENT_BLOCKS];
    f.P = cd[PARZ_CD_V1_PARTITION_SEGMENTS];
  } else {
    const unsigned packed = cd[PARZ_CD_V2_PACKED];
    f.type = packed & (PARZ_CD_BIG_ENDIAN - 1u);
    f.flags = packed & (2 * PARZ_CD_FILL - 1u) & ~(PARZ_CD_BIG_ENDIAN - 1u);
    f.mode = (packed >> 8) & 15u;
    f.table = (packed >> 12) & 15u;
    f.bad =
        (packed >> 16) != 0 ||
        ((f.flags & PARZ_CD_FILL) == 0 && (cd[PARZ_CD_V2_FILL_HIGH] || cd[PARZ_CD_V2_FILL_LOW])) ||
        ((f.flags & PARZ_CD_FILL) && (f.flags & PARZ_CD_NO_MASK));
    f.fill_bits = (uint64_t)cd[PARZ_CD_V2_FILL_HIGH] << 32 | cd[PARZ_CD_V2_FILL_LOW];
    f.C = cd[PARZ_CD_V2_SEGMENT_BLOCKS];
    f.P = cd[PARZ_CD_V2_PARTITION_SEGMENTS];
  }
  return f;
}

/* H5Z-ZFP's user cd_values, which a user coming from it may give ParZ: the mode, an unused 0, then
 * the mode's values, a double as its two native words (low word first on the little-endian hosts
 * it runs on): (1 or 3, 0, lo, hi), (2, 0, precision), (4, 0, minbits, maxbits, maxprec, minexp).
 * In ParZ's layout a rate or tolerance whose high word is 0 is below 2.3e-308 and a precision of 0
 * is invalid, so those forms are refused here with the values ParZ expects; the expert form only
 * when its last value then makes no sense as segment_blocks (H5Z-ZFP's minexp is negative).
 * Returns PARZ_OK when cd is not such a form. */
static int refuse_zfp_layout(size_t n, const unsigned* cd, parz_error* err) {
  if (n < 3 || cd[1] != 0)
    return PARZ_OK;
  char given[80] = "", ours[100];
  switch (cd[0]) {
    case PARZ_MODE_RATE:
    case PARZ_MODE_ACCURACY:
      if (n != 4)
        return PARZ_OK;
      snprintf(ours, sizeof ours, "%s %.17g is %u,%u,%u", parz_cd_mode_name(cd[0]),
               parz_cd_double(cd[3], cd[2]), cd[0], cd[3], cd[2]);
      break;
    case PARZ_MODE_PRECISION:
      if (n != 3)
        return PARZ_OK;
      snprintf(ours, sizeof ours, "precision %u is %u,%u", cd[2], cd[0], cd[2]);
      break;
    case PARZ_MODE_EXPERT:
      if (n != 6 || cd[5] <= PARZ_CD_MAX_SEGMENT_BLOCKS)
        return PARZ_OK;
      snprintf(ours, sizeof ours, "expert %u,%u,%u,%d is %u,%u,%u,%u,%u", cd[2], cd[3], cd[4],
               (int)(int32_t)cd[5], cd[0], cd[2], cd[3], cd[4], cd[5]);
      break;
    default: return PARZ_OK;
  }
  for (size_t i = 0; i < n; i++) {
    size_t used = strlen(given);
    snprintf(given + used, sizeof given - used, "%s%u", i ? "," : "", cd[i]);
  }
  return parz_fail(err, PARZ_ERR_PARAM,
                   "parz: cd_values %s look like H5Z-ZFP's (mode, 0, values); ParZ takes the "
                   "mode, then its values, a double as its high then low word: %s",
                   given, ours);
}

int parz_cd_parse_request(size_t n, const unsigned* cd, parz_filter_request* req, parz_error* err) {
  memset(req, 0, sizeof *req);
  if (n == 0 || cd == NULL)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: no cd_values; the first value must be the mode (1 rate, "
                     "2 precision, 3 accuracy, 4 expert, 5 reversible)");
  if (cd[0] == PARZ_CD_INTERNAL_V1 || cd[0] == PARZ_CD_INTERNAL_V2) {
    /* Re-applied internal form (h5repack, H5Ocopy of a dataset creation property list). */
    internal_fields f;
    if (n != PARZ_CD_INTERNAL_NELMTS)
      return parz_fail(err, PARZ_ERR_PARAM,
                       "parz: internal cd_values version %u need %u values, got %zu", cd[0] - 1000u,
                       PARZ_CD_INTERNAL_NELMTS, n);
    f = read_internal(cd);
    req->mode = f.mode;
    if (parz_cd_mode_values(req->mode) < 0)
      return parz_fail(err, PARZ_ERR_PARAM, "parz: internal cd_values hold unknown mode %u",
                       req->mode);
    for (int i = 0; i < 4; i++)
      req->values[i] = req->mode == PARZ_MODE_EXPERT ? cd[PARZ_CD_MINBITS + i]
                       : i < 2                       ? cd[PARZ_CD_USER_VALUES + i]
                                                     : 0;
    req->table = f.table;
    req->segment_blocks = f.C;
    req->partition_segments = f.P;
    req->checksum = f.flags & PARZ_CD_NO_CHECKSUM ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_DEFAULT;
    req->mask = f.flags & PARZ_CD_NO_MASK ? PARZ_CD_MASK_OFF
                : f.flags & PARZ_CD_FILL  ? PARZ_CD_MASK_FILL
                                          : PARZ_CD_MASK_DEFAULT;
    if (f.flags & PARZ_CD_FILL) {
      req->fill_resolved = 1;
      req->fill_type = (parz_type)f.type;
      req->fill_bits = f.fill_bits;
    }
    return check_table(req, err);
  }
  if (cd[0] > 1000)
    return parz_fail(err, PARZ_ERR_VERSION,
                     "parz: cd_values in internal form %u, newer than this plugin knows "
                     "(1001, 1002); upgrade the ParZ plugin",
                     cd[0]);
  int rc = refuse_zfp_layout(n, cd, err);
  if (rc != PARZ_OK)
    return rc;
  int k = parz_cd_mode_values(cd[0]);
  if (k < 0)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: unknown mode %u in cd_values[0] (1 rate, 2 precision, 3 accuracy, "
                     "4 expert, 5 reversible)",
                     cd[0]);
  req->mode = cd[0];
  if (n < 1 + (size_t)k)
    return parz_fail(err, PARZ_ERR_PARAM, "parz: %s mode needs %d value%s after the mode, got %zu",
                     parz_cd_mode_name(req->mode), k, k == 1 ? "" : "s", n - 1);
  size_t extra = n - 1 - (size_t)k;
  unsigned mask = extra > 4 ? cd[5 + k] : PARZ_CD_MASK_DEFAULT;
  if (extra > (mask == PARZ_CD_MASK_FILL ? 7u : 5u) || (mask == PARZ_CD_MASK_FILL && extra != 7))
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: %zu cd_values for %s mode; at most %d (mode, %d value%s, "
                     "segment_blocks, partition_segments, table kind, payload checksums, mask), "
                     "and mask setting 3 takes the fill value after it (high, low word): %d",
                     n, parz_cd_mode_name(req->mode), k + 6, k, k == 1 ? "" : "s", k + 8);
  for (int i = 0; i < k; i++)
    req->values[i] = cd[1 + i];
  if (extra > 0)
    req->segment_blocks = cd[1 + k];
  if (extra > 1)
    req->partition_segments = cd[2 + k];
  if (extra > 2)
    req->table = cd[3 + k];
  if (extra > 3)
    req->checksum = cd[4 + k];
  req->mask = mask;
  if (mask == PARZ_CD_MASK_FILL) {
    req->fill[0] = cd[6 + k];
    req->fill[1] = cd[7 + k];
  }
  return check_table(req, err);
}

void parz_cd_dataset_fill(parz_filter_request* req, parz_type type, uint64_t bits) {
  if (req->mask == PARZ_CD_MASK_OFF || req->mask == PARZ_CD_MASK_FILL)
    return;
  req->mask = PARZ_CD_MASK_FILL;
  req->fill_resolved = 1;
  req->fill_type = type;
  req->fill_bits = bits;
}

/* The value of bit pattern `bits` of `type` (int64 rounded). */
static double value_of(parz_type type, uint64_t bits) {
  float f;
  uint32_t u = (uint32_t)bits;
  switch (type) {
    case PARZ_FLOAT: memcpy(&f, &u, 4); return f;
    case PARZ_DOUBLE: return parz_cd_double((uint32_t)(bits >> 32), (uint32_t)bits);
    case PARZ_INT32: return (double)(int32_t)u;
    default: return (double)(int64_t)bits;
  }
}

/* The fill value x as a bit pattern of `type`: floats round to nearest, integers must hold it
 * exactly. */
static int fill_bits_of(double x, parz_type type, uint64_t* bits, parz_error* err) {
  float f;
  uint32_t u;
  switch (type) {
    case PARZ_FLOAT:
      f = (float)x;
      memcpy(&u, &f, 4);
      *bits = u;
      return PARZ_OK;
    case PARZ_DOUBLE: memcpy(bits, &x, 8); return PARZ_OK;
    case PARZ_INT32:
      if (x >= -2147483648.0 && x <= 2147483647.0 && (double)(int32_t)x == x) {
        *bits = (uint32_t)(int32_t)x;
        return PARZ_OK;
      }
      break;
    default:
      if (x >= -9223372036854775808.0 && x < 9223372036854775808.0 && (double)(int64_t)x == x) {
        *bits = (uint64_t)(int64_t)x;
        return PARZ_OK;
      }
      break;
  }
  return parz_fail(err, PARZ_ERR_PARAM,
                   "parz: fill value %.17g is not a value of the dataset's "
                   "type %s",
                   x, parz_type_name(type));
}

/* The request's mask settings for a dataset of `type`. */
static int configure_mask(const parz_filter_request* req, parz_type type, parz_chunk_config* c,
                          parz_error* err) {
  c->mask = req->mask == PARZ_CD_MASK_OFF ? PARZ_MASK_OFF : PARZ_MASK_DEFAULT;
  if (req->mask != PARZ_CD_MASK_FILL)
    return PARZ_OK;
  c->fill = 1;
  if (req->fill_resolved && req->fill_type == type) {
    c->fill_bits = req->fill_bits;
    return parz_type_size(type) == 4 && req->fill_bits >> 32
               ? parz_fail(err, PARZ_ERR_PARAM,
                           "parz: fill value 0x%llx has more bits than a %s value",
                           (unsigned long long)req->fill_bits, parz_type_name(type))
               : PARZ_OK;
  }
  return fill_bits_of(req->fill_resolved ? value_of(req->fill_type, req->fill_bits)
                                         : parz_cd_double(req->fill[0], req->fill[1]),
                      type, &c->fill_bits, err);
}

int parz_cd_squeeze(unsigned rank, const uint64_t* chunk_dims, size_t out[4]) {
  int d = 0;
  for (int i = 0; i < 4; i++)
    out[i] = 0;
  for (unsigned i = 0; i < rank; i++) {
    if (chunk_dims[i] == 1)
      continue;
    if (d == 4)
      return -1;
    out[d++] = (size_t)chunk_dims[i];
  }
  if (d == 0)
    out[d++] = 1;
  return d;
}

/* Expert parameters as the filter accepts them: zfp's rules plus a cap on minbits. zfp pads
 * every block to minbits bits, so minbits above the largest block any type and rank can produce
 * (PARZ_MAX_BITS, the cap rate mode has too) only adds zeros, and a hostile or mistyped value
 * would make a 16-byte block take half a gigabyte: the chunk bound (and the allocation made
 * for encoding) must stay proportional to the chunk. */
static int expert_params(parz_params* p, uint32_t minbits, uint32_t maxbits, uint32_t maxprec,
                         int32_t minexp, parz_error* err) {
  if (minbits > PARZ_MAX_BITS)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: expert minbits %u above the maximum %u (bits no block can use)",
                     (unsigned)minbits, PARZ_MAX_BITS);
  return parz_params_expert(p, minbits, maxbits, maxprec, minexp, err);
}

static int request_params(const parz_filter_request* req, parz_type type, unsigned dims,
                          parz_params* p, parz_error* err) {
  const uint32_t* v = req->values;
  int floating = type == PARZ_FLOAT || type == PARZ_DOUBLE;
  switch (req->mode) {
    case PARZ_MODE_RATE: {
      double rate = parz_cd_double(v[0], v[1]);
      return parz_params_rate(p, rate, type, dims, NULL, err);
    }
    case PARZ_MODE_PRECISION: return parz_params_precision(p, v[0], err);
    case PARZ_MODE_ACCURACY: {
      if (!floating)
        return parz_fail(err, PARZ_ERR_PARAM,
                         "parz: accuracy mode needs floating-point data; for %s datasets use "
                         "precision, rate or reversible mode",
                         parz_type_name(type));
      double tol = parz_cd_double(v[0], v[1]);
      return parz_params_accuracy(p, tol, NULL, err);
    }
    case PARZ_MODE_EXPERT: return expert_params(p, v[0], v[1], v[2], (int32_t)v[3], err);
    case PARZ_MODE_REVERSIBLE: parz_params_reversible(p); return PARZ_OK;
    default: return parz_fail(err, PARZ_ERR_PARAM, "parz: unknown mode %u", req->mode);
  }
}

int parz_cd_configure(const parz_filter_request* req, parz_type type, int big_endian, unsigned dims,
                      const size_t shape[4], parz_filter_config* cfg, parz_error* err) {
  memset(cfg, 0, sizeof *cfg);
  cfg->request = *req;
  cfg->big_endian = big_endian != 0;
  cfg->chunk.type = type;
  cfg->chunk.dims = dims;
  for (unsigned i = 0; i < 4; i++)
    cfg->chunk.shape[i] = i < dims ? shape[i] : 0;
  int rc = parz_array_check(&cfg->chunk, err);
  if (rc != PARZ_OK)
    return rc;
  rc = request_params(req, type, dims, &cfg->config.params, err);
  if (rc == PARZ_OK)
    rc = parz_params_check_encode(&cfg->config.params, type, dims, err);
  if (rc != PARZ_OK)
    return rc;

  int fixed = parz_params_fixed_rate(&cfg->config.params);
  parz_table_kind table = (parz_table_kind)req->table;
  if (table == PARZ_TABLE_AUTO)
    table = fixed ? PARZ_TABLE_NONE : PARZ_TABLE_HYBRID;
  if (table == PARZ_TABLE_NONE && !fixed)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: table kind 1 (none) needs a fixed-rate mode; %s mode has "
                     "variable-length blocks",
                     parz_cd_mode_name(req->mode));
  cfg->config.table = table;
  cfg->config.checksum = (parz_checksum_mode)req->checksum;
  cfg->config.stored = PARZ_STORED_WHEN_SMALLER;
  if ((rc = configure_mask(req, type, &cfg->config, err)) != PARZ_OK)
    return rc;
  cfg->config.segment_blocks = req->segment_blocks; /* 0: auto, per chunk (parz_chunk.h) */
  cfg->config.partition_segments = table != PARZ_TABLE_HYBRID ? 0
                                   : req->partition_segments  ? req->partition_segments
                                                              : PARZ_DEFAULT_PARTITION_SEGMENTS;
  if (parz_chunk_bound(&cfg->chunk, &cfg->config) == 0)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: table kind %u with segment_blocks %u and partition_segments %u is "
                     "not valid for this chunk",
                     (unsigned)table, (unsigned)cfg->config.segment_blocks,
                     (unsigned)cfg->config.partition_segments);
  return PARZ_OK;
}

void parz_cd_store(const parz_filter_config* cfg, unsigned* cd) {
  const parz_chunk_config* c = &cfg->config;
  unsigned flags = (cfg->big_endian ? PARZ_CD_BIG_ENDIAN : 0u) +
                   (c->checksum == PARZ_CHECKSUM_OFF ? PARZ_CD_NO_CHECKSUM : 0u);
  memset(cd, 0, PARZ_CD_INTERNAL_NELMTS * sizeof *cd);
  if (cfg->request.mode != PARZ_MODE_EXPERT) {
    cd[PARZ_CD_USER_VALUES] = cfg->request.values[0];
    cd[PARZ_CD_USER_VALUES + 1] = cfg->request.values[1];
  }
  for (unsigned i = 0; i < cfg->chunk.dims; i++)
    cd[PARZ_CD_SHAPE + i] = (unsigned)cfg->chunk.shape[i];
  cd[PARZ_CD_MINBITS] = c->params.minbits;
  cd[PARZ_CD_MAXBITS] = c->params.maxbits;
  cd[PARZ_CD_MAXPREC] = c->params.maxprec;
  cd[PARZ_CD_MINEXP] = (unsigned)(uint32_t)c->params.minexp;
  if (c->mask != PARZ_MASK_OFF && !c->fill) { /* version 1 */
    cd[PARZ_CD_FORM] = PARZ_CD_INTERNAL_V1;
    cd[PARZ_CD_V1_MODE] = cfg->request.mode;
    cd[PARZ_CD_V1_TABLE] = (unsigned)c->table;
    cd[PARZ_CD_V1_SEGMENT_BLOCKS] = c->segment_blocks;
    cd[PARZ_CD_V1_PARTITION_SEGMENTS] = c->partition_segments;
    cd[PARZ_CD_V1_TYPE] = (unsigned)cfg->chunk.type + flags;
    return;
  }
  flags += c->mask == PARZ_MASK_OFF ? PARZ_CD_NO_MASK : PARZ_CD_FILL;
  cd[PARZ_CD_FORM] = PARZ_CD_INTERNAL_V2;
  cd[PARZ_CD_V2_PACKED] =
      (unsigned)cfg->chunk.type + flags + 256u * cfg->request.mode + 4096u * (unsigned)c->table;
  if (c->mask != PARZ_MASK_OFF) {
    cd[PARZ_CD_V2_FILL_HIGH] = (unsigned)(c->fill_bits >> 32);
    cd[PARZ_CD_V2_FILL_LOW] = (unsigned)(c->fill_bits & 0xffffffffu);
  }
  cd[PARZ_CD_V2_SEGMENT_BLOCKS] = c->segment_blocks;
  cd[PARZ_CD_V2_PARTITION_SEGMENTS] = c->partition_segments;
}

int parz_cd_load(size_t n, const unsigned* cd, parz_filter_config* cfg, parz_error* err) {
  internal_fields f;
  memset(cfg, 0, sizeof *cfg);
  if (n == 0 || cd == NULL || (cd[0] != PARZ_CD_INTERNAL_V1 && cd[0] != PARZ_CD_INTERNAL_V2)) {
    if (n > 0 && cd != NULL && cd[0] > PARZ_CD_INTERNAL_V2)
      return parz_fail(err, PARZ_ERR_VERSION,
                       "parz: dataset cd_values in internal form %u, newer than this plugin "
                       "knows (1001, 1002); upgrade the ParZ plugin",
                       cd[0]);
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: dataset cd_values are not in ParZ's internal form (set_local did "
                     "not run?)");
  }
  int rc = parz_cd_parse_request(n, cd, &cfg->request, err);
  if (rc != PARZ_OK)
    return rc;
  f = read_internal(cd);
  unsigned dims = 0;
  const unsigned* shape = cd + PARZ_CD_SHAPE;
  while (dims < 4 && shape[dims] != 0)
    dims++;
  for (unsigned i = dims; i < 4; i++)
    if (shape[i] != 0)
      dims = 0; /* a gap: not a shape this plugin wrote */
  if (f.type < PARZ_INT32 || f.type > PARZ_DOUBLE || f.bad || dims == 0)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: dataset cd_values corrupt (type %u, chunk shape %u %u %u %u)",
                     cd[0] == PARZ_CD_INTERNAL_V1 ? cd[PARZ_CD_V1_TYPE] : cd[PARZ_CD_V2_PACKED],
                     shape[0], shape[1], shape[2], shape[3]);
  cfg->chunk.type = (parz_type)f.type;
  cfg->big_endian = (f.flags & PARZ_CD_BIG_ENDIAN) != 0;
  cfg->chunk.dims = dims;
  for (unsigned i = 0; i < dims; i++)
    cfg->chunk.shape[i] = shape[i];
  rc = parz_array_check(&cfg->chunk, err);
  if (rc != PARZ_OK)
    return rc;
  rc = expert_params(&cfg->config.params, cd[PARZ_CD_MINBITS], cd[PARZ_CD_MAXBITS],
                     cd[PARZ_CD_MAXPREC], (int32_t)cd[PARZ_CD_MINEXP], err);
  if (rc != PARZ_OK)
    return rc;
  cfg->config.table = (parz_table_kind)f.table;
  cfg->config.segment_blocks = f.C;
  cfg->config.partition_segments = f.P;
  cfg->config.checksum = (parz_checksum_mode)cfg->request.checksum;
  cfg->config.stored = PARZ_STORED_WHEN_SMALLER;
  rc = configure_mask(&cfg->request, cfg->chunk.type, &cfg->config, err);
  if (rc != PARZ_OK)
    return rc;
  if (cfg->config.table == PARZ_TABLE_AUTO || parz_chunk_bound(&cfg->chunk, &cfg->config) == 0)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: dataset cd_values corrupt (table kind %u, segment_blocks %u, "
                     "partition_segments %u)",
                     f.table, f.C, f.P);
  return PARZ_OK;
}

/* "float big-endian 4x4" */
static void describe_chunks(char* out, size_t size, parz_type type, int big_endian, unsigned dims,
                            const size_t* shape) {
  int n = snprintf(out, size, "%s %s ", parz_type_name(type),
                   big_endian ? "big-endian" : "little-endian");
  for (unsigned i = 0; i < dims && n > 0 && (size_t)n < size; i++)
    n += snprintf(out + n, size - (size_t)n, "%s%zu", i ? "x" : "", shape[i]);
}

int parz_cd_check_dataset(const parz_filter_config* cfg, parz_type type, int big_endian,
                          unsigned dims, const size_t shape[4], parz_error* err) {
  int same =
      cfg->chunk.type == type && cfg->big_endian == (big_endian != 0) && cfg->chunk.dims == dims;
  for (unsigned i = 0; same && i < dims; i++)
    same = cfg->chunk.shape[i] == shape[i];
  if (same)
    return PARZ_OK;
  char said[64], real[64];
  describe_chunks(said, sizeof said, cfg->chunk.type, cfg->big_endian, cfg->chunk.dims,
                  cfg->chunk.shape);
  describe_chunks(real, sizeof real, type, big_endian, dims, shape);
  return parz_fail(err, PARZ_ERR_FORMAT,
                   "parz: the dataset's cd_values describe %s chunks, the dataset holds %s "
                   "chunks (a crafted or damaged file); refusing to decode",
                   said, real);
}
