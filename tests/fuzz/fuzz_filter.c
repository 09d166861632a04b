/* Fuzz harness: the HDF5 filter callback itself (plugin/filter/H5Zparz.c compiled into the harness,
 * reached through H5PLget_plugin_info as HDF5 reaches it), both directions, arbitrary cd_values.
 *
 * Input: [0] control (bit 0: fix the chunk checksum; bit 1: decode direction, else encode and
 *        then decode the result), [1] number of cd_values (b % 17), then that many cd_values
 *        (u32 little-endian, exact heap array), then the chunk (decode) or the values (encode,
 *        repeated to fill the chunk shape the cd_values describe).
 * Properties: the callback returns 0 (an error pushed on HDF5's stack) or the decoded size; it
 * never touches memory outside the buffers; every buffer it returns holds at least the decoded
 * chunk, as *buf_size says (HDF5's copy of a dataset writes a whole cached chunk into the buffer
 * the filter returned for the chunk before); the compressed buffer it allocates stays
 * proportional to the chunk, whatever the cd_values; every configuration whose codec parameters
 * encode (parz_params_check_encode, as set_local requires) encodes any values, the others are
 * refused; what it encodes it decodes again, non-finite values bit for bit, reversible chunks
 * entirely bit for bit, and where the codec parameters promise an absolute bound (accuracy mode
 * and its expert equals: parz_params_bounded) every finite value within 2^minexp, whatever the
 * values (codec/FORMAT.md, "The accuracy bound"). */
#include <hdf5.h>
#include <math.h>

#include "filter_config.h"
#include "fuzz_common.h"

const void* H5PLget_plugin_info(void);

#define MAX_ENCODE_BYTES ((size_t)128 << 10)

static H5Z_func_t filter_callback(void) {
  static H5Z_func_t f;
  if (!f) {
    const H5Z_class2_t* cls = (const H5Z_class2_t*)H5PLget_plugin_info();
    PARZ_FUZZ_CHECK(cls != NULL && cls->filter != NULL);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    f = cls->filter;
  }
  return f;
}

/* A chunk buffer the way HDF5 hands it to a filter: its own allocator, which the filter uses to
 * free and replace it. */
static void* h5_copy(const void* p, size_t n) {
  void* b = H5allocate_memory(n ? n : 1, 0);
  if (!b)
    abort();
  if (n)
    memcpy(b, p, n);
  return b;
}

static int is_nonfinite(const unsigned char* v, parz_type t) {
  if (t == PARZ_FLOAT) {
    float f;
    memcpy(&f, v, 4);
    return !isfinite(f);
  }
  if (t == PARZ_DOUBLE) {
    double d;
    memcpy(&d, v, 8);
    return !isfinite(d);
  }
  return 0;
}

/* A value as the codec sees it (a big-endian dataset's bytes swapped) into t. */
static void codec_order(const unsigned char* v, const parz_filter_config* cfg, unsigned char* t) {
  size_t s = parz_type_size(cfg->chunk.type);
  for (size_t i = 0; i < s; i++)
    t[i] = cfg->big_endian ? v[s - 1 - i] : v[i];
}

/* Values as stored on disk order for a big-endian dataset: compare in the codec's order. */
static int value_nonfinite(const unsigned char* v, const parz_filter_config* cfg) {
  unsigned char t[8];
  codec_order(v, cfg, t);
  return is_nonfinite(t, cfg->chunk.type);
}

static double value_of(const unsigned char* v, const parz_filter_config* cfg) {
  unsigned char t[8];
  float f;
  double d;
  codec_order(v, cfg, t);
  if (cfg->chunk.type == PARZ_FLOAT) {
    memcpy(&f, t, 4);
    return f;
  }
  memcpy(&d, t, 8);
  return d;
}

/* Whether |x - y| <= 2^e, decided exactly: x - y is s + r exactly (TwoSum, exact without
 * overflow, which the decoded values of a finite array, below 2^1023, rule out), so |s| decides
 * unless it is 2^e itself, where r's sign does. */
