/* Codec parameters: zfp 1.0's mode setters, mode classification and size bounds. */
#include <math.h>
#include <stdint.h>

#include "parz.h"

static void set(parz_params* p, unsigned minbits, unsigned maxbits, unsigned maxprec, int minexp) {
  p->minbits = minbits;
  p->maxbits = maxbits;
  p->maxprec = maxprec;
  p->minexp = minexp;
}

int parz_params_rate(parz_params* p, double rate, parz_type type, unsigned dims, double* actual,
                     parz_error* err) {
  unsigned n, bits;
  double want;
  if (!p)
    return parz_fail(err, PARZ_ERR_ARG, "NULL parameters");
  if (!parz_type_size(type))
    return parz_fail(err, PARZ_ERR_TYPE, "unknown scalar type %d", (int)type);
  if (dims < 1 || dims > 4)
    return parz_fail(err, PARZ_ERR_DIMS, "rank %u outside 1..4", dims);
  if (!(rate > 0) || !isfinite(rate))
    return parz_fail(err, PARZ_ERR_PARAM, "rate %g bits/value must be positive and finite", rate);
  n = 1u << (2 * dims);
  want = floor(n * rate + 0.5);
  /* more bits than any block can use is pointless, and would overflow zfp's unsigned count */
  if (want > PARZ_MAX_BITS)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "rate %g bits/value gives %.0f bits per %uD block, above the maximum %u", rate,
                     want, dims, PARZ_MAX_BITS);
  bits = (unsigned)want;
  /* zfp reserves room for the block exponent of floating-point blocks */
  if (type == PARZ_FLOAT && bits < 1 + 8)
    bits = 1 + 8;
  if (type == PARZ_DOUBLE && bits < 1 + 11)
    bits = 1 + 11;
  if (!bits)
    return parz_fail(err, PARZ_ERR_PARAM, "rate %g bits/value rounds to 0 bits per block", rate);
  set(p, bits, bits, PARZ_MAX_PREC, PARZ_MIN_EXP);
  if (actual)
    *actual = (double)bits / n;
  return PARZ_OK;
}

int parz_params_precision(parz_params* p, unsigned precision, parz_error* err) {
  if (!p)
    return parz_fail(err, PARZ_ERR_ARG, "NULL parameters");
  if (precision < 1 || precision > PARZ_MAX_PREC)
    return parz_fail(err, PARZ_ERR_PARAM, "precision %u outside 1..%u", precision, PARZ_MAX_PREC);
  set(p, PARZ_MIN_BITS, PARZ_MAX_BITS, precision, PARZ_MIN_EXP);
  return PARZ_OK;
}

int parz_params_accuracy(parz_params* p, double tolerance, double* actual, parz_error* err) {
  int e;
  if (!p)
    return parz_fail(err, PARZ_ERR_ARG, "NULL parameters");
  if (!(tolerance > 0) || !isfinite(tolerance))
    return parz_fail(err, PARZ_ERR_PARAM, "tolerance %g must be positive and finite", tolerance);
  /* tolerance = f * 2^e with 0.5 <= f < 1, so 2^(e-1) <= tolerance < 2^e */
  frexp(tolerance, &e);
  set(p, PARZ_MIN_BITS, PARZ_MAX_BITS, PARZ_MAX_PREC, e - 1);
  if (actual)
    *actual = ldexp(1.0, e - 1);
  return PARZ_OK;
}

void parz_params_reversible(parz_params* p) {
  if (p)
    set(p, PARZ_MIN_BITS, PARZ_MAX_BITS, PARZ_MAX_PREC, PARZ_MIN_EXP - 1);
}

int parz_params_expert(parz_params* p, unsigned minbits, unsigned maxbits, unsigned maxprec,
                       int minexp, parz_error* err) {
  if (!p)
    return parz_fail(err, PARZ_ERR_ARG, "NULL parameters");
  if (minbits > maxbits)
    return parz_fail(err, PARZ_ERR_PARAM, "minbits %u above maxbits %u", minbits, maxbits);
  if (maxprec < 1 || maxprec > PARZ_MAX_PREC)
    return parz_fail(err, PARZ_ERR_PARAM, "maxprec %u outside 1..%u", maxprec, PARZ_MAX_PREC);
  set(p, minbits, maxbits, maxprec, minexp);
  return PARZ_OK;
}

parz_mode parz_params_mode(const parz_params* p) {
  if (p->minbits == PARZ_MIN_BITS && p->maxbits == PARZ_MAX_BITS && p->maxprec == PARZ_MAX_PREC &&
      p->minexp == PARZ_MIN_EXP)
    return PARZ_MODE_EXPERT; /* zfp's defaults count as expert */
  if (p->minbits == p->maxbits && p->maxbits >= 1 && p->maxbits <= PARZ_MAX_BITS &&
      p->maxprec >= PARZ_MAX_PREC && p->minexp == PARZ_MIN_EXP)
    return PARZ_MODE_RATE;
  if (p->minbits <= PARZ_MIN_BITS && p->maxbits >= PARZ_MAX_BITS && p->maxprec >= 1 &&
      p->minexp == PARZ_MIN_EXP)
    return PARZ_MODE_PRECISION;
  if (p->minbits <= PARZ_MIN_BITS && p->maxbits >= PARZ_MAX_BITS && p->maxprec >= PARZ_MAX_PREC &&
      p->minexp >= PARZ_MIN_EXP)
    return PARZ_MODE_ACCURACY;
  if (p->minbits <= PARZ_MIN_BITS && p->maxbits >= PARZ_MAX_BITS && p->maxprec >= PARZ_MAX_PREC &&
      p->minexp < PARZ_MIN_EXP)
    return PARZ_MODE_REVERSIBLE;
  return PARZ_MODE_EXPERT;
}

