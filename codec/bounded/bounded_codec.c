/* The error-bounded codec's entry in the table of codecs (codecs.h), codec 4: a scratch codec.
 * Its block is one value, so a segment is C consecutive codes in the predictor's order; the
 * header's codec parameters are the bound (f64) and the predictor asked for (u32, 0: chosen per
 * chunk); the codec data section holds the grid step, the predictor, the run choice and the
 * codebook (codec/FORMAT.md, "Error-bounded chunks (codec 4)"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "block_common.h"
#include "bounded_book_read.h"
#include "bounded_chunk.h"
#include "bounded_codec.h"
#include "chunk_keep.h"
#include "codecs.h"

/* The codec data section's fields before the codebook. */
enum { D_STEP = 0, D_PREDICTOR = 8, D_RUNS = 9, D_RESERVED = 10, D_BOOK_BYTES = 12, D_BOOK = 16 };
/* The codec parameters' fields. */
enum { P_EB = 0, P_PREDICTOR = 8, P_RESERVED = 12 };

/* A code's most bits: a 20-bit code word and the 32 bits of an escape. */
#define CODE_BITS_MAX (PARZ_BOUNDED_MAX_LEN + 32u)

struct parz_codec_scratch {
  parz_bounded_shape shape;
  double step;
  int predictor, runs;
  size_t n, seg;
  int32_t* codes;  /* decoding: from the segments; encoding: the coded chunk's */
  int32_t* q;      /* decoding: in the block of codes, after them */
  parz_keep* keep; /* decoding: the view's keep, which the block of codes and q came from */
  int kept;        /* decoding: codes and q are one block of parz_keep_take */
  int zeroed;      /* decoding: the codes are zeros until their segments decode */
  parz_bounded_decoder* dec;
  parz_bounded_plan* plan;  /* decoding: the inverse's passes */
  parz_bounded_coded coded; /* encoding */
  uint64_t* exc;
  size_t nexc;
};

static void block_sides(const parz_chunk_view* v, uint32_t side[4]) {
  parz_block_sides_cube(v, 1, side);
}

double parz_bounded_params_eb(const unsigned char* params) {
  return parz_f64_from(parz_load64(params + P_EB));
}

int parz_bounded_params_predictor(const unsigned char* params) {
  return (int)parz_load32(params + P_PREDICTOR);
}

static int read_params(parz_chunk_view* v, parz_error* err) {
  const double eb = parz_bounded_params_eb(v->codec_params);
  const uint32_t pred = parz_load32(v->codec_params + P_PREDICTOR);
  memset(&v->params, 0, sizeof v->params);
  if (!(eb > 0) || !isfinite(2 * eb))
    return parz_fail(err, PARZ_ERR_PARAM, "bounded: error bound %g is not finite and > 0", eb);
  if (pred > PARZ_BOUNDED_PREDICTORS || parz_load32(v->codec_params + P_RESERVED))
    return parz_fail(err, PARZ_ERR_PARAM, "bounded: predictor %u (0..%u) or reserved field %u",
                     (unsigned)pred, PARZ_BOUNDED_PREDICTORS,
                     (unsigned)parz_load32(v->codec_params + P_RESERVED));
  return PARZ_OK;
}

static int configure(const parz_chunk_config* cfg, parz_chunk_view* v, parz_error* err) {
  memset(v->codec_params, 0, PARZ_CODEC_PARAM_BYTES);
  parz_store64(v->codec_params + P_EB, parz_f64_bits(cfg->settings.error_bound));
  parz_store32(v->codec_params + P_PREDICTOR, cfg->settings.predictor);
  return read_params(v, err);
}

static int never_fixed(const parz_params* p) {
  (void)p;
  return 0;
}

/* The fewest payload bits a segment of n >= 1 codes takes: with run symbols, one run of them all
 * (a code word of at least one bit, then floor(log2 n) bits of its length; any split into more
 * symbols takes at least as many); without, a code word of at least one bit per code. */
static uint64_t segment_bits_min(uint64_t n, unsigned runs) {
  unsigned k = 0;
  if (!runs)
    return n;
  while (n >> (k + 1))
    k++;
  return 1u + k;
}

/* The codec data's fields against the chunk: the bytes themselves of the codebook are read when
 * the chunk is decoded (scratch_begin). */