static int within(double x, double y, int e) {
  const double t = ldexp(1.0, e), s = x - y, yy = s - x, r = (x - (s - yy)) + (-y - yy);
  const double m = fabs(s);
  return m < t || (m == t && (r == 0 || (r > 0) != (s > 0)));
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2)
    return 0;
  H5Z_func_t filter = filter_callback();
  unsigned ctl = data[0];
  size_t ncd = data[1] % 17;
  if (size < 2 + 4 * ncd)
    return 0;
  unsigned* cd = (unsigned*)malloc(ncd ? ncd * sizeof *cd : 1);
  if (!cd)
    abort();
  for (size_t i = 0; i < ncd; i++)
    cd[i] = parz_fuzz_rd32(data + 2 + 4 * i);
  const uint8_t* body = data + 2 + 4 * ncd;
  size_t body_bytes = size - 2 - 4 * ncd;

  parz_filter_config cfg;
  int loaded = parz_cd_load(ncd, cd, &cfg, NULL) == PARZ_OK;
  size_t raw = loaded ? parz_array_count(&cfg.chunk) * parz_type_size(cfg.chunk.type) : 0;

  if (ctl & 2) {
    unsigned char* c = parz_fuzz_chunk_copy(body, body_bytes, ctl);
    void* buf = h5_copy(c, body_bytes);
    size_t buf_size = body_bytes;
    size_t r = filter(H5Z_FLAG_REVERSE, ncd, cd, body_bytes, &buf_size, &buf);
    if (r != 0) {
      PARZ_FUZZ_CHECK(loaded && r == raw && buf_size >= r);
    }
    H5free_memory(buf);
    free(c);
  } else if (loaded && raw <= MAX_ENCODE_BYTES) {
    unsigned char* in = (unsigned char*)malloc(raw);
    if (!in)
      abort();
    for (size_t i = 0; i < raw; i++)
      in[i] = body_bytes ? body[i % body_bytes] : (unsigned char)i;
    void* buf = h5_copy(in, raw);
    size_t buf_size = raw;
    size_t n = filter(0, ncd, cd, raw, &buf_size, &buf);
    if (parz_params_check_encode(&cfg.config.params, cfg.chunk.type, cfg.chunk.dims, NULL) !=
        PARZ_OK) {
      /* codec parameters set_local refuses (reversible transform cut short): refused here too */
      PARZ_FUZZ_CHECK(n == 0);
      H5free_memory(buf);
      free(in);
      H5Eclear2(H5E_DEFAULT);
      free(cd);
      return 0;
    }
    /* A configuration the filter accepted encodes any values, into a buffer proportional to
     * the chunk: a block never takes more than PARZ_MAX_BITS bits (about 130 bytes per raw byte
     * for 1D float blocks), plus 16 bytes of exception per value, header and table. */
    PARZ_FUZZ_CHECK(n > 0 && n <= buf_size && buf_size >= raw);
    PARZ_FUZZ_CHECK(buf_size <= 256 * raw + ((size_t)1 << 20));
    memset((unsigned char*)buf + n, 0xA5, buf_size - n); /* all of it is the buffer's */
    size_t r = filter(H5Z_FLAG_REVERSE, ncd, cd, n, &buf_size, &buf);
    PARZ_FUZZ_CHECK(r == raw && buf_size >= r);
    const unsigned char* out = (const unsigned char*)buf;
    size_t vs = parz_type_size(cfg.chunk.type);
    if (parz_params_mode(&cfg.config.params) == PARZ_MODE_REVERSIBLE) {
      PARZ_FUZZ_CHECK(memcmp(out, in, raw) == 0);
    } else {
      const int bounded = parz_params_bounded(&cfg.config.params, cfg.chunk.type, cfg.chunk.dims);
      for (size_t i = 0; i < raw; i += vs)
        if (value_nonfinite(in + i, &cfg))
          PARZ_FUZZ_CHECK(memcmp(out + i, in + i, vs) == 0);
        else if (bounded)
          PARZ_FUZZ_CHECK(
              within(value_of(in + i, &cfg), value_of(out + i, &cfg), cfg.config.params.minexp));
    }
    H5free_memory(buf);
    /* A buffer that does not match the chunk shape is refused. */
    buf = h5_copy(in, raw);
    buf_size = raw;
    PARZ_FUZZ_CHECK(filter(0, ncd, cd, raw - 1, &buf_size, &buf) == 0);
    H5free_memory(buf);
    free(in);
  } else {
    void* buf = h5_copy(body, body_bytes);
    size_t buf_size = body_bytes;
    size_t n = filter(0, ncd, cd, body_bytes, &buf_size, &buf);
    PARZ_FUZZ_CHECK(n == 0 || (loaded && body_bytes == raw));
    H5free_memory(buf);
  }
  H5Eclear2(H5E_DEFAULT);
  free(cd);
  return 0;
}
