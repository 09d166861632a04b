/* Offset table: layout, writing, validation and lookups for the NONE, OFFSETS, LENGTHS and
 * HYBRID strategies (Noordsij 2019, strategies 1-3). */
#include "table.h"
#include "table_endian.h"

static uint64_t pad8(uint64_t n) { return (n + 7u) & ~(uint64_t)7u; }

unsigned parz_table_length_width(uint64_t max_segment_bits) {
  return max_segment_bits <= 0xffffu ? 2u : 4u;
}

/* Bytes of one HYBRID partition record holding n segment lengths. */
static uint64_t hybrid_record_bytes(const parz_chunk_view* v, uint64_t n) {
  return 8u + pad8(n * v->length_bytes);
}

int parz_table_layout(parz_chunk_view* v, parz_error* err) {
  uint64_t C = v->segment_blocks, P = v->partition_segments;
  if (C < 1 || C > PARZ_MAX_SEGMENT_BLOCKS)
    return parz_fail(err, PARZ_ERR_FORMAT, "segment_blocks C = %llu outside 1..%u",
                     (unsigned long long)C, PARZ_MAX_SEGMENT_BLOCKS);
  if (v->nblocks == 0)
    return parz_fail(err, PARZ_ERR_FORMAT, "chunk has no blocks");
  v->nsegments = v->nblocks / C + (v->nblocks % C != 0);
  v->npartitions = 0;
  switch (v->table) {
    case PARZ_TABLE_NONE:
    case PARZ_TABLE_OFFSETS:
      if (P != 0 || v->length_bytes != 0)
        return parz_fail(
            err, PARZ_ERR_FORMAT,
            "table kind %d needs partition_segments 0 and length width 0, not %llu and %u",
            (int)v->table, (unsigned long long)P, v->length_bytes);
      if (v->table == PARZ_TABLE_NONE) {
        v->table_bytes = 0;
      } else {
        if (v->nsegments > SIZE_MAX / 8u)
          return parz_fail(err, PARZ_ERR_FORMAT, "%llu segments: table too large",
                           (unsigned long long)v->nsegments);
        v->table_bytes = (size_t)(8u * v->nsegments);
      }
      return PARZ_OK;
    case PARZ_TABLE_LENGTHS:
    case PARZ_TABLE_HYBRID:
      if (v->length_bytes != 2 && v->length_bytes != 4)
        return parz_fail(err, PARZ_ERR_FORMAT, "length field width %u bytes (must be 2 or 4)",
                         v->length_bytes);
      /* a record costs at most 16 bytes per segment (8 + pad8(4) with P = 1), so with this
     * bound no table size below can wrap */
      if (v->nsegments > SIZE_MAX / 16u)
        return parz_fail(err, PARZ_ERR_FORMAT, "%llu segments: table too large",
                         (unsigned long long)v->nsegments);
      if (v->table == PARZ_TABLE_LENGTHS) {
        if (P != 0)
          return parz_fail(err, PARZ_ERR_FORMAT,
                           "LENGTHS table needs partition_segments 0, not %llu",
                           (unsigned long long)P);
        v->table_bytes = (size_t)pad8(v->nsegments * v->length_bytes);
      } else {
        uint64_t full, last, bytes;
        if (P < 1 || P > PARZ_MAX_PARTITION_SEGMENTS)
          return parz_fail(err, PARZ_ERR_FORMAT, "partition_segments P = %llu outside 1..%u",
                           (unsigned long long)P, PARZ_MAX_PARTITION_SEGMENTS);
        v->npartitions = v->nsegments / P + (v->nsegments % P != 0);
        full = v->nsegments / P;
        last = v->nsegments % P;
        /* each record is at most 8 + 4P bytes and there are at most nsegments of them */
        bytes = full * hybrid_record_bytes(v, P) + (last ? hybrid_record_bytes(v, last) : 0);
        if (bytes > SIZE_MAX)
          return parz_fail(err, PARZ_ERR_FORMAT, "table of %llu bytes too large",
                           (unsigned long long)bytes);
        v->table_bytes = (size_t)bytes;
      }
      return PARZ_OK;
    default: return parz_fail(err, PARZ_ERR_FORMAT, "unknown table kind %d", (int)v->table);
  }
}

static void store_length(unsigned char* p, unsigned width, uint64_t bits) {
  if (width == 2)
    parz_store16(p, (uint16_t)bits);
  else
    parz_store32(p, (uint32_t)bits);
}

static uint64_t load_length(const unsigned char* p, unsigned width) {
  return width == 2 ? parz_load16(p) : parz_load32(p);
}

