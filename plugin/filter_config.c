/* cd_values of the ParZ filter (layouts in filter_config.h and README.md). */
#include "filter_config.h"

#include <stdio.h>
#include <string.h>

int parz_cd_mode_values(unsigned mode) {
  switch (mode) {
    case PARZ_MODE_RATE: return 2;       /* binary64 hi, lo */
    case PARZ_MODE_PRECISION: return 1;  /* precision */
    case PARZ_MODE_ACCURACY: return 2;   /* binary64 hi, lo */
    case PARZ_MODE_EXPERT: return 4;     /* minbits, maxbits, maxprec, minexp */
    case PARZ_MODE_REVERSIBLE: return 0;
    default: return -1;
  }
}

const char* parz_cd_mode_name(unsigned mode) {
  static const char* const names[] = {"?", "rate", "precision", "accuracy", "expert",
                                      "reversible"};
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
                     "4 hybrid)", req->table);
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
  return PARZ_OK;
}

/* H5Z-ZFP's user cd_values, which a user coming from it may give ParZ: the mode, an unused 0, then
 * the mode's values, a double as its two native words (low word first on the little-endian hosts
 * it runs on): (1 or 3, 0, lo, hi), (2, 0, precision), (4, 0, minbits, maxbits, maxprec, minexp).
 * In ParZ's layout a rate or tolerance whose high word is 0 is below 2.3e-308 and a precision of 0
 * is invalid, so those forms are refused here with the values ParZ expects; the expert form only
 * when its last value then makes no sense as segment_blocks (H5Z-ZFP's minexp is negative).
 * Returns PARZ_OK when cd is not such a form. */