static int check(parz_chunk_view* v, parz_error* err) {
  const unsigned char* d = v->codec_data;
  const double eb = parz_bounded_params_eb(v->codec_params);
  uint64_t book, k;
  double step;
  if (!d || v->codec_data_bytes < D_BOOK)
    return parz_fail(err, PARZ_ERR_FORMAT, "bounded chunk with a codec data section of %llu bytes",
                     (unsigned long long)v->codec_data_bytes);
  step = parz_f64_from(parz_load64(d + D_STEP));
  book = parz_load32(d + D_BOOK_BYTES);
  /* the encoder's step is 2 eb less at most a quarter: a step outside [eb, 2 eb] lies */
  if (!(step >= eb && step <= 2 * eb))
    return parz_fail(err, PARZ_ERR_FORMAT, "bounded chunk's grid step %g for error bound %g", step,
                     eb);
  if (d[D_PREDICTOR] < PARZ_BOUNDED_LORENZO || d[D_PREDICTOR] > PARZ_BOUNDED_PREDICTORS ||
      d[D_RUNS] > 1 || parz_load16(d + D_RESERVED))
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "bounded chunk's predictor %u, runs %u or reserved field %u unknown",
                     d[D_PREDICTOR], d[D_RUNS], (unsigned)parz_load16(d + D_RESERVED));
  if (book == 0 || v->codec_data_bytes != (D_BOOK + book + 7u) / 8u * 8u)
    return parz_fail(err, PARZ_ERR_FORMAT,
                     "bounded chunk's codebook of %llu bytes in a codec data section of %llu",
                     (unsigned long long)book, (unsigned long long)v->codec_data_bytes);
  for (k = D_BOOK + book; k < v->codec_data_bytes; k++)
    if (d[k])
      return parz_fail(err, PARZ_ERR_FORMAT, "bounded chunk's codec data padding byte %llu is %u",
                       (unsigned long long)k, d[k]);
  /* every segment takes at least its fewest bits, which bounds the values a small chunk may
   * claim (and the scratch its decoder allocates) */
  {
    const uint64_t c = v->segment_blocks, full = v->nblocks / c, rest = v->nblocks % c;
    const uint64_t per = segment_bits_min(c, d[D_RUNS]);
    const uint64_t last = rest ? segment_bits_min(rest, d[D_RUNS]) : 0;
    if (full > v->payload_bits / per || v->payload_bits - full * per < last)
      return parz_fail(err, PARZ_ERR_FORMAT,
                       "bounded chunk of %llu values in segments of %llu codes (runs %u) in only "
                       "%llu payload bits",
                       (unsigned long long)v->nblocks, (unsigned long long)c, d[D_RUNS],
                       (unsigned long long)v->payload_bits);
  }
  return PARZ_OK;
}

static unsigned block_bits_bound(parz_type type, unsigned dims, const parz_params* p) {
  (void)type;
  (void)dims;
  (void)p;
  return CODE_BITS_MAX;
}

static size_t stream_bound(parz_type type, unsigned dims, const parz_params* p, size_t codes) {
  (void)type;
  (void)dims;
  (void)p;
  if (codes > (SIZE_MAX - 64) / CODE_BITS_MAX)
    return 0;
  return (codes * CODE_BITS_MAX + 63) / 64 * 8;
}

static int check_encode(const parz_params* p, parz_type type, unsigned dims, parz_error* err) {
  (void)p;
  (void)dims;
  if (type != PARZ_FLOAT && type != PARZ_DOUBLE)
    return parz_fail(err, PARZ_ERR_TYPE,
                     "bounded codec: %s data refused; it bounds the error of float and double "
                     "values (for integers choose zfp's reversible mode or the lossless codec)",
                     parz_type_name(type));
  return PARZ_OK;
}

static void shape_of(const parz_array* a, parz_bounded_shape* s) {
  unsigned k;
  memset(s, 0, sizeof *s);
  s->type = a->type;
  s->dims = a->dims;
  for (k = 0; k < a->dims; k++)
    s->shape[k] = a->shape[k];
}

static void scratch_free(struct parz_codec_scratch* s) {
  if (!s)
    return;
  if (s->kept)
    parz_keep_give(s->keep, s->codes);
  else
    free(s->codes);
  parz_bounded_decoder_free(s->dec);
  free(s->plan);
  parz_bounded_coded_free(&s->coded);
  free(s->exc);
  free(s);
}

