/* The serial chunk decoder: the payload checksums of the partitions a destination needs, then
 * the segments that meet its window, through the chunk's codec (codecs.h), then the exceptions. */
#include "chunk_scratch.h"
#include "codecs.h"
#include "exceptions.h"
#include "payload_checksum.h"
#include "table.h"
#include "table_endian.h"
#include "window.h"

/* Segments per decode_segments call: their expected ends sit on the stack. */
#define DECODE_GROUP 64u

/* The codec of a parsed chunk (a view not from parz_chunk_parse may name none). */
static int chunk_codec(const parz_chunk_view* v, const parz_codec** codec, parz_error* err) {
  if (!v)
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_decode_segments: NULL argument");
  *codec = parz_codec_find(v->codec);
  if (!*codec)
    return parz_fail(err, PARZ_ERR_ARG, "chunk view of codec %u, unknown to this reader", v->codec);
  return PARZ_OK;
}

/* Decodes segments [s, s + count) from the payload's bit *bit into d (a scratch codec: into its
 * state, scratch), in groups of DECODE_GROUP segments, each group one pass of the codec's
 * decode_segments; *bit ends where segment s + count starts. */
static int decode_run_of_segments(const parz_codec* codec, const parz_chunk_view* v,
                                  const parz_chunk_dest* d, struct parz_codec_scratch* scratch,
                                  uint64_t s, uint64_t count, uint64_t* bit, parz_error* err) {
  const uint64_t last = s + count;
  while (s < last) {
    uint64_t ends[DECODE_GROUP], n = last - s, b0 = s * v->segment_blocks, nb, k, end;
    size_t bad;
    int rc;
    if (n > DECODE_GROUP)
      n = DECODE_GROUP;
    for (k = 0, end = *bit; k < n; k++)
      ends[k] = end += parz_table_segment_bits(v, s + k);
    nb = (s + n) * v->segment_blocks;
    nb = (nb < v->nblocks ? nb : v->nblocks) - b0;
    parz_segment_run run;
    run.view = v;
    run.array = &v->array;
    run.params = &v->params;
    run.dest = d;
    run.mask = &v->mask;
    run.src = v->payload;
    run.src_bytes = v->payload_bytes;
    run.bit = *bit;
    run.first = (size_t)b0;
    run.count = (size_t)nb;
    run.seg_blocks = v->segment_blocks;
    run.ends = ends;
    run.scratch = scratch;
    rc = codec->decode_segments(&run, &bad, &end, err);
    if (rc != PARZ_OK)
      return rc;
    if (bad != SIZE_MAX)
      return parz_fail(err, PARZ_ERR_STREAM,
                       "segment %llu ends at bit %llu but the table says %llu: corrupt payload",
                       (unsigned long long)(s + bad), (unsigned long long)end,
                       (unsigned long long)ends[bad]);
    *bit = ends[n - 1];
    s += n;
  }
  return PARZ_OK;
}

/* A walk through a chunk's payload in increasing segment order that knows where its last stop
 * was: the offset of a later segment is a table lookup, but for LENGTHS (whose lookup sums from
 * the start) the sum of the lengths since the last stop, so that a walk costs O(segments) for
 * every table kind. */
typedef struct {
  const parz_chunk_view* v;
  uint64_t segment, bit; /* segment `segment` starts at `bit`; segment == UINT64_MAX: none */
} payload_cursor;

static void cursor_init(payload_cursor* c, const parz_chunk_view* v) {
  c->v = v;
  c->segment = UINT64_MAX;
  c->bit = 0;
}

/* Where segment s (at or after the last stop) starts. */
static uint64_t cursor_offset(const payload_cursor* c, uint64_t s) {
  const parz_chunk_view* v = c->v;
  uint64_t at = c->bit, k;
  if (v->table != PARZ_TABLE_LENGTHS || c->segment == UINT64_MAX)
    return parz_chunk_segment_offset(v, s);
  for (k = c->segment; k < s; k++)
    at += parz_table_segment_bits(v, k);
  return at;
}

