/* The GPU encoder's steps run on the CPU: the per-thread functions of gpu/encode_chunk.cuh and
 * gpu/zfp/encode_block.cuh called for every thread of every kernel, in the kernels' order
 * (gpu/encode.cu), the scans done serially. Every chunk they build must be parz_chunk_encode's,
 * byte for byte, and must leave no byte of it unwritten (the buffer starts poisoned). This checks
 * where no GPU is (CI) what the GPU test checks on the device, on the same cases
 * (gpu_encode_cases.h, every table setting for every kind of values), the refusals (NaN of too
 * many patterns, blocks at risk of missing the accuracy bound) and that of reversible-transform
 * parameters cut short; here alone, tables of several partitions of both length widths, written
 * first to last and last to first (hybrid_partitions).
 * Usage: test_gpu_encode_host [--quick] (the values with special values among them alone) */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "check.h"
#include "encode_block.cuh"
#include "gpu_encode_cases.h"
#include "gpu_head_crc_host.h"

/* Whether the table's segments are written last to first, else first to last: the GPU's threads
 * run in any order, so an entry that writes over another's bytes shows in one order or the
 * other. */
static bool table_backwards;

/* The GPU pipeline, one thread after another. */
template <parz_type T, unsigned D>
static int emulate(const parz_array& a, const void* data, const parz_chunk_config& cfg,
                   std::vector<unsigned char>& chunk, parz_error* e) {
  parz_gpu_enc_chunk c;
  int rc = parz_gpu_enc_plan(&c, &a, data, &cfg, e);
  if (rc != PARZ_OK)
    return rc;
  const unsigned long long nb = c.nblocks, nw = parz_gpu_block_words<T, D>();
  std::vector<unsigned long long> scratch(
      parz_stream_bound(a.type, a.dims, &c.params, (size_t)nb) / 8 + 1, 0),
      offsets(nb + 1, 0), words((size_t)(nb * nw));
  std::vector<unsigned long long> lens(nb);
  std::vector<parz_gpu_mask_set> set(1);
  std::vector<unsigned> facts;
  std::vector<unsigned long long> group_bytes;
  unsigned long long nexc = 0, R[PARZ_GPU_MASK_GROUP_SIZES] = {0};
  unsigned needs2 = 0, risky = 0;
  size_t mask_bytes = 0;
  memset(set.data(), 0, sizeof set[0]);
  c.scratch = scratch.data();
  c.offsets = offsets.data();
  if (c.mask.nan || c.mask.fill)
    c.mask.set = set.data();
  /* the block kernel (the mask pass too when the array holds masked values): encode, then
   * (after the running sum) place */
  for (int pass = 0; pass < 2; pass++) {
    nexc = needs2 = 0;
    for (unsigned long long b = 0; b < nb; b++) {
      parz_writer w;
      parz_gpu_block_note note;
      parz_writer_init(&w, &words[b * nw], 8 * nw);
      const unsigned bits = parz_gpu_encode_block<T, D>(c, b, &w, &note);
      /* only minbits padding may go past the thread's buffer */
      CHECK(parz_writer_tell(&w) == bits && w.err == (bits > 64 * nw && bits == c.params.minbits),
            "block %llu: %u bits, writer %llu, err %d", b, bits,
            (unsigned long long)parz_writer_tell(&w), w.err);
      parz_writer_flush(&w);
      lens[b] = bits;
      nexc += note.exc;
      needs2 |= note.v2 != 0;
      risky |= note.risk != 0;
      if (c.mask.set && !pass)
        set[0].masked += note.masked;
      if (pass)
        facts[b] = note.fact;
    }
    std::fill(scratch.begin(), scratch.end(), 0ull);
    for (unsigned long long b = 0; b < nb; b++)
      offsets[b + 1] = offsets[b] + lens[b];
    for (unsigned long long b = 0; b < nb; b++)
      parz_gpu_place_block(c.scratch, offsets[b], lens[b], &words[b * nw], nw);
    if (pass) { /* the records' bytes of every candidate G */
      for (unsigned k = 0; k < PARZ_GPU_MASK_GROUP_SIZES; k++)
        for (unsigned long long g = 0; g < parz_gpu_mask_groups(nb, k); g++)
          R[k] += parz_gpu_mask_length(c, k, g);
      mask_bytes = parz_gpu_enc_mask_layout(&c, set[0].nvalues, R);
      break;
    }
    if (risky) /* the host's first check of the sizes read back */
      return parz_gpu_enc_risk_refuse(e);
    if (!c.mask.set || !set[0].masked)
      break;
    if (set[0].overflow)
      return parz_gpu_enc_mask_refuse(e);
    /* the rank kernel, then the mask pass */
    for (unsigned i = 0; i < PARZ_GPU_MASK_SLOTS; i++)
      set[0].code[i] = parz_gpu_mask_rank(&set[0], i);
    set[0].nvalues = parz_gpu_mask_nvalues(&set[0]);
    facts.assign(nb, 0);
    group_bytes.assign(parz_gpu_mask_groups_before(nb, PARZ_GPU_MASK_GROUP_SIZES), 0);
    c.mask.facts = facts.data();
    c.mask.group_bytes = group_bytes.data();
    c.mask.pass = 1;
  }
  /* the sizes, the host's layout and the fixed parts of the head */
  unsigned char header[PARZ_GPU_HEAD];
  size_t size = 0;
  if ((rc = parz_gpu_enc_settle(&c, &a, &cfg, offsets[nb], nexc, needs2, mask_bytes, header, &size,
                                e)))
    return rc;
  chunk.assign(size, 0xA5);
  c.chunk = chunk.data();
  c.header = header;
  /* payload, table, records, directory and payload checksums, CRC, header */
  for (unsigned long long k = 0; k < c.payload_words; k++)
    parz_word_store(c.chunk + c.payload_at + 8 * k, c.scratch[k]);
  if (c.table != PARZ_TABLE_NONE)
    for (unsigned long long k = 0; k < c.nsegments; k++)
      parz_gpu_table_segment(c, table_backwards ? c.nsegments - 1 - k : k);
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
  /* the directory and the sections' heads; the mask's values, group starts (a scan of the
   * groups' bytes) and records */
  parz_gpu_sections(c);
  if (c.mask.at) {
    typedef typename raw_of<T>::type U;
    const unsigned long long* gb = &group_bytes[parz_gpu_mask_groups_before(nb, c.mask.k)];
    for (unsigned i = 0; i < PARZ_GPU_MASK_SLOTS; i++)
      parz_gpu_mask_value(c, i);
    for (unsigned long long g = 0, sum = 0; g < c.mask.ngroups; g++) {
      parz_word_store(parz_gpu_mask_starts(c) + 8 * g, sum);
      sum += gb[g];
    }
    for (unsigned long long g = 0; g < c.mask.ngroups; g++)
      parz_gpu_mask_records<U>(c, g);
  }
  /* a CTA per partition: its threads' shares added */
  for (unsigned long long p = 0; p < c.nchecksums; p++) {
    unsigned long long sum = 0;
    for (unsigned t = 0; t < PARZ_GPU_SUM_THREADS; t++)
      sum += parz_gpu_payload_share(c, p, t, PARZ_GPU_SUM_THREADS);
    parz_word_store(c.chunk + c.sums_at + 8 * p, sum);
  }
  /* each span's pieces joined pairwise as the CTA's tree joins them */
  const uint32_t raw = gpu_crc_raw(parz_gpu_enc_head_crc(c));
  parz_gpu_seal(c, raw);
  return PARZ_OK;
}