static int refuse_zfp_layout(size_t n, const unsigned* cd, parz_error* err) {
  if (n < 3 || cd[1] != 0) return PARZ_OK;
  char given[80] = "", ours[100];
  switch (cd[0]) {
    case PARZ_MODE_RATE:
    case PARZ_MODE_ACCURACY:
      if (n != 4) return PARZ_OK;
      snprintf(ours, sizeof ours, "%s %.17g is %u,%u,%u", parz_cd_mode_name(cd[0]),
               parz_cd_double(cd[3], cd[2]), cd[0], cd[3], cd[2]);
      break;
    case PARZ_MODE_PRECISION:
      if (n != 3) return PARZ_OK;
      snprintf(ours, sizeof ours, "precision %u is %u,%u", cd[2], cd[0], cd[2]);
      break;
    case PARZ_MODE_EXPERT:
      if (n != 6 || cd[5] <= PARZ_CD_MAX_SEGMENT_BLOCKS) return PARZ_OK;
      snprintf(ours, sizeof ours, "expert %u,%u,%u,%d is %u,%u,%u,%u,%u", cd[2], cd[3], cd[4],
               (int)(int32_t)cd[5], cd[0], cd[2], cd[3], cd[4], cd[5]);
      break;
    default:
      return PARZ_OK;
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

int parz_cd_parse_request(size_t n, const unsigned* cd, parz_filter_request* req,
                          parz_error* err) {
  memset(req, 0, sizeof *req);
  if (n == 0 || cd == NULL)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: no cd_values; the first value must be the mode (1 rate, "
                     "2 precision, 3 accuracy, 4 expert, 5 reversible)");
  if (cd[0] == PARZ_CD_INTERNAL_V1) {
    /* Re-applied internal form (h5repack, H5Ocopy of a dataset creation property list). */
    if (n != PARZ_CD_INTERNAL_NELMTS)
      return parz_fail(err, PARZ_ERR_PARAM,
                       "parz: internal cd_values version 1 need %u values, got %zu",
                       PARZ_CD_INTERNAL_NELMTS, n);
    req->mode = cd[PARZ_CD_MODE];
    if (parz_cd_mode_values(req->mode) < 0)
      return parz_fail(err, PARZ_ERR_PARAM, "parz: internal cd_values hold unknown mode %u",
                       req->mode);
    for (int i = 0; i < 4; i++)
      req->values[i] = req->mode == PARZ_MODE_EXPERT ? cd[PARZ_CD_MINBITS + i]
                       : i < 2                       ? cd[PARZ_CD_USER_VALUES + i]
                                                     : 0;
    req->table = cd[PARZ_CD_TABLE];
    req->segment_blocks = cd[PARZ_CD_SEGMENT_BLOCKS];
    req->partition_segments = cd[PARZ_CD_PARTITION_SEGMENTS];
    req->checksum =
        cd[PARZ_CD_TYPE] & PARZ_CD_NO_CHECKSUM ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_DEFAULT;
    return check_table(req, err);
  }
  if (cd[0] > 1000)
    return parz_fail(err, PARZ_ERR_VERSION,
                     "parz: cd_values in internal form %u, newer than this plugin knows (1001); "
                     "upgrade the ParZ plugin", cd[0]);
  int rc = refuse_zfp_layout(n, cd, err);
  if (rc != PARZ_OK) return rc;
  int k = parz_cd_mode_values(cd[0]);
  if (k < 0)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: unknown mode %u in cd_values[0] (1 rate, 2 precision, 3 accuracy, "
                     "4 expert, 5 reversible)", cd[0]);
  req->mode = cd[0];
  if (n < 1 + (size_t)k)
    return parz_fail(err, PARZ_ERR_PARAM, "parz: %s mode needs %d value%s after the mode, got %zu",
                     parz_cd_mode_name(req->mode), k, k == 1 ? "" : "s", n - 1);
  if (n > 1 + (size_t)k + 4)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: %zu cd_values for %s mode; at most %d (mode, %d value%s, "
                     "segment_blocks, partition_segments, table kind, payload checksums)",
                     n, parz_cd_mode_name(req->mode), k + 5, k, k == 1 ? "" : "s");
  for (int i = 0; i < k; i++) req->values[i] = cd[1 + i];
  size_t extra = n - 1 - (size_t)k;
  if (extra > 0) req->segment_blocks = cd[1 + k];
  if (extra > 1) req->partition_segments = cd[2 + k];
  if (extra > 2) req->table = cd[3 + k];
  if (extra > 3) req->checksum = cd[4 + k];
  return check_table(req, err);
}

int parz_cd_squeeze(unsigned rank, const uint64_t* chunk_dims, size_t out[4]) {
  int d = 0;
  for (int i = 0; i < 4; i++) out[i] = 0;
  for (unsigned i = 0; i < rank; i++) {
    if (chunk_dims[i] == 1) continue;
    if (d == 4) return -1;
    out[d++] = (size_t)chunk_dims[i];
  }
  if (d == 0) out[d++] = 1;
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
    case PARZ_MODE_PRECISION:
      return parz_params_precision(p, v[0], err);
    case PARZ_MODE_ACCURACY: {
      if (!floating)
        return parz_fail(err, PARZ_ERR_PARAM,
                         "parz: accuracy mode needs floating-point data; for %s datasets use "
                         "precision, rate or reversible mode",
                         parz_type_name(type));
      double tol = parz_cd_double(v[0], v[1]);
      return parz_params_accuracy(p, tol, NULL, err);
    }
    case PARZ_MODE_EXPERT:
      return expert_params(p, v[0], v[1], v[2], (int32_t)v[3], err);
    case PARZ_MODE_REVERSIBLE:
      parz_params_reversible(p);
      return PARZ_OK;
    default:
      return parz_fail(err, PARZ_ERR_PARAM, "parz: unknown mode %u", req->mode);
  }
}

int parz_cd_configure(const parz_filter_request* req, parz_type type, int big_endian,
                      unsigned dims, const size_t shape[4], parz_filter_config* cfg,
                      parz_error* err) {
  memset(cfg, 0, sizeof *cfg);
  cfg->request = *req;
  cfg->big_endian = big_endian != 0;
  cfg->chunk.type = type;
  cfg->chunk.dims = dims;
  for (unsigned i = 0; i < 4; i++) cfg->chunk.shape[i] = i < dims ? shape[i] : 0;
  int rc = parz_array_check(&cfg->chunk, err);
  if (rc != PARZ_OK) return rc;
  rc = request_params(req, type, dims, &cfg->config.params, err);
  if (rc == PARZ_OK) rc = parz_params_check_encode(&cfg->config.params, type, dims, err);
  if (rc != PARZ_OK) return rc;

  int fixed = parz_params_fixed_rate(&cfg->config.params);
  parz_table_kind table = (parz_table_kind)req->table;
  if (table == PARZ_TABLE_AUTO) table = fixed ? PARZ_TABLE_NONE : PARZ_TABLE_HYBRID;
  if (table == PARZ_TABLE_NONE && !fixed)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: table kind 1 (none) needs a fixed-rate mode; %s mode has "
                     "variable-length blocks", parz_cd_mode_name(req->mode));
  cfg->config.table = table;
  cfg->config.checksum = (parz_checksum_mode)req->checksum;
  cfg->config.segment_blocks = req->segment_blocks; /* 0: auto, per chunk (parz_chunk.h) */
  cfg->config.partition_segments =
      table != PARZ_TABLE_HYBRID ? 0
      : req->partition_segments ? req->partition_segments : PARZ_DEFAULT_PARTITION_SEGMENTS;
  if (parz_chunk_bound(&cfg->chunk, &cfg->config) == 0)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: table kind %u with segment_blocks %u and partition_segments %u is "
                     "not valid for this chunk", (unsigned)table,
                     (unsigned)cfg->config.segment_blocks,
                     (unsigned)cfg->config.partition_segments);
  return PARZ_OK;
}