int parz_table_write(const parz_chunk_view* v, const uint32_t* unit_bits, uint64_t per,
                     uint64_t nunits, unsigned char* dst, parz_error* err) {
  uint64_t s, n = v->nsegments, offset = 0, u = 0, P = v->partition_segments;
  uint64_t limit = v->length_bytes == 2 ? 0xffffu : 0xffffffffu;
  unsigned w = v->length_bytes;
  unsigned char* rec = dst;
  size_t i;
  if (v->table == PARZ_TABLE_NONE)
    return PARZ_OK;
  if (v->table < PARZ_TABLE_NONE || v->table > PARZ_TABLE_HYBRID)
    return parz_fail(err, PARZ_ERR_ARG, "unknown table kind %d", (int)v->table);
  for (i = 0; i < v->table_bytes; i++) /* padding */
    dst[i] = 0;
  for (s = 0; s < n; s++) {
    uint64_t end = (s + 1) * per, bits = 0;
    for (; u < end && u < nunits; u++)
      bits += unit_bits[u];
    if (w && bits > limit)
      return parz_fail(err, PARZ_ERR_PARAM,
                       "segment %llu has %llu bits, more than its %u-bit length field holds",
                       (unsigned long long)s, (unsigned long long)bits, 8u * w);
    switch (v->table) {
      case PARZ_TABLE_OFFSETS: parz_store64(dst + 8u * s, offset); break;
      case PARZ_TABLE_LENGTHS: store_length(dst + w * s, w, bits); break;
      default: /* HYBRID: a record per partition, its offset first */
        if (s % P == 0) {
          rec = dst + (s / P) * hybrid_record_bytes(v, P);
          parz_store64(rec, offset);
        }
        store_length(rec + 8 + w * (s % P), w, bits);
        break;
    }
    offset += bits;
  }
  return PARZ_OK;
}

/* Adds the n <= 65536 lengths at p to *running, refusing a sum that passes payload_bits.
 * running <= payload_bits < 2^61 (a chunk in memory) and the lengths add at most 2^48, so the
 * sum cannot wrap; the check on it is done once per call to keep the loops branch-free. */
static int sum_lengths(const unsigned char* p, unsigned w, uint64_t n, uint64_t payload_bits,
                       uint64_t* running) {
  uint64_t j, sum = *running;
  if (w == 2) {
    for (j = 0; j < n; j++)
      sum += parz_load16(p + 2 * j);
  } else {
    for (j = 0; j < n; j++)
      sum += parz_load32(p + 4 * j);
  }
  if (sum < *running || sum > payload_bits)
    return 0;
  *running = sum;
  return 1;
}

static int zero_padding(const unsigned char* p, const unsigned char* end) {
  for (; p < end; p++)
    if (*p)
      return 0;
  return 1;
}

int parz_table_validate(const parz_chunk_view* v, parz_error* err) {
  const unsigned char* t = v->table_data;
  uint64_t s, n = v->nsegments, bits = v->payload_bits;
  unsigned w = v->length_bytes;
  switch (v->table) {
    case PARZ_TABLE_NONE: {
      uint64_t maxbits = v->params.maxbits;
      if (v->params.minbits != v->params.maxbits)
        return parz_fail(err, PARZ_ERR_FORMAT,
                         "table kind NONE needs a fixed-rate chunk, but minbits %u != maxbits %u",
                         v->params.minbits, v->params.maxbits);
      if (maxbits == 0 || v->nblocks > UINT64_MAX / maxbits || v->nblocks * maxbits != bits)
        return parz_fail(err, PARZ_ERR_FORMAT,
                         "fixed-rate payload has %llu bits, expected %llu blocks of %llu bits",
                         (unsigned long long)bits, (unsigned long long)v->nblocks,
                         (unsigned long long)maxbits);
      return PARZ_OK;
    }
    case PARZ_TABLE_OFFSETS: {
      uint64_t prev = 0;
      for (s = 0; s < n; s++) {
        uint64_t o = parz_load64(t + 8 * s);
        if (o < prev || o > bits || (s == 0 && o != 0))
          return parz_fail(err, PARZ_ERR_FORMAT,
                           "segment %llu offset %llu not monotone or outside the %llu payload bits",
                           (unsigned long long)s, (unsigned long long)o, (unsigned long long)bits);
        prev = o;
      }
      return PARZ_OK;
    }
    case PARZ_TABLE_LENGTHS: {
      uint64_t running = 0, done;
      /* sum in slices of 65536 lengths so that no sum can wrap whatever n is */
      for (done = 0; done < n;) {
        uint64_t m = n - done < 65536u ? n - done : 65536u;
        if (!sum_lengths(t + w * done, w, m, bits, &running))
          return parz_fail(
              err, PARZ_ERR_FORMAT,
              "segment lengths pass the end of the payload (%llu bits) near segment %llu",
              (unsigned long long)bits, (unsigned long long)done);
        done += m;
      }
      if (running != bits)
        return parz_fail(err, PARZ_ERR_FORMAT,
                         "segment lengths sum to %llu bits but the payload has %llu",
                         (unsigned long long)running, (unsigned long long)bits);
      if (!zero_padding(t + w * n, t + v->table_bytes))
        return parz_fail(err, PARZ_ERR_FORMAT, "nonzero table padding");
      return PARZ_OK;
    }
    case PARZ_TABLE_HYBRID: {
      uint64_t P = v->partition_segments, full = hybrid_record_bytes(v, P), running = 0;
      for (s = 0; s < n; s += P) {
        uint64_t m = n - s < P ? n - s : P;
        const unsigned char* r = t + (s / P) * full;
        uint64_t o = parz_load64(r);
        if (o != running)
          return parz_fail(
              err, PARZ_ERR_FORMAT,
              "partition %llu starts at bit %llu, but the previous one ends at bit %llu",
              (unsigned long long)(s / P), (unsigned long long)o, (unsigned long long)running);
        if (!sum_lengths(r + 8, w, m, bits, &running))
          return parz_fail(
              err, PARZ_ERR_FORMAT,
              "segment lengths of partition %llu pass the end of the payload (%llu bits)",
              (unsigned long long)(s / P), (unsigned long long)bits);
        if (!zero_padding(r + 8 + w * m, r + hybrid_record_bytes(v, m)))
          return parz_fail(err, PARZ_ERR_FORMAT, "nonzero padding in partition %llu",
                           (unsigned long long)(s / P));
      }
      if (running != bits)
        return parz_fail(err, PARZ_ERR_FORMAT,
                         "segments end at bit %llu but the payload has %llu bits",
                         (unsigned long long)running, (unsigned long long)bits);
      return PARZ_OK;
    }
    default: return parz_fail(err, PARZ_ERR_FORMAT, "unknown table kind %d", (int)v->table);
  }
}