template <parz_type T>
static int emulate_rank(const parz_array& a, const void* data, const parz_chunk_config& cfg,
                        std::vector<unsigned char>& chunk, parz_error* e) {
  switch (a.dims) {
    case 1: return emulate<T, 1>(a, data, cfg, chunk, e);
    case 2: return emulate<T, 2>(a, data, cfg, chunk, e);
    case 3: return emulate<T, 3>(a, data, cfg, chunk, e);
    default: return emulate<T, 4>(a, data, cfg, chunk, e);
  }
}

static int emulate_any(const parz_array& a, const void* data, const parz_chunk_config& cfg,
                       std::vector<unsigned char>& chunk, parz_error* e) {
  switch (a.type) {
    case PARZ_FLOAT: return emulate_rank<PARZ_FLOAT>(a, data, cfg, chunk, e);
    case PARZ_DOUBLE: return emulate_rank<PARZ_DOUBLE>(a, data, cfg, chunk, e);
    case PARZ_INT32: return emulate_rank<PARZ_INT32>(a, data, cfg, chunk, e);
    default: return emulate_rank<PARZ_INT64>(a, data, cfg, chunk, e);
  }
}

/* What the chunks compared held: masks, by G, and masks of 256 values. */
static unsigned masked_chunks, group_sizes[PARZ_GPU_MASK_GROUP_SIZES], many_values;