/* Every block has exactly maxbits bits when minbits == maxbits and maxbits leaves room for the
 * largest block header of any type (a smaller maxbits makes zfp's budget wrap around). Never in
 * reversible mode: there zfp writes all-zero float blocks as one bit, without padding. */
int parz_params_fixed_rate(const parz_params* p) {
  return p->minexp >= PARZ_MIN_EXP && p->minbits == p->maxbits && p->maxbits >= 1 + 11;
}

/* Bit-plane coder bound: each plane costs at most `size` bits plus one bit per value that
 * becomes significant in it (its group test), and a value becomes significant only once. */
static uint64_t coder_bound(unsigned planes, unsigned size) {
  return (uint64_t)planes * size + size;
}

/* One branch of the block coder: a header, then the coefficients within a budget that wraps
 * around like zfp's unsigned arithmetic when maxbits is below the header. */
static uint64_t branch_bound(unsigned header, unsigned maxbits, unsigned planes, unsigned size) {
  unsigned budget = maxbits - header; /* unsigned wraparound intended */
  uint64_t coded = coder_bound(planes, size);
  return header + (coded < budget ? coded : budget);
}

unsigned parz_block_max_bits(parz_type type, unsigned dims, const parz_params* p) {
  unsigned size, intprec, ebits, pbits, planes;
  int reversible;
  uint64_t bound;
  if (!p || dims < 1 || dims > 4 || !parz_type_size(type))
    return 0;
  size = 1u << (2 * dims);
  intprec = (unsigned)(8 * parz_type_size(type));
  ebits = type == PARZ_FLOAT ? 8 : type == PARZ_DOUBLE ? 11 : 0;
  pbits = intprec == 32 ? 5 : 6;
  planes = p->maxprec < intprec ? p->maxprec : intprec;
  reversible = p->minexp < PARZ_MIN_EXP;
  if (type == PARZ_INT32 || type == PARZ_INT64) {
    bound = reversible ? branch_bound(pbits, p->maxbits, planes, size)
                       : branch_bound(0, p->maxbits, planes, size);
  } else if (!reversible) {
    bound = branch_bound(1 + ebits, p->maxbits, planes, size);
    if (bound < 1)
      bound = 1;
  } else {
    /* 2 flag bits, then the exponent (block-floating-point) or nothing (bit patterns), then
     * the pbits precision field inside the integer coder's budget; all-zero blocks take 1 bit */
    uint64_t a = 2 + ebits + branch_bound(pbits, p->maxbits - (2 + ebits), planes, size);
    uint64_t b = 2 + branch_bound(pbits, p->maxbits - 2, planes, size);
    bound = a > b ? a : b;
  }
  if (bound < p->minbits)
    bound = p->minbits;
  return bound > UINT32_MAX ? UINT32_MAX : (unsigned)bound;
}

size_t parz_stream_bound(parz_type type, unsigned dims, const parz_params* p, size_t blocks) {
  uint64_t per = parz_block_max_bits(type, dims, p);
  uint64_t words;
  if (!per)
    return 0;
  if (blocks > (UINT64_MAX - 63) / per)
    return 0;
  words = (per * blocks + 63) / 64;
  if (words > SIZE_MAX / 8)
    return 0;
  return (size_t)(words * 8);
}

int parz_params_check_encode(const parz_params* p, parz_type type, unsigned dims, parz_error* err) {
  parz_params whole;
  unsigned planes, need;
  if (!p || !parz_type_size(type) || dims < 1 || dims > 4)
    return parz_fail(err, PARZ_ERR_ARG, "parz_params_check_encode: invalid argument");
  if (p->minexp >= PARZ_MIN_EXP)
    return PARZ_OK;
  planes = 8u * (unsigned)parz_type_size(type);
  whole = *p;
  whole.minbits = 0;
  whole.maxbits = PARZ_MAX_BITS;
  whole.maxprec = PARZ_MAX_PREC;
  need = parz_block_max_bits(type, dims, &whole);
  if (p->maxprec < planes || p->maxbits < need)
    return parz_fail(err, PARZ_ERR_PARAM,
                     "minexp %d selects zfp's reversible transform, which is lossless only with "
                     "maxprec >= %u and maxbits >= %u for %s %uD blocks (given %u and %u); cut "
                     "short it returns arbitrary bit patterns, NaN and Inf among them. Use "
                     "reversible mode, or minexp >= %d for a lossy mode",
                     p->minexp, planes, need, parz_type_name(type), dims, p->maxprec, p->maxbits,
                     PARZ_MIN_EXP);
  return PARZ_OK;
}

int parz_params_bounded(const parz_params* p, parz_type type, unsigned dims) {
  parz_params whole;
  if (!p || (type != PARZ_FLOAT && type != PARZ_DOUBLE) || dims < 1 || dims > 4 ||
      p->minexp <= PARZ_MIN_EXP || p->maxprec < 8u * (unsigned)parz_type_size(type))
    return 0;
  whole = *p;
  whole.minbits = 0;
  whole.maxbits = PARZ_MAX_BITS;
  return p->maxbits >= parz_block_max_bits(type, dims, &whole);
}