int parz_bounded_chunk_decoder(const parz_chunk_view* v, parz_bounded_chunk_info* out,
                               parz_error* err) {
  const unsigned char* d = v->codec_data;
  out->step = parz_f64_from(parz_load64(d + D_STEP));
  out->predictor = d[D_PREDICTOR];
  out->runs = d[D_RUNS];
  return parz_bounded_decoder_read(d + D_BOOK, parz_load32(d + D_BOOK_BYTES), out->runs, &out->dec,
                                   err);
}

size_t parz_bounded_decoder_words_bound(const parz_chunk_view* v) {
  /* every symbol the codebook uses takes at least one of its bits */
  const uint64_t book = v->codec_data_bytes > D_BOOK ? v->codec_data_bytes - D_BOOK : 0;
  const uint64_t used = 8 * book < PARZ_BOUNDED_SYMBOLS ? 8 * book : PARZ_BOUNDED_SYMBOLS;
  return parz_bounded_decoder_words_for((size_t)used);
}

static int scratch_begin(const parz_chunk_view* v, struct parz_codec_scratch** out,
                         parz_error* err) {
  struct parz_codec_scratch* s = (struct parz_codec_scratch*)calloc(1, sizeof *s);
  parz_bounded_chunk_info info;
  int rc = PARZ_OK;
  *out = NULL;
  if (s) {
    shape_of(&v->array, &s->shape);
    s->n = v->raw_bytes / parz_type_size(v->array.type);
    s->seg = v->segment_blocks;
    /* codes and q in one block of the caller's keep (chunk_keep.h); a new one is zeros, and
     * runs of zero codes are then never written (decode_segments), so that their pages are
     * never faulted in */
    s->keep = v->keep;
    s->codes = s->n <= SIZE_MAX / (2 * sizeof *s->codes)
                   ? (int32_t*)parz_keep_take(s->keep, 2 * s->n * sizeof *s->codes, &s->zeroed)
                   : NULL;
    s->kept = 1;
    s->q = s->codes ? s->codes + s->n : NULL;
  }
  if (!s || !s->codes || !s->q)
    rc = parz_fail(err, PARZ_ERR_NOMEM, "bounded: no memory to decode %zu values",
                   v->raw_bytes / parz_type_size(v->array.type));
  if (rc == PARZ_OK && (rc = parz_bounded_chunk_decoder(v, &info, err)) == PARZ_OK) {
    s->step = info.step;
    s->predictor = info.predictor;
    s->runs = info.runs;
    s->dec = info.dec;
    if (!(s->plan = (parz_bounded_plan*)malloc(sizeof *s->plan)))
      rc = parz_fail(err, PARZ_ERR_NOMEM, "bounded: no memory for the passes of a chunk");
    else
      parz_bounded_plan_init(s->plan, &s->shape, s->predictor);
  }
  if (rc != PARZ_OK) {
    scratch_free(s);
    return rc;
  }
  *out = s;
  return PARZ_OK;
}

static int decode_segments(const parz_segment_run* run, size_t* bad, uint64_t* bad_end,
                           parz_error* err) {
  struct parz_codec_scratch* s = (struct parz_codec_scratch*)run->scratch;
  size_t k, first = run->first / run->seg_blocks;
  size_t nseg = (run->count + run->seg_blocks - 1) / run->seg_blocks;
  uint64_t bit = run->bit;
  *bad = SIZE_MAX;
  *bad_end = 0;
  if (!s)
    return parz_fail(err, PARZ_ERR_ARG, "bounded: segments decoded without their chunk's state");
  for (k = 0; k < nseg; k++) {
    size_t g = first + k, c0 = g * s->seg;
    size_t count = c0 + s->seg < s->n ? s->seg : s->n - c0;
    int rc =
        parz_bounded_decode_segment(s->dec, (const uint8_t*)run->src, run->src_bytes, bit,
                                    run->ends[k] - bit, s->codes + c0, count, s->zeroed, g, err);
    if (rc != PARZ_OK)
      return rc;
    bit = run->ends[k];
  }
  return PARZ_OK;
}

static unsigned inverse_passes(const struct parz_codec_scratch* s) { return s->plan->passes; }