static void cursor_stop(payload_cursor* c, uint64_t s, uint64_t bit) {
  c->segment = s;
  c->bit = bit;
}

/* The one loop that verifies payload checksums: partitions [p0, p1), the first starting at the
 * cursor's next stop. */
static int verify_partitions(payload_cursor* c, uint64_t p0, uint64_t p1, parz_error* err) {
  const parz_chunk_view* v = c->v;
  const uint64_t P = v->checksum_segments;
  uint64_t p, begin;
  if (p0 >= p1)
    return PARZ_OK;
  begin = cursor_offset(c, p0 * P);
  for (p = p0; p < p1; p++) {
    uint64_t s1 = (p + 1) * P < v->nsegments ? (p + 1) * P : v->nsegments;
    /* the last partition also covers the zero bits that pad the payload to whole words */
    uint64_t end = s1 == v->nsegments ? 8u * (uint64_t)v->payload_bytes : 0;
    uint64_t want = parz_load64(v->checksums + 8u * p), sum;
    cursor_stop(c, p * P, begin);
    if (s1 < v->nsegments)
      end = cursor_offset(c, s1);
    sum = parz_payload_checksum(v->payload, begin, end);
    if (sum != want)
      return parz_fail(err, PARZ_ERR_CHECKSUM,
                       "payload checksum of partition %llu of %llu (segments %llu to %llu, "
                       "payload bits %llu to %llu) is 0x%016llx, stored 0x%016llx: corrupt "
                       "payload",
                       (unsigned long long)p, (unsigned long long)v->nchecksums,
                       (unsigned long long)(p * P), (unsigned long long)(s1 - 1),
                       (unsigned long long)begin, (unsigned long long)(end - 1),
                       (unsigned long long)sum, (unsigned long long)want);
    begin = end;
  }
  if (p1 * P < v->nsegments)
    cursor_stop(c, p1 * P, begin);
  return PARZ_OK;
}

/* PARZ_ERR_ARG unless checksummed partitions [first, first + count) are the chunk's. */
static int check_partitions(const parz_chunk_view* v, uint64_t first, uint64_t count,
                            const char* who, parz_error* err) {
  if (!v)
    return parz_fail(err, PARZ_ERR_ARG, "%s: NULL view", who);
  if (first > v->nchecksums || count > v->nchecksums - first)
    return parz_fail(err, PARZ_ERR_ARG, "%s: partitions [%llu, +%llu) outside the chunk's %llu",
                     who, (unsigned long long)first, (unsigned long long)count,
                     (unsigned long long)v->nchecksums);
  return PARZ_OK;
}

int parz_chunk_verify(const parz_chunk_view* v, uint64_t first, uint64_t count, parz_error* err) {
  payload_cursor c;
  int rc = check_partitions(v, first, count, "parz_chunk_verify", err);
  if (rc != PARZ_OK)
    return rc;
  cursor_init(&c, v);
  return verify_partitions(&c, first, first + count, err);
}

/* Verifies the partitions that hold the runs of the walk, each once, consecutive ones in one
 * pass of verify_partitions. */
static int verify_runs(const parz_chunk_view* v, parz_run_walk* r, parz_error* err) {
  const uint64_t P = v->checksum_segments;
  payload_cursor c;
  uint64_t s0, s1, q0 = 0, q1 = 0; /* partitions [q0, q1) to verify next */
  int rc;
  if (!v->nchecksums)
    return PARZ_OK;
  cursor_init(&c, v);
  while (parz_run_walk_next(r, v->segment_blocks, &s0, &s1)) {
    uint64_t p0 = s0 / P, p1 = (s1 - 1) / P + 1;
    if (p0 < q1)
      p0 = q1; /* the run's first partition is already there */
    if (p0 >= p1)
      continue;
    if (p0 > q1 && q1 > q0 && (rc = verify_partitions(&c, q0, q1, err)) != PARZ_OK)
      return rc;
    if (p0 > q1)
      q0 = p0;
    q1 = p1;
  }
  return verify_partitions(&c, q0, q1, err);
}