uint64_t parz_table_segment_bits(const parz_chunk_view* v, uint64_t s) {
  const unsigned char* t = v->table_data;
  unsigned w = v->length_bytes;
  switch (v->table) {
    case PARZ_TABLE_NONE: {
      uint64_t first = s * v->segment_blocks, n = v->nblocks - first;
      return (n < v->segment_blocks ? n : v->segment_blocks) * (uint64_t)v->params.maxbits;
    }
    case PARZ_TABLE_OFFSETS:
      return (s + 1 < v->nsegments ? parz_load64(t + 8 * (s + 1)) : v->payload_bits) -
             parz_load64(t + 8 * s);
    case PARZ_TABLE_LENGTHS: return load_length(t + w * s, w);
    case PARZ_TABLE_HYBRID: {
      uint64_t P = v->partition_segments;
      return load_length(t + (s / P) * hybrid_record_bytes(v, P) + 8 + w * (s % P), w);
    }
    default: return 0;
  }
}

uint64_t parz_chunk_segment_offset(const parz_chunk_view* v, uint64_t s) {
  const unsigned char* t = v->table_data;
  unsigned w = v->length_bytes;
  uint64_t j, o = 0;
  if (s >= v->nsegments)
    return v->payload_bits;
  switch (v->table) {
    case PARZ_TABLE_NONE: return s * v->segment_blocks * (uint64_t)v->params.maxbits;
    case PARZ_TABLE_OFFSETS: return parz_load64(t + 8 * s);
    case PARZ_TABLE_LENGTHS:
      for (j = 0; j < s; j++)
        o += load_length(t + w * j, w);
      return o;
    case PARZ_TABLE_HYBRID: {
      uint64_t P = v->partition_segments;
      const unsigned char* r = t + (s / P) * hybrid_record_bytes(v, P);
      o = parz_load64(r);
      for (j = 0; j < s % P; j++)
        o += load_length(r + 8 + w * j, w);
      return o;
    }
    default: return 0;
  }
}

size_t parz_chunk_offsets_bytes(const parz_chunk_view* v) {
  return v->table == PARZ_TABLE_LENGTHS ? (size_t)(8u * v->nsegments) : 0;
}

void parz_chunk_offsets_view(const parz_chunk_view* v, void* table, parz_chunk_view* out) {
  unsigned char* t = (unsigned char*)table;
  uint64_t s, o = 0;
  *out = *v;
  if (v->table != PARZ_TABLE_LENGTHS)
    return;
  for (s = 0; s < v->nsegments; s++) {
    parz_store64(t + 8u * s, o);
    o += load_length(v->table_data + v->length_bytes * s, v->length_bytes);
  }
  out->table = PARZ_TABLE_OFFSETS;
  out->table_data = t;
  out->table_bytes = (size_t)(8u * v->nsegments);
  out->length_bytes = 0;
}