static uint64_t inverse_units(const struct parz_codec_scratch* s, unsigned pass) {
  return parz_bounded_pass_units(s->plan, pass);
}

static uint64_t inverse_values(const struct parz_codec_scratch* s, unsigned pass) {
  return parz_bounded_pass_values(s->plan, pass);
}

static uint64_t inverse_codes(const struct parz_codec_scratch* s, unsigned pass) {
  return parz_bounded_pass_codes(s->plan, pass);
}

static int inverse(struct parz_codec_scratch* s, unsigned pass, uint64_t first, uint64_t count,
                   parz_error* err) {
  return parz_bounded_unpredict_pass(s->plan, pass, (size_t)first, (size_t)count, s->codes, s->q,
                                     err);
}

static void store(const struct parz_codec_scratch* s, const parz_chunk_dest* d, uint64_t first,
                  uint64_t count) {
  const unsigned dims = s->shape.dims, last = dims - 1;
  const size_t len = d->hi[last] - d->lo[last], w = s->shape.type == PARZ_FLOAT ? 4 : 8;
  const double unit = parz_bounded_unit(s->predictor, s->step);
  uint64_t r;
  for (r = first; r < first + count; r++) {
    size_t at = 0, c[4] = {0, 0, 0, 0}, rest = (size_t)r;
    ptrdiff_t out = 0;
    unsigned k;
    for (k = last; k-- > 0;) { /* the row's place in the window */
      size_t e = d->hi[k] - d->lo[k];
      c[k] = rest % e;
      rest /= e;
    }
    for (k = 0; k < dims; k++) {
      at = at * s->shape.shape[k] + (k == last ? d->lo[k] : d->lo[k] + c[k]);
      if (k < last)
        out += (ptrdiff_t)c[k] * d->stride[k];
    }
    parz_bounded_dequantize_run(s->shape.type, s->q + at, len, unit,
                                (unsigned char*)d->data + (size_t)out * w, d->stride[last]);
  }
}

static int code(const parz_chunk_view* v, const parz_array* a, const void* data,
                const uint8_t* hole, const parz_jobs* jobs, struct parz_codec_scratch** out,
                parz_error* err) {
  struct parz_codec_scratch* s = (struct parz_codec_scratch*)calloc(1, sizeof *s);
  parz_bounded_options opt;
  size_t i, e = 0;
  int rc;
  *out = NULL;
  if (!s)
    return parz_fail(err, PARZ_ERR_NOMEM, "bounded: no memory for the encoder");
  shape_of(a, &s->shape);
  opt.predictor = parz_bounded_params_predictor(v->codec_params);
  opt.runs = 2;
  opt.segment = v->segment_blocks;
  opt.fill = NULL;
  opt.jobs = jobs;
  opt.keep = v->keep;
  rc = parz_bounded_code(&s->shape, data, parz_bounded_params_eb(v->codec_params), &opt, hole,
                         &s->coded, err);
  s->n = parz_bounded_count(&s->shape);
  if (rc == PARZ_OK && !(s->exc = (uint64_t*)malloc((s->coded.nexceptions + 1) * sizeof *s->exc)))
    rc = parz_fail(err, PARZ_ERR_NOMEM, "bounded: no memory for %zu exceptions",
                   s->coded.nexceptions);
  if (rc != PARZ_OK) {
    scratch_free(s);
    return rc;
  }
  for (i = 0; e < s->coded.nexceptions && i < s->n; i++)
    if (s->coded.hole[i] == PARZ_BOUNDED_EXCEPTION)
      s->exc[e++] = i;
  s->nexc = e;
  s->step = s->coded.step;
  s->predictor = s->coded.predictor;
  s->runs = s->coded.runs;
  s->seg = s->coded.segment;
  *out = s;
  return PARZ_OK;
}

static size_t coded_exceptions(const struct parz_codec_scratch* s, const uint64_t** pos) {
  *pos = s->exc;
  return s->nexc;
}

size_t parz_bounded_codec_data(double step, int predictor, int runs, const uint8_t* book,
                               size_t book_size, unsigned char* out) {
  const size_t bytes = (D_BOOK + book_size + 7u) / 8u * 8u;
  if (out) {
    memset(out, 0, bytes);
    parz_store64(out + D_STEP, parz_f64_bits(step));
    out[D_PREDICTOR] = (unsigned char)predictor;
    out[D_RUNS] = (unsigned char)runs;
    parz_store32(out + D_BOOK_BYTES, (uint32_t)book_size);
    memcpy(out + D_BOOK, book, book_size);
  }
  return bytes;
}

