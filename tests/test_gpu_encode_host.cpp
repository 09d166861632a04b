/* The GPU encoder's steps run on the CPU: gpu/encode_block.cuh's per-thread functions called for
 * every thread of every kernel, in the kernels' order (gpu/encode.cu), the scans done serially.
 * Every chunk they build must be parz_chunk_encode's, byte for byte, and must leave no byte of
 * it unwritten (the buffer starts poisoned). This checks where no GPU is (CI) what the GPU test
 * checks on the device: every type, rank 1 to 4, every mode (two expert settings), every table
 * kind at several C and P, auto C, payload checksums on and off (format versions 2 and 1),
 * partial blocks, strided arrays, and special values: NaN with payloads, infinities, whole
 * blocks of them, blocks whose finite mean overflows, subnormals, signed zeros, the extremes of
 * each type (exceptions in the lossy modes, integers too).
 * Usage: test_gpu_encode_host [--quick] */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "encode_block.cuh"

static unsigned long checks, failures;

#define CHECK(cond, ...)                                   \
  do {                                                     \
    checks++;                                              \
    if (!(cond) && failures++ < 20) {                      \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);          \
      printf(__VA_ARGS__);                                 \
      printf("\n");                                        \
    }                                                      \
  } while (0)

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next_rand(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* Values of kind 0 (smooth with noise), 1 (special values among smooth ones) or 2 (a constant
 * with whole blocks of zeros), as bit patterns of the type, n of them. */
static std::vector<unsigned char> make_values(parz_type type, size_t n, int kind)
{
  const size_t size = parz_type_size(type);
  std::vector<unsigned char> v(n * size);
  for (size_t i = 0; i < n; i++) {
    double x = sin(0.037 * (double)(i % 1013)) * 300.0 + cos(0.0011 * (double)i) * 70.0 +
               (double)(next_rand() % 1000) * 1e-3;
    if (kind == 2)
      x = i % 97 < 40 ? 0.0 : 12.5;
    unsigned char* p = &v[i * size];
    switch (type) {
      case PARZ_FLOAT: {
        float f = (float)x;
        if (kind == 1) {
          static const float special[] = {NAN, INFINITY, -INFINITY, 1e-40f, -1e-44f, FLT_MAX,
                                          -FLT_MAX, -0.0f, 0.0f, FLT_MIN};
          if (next_rand() % 5 == 0)
            f = special[next_rand() % 10];
        }
        uint32_t u;
        memcpy(&u, &f, 4);
        if (kind == 1 && (u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu) && next_rand() % 2)
          u ^= (uint32_t)(next_rand() & 0x3fffffu); /* a NaN payload */
        memcpy(p, &u, 4);
        break;
      }
      case PARZ_DOUBLE: {
        if (kind == 1) {
          static const double special[] = {NAN, INFINITY, -INFINITY, 1e-310, -4.9e-324, DBL_MAX,
                                           -DBL_MAX, -0.0, 0.0, DBL_MIN};
          if (next_rand() % 5 == 0)
            x = special[next_rand() % 10];
        }
        memcpy(p, &x, 8);
        break;
      }
      case PARZ_INT32: {
        int32_t k = (int32_t)(x * 1000.0);
        if (kind == 1 && next_rand() % 5 == 0)
          k = next_rand() % 2 ? INT32_MAX : INT32_MIN;
        memcpy(p, &k, 4);
        break;
      }
      default: {
        int64_t k = (int64_t)(x * 1e12);
        if (kind == 1 && next_rand() % 5 == 0)
          k = next_rand() % 2 ? INT64_MAX : INT64_MIN;
        memcpy(p, &k, 8);
        break;
      }
    }
  }
  return v;
}

/* The GPU pipeline, one thread after another. */
template <parz_type T, unsigned D>
static int emulate(const parz_array& a, const void* data, const parz_chunk_config& cfg,
                   std::vector<unsigned char>& chunk, parz_error* e)
{
  parz_gpu_enc_chunk c;
  int rc = parz_gpu_enc_plan(&c, &a, data, &cfg, e);
  if (rc != PARZ_OK)
    return rc;
  const unsigned long long nb = c.nblocks;
  std::vector<unsigned long long> scratch(
      parz_stream_bound(a.type, a.dims, &c.params, (size_t)nb) / 8 + 1, 0),
      offsets(nb + 1, 0), words((size_t)nb * PARZ_GPU_BLOCK_WORDS);
  std::vector<unsigned long long> lens(nb);
  unsigned long long nexc = 0;
  unsigned needs2 = 0;
  c.scratch = scratch.data();
  c.offsets = offsets.data();
  /* the block kernel: encode, then (after the running sum) place */
  for (unsigned long long b = 0; b < nb; b++) {
    parz_writer w;
    unsigned bad, v2;
    parz_writer_init(&w, &words[b * PARZ_GPU_BLOCK_WORDS], 8 * PARZ_GPU_BLOCK_WORDS);
    const unsigned bits = parz_gpu_encode_block<T, D>(c, b, &w, &bad, &v2);
    CHECK(!w.err && parz_writer_tell(&w) == bits, "block %llu: %u bits, writer %llu, err %d", b,
          bits, (unsigned long long)parz_writer_tell(&w), w.err);
    parz_writer_flush(&w);
    lens[b] = bits;
    nexc += bad;
    needs2 |= v2 != 0;
  }
  for (unsigned long long b = 0; b < nb; b++)
    offsets[b + 1] = offsets[b] + lens[b];
  for (unsigned long long b = 0; b < nb; b++)
    parz_gpu_place_block(c.scratch, offsets[b], lens[b], &words[b * PARZ_GPU_BLOCK_WORDS]);
  /* the sizes, the host's layout and the fixed parts of the head */
  unsigned char header[PARZ_GPU_HEAD];
  size_t size = 0;
  if ((rc = parz_gpu_enc_settle(&c, &a, &cfg, offsets[nb], nexc, needs2, header, &size, e)))
    return rc;
  chunk.assign(size, 0xA5);
  c.chunk = chunk.data();
  c.header = header;
  /* payload, table, records, directory and payload checksums, CRC, header */
  for (unsigned long long k = 0; k < c.payload_words; k++)
    parz_word_store(c.chunk + c.payload_at + 8 * k, c.scratch[k]);
  if (c.table != PARZ_TABLE_NONE)
    for (unsigned long long s = 0; s < c.nsegments; s++)
      parz_gpu_table_segment(c, s);
  if (c.nexceptions) {
    typedef typename raw_of<T>::type U;
    const unsigned long long ranges = (c.count + PARZ_GPU_EXC_RANGE - 1) / PARZ_GPU_EXC_RANGE;
    std::vector<unsigned long long> first(ranges);
    for (unsigned long long r = 0, sum = 0; r < ranges; r++) {
      first[r] = sum;
      sum += parz_gpu_exc_count<U>(c, r);
    }
    c.exc_first = first.data();
    for (unsigned long long r = 0; r < ranges; r++)
      parz_gpu_exc_write<U>(c, r);
  }
  /* a warp per partition: 32 lanes' shares added */
  parz_gpu_sections(c);
  for (unsigned long long p = 0; p < c.nchecksums; p++) {
    unsigned long long sum = 0;
    for (unsigned lane = 0; lane < 32; lane++)
      sum += parz_gpu_payload_share(c, p, lane, 32);
    parz_word_store(c.chunk + c.sums_at + 8 * p, sum);
  }
  /* each span's pieces joined pairwise as the CTA's tree joins them */
  uint32_t raw = 0;
  for (unsigned long long span = 0; span < parz_gpu_crc_spans(c); span++) {
    uint32_t v[PARZ_GPU_CRC_THREADS];
    for (unsigned t = 0; t < PARZ_GPU_CRC_THREADS; t++)
      v[t] = parz_gpu_crc_piece(c, span * PARZ_GPU_CRC_THREADS + t, parz_crc32c_table);
    for (unsigned k = 0; (1u << k) < PARZ_GPU_CRC_THREADS; k++)
      for (unsigned t = 0; t < PARZ_GPU_CRC_THREADS; t += 2u << k)
        v[t] = parz_gpu_crc_join(v[t], v[t + (1u << k)], k);
    raw ^= parz_gpu_crc_span(c, span, v[0]);
  }
  parz_gpu_seal(c, raw);
  return PARZ_OK;
}

template <parz_type T>
static int emulate_rank(const parz_array& a, const void* data, const parz_chunk_config& cfg,
                        std::vector<unsigned char>& chunk, parz_error* e)
{
  switch (a.dims) {
    case 1: return emulate<T, 1>(a, data, cfg, chunk, e);
    case 2: return emulate<T, 2>(a, data, cfg, chunk, e);
    case 3: return emulate<T, 3>(a, data, cfg, chunk, e);
    default: return emulate<T, 4>(a, data, cfg, chunk, e);
  }
}

static int emulate_any(const parz_array& a, const void* data, const parz_chunk_config& cfg,
                       std::vector<unsigned char>& chunk, parz_error* e)
{
  switch (a.type) {
    case PARZ_FLOAT: return emulate_rank<PARZ_FLOAT>(a, data, cfg, chunk, e);
    case PARZ_DOUBLE: return emulate_rank<PARZ_DOUBLE>(a, data, cfg, chunk, e);
    case PARZ_INT32: return emulate_rank<PARZ_INT32>(a, data, cfg, chunk, e);
    default: return emulate_rank<PARZ_INT64>(a, data, cfg, chunk, e);
  }
}

/* One array and configuration: the emulated GPU chunk against the serial encoder's. */
static void compare(const char* what, const parz_array& a, const void* data,
                    const parz_chunk_config& cfg)
{
  parz_error e1, e2;
  size_t cap = parz_chunk_bound(&a, &cfg), n = 0;
  std::vector<unsigned char> ref(cap ? cap : 1), got;
  int rc_ref = parz_chunk_encode(&a, data, &cfg, ref.data(), cap, &n, &e1);
  int rc = emulate_any(a, data, cfg, got, &e2);
  CHECK(rc == rc_ref, "%s: status %d (%s), serial %d (%s)", what, rc, rc ? e2.message : "",
        rc_ref, rc_ref ? e1.message : "");
  if (rc != PARZ_OK || rc_ref != PARZ_OK)
    return;
  CHECK(got.size() == n && !memcmp(got.data(), ref.data(), n),
        "%s: chunk differs (%zu bytes, serial %zu)", what, got.size(), n);
}

struct mode_case {
  const char* name;
  int mode;
  double value;
};

static int set_params(parz_chunk_config* cfg, const mode_case& m, parz_type type, unsigned dims)
{
  const bool floats = type == PARZ_FLOAT || type == PARZ_DOUBLE;
  switch (m.mode) {
    case PARZ_MODE_RATE: return parz_params_rate(&cfg->params, m.value, type, dims, NULL, NULL);
    case PARZ_MODE_PRECISION: return parz_params_precision(&cfg->params, (unsigned)m.value, NULL);
    case PARZ_MODE_ACCURACY: return parz_params_accuracy(&cfg->params, m.value, NULL, NULL);
    case PARZ_MODE_REVERSIBLE: parz_params_reversible(&cfg->params); return PARZ_OK;
    default:
      if (m.value == 0) /* a budget that cuts blocks mid-plane, minbits padding */
        return parz_params_expert(&cfg->params, 40u * dims, 90u * dims * dims, 24,
                                  floats ? -30 : 0, NULL);
      return parz_params_expert(&cfg->params, 100u * dims, 20000, 20, floats ? -30 : 0, NULL);
  }
}

int main(int argc, char** argv)
{
  const bool quick = argc > 1 && !strcmp(argv[1], "--quick");
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  static const mode_case modes[] = {{"rate", PARZ_MODE_RATE, 11.5},
                                    {"precision", PARZ_MODE_PRECISION, 19},
                                    {"accuracy", PARZ_MODE_ACCURACY, 1e-2},
                                    {"reversible", PARZ_MODE_REVERSIBLE, 0},
                                    {"expert", PARZ_MODE_EXPERT, 0},
                                    {"expert-pad", PARZ_MODE_EXPERT, 1}};
  static const size_t shapes[4][4] = {{1003, 0, 0, 0}, {37, 61, 0, 0}, {9, 14, 23, 0},
                                      {5, 6, 7, 9}};
  /* table kind, C, P */
  static const int tables[][3] = {{PARZ_TABLE_AUTO, 0, 0},    {PARZ_TABLE_HYBRID, 3, 5},
                                  {PARZ_TABLE_HYBRID, 64, 2}, {PARZ_TABLE_OFFSETS, 7, 0},
                                  {PARZ_TABLE_LENGTHS, 33, 0}, {PARZ_TABLE_HYBRID, 1, 40},
                                  {PARZ_TABLE_LENGTHS, 0, 0}};
  for (parz_type type : types)
    for (unsigned dims = 1; dims <= 4; dims++)
      for (const mode_case& m : modes)
        for (int kind = 0; kind < 3; kind++) {
          const bool floats = type == PARZ_FLOAT || type == PARZ_DOUBLE;
          if (m.mode == PARZ_MODE_ACCURACY && !floats)
            continue;
          if (quick && kind != 1)
            continue;
          parz_array a;
          memset(&a, 0, sizeof a);
          a.type = type;
          a.dims = dims;
          memcpy(a.shape, shapes[dims - 1], sizeof a.shape);
          size_t count = parz_array_count(&a);
          std::vector<unsigned char> data = make_values(type, count, kind);
          for (const auto& t : tables) {
            parz_chunk_config cfg;
            memset(&cfg, 0, sizeof cfg);
            if (set_params(&cfg, m, type, dims) != PARZ_OK) {
              CHECK(0, "parameters for %s", m.name);
              continue;
            }
            cfg.table = (parz_table_kind)t[0];
            cfg.segment_blocks = (uint32_t)t[1];
            cfg.partition_segments = (uint32_t)t[2];
            if (m.mode == PARZ_MODE_RATE && cfg.table == PARZ_TABLE_AUTO)
              cfg.table = PARZ_TABLE_NONE;
            /* payload checksums on (format version 2) and off (version 1, or 2 where the
             * exceptions need it) */
            for (int off = 0; off < 2; off++) {
              char what[160];
              cfg.checksum = off ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_DEFAULT;
              snprintf(what, sizeof what, "%s %uD %s data %d table %d C=%d P=%d checksums %s",
                       parz_type_name(type), dims, m.name, kind, t[0], t[1], t[2],
                       off ? "off" : "on");
              compare(what, a, data.data(), cfg);
            }
          }
          /* the same values as a strided view: every other element along the last
           * dimension, one element and one row of padding after each row and plane */
          {
            parz_array s = a;
            const size_t size = parz_type_size(type);
            ptrdiff_t span = 2 * (ptrdiff_t)a.shape[dims - 1] + 1;
            size_t big = 1;
            s.stride[dims - 1] = 2;
            for (int k = (int)dims - 2; k >= 0; k--) {
              s.stride[k] = span;
              span *= (ptrdiff_t)a.shape[k] + 1;
            }
            for (unsigned k = 0; k < dims; k++)
              big += (a.shape[k] - 1) * (size_t)s.stride[k];
            std::vector<unsigned char> wide(big * size, 0xEE);
            for (size_t i = 0; i < count; i++) {
              size_t rest = i;
              ptrdiff_t off = 0;
              for (int k = (int)dims - 1; k >= 0; k--) {
                off += (ptrdiff_t)(rest % a.shape[k]) * s.stride[k];
                rest /= a.shape[k];
              }
              memcpy(&wide[(size_t)off * size], &data[i * size], size);
            }
            parz_chunk_config cfg;
            memset(&cfg, 0, sizeof cfg);
            set_params(&cfg, m, type, dims);
            if (m.mode == PARZ_MODE_RATE)
              cfg.table = PARZ_TABLE_NONE;
            char what[160];
            snprintf(what, sizeof what, "%s %uD %s data %d strided", parz_type_name(type), dims,
                     m.name, kind);
            compare(what, s, wide.data(), cfg);
          }
        }
  /* heads of several checksum spans: 9000 floats, most of them NaN (records of about 90 KB),
   * with C = 1 (a table of about 5 KB) */
  {
    parz_array a;
    parz_chunk_config cfg;
    memset(&a, 0, sizeof a);
    memset(&cfg, 0, sizeof cfg);
    a.type = PARZ_FLOAT;
    a.dims = 1;
    a.shape[0] = 9000;
    std::vector<float> v(9000);
    for (size_t i = 0; i < v.size(); i++)
      v[i] = next_rand() % 8 < 5 ? NAN : (float)i * 0.5f;
    parz_params_accuracy(&cfg.params, 1e-3, NULL, NULL);
    cfg.segment_blocks = 1;
    compare("many exceptions", a, v.data(), cfg);
    cfg.table = PARZ_TABLE_OFFSETS;
    compare("many exceptions, OFFSETS", a, v.data(), cfg);
  }
  /* single values and single blocks, every rank: partial blocks of one value */
  for (unsigned dims = 1; dims <= 4; dims++) {
    parz_array a;
    parz_chunk_config cfg;
    memset(&a, 0, sizeof a);
    memset(&cfg, 0, sizeof cfg);
    a.type = PARZ_FLOAT;
    a.dims = dims;
    for (unsigned k = 0; k < dims; k++)
      a.shape[k] = 1;
    float v = NAN;
    parz_params_accuracy(&cfg.params, 1e-3, NULL, NULL);
    compare("one NaN", a, &v, cfg);
    v = -3.25f;
    compare("one value", a, &v, cfg);
  }
  {
    /* reversible-transform parameters cut short: refused for encoding, as the serial encoder
     * refuses them (compare checks that both statuses agree) */
    parz_array a;
    parz_chunk_config cfg;
    memset(&a, 0, sizeof a);
    memset(&cfg, 0, sizeof cfg);
    a.type = PARZ_DOUBLE;
    a.dims = 2;
    a.shape[0] = a.shape[1] = 8;
    std::vector<unsigned char> data = make_values(PARZ_DOUBLE, 64, 0);
    CHECK(parz_params_expert(&cfg.params, 1, 20000, 40, -1075, NULL) == PARZ_OK,
          "expert parameters");
    std::vector<unsigned char> got;
    parz_error e;
    CHECK(emulate_any(a, data.data(), cfg, got, &e) == PARZ_ERR_PARAM,
          "reversible parameters cut short must be refused");
    compare("reversible cut short", a, data.data(), cfg);
  }
  printf("test_gpu_encode_host: %lu checks, %lu failures\n", checks, failures);
  return failures ? 1 : 0;
}