/* A direct codec's partitions [p0, p1) that hold a value of d's window, verified. */
static int verify_meeting(const parz_codec* codec, const parz_chunk_view* v,
                          const parz_chunk_dest* d, uint64_t p0, uint64_t p1, parz_error* err) {
  const uint64_t P = v->checksum_segments;
  payload_cursor c;
  uint64_t p;
  int rc;
  cursor_init(&c, v);
  for (p = p0; p < p1; p++)
    if (codec->meets(v, d, p * P, P) && (rc = verify_partitions(&c, p, p + 1, err)) != PARZ_OK)
      return rc;
  return PARZ_OK;
}

int parz_chunk_verify_to(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t first,
                         uint64_t count, parz_error* err) {
  parz_run_walk r;
  const parz_codec* codec;
  uint64_t s0, s1;
  int rc = check_partitions(v, first, count, "parz_chunk_verify_to", err);
  if (rc != PARZ_OK || !count)
    return rc;
  if ((rc = chunk_codec(v, &codec, err)) != PARZ_OK)
    return rc;
  if (codec->meets)
    return verify_meeting(codec, v, d, first, first + count, err);
  if (codec->scratch) /* every value of the window needs every segment */
    return parz_chunk_verify(v, first, count, err);
  s0 = first * v->checksum_segments;
  s1 = (first + count) * v->checksum_segments;
  if (s1 > v->nsegments)
    s1 = v->nsegments;
  if ((rc = parz_run_walk_init(&r, v, d, s0, s1 - s0, err)) != PARZ_OK)
    return rc;
  return verify_runs(v, &r, err);
}

int parz_chunk_scratch_segments(parz_chunk_scratch* s, uint64_t first, uint64_t count,
                                parz_error* err) {
  const parz_chunk_view* v = parz_chunk_scratch_view(s);
  const parz_codec* codec;
  uint64_t bit;
  int rc;
  if ((rc = chunk_codec(v, &codec, err)) != PARZ_OK)
    return rc;
  if (first > v->nsegments || count > v->nsegments - first)
    return parz_fail(err, PARZ_ERR_ARG, "segments [%llu, +%llu) outside the chunk's %llu",
                     (unsigned long long)first, (unsigned long long)count,
                     (unsigned long long)v->nsegments);
  bit = parz_chunk_segment_offset(v, first);
  return decode_run_of_segments(codec, v, NULL, parz_chunk_scratch_state(s), first, count, &bit,
                                err);
}

int parz_chunk_scratch_decode_to(const parz_chunk_view* v, const parz_chunk_dest* d,
                                 parz_error* err) {
  parz_chunk_scratch* s;
  unsigned p, np;
  int rc;
  if ((rc = parz_chunk_verify(v, 0, v->nchecksums, err)) != PARZ_OK ||
      (rc = parz_chunk_scratch_begin(v, &s, err)) != PARZ_OK)
    return rc;
  rc = parz_chunk_scratch_segments(s, 0, v->nsegments, err);
  np = parz_chunk_scratch_passes(s);
  for (p = 0; p < np && rc == PARZ_OK; p++)
    rc = parz_chunk_scratch_pass(s, p, 0, parz_chunk_scratch_units(s, p), err);
  if (rc == PARZ_OK) {
    parz_chunk_scratch_store(s, d, 0, parz_chunk_dest_rows(v, d));
    parz_mask_restore_to(v, d, 0, v->mask.ngroups);
  }
  parz_chunk_scratch_free(s);
  return rc;
}

/* A scratch codec's chunk decodes whole (chunk_scratch.h): every value needs every segment. */
static int decode_scratch(const parz_chunk_view* v, const parz_chunk_dest* d, uint64_t first,
                          uint64_t count, parz_error* err) {
  if (first != 0 || count != v->nsegments)
    return parz_fail(err, PARZ_ERR_ARG,
                     "segments [%llu, +%llu) of a chunk of codec %u, which decodes its %llu "
                     "segments together",
                     (unsigned long long)first, (unsigned long long)count, v->codec,
                     (unsigned long long)v->nsegments);
  return parz_chunk_scratch_decode_to(v, d, err);
}