static size_t codec_data(const struct parz_codec_scratch* s, unsigned char* out) {
  return parz_bounded_codec_data(s->step, s->predictor, s->runs, s->coded.book_bytes,
                                 s->coded.book_size, out);
}

/* A codebook names at most one symbol per code, each in at most 8 bytes of lengths and runs of
 * unused symbols between them, and never more than every symbol's length. */
static size_t codec_data_bound(const parz_array* a) {
  const size_t n = parz_array_count(a);
  size_t book = n < PARZ_BOUNDED_BOOK_BYTES_MAX / 8 ? 8 * n + 16 : PARZ_BOUNDED_BOOK_BYTES_MAX;
  if (book > PARZ_BOUNDED_BOOK_BYTES_MAX)
    book = PARZ_BOUNDED_BOOK_BYTES_MAX;
  return (D_BOOK + book + 7u) / 8u * 8u;
}

static int encode_codes(const struct parz_codec_scratch* s, size_t first, size_t count, size_t seg,
                        void* dst, size_t dst_bytes, uint64_t* bits, uint32_t* seg_bits,
                        parz_error* err) {
  size_t nseg = (count + seg - 1) / seg, k, total, bytes;
  uint64_t* lens = (uint64_t*)malloc((nseg ? nseg : 1) * sizeof *lens);
  if (!lens)
    return parz_fail(err, PARZ_ERR_NOMEM, "bounded: no memory for %zu segment lengths", nseg);
  total = parz_bounded_encode(s->coded.codes + first, count, seg, s->runs, &s->coded.book,
                              (uint8_t*)dst, dst_bytes, lens);
  if (total == (size_t)-1) {
    free(lens);
    return parz_fail(err, PARZ_ERR_BUFFER, "bounded: %zu codes do not fit in %zu bytes", count,
                     dst_bytes);
  }
  for (k = 0; k < nseg; k++)
    seg_bits[k] = lens[k] > UINT32_MAX ? UINT32_MAX : (uint32_t)lens[k];
  free(lens);
  /* the stream in whole 64-bit words, zero past its last bit */
  bytes = (total + 7) / 8;
  if (bytes % 8 && bytes + (8 - bytes % 8) <= dst_bytes)
    memset((unsigned char*)dst + bytes, 0, 8 - bytes % 8);
  *bits = total;
  return PARZ_OK;
}

static const parz_scratch_codec scratch_entries = {
    .begin = scratch_begin,
    .free = scratch_free,
    .inverse_passes = inverse_passes,
    .inverse_units = inverse_units,
    .inverse_values = inverse_values,
    .inverse_codes = inverse_codes,
    .inverse = inverse,
    .store = store,
    .code = code,
    .coded_exceptions = coded_exceptions,
    .codec_data = codec_data,
    .codec_data_bound = codec_data_bound,
    .encode_codes = encode_codes,
};

const parz_codec parz_codec_bounded = {
    .id = PARZ_CODEC_BOUNDED,
    .version = 1,
    .name = "bounded",
    .exact = 0,
    .segment_blocks = PARZ_BOUNDED_SEGMENT_CODES, /* each segment coded as a whole */
    .contiguous = 1,                              /* the forward pass reads whole arrays */
    .block_sides = block_sides,
    .read_params = read_params,
    .configure = configure,
    .prepare = NULL, /* the forward pass is `code`'s */
    .fixed_length = never_fixed,
    .check = check,
    .block_bits_bound = block_bits_bound,
    .stream_bound = stream_bound,
    .check_encode = check_encode,
    .encode_segments = NULL,
    .decode_segments = decode_segments,
    .decode_to = NULL,
    .meets = NULL,
    .modes = &parz_bounded_modes,
    .exception_rules = NULL, /* the frame's: NaN and the infinities */
    .check_bound = NULL,     /* the codec holds every value to the bound itself */
    .min_block_bits = 0,     /* a run symbol stands for many codes: check bounds them instead */
    .scratch = &scratch_entries,
};