/* One array and configuration: the emulated GPU chunk against the serial encoder's. */
static void compare(const char* what, const parz_array& a, const void* data,
                    const parz_chunk_config& cfg) {
  parz_error e1, e2;
  size_t cap = parz_chunk_bound(&a, &cfg), n = 0;
  std::vector<unsigned char> ref(cap ? cap : 1), got;
  int rc_ref = parz_chunk_encode(&a, data, &cfg, ref.data(), cap, &n, &e1);
  int rc = emulate_any(a, data, cfg, got, &e2);
  CHECK(rc == rc_ref, "%s: status %d (%s), serial %d (%s)", what, rc, rc ? e2.message : "", rc_ref,
        rc_ref ? e1.message : "");
  if (rc != PARZ_OK || rc_ref != PARZ_OK)
    return;
  CHECK(got.size() == n && !memcmp(got.data(), ref.data(), n),
        "%s: chunk differs (%zu bytes, serial %zu)", what, got.size(), n);
  parz_chunk_view v;
  if (parz_chunk_parse(ref.data(), n, &v, NULL) == PARZ_OK && v.mask.nvalues) {
    masked_chunks++;
    for (unsigned k = 0; k < PARZ_GPU_MASK_GROUP_SIZES; k++)
      group_sizes[k] += v.mask.group_blocks == PARZ_GPU_MASK_GROUP_MIN << k;
    many_values += v.mask.nvalues == PARZ_MASK_MAX_VALUES;
  }
}

/* HYBRID tables of several partitions with records that end in padding, of both length widths:
 * P = 3 and 5 (P * w is no multiple of 8 for w = 2 or 4), three full partitions and a last one of
 * each size, P segments (a table of whole partitions) then 1 to P - 1; the last segment of half
 * of C's blocks. Floats in accuracy mode with C = 2 give segments far below 65536 bits (w = 2),
 * doubles in reversible mode with C = 400 segments above it (w = 4); the CPU's chunk is checked
 * to have the layout meant. The same arrays with OFFSETS and LENGTHS tables; each chunk with
 * checksums on and off (off, the payload follows the table: an entry past the table's end lands
 * on it), its table written first to last and last to first. */
static void hybrid_partitions() {
  static const parz_table_kind kinds[] = {PARZ_TABLE_HYBRID, PARZ_TABLE_OFFSETS,
                                          PARZ_TABLE_LENGTHS};
  char what[200];
  for (int wide = 0; wide < 2; wide++)
    for (unsigned P : {3u, 5u})
      for (unsigned last = 0; last < P; last++) {
        const unsigned C = wide ? 400 : 2, nseg = 3 * P + (last ? last : P);
        const size_t nblocks = (size_t)(nseg - 1) * C + (C + 1) / 2;
        parz_array a;
        memset(&a, 0, sizeof a);
        a.type = wide ? PARZ_DOUBLE : PARZ_FLOAT;
        a.dims = 1;
        a.shape[0] = 4 * nblocks - 1;
        std::vector<unsigned char> data = gpu_cases_values(a.type, a.shape[0], 0);
        for (parz_table_kind kind : kinds)
          for (int off = 0; off < 2; off++) {
            parz_chunk_config cfg;
            memset(&cfg, 0, sizeof cfg);
            if (wide)
              parz_params_reversible(&cfg.params);
            else
              CHECK(parz_params_accuracy(&cfg.params, 1e-2, NULL, NULL) == PARZ_OK, "accuracy");
            cfg.table = kind;
            cfg.segment_blocks = C;
            cfg.partition_segments = kind == PARZ_TABLE_HYBRID ? P : 0;
            cfg.checksum = off ? PARZ_CHECKSUM_OFF : PARZ_CHECKSUM_DEFAULT;
            if (kind == PARZ_TABLE_HYBRID) {
              size_t cap = parz_chunk_bound(&a, &cfg), n = 0;
              std::vector<unsigned char> ref(cap);
              parz_chunk_view v;
              CHECK(
                  parz_chunk_encode(&a, data.data(), &cfg, ref.data(), cap, &n, NULL) == PARZ_OK &&
                      parz_chunk_parse(ref.data(), n, &v, NULL) == PARZ_OK &&
                      v.table == PARZ_TABLE_HYBRID && v.partition_segments == P &&
                      v.nsegments == nseg && v.length_bytes == (wide ? 4u : 2u),
                  "P=%u, %u segments of width %u: the CPU's chunk has another layout", P, nseg,
                  wide ? 4u : 2u);
            }
            for (int back = 0; back < 2; back++) {
              table_backwards = back != 0;
              snprintf(what, sizeof what,
                       "partitions: table %d P=%u, %u segments of width %u, checksums %s, %s",
                       (int)kind, cfg.partition_segments, nseg, wide ? 4u : 2u, off ? "off" : "on",
                       back ? "last to first" : "first to last");
              compare(what, a, data.data(), cfg);
            }
            table_backwards = false;
          }
      }
}

/* An array the GPU encoder refuses (NaN of more patterns than its set holds, or a block at risk
 * of missing the accuracy bound): the serial encoder encodes it, the GPU's steps refuse it with
 * PARZ_ERR_UNSUPPORTED and a message naming `why`, before any chunk is written, so that callers
 * encode it on the CPU. */