int parz_chunk_decode_segments_unverified(const parz_chunk_view* v, const parz_chunk_dest* d,
                                          uint64_t first, uint64_t count, parz_error* err) {
  parz_run_walk r;
  payload_cursor c;
  const parz_codec* codec;
  uint64_t s0, s1;
  int rc;
  if ((rc = chunk_codec(v, &codec, err)) != PARZ_OK)
    return rc;
  if (codec->scratch)
    return decode_scratch(v, d, first, count, err);
  if ((rc = parz_run_walk_init(&r, v, d, first, count, err)) != PARZ_OK)
    return rc;
  if (codec->decode_to) {
    codec->decode_to(v, d, first, count);
    return PARZ_OK;
  }
  cursor_init(&c, v);
  /* each run decoded from its table offset */
  while (parz_run_walk_next(&r, v->segment_blocks, &s0, &s1)) {
    uint64_t bit = cursor_offset(&c, s0);
    if ((rc = decode_run_of_segments(codec, v, d, NULL, s0, s1 - s0, &bit, err)) != PARZ_OK)
      return rc;
    cursor_stop(&c, s1, bit);
  }
  return PARZ_OK;
}

int parz_chunk_decode_segments_to(const parz_chunk_view* v, const parz_chunk_dest* d,
                                  uint64_t first, uint64_t count, parz_error* err) {
  parz_run_walk r;
  const parz_codec* codec;
  int rc;
  /* every checksum first, as the parallel decoders report a bad one before other faults */
  if ((rc = chunk_codec(v, &codec, err)) != PARZ_OK)
    return rc;
  if (codec->scratch)
    return decode_scratch(v, d, first, count, err);
  if ((rc = parz_run_walk_init(&r, v, d, first, count, err)) != PARZ_OK)
    return rc;
  if (codec->meets && v->nchecksums && count) {
    const uint64_t P = v->checksum_segments;
    rc = verify_meeting(codec, v, d, first / P, (first + count - 1) / P + 1, err);
  } else {
    rc = verify_runs(v, &r, err);
  }
  if (rc != PARZ_OK)
    return rc;
  return parz_chunk_decode_segments_unverified(v, d, first, count, err);
}

int parz_chunk_decode_segments(const parz_chunk_view* v, void* dst, uint64_t first, uint64_t count,
                               parz_error* err) {
  parz_chunk_dest d;
  if (!v || !dst)
    return parz_fail(err, PARZ_ERR_ARG, "parz_chunk_decode_segments: NULL argument");
  parz_chunk_dest_whole(v, dst, &d);
  return parz_chunk_decode_segments_to(v, &d, first, count, err);
}

int parz_chunk_fits(const parz_chunk_view* v, const void* dst, size_t dst_bytes, parz_error* err) {
  if (!dst || dst_bytes < v->raw_bytes)
    return parz_fail(err, PARZ_ERR_BUFFER, "chunk decodes to %zu bytes, buffer has %zu",
                     v->raw_bytes, dst ? dst_bytes : 0);
  return PARZ_OK;
}

int parz_chunk_decode(const void* src, size_t src_bytes, void* dst, size_t dst_bytes,
                      parz_error* err) {
  parz_chunk_view v;
  int rc = parz_chunk_parse(src, src_bytes, &v, err);
  if (rc != PARZ_OK)
    return rc;
  if ((rc = parz_chunk_fits(&v, dst, dst_bytes, err)) != PARZ_OK)
    return rc;
  if ((rc = parz_chunk_decode_segments(&v, dst, 0, v.nsegments, err)) != PARZ_OK)
    return rc;
  return parz_chunk_patch_exceptions(&v, dst, err);
}