void parz_cd_store(const parz_filter_config* cfg, unsigned* cd) {
  memset(cd, 0, PARZ_CD_INTERNAL_NELMTS * sizeof *cd);
  cd[PARZ_CD_FORM] = PARZ_CD_INTERNAL_V1;
  cd[PARZ_CD_MODE] = cfg->request.mode;
  if (cfg->request.mode != PARZ_MODE_EXPERT) {
    cd[PARZ_CD_USER_VALUES] = cfg->request.values[0];
    cd[PARZ_CD_USER_VALUES + 1] = cfg->request.values[1];
  }
  cd[PARZ_CD_TABLE] = (unsigned)cfg->config.table;
  cd[PARZ_CD_SEGMENT_BLOCKS] = cfg->config.segment_blocks;
  cd[PARZ_CD_PARTITION_SEGMENTS] = cfg->config.partition_segments;
  cd[PARZ_CD_TYPE] = (unsigned)cfg->chunk.type + (cfg->big_endian ? PARZ_CD_BIG_ENDIAN : 0u) +
                     (cfg->config.checksum == PARZ_CHECKSUM_OFF ? PARZ_CD_NO_CHECKSUM : 0u);
  for (unsigned i = 0; i < cfg->chunk.dims; i++)
    cd[PARZ_CD_SHAPE + i] = (unsigned)cfg->chunk.shape[i];
  cd[PARZ_CD_MINBITS] = cfg->config.params.minbits;
  cd[PARZ_CD_MAXBITS] = cfg->config.params.maxbits;
  cd[PARZ_CD_MAXPREC] = cfg->config.params.maxprec;
  cd[PARZ_CD_MINEXP] = (unsigned)(uint32_t)cfg->config.params.minexp;
}

int parz_cd_load(size_t n, const unsigned* cd, parz_filter_config* cfg, parz_error* err) {
  memset(cfg, 0, sizeof *cfg);
  if (n == 0 || cd == NULL || cd[0] != PARZ_CD_INTERNAL_V1) {
    if (n > 0 && cd != NULL && cd[0] > PARZ_CD_INTERNAL_V1)
      return parz_fail(err, PARZ_ERR_VERSION,
                       "parz: dataset cd_values in internal form %u, newer than this plugin "
                       "knows (1001); upgrade the ParZ plugin", cd[0]);
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: dataset cd_values are not in ParZ's internal form (set_local did "
                     "not run?)");
  }
  int rc = parz_cd_parse_request(n, cd, &cfg->request, err);
  if (rc != PARZ_OK) return rc;
  const unsigned type_word = cd[PARZ_CD_TYPE], *shape = cd + PARZ_CD_SHAPE;
  unsigned type = type_word & (PARZ_CD_BIG_ENDIAN - 1u), dims = 0;
  while (dims < 4 && shape[dims] != 0) dims++;
  for (unsigned i = dims; i < 4; i++)
    if (shape[i] != 0) dims = 0; /* a gap: not a shape this plugin wrote */
  if (type < PARZ_INT32 || type > PARZ_DOUBLE || (type_word & ~(2 * PARZ_CD_NO_CHECKSUM - 1u)) ||
      dims == 0)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: dataset cd_values corrupt (type %u, chunk shape %u %u %u %u)",
                     type_word, shape[0], shape[1], shape[2], shape[3]);
  cfg->chunk.type = (parz_type)type;
  cfg->big_endian = (type_word & PARZ_CD_BIG_ENDIAN) != 0;
  cfg->chunk.dims = dims;
  for (unsigned i = 0; i < dims; i++) cfg->chunk.shape[i] = shape[i];
  rc = parz_array_check(&cfg->chunk, err);
  if (rc != PARZ_OK) return rc;
  rc = expert_params(&cfg->config.params, cd[PARZ_CD_MINBITS], cd[PARZ_CD_MAXBITS],
                     cd[PARZ_CD_MAXPREC], (int32_t)cd[PARZ_CD_MINEXP], err);
  if (rc != PARZ_OK) return rc;
  cfg->config.table = (parz_table_kind)cd[PARZ_CD_TABLE];
  cfg->config.segment_blocks = cd[PARZ_CD_SEGMENT_BLOCKS];
  cfg->config.partition_segments = cd[PARZ_CD_PARTITION_SEGMENTS];
  cfg->config.checksum = (parz_checksum_mode)cfg->request.checksum;
  if (cfg->config.table == PARZ_TABLE_AUTO || parz_chunk_bound(&cfg->chunk, &cfg->config) == 0)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: dataset cd_values corrupt (table kind %u, segment_blocks %u, "
                     "partition_segments %u)", cd[PARZ_CD_TABLE], cd[PARZ_CD_SEGMENT_BLOCKS],
                     cd[PARZ_CD_PARTITION_SEGMENTS]);
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
  int same = cfg->chunk.type == type && cfg->big_endian == (big_endian != 0) &&
             cfg->chunk.dims == dims;
  for (unsigned i = 0; same && i < dims; i++) same = cfg->chunk.shape[i] == shape[i];
  if (same) return PARZ_OK;
  char said[64], real[64];
  describe_chunks(said, sizeof said, cfg->chunk.type, cfg->big_endian, cfg->chunk.dims,
                  cfg->chunk.shape);
  describe_chunks(real, sizeof real, type, big_endian, dims, shape);
  return parz_fail(err, PARZ_ERR_FORMAT,
                   "parz: the dataset's cd_values describe %s chunks, the dataset holds %s "
                   "chunks (a crafted or damaged file); refusing to decode", said, real);
}