static void refuse(const char* what, const parz_array& a, const void* data,
                   const parz_chunk_config& cfg, const char* why) {
  parz_error e1, e2;
  size_t cap = parz_chunk_bound(&a, &cfg), n = 0;
  std::vector<unsigned char> ref(cap ? cap : 1), got;
  CHECK(parz_chunk_encode(&a, data, &cfg, ref.data(), cap, &n, &e1) == PARZ_OK, "%s: serial: %s",
        what, e1.message);
  const int rc = emulate_any(a, data, cfg, got, &e2);
  CHECK(rc == PARZ_ERR_UNSUPPORTED && strstr(e2.message, why) && got.empty(),
        "%s: the GPU encoder must refuse it: status %d (%s)", what, rc, rc ? e2.message : "");
}

/* A thread's block buffer holds every block of its type and rank short of minbits padding: the
 * codec's bound for the widest parameters (every plane, no budget, reversible or not). */
template <parz_type T, unsigned D>
static void check_block_words() {
  parz_params p;
  for (int reversible = 0; reversible < 2; reversible++) {
    CHECK(parz_params_expert(&p, 0, 0xffffffffu, PARZ_MAX_PREC,
                             reversible ? PARZ_MIN_EXP - 1 : PARZ_MIN_EXP, NULL) == PARZ_OK,
          "expert parameters");
    const unsigned bound = parz_block_max_bits(T, D, &p), nw = parz_gpu_block_words<T, D>();
    CHECK(bound > 64 * (nw - 2) && bound <= 64 * nw,
          "type %d rank %u: %u words for blocks of up to %u bits", (int)T, D, nw, bound);
  }
}

template <parz_type T>
static void check_block_words_rank() {
  check_block_words<T, 1>();
  check_block_words<T, 2>();
  check_block_words<T, 3>();
  check_block_words<T, 4>();
}

int main(int argc, char** argv) {
  const bool quick = argc > 1 && !strcmp(argv[1], "--quick");
  const gpu_encode_scope scope = {false, quick, true, true};
  check_block_words_rank<PARZ_FLOAT>();
  check_block_words_rank<PARZ_DOUBLE>();
  check_block_words_rank<PARZ_INT32>();
  check_block_words_rank<PARZ_INT64>();
  CHECK(gpu_encode_cases(scope, compare) == 0, "parameters the codec refused");
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
    std::vector<unsigned char> data = gpu_cases_values(PARZ_DOUBLE, 64, 0);
    CHECK(parz_params_expert(&cfg.params, 1, 20000, 40, -1075, NULL) == PARZ_OK,
          "expert parameters");
    std::vector<unsigned char> got;
    parz_error e;
    CHECK(emulate_any(a, data.data(), cfg, got, &e) == PARZ_ERR_PARAM,
          "reversible parameters cut short must be refused");
    compare("reversible cut short", a, data.data(), cfg);
  }
  gpu_cases_masks(scope, compare, refuse);
  gpu_cases_risk(scope, compare, refuse);
  hybrid_partitions();
  {
    /* a span's shift over the spans after it, by the join tables and beyond them (heads of more
     * spans than any case here has), against the generic shift */
    const uint32_t(*joins)[32] = gpu_crc_joins();
    const unsigned long long counts[] = {1,         2, 3, 41, 1000, 1ull << 20, (1ull << 21) + 5,
                                         1ull << 33};
    parz_gpu_head_crc c;
    memset(&c, 0, sizeof c);
    c.from = PARZ_HEADER_BYTES;
    for (unsigned long long spans : counts)
      for (unsigned long long span : {0ull, 1ull, spans / 2, spans - 1}) {
        if (span >= spans)
          continue;
        const uint32_t reg = 0x9e3779b9u ^ (uint32_t)(spans * 31 + span);
        c.to = c.from + spans * PARZ_GPU_CRC_SPAN;
        CHECK(parz_gpu_crc_span(c, span, reg, joins) ==
                  parz_crc32c_shift(reg, (spans - 1 - span) * PARZ_GPU_CRC_SPAN),
              "span %llu of %llu", span, spans);
      }
  }
  /* the cases reach what they are meant to: masks of every G and of the most values */
  printf("%u chunks with masks; G = 256 ... 4096: %u %u %u %u %u; 256 values: %u\n", masked_chunks,
         group_sizes[0], group_sizes[1], group_sizes[2], group_sizes[3], group_sizes[4],
         many_values);
  for (unsigned k = 0; k < PARZ_GPU_MASK_GROUP_SIZES && !quick; k++)
    CHECK(group_sizes[k] > 0, "no chunk with masks in groups of %u blocks",
          PARZ_GPU_MASK_GROUP_MIN << k);
  CHECK(quick || many_values > 0, "no chunk with a mask of 256 values");
  return test_finish("test_gpu_encode_host");
}
