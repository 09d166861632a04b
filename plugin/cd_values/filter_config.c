/* cd_values of the ParZ filter (layouts in filter_config.h and docs/cd_values.md). */
#include "filter_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_modes.h"

const parz_codec* parz_cd_codec(const parz_filter_request* req) {
  return parz_codec_chosen(req->codec);
}

const parz_codec_mode* parz_cd_mode(const parz_filter_request* req) {
  return parz_codec_mode_find(parz_cd_codec(req), req->mode);
}

/* "1 rate, 2 precision, ..." of the codec's modes. */
static void mode_list(const parz_codec* c, char* out, size_t size) {
  size_t at = 0;
  out[0] = '\0';
  for (unsigned i = 0; c && c->modes && i < c->modes->count && at < size; i++) {
    int n = snprintf(out + at, size - at, "%s%u %s", i ? ", " : "", c->modes->mode[i].number,
                     c->modes->mode[i].name);
    if (n < 0)
      return;
    at += (size_t)n;
  }
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
  unsigned codec, mode, table;
  uint32_t C, P;
  uint64_t fill_bits;
  int bad; /* bits no version of the form defines */
} internal_fields;

static internal_fields read_internal(const unsigned* cd) {
  internal_fields f;
  memset(&f, 0, sizeof f);
  f.codec = PARZ_CODEC_ZFP;
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
    if (cd[0] == PARZ_CD_INTERNAL_V3)
      f.codec = packed / PARZ_CD_CODEC_UNIT;
    f.bad =
        (cd[0] == PARZ_CD_INTERNAL_V2 ? packed >> 16 != 0 : f.codec == PARZ_CODEC_ZFP) ||
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
      snprintf(ours, sizeof ours, "%s %.17g is %u,%u,%u",
               cd[0] == PARZ_MODE_RATE ? "rate" : "accuracy", parz_mode_double(cd[3], cd[2]), cd[0],
               cd[3], cd[2]);
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

/* The codec of id `id` (0: zfp) as req->codec, or an error naming it and the known ones. */
static int find_codec(unsigned id, const char* where, parz_filter_request* req, parz_error* err) {
  char known[160];
  req->codec = id ? id : PARZ_CODEC_ZFP;
  if (parz_codec_chosen(req->codec))
    return PARZ_OK;
  parz_codec_choices(known, sizeof known, 1);
  return parz_fail(err, PARZ_ERR_PARAM,
                   "parz: %s names codec %u, unknown to this plugin (it knows %s)", where,
                   req->codec, known);
}

/* The request's mode, or an error naming the number and the codec's modes. */
static int find_mode(const parz_filter_request* req, const char* where, parz_error* err) {
  const parz_codec* c = parz_cd_codec(req);
  char modes[160];
  if (parz_cd_mode(req))
    return PARZ_OK;
  mode_list(c, modes, sizeof modes);
  if (req->codec == PARZ_CODEC_ZFP)
    return parz_fail(err, PARZ_ERR_PARAM, "parz: unknown mode %u in %s (%s)", req->mode, where,
                     modes);
  return parz_fail(err, PARZ_ERR_PARAM, "parz: unknown mode %u of codec %s in %s (%s)", req->mode,
                   c->name, where, modes);
}

/* A re-applied internal form (h5repack, H5Ocopy of a dataset creation property list). */
static int parse_internal(size_t n, const unsigned* cd, parz_filter_request* req, parz_error* err) {
  internal_fields f;
  if (n != PARZ_CD_INTERNAL_NELMTS)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: internal cd_values version %u need %u values, got %zu", cd[0] - 1000u,
                     PARZ_CD_INTERNAL_NELMTS, n);
  f = read_internal(cd);
  int rc = find_codec(f.codec, "internal cd_values", req, err);
  if (rc != PARZ_OK)
    return rc;
  req->mode = f.mode;
  if ((rc = find_mode(req, "internal cd_values", err)) != PARZ_OK)
    return rc;
  /* a mode of more than two words takes the chunk parameters themselves (codec_modes.h) */
  const int words = (int)parz_codec_mode_words(parz_cd_mode(req));
  for (int i = 0; i < words; i++)
    req->values[i] = words > 2 ? cd[PARZ_CD_MINBITS + i] : cd[PARZ_CD_USER_VALUES + i];
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

int parz_cd_parse_request(size_t n, const unsigned* cd, parz_filter_request* req, parz_error* err) {
  char modes[160];
  memset(req, 0, sizeof *req);
  if (n == 0 || cd == NULL) {
    mode_list(parz_codec_chosen(PARZ_CODEC_ZFP), modes, sizeof modes);
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: no cd_values; the first value must be the mode (%s), plus %u times "
                     "the codec's id for a codec other than zfp",
                     modes, PARZ_CD_CODEC_UNIT);
  }
  if (cd[0] == PARZ_CD_INTERNAL_V1 || cd[0] == PARZ_CD_INTERNAL_V2 || cd[0] == PARZ_CD_INTERNAL_V3)
    return parse_internal(n, cd, req, err);
  if (cd[0] > 1000 && cd[0] < PARZ_CD_CODEC_UNIT)
    return parz_fail(err, PARZ_ERR_VERSION,
                     "parz: cd_values in internal form %u, newer than this plugin knows "
                     "(1001, 1002, 1003); upgrade the ParZ plugin",
                     cd[0]);
  int rc = cd[0] < PARZ_CD_CODEC_UNIT ? refuse_zfp_layout(n, cd, err) : PARZ_OK;
  if (rc == PARZ_OK)
    rc = find_codec(cd[0] / PARZ_CD_CODEC_UNIT, "cd_values[0]", req, err);
  req->mode = cd[0] % PARZ_CD_CODEC_UNIT;
  if (rc == PARZ_OK)
    rc = find_mode(req, "cd_values[0]", err);
  if (rc != PARZ_OK)
    return rc;
  const parz_codec_mode* m = parz_cd_mode(req);
  const int k = (int)parz_codec_mode_words(m);
  if (n < 1 + (size_t)k)
    return parz_fail(err, PARZ_ERR_PARAM, "parz: %s mode needs %d value%s after the mode, got %zu",
                     m->name, k, k == 1 ? "" : "s", n - 1);
  size_t extra = n - 1 - (size_t)k;
  unsigned mask = extra > 4 ? cd[5 + k] : PARZ_CD_MASK_DEFAULT;
  if (extra > (mask == PARZ_CD_MASK_FILL ? 7u : 5u) || (mask == PARZ_CD_MASK_FILL && extra != 7))
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: %zu cd_values for %s mode; at most %d (mode, %d value%s, "
                     "segment_blocks, partition_segments, table kind, payload checksums, mask), "
                     "and mask setting 3 takes the fill value after it (high, low word): %d",
                     n, m->name, k + 6, k, k == 1 ? "" : "s", k + 8);
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
    case PARZ_DOUBLE: return parz_mode_double((uint32_t)(bits >> 32), (uint32_t)bits);
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
                                         : parz_mode_double(req->fill[0], req->fill[1]),
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

/* The chunk parameters of the request's mode for arrays of this type and rank. */
static int request_params(const parz_filter_request* req, parz_type type, unsigned dims,
                          parz_chunk_config* c, parz_error* err) {
  const parz_codec_mode* m = parz_cd_mode(req);
  if (!m)
    return parz_fail(err, PARZ_ERR_PARAM, "parz: unknown mode %u of codec %u", req->mode,
                     req->codec);
  return m->params(c, req->values, type, dims, err);
}

/* Whether the request's mode takes its values for arrays of this type and rank, and its table
 * kind the parameters they give. */
static int check_for(const parz_filter_request* req, parz_type type, unsigned dims,
                     parz_error* err) {
  parz_chunk_config c;
  int rc;
  memset(&c, 0, sizeof c);
  rc = request_params(req, type, dims, &c, err);
  if (rc == PARZ_OK && req->table == PARZ_TABLE_NONE &&
      !parz_cd_codec(req)->fixed_length(&c.params))
    return parz_fail(err, PARZ_ERR_PARAM,
                     "parz: table kind 1 (none) needs a fixed-rate mode; %s mode has "
                     "variable-length blocks",
                     parz_cd_mode(req)->name);
  return rc;
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
  const parz_codec* codec = parz_cd_codec(req);
  rc = request_params(req, type, dims, &cfg->config, err);
  if (rc == PARZ_OK)
    rc = codec->check_encode(&cfg->config.params, type, dims, err);
  if (rc != PARZ_OK)
    return rc;
  cfg->config.codec = codec->id;

  int fixed = codec->fixed_length(&cfg->config.params);
  parz_table_kind table = (parz_table_kind)req->table;
  if (table == PARZ_TABLE_AUTO)
    table = fixed ? PARZ_TABLE_NONE : PARZ_TABLE_HYBRID;
  if (table == PARZ_TABLE_NONE && !fixed)
    return check_for(req, type, dims, err);
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

/* The first error is the one reported: that of doubles in one dimension, which every mode of a
 * lossy codec should take. */
int parz_cd_check_request(const parz_filter_request* req, parz_error* err) {
  static const parz_type types[] = {PARZ_DOUBLE, PARZ_FLOAT, PARZ_INT64, PARZ_INT32};
  parz_error other;
  int rc = check_for(req, types[0], 1, err);
  for (unsigned i = 1; rc != PARZ_OK && i < 16; i++)
    if (check_for(req, types[i / 4], 1 + i % 4, &other) == PARZ_OK)
      return PARZ_OK;
  return rc;
}

int parz_cd_check_mode(const parz_filter_request* req, parz_error* err) {
  parz_filter_request mode = *req;
  mode.table = PARZ_TABLE_AUTO;
  mode.segment_blocks = mode.partition_segments = 0;
  return parz_cd_check_request(&mode, err);
}

size_t parz_cd_codec_table(char* out, size_t size) {
  size_t at = 0;
  for (unsigned i = 0; i < parz_codec_count; i++) {
    const parz_codec* c = parz_codec_chosen(parz_codec_table[i]->id);
    for (unsigned k = 0; c && k < c->modes->count; k++) {
      const parz_codec_mode* m = &c->modes->mode[k];
      int n = snprintf(at < size ? out + at : NULL, at < size ? size - at : 0,
                       "%s %u %s %u %s %s %d %s\n", c->name, c->id, m->name, m->number,
                       m->values[0] ? m->values : "-", m->names[0] ? m->names : "-", m->lossless,
                       m->about);
      if (n < 0)
        return 0;
      at += (size_t)n;
    }
  }
  return at;
}

/* The shortest %g form of x that reads back as the same double. */
static void shortest(double x, char* out, size_t size) {
  for (int digits = 6; digits <= 17; digits++) {
    snprintf(out, size, "%.*g", digits, x);
    if (strtod(out, NULL) == x)
      return;
  }
}

void parz_cd_describe(const parz_filter_request* req, char* out, size_t size) {
  const parz_codec* c = parz_cd_codec(req);
  const parz_codec_mode* m = parz_cd_mode(req);
  const uint32_t* w = req->values;
  int n;
  if (!size)
    return;
  out[0] = '\0';
  if (!m) {
    snprintf(out, size, "codec %u mode %u", req->codec, req->mode);
    return;
  }
  n = snprintf(out, size, "%s%s%s", c->id == PARZ_CODEC_ZFP ? "" : c->name,
               c->id == PARZ_CODEC_ZFP ? "" : " ", m->name);
  for (const char* v = m->values; *v && n > 0 && (size_t)n < size; v++) {
    char number[32];
    if (*v == 'd') {
      shortest(parz_mode_double(w[0], w[1]), number, sizeof number);
      w += 2;
    } else {
      snprintf(number, sizeof number, "%lld", *v == 'i' ? (long long)(int32_t)*w : (long long)*w);
      w++;
    }
    n += snprintf(out + n, size - (size_t)n, "%s%s", v == m->values ? " " : ",", number);
  }
}

void parz_cd_store(const parz_filter_config* cfg, unsigned* cd) {
  const parz_chunk_config* c = &cfg->config;
  unsigned flags = (cfg->big_endian ? PARZ_CD_BIG_ENDIAN : 0u) +
                   (c->checksum == PARZ_CHECKSUM_OFF ? PARZ_CD_NO_CHECKSUM : 0u);
  const int zfp = cfg->request.codec == PARZ_CODEC_ZFP;
  memset(cd, 0, PARZ_CD_INTERNAL_NELMTS * sizeof *cd);
  /* a mode of more than two words takes the chunk parameters themselves (codec_modes.h) */
  if (parz_codec_mode_words(parz_cd_mode(&cfg->request)) <= 2) {
    cd[PARZ_CD_USER_VALUES] = cfg->request.values[0];
    cd[PARZ_CD_USER_VALUES + 1] = cfg->request.values[1];
  }
  for (unsigned i = 0; i < cfg->chunk.dims; i++)
    cd[PARZ_CD_SHAPE + i] = (unsigned)cfg->chunk.shape[i];
  uint32_t kept[4];
  parz_cd_codec(&cfg->request)->modes->keep(c, kept);
  cd[PARZ_CD_MINBITS] = kept[0];
  cd[PARZ_CD_MAXBITS] = kept[1];
  cd[PARZ_CD_MAXPREC] = kept[2];
  cd[PARZ_CD_MINEXP] = kept[3];
  if (zfp && c->mask != PARZ_MASK_OFF && !c->fill) { /* version 1 */
    cd[PARZ_CD_FORM] = PARZ_CD_INTERNAL_V1;
    cd[PARZ_CD_V1_MODE] = cfg->request.mode;
    cd[PARZ_CD_V1_TABLE] = (unsigned)c->table;
    cd[PARZ_CD_V1_SEGMENT_BLOCKS] = c->segment_blocks;
    cd[PARZ_CD_V1_PARTITION_SEGMENTS] = c->partition_segments;
    cd[PARZ_CD_V1_TYPE] = (unsigned)cfg->chunk.type + flags;
    return;
  }
  flags += c->mask == PARZ_MASK_OFF ? PARZ_CD_NO_MASK : c->fill ? PARZ_CD_FILL : 0u;
  cd[PARZ_CD_FORM] = zfp ? PARZ_CD_INTERNAL_V2 : PARZ_CD_INTERNAL_V3;
  cd[PARZ_CD_V2_PACKED] = (unsigned)cfg->chunk.type + flags + 256u * cfg->request.mode +
                          4096u * (unsigned)c->table +
                          (zfp ? 0u : PARZ_CD_CODEC_UNIT * cfg->request.codec);
  if (c->fill) {
    cd[PARZ_CD_V2_FILL_HIGH] = (unsigned)(c->fill_bits >> 32);
    cd[PARZ_CD_V2_FILL_LOW] = (unsigned)(c->fill_bits & 0xffffffffu);
  }
  cd[PARZ_CD_V2_SEGMENT_BLOCKS] = c->segment_blocks;
  cd[PARZ_CD_V2_PARTITION_SEGMENTS] = c->partition_segments;
}

int parz_cd_load(size_t n, const unsigned* cd, parz_filter_config* cfg, parz_error* err) {
  internal_fields f;
  memset(cfg, 0, sizeof *cfg);
  if (n == 0 || cd == NULL ||
      (cd[0] != PARZ_CD_INTERNAL_V1 && cd[0] != PARZ_CD_INTERNAL_V2 &&
       cd[0] != PARZ_CD_INTERNAL_V3)) {
    if (n > 0 && cd != NULL && cd[0] > PARZ_CD_INTERNAL_V3)
      return parz_fail(err, PARZ_ERR_VERSION,
                       "parz: dataset cd_values in internal form %u, newer than this plugin "
                       "knows (1001, 1002, 1003); upgrade the ParZ plugin",
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
  const parz_codec* codec = parz_cd_codec(&cfg->request);
  const uint32_t params[4] = {cd[PARZ_CD_MINBITS], cd[PARZ_CD_MAXBITS], cd[PARZ_CD_MAXPREC],
                              cd[PARZ_CD_MINEXP]};
  rc = codec->modes->stored(&cfg->config, params, err);
  if (rc != PARZ_OK)
    return rc;
  cfg->config.codec = codec->id;
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
