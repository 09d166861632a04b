/* parz_omp_assemble: boxes of chunked arrays built from their stored chunks on 1, 2 and 3
 * threads. Chunks are encoded losslessly (reversible mode) from a known array, so every value of
 * a box must equal the array's; chunks stored raw (native and byte-swapped) are copied, chunks
 * left out take the fill value; nothing outside the box is written. Edge chunks (values past the
 * array), unit chunk extents, ranks 1 to 5 (the chunk squeezed to at most 4), many small chunks
 * and a few large ones. A chunk of another shape or type, a corrupt chunk and a chunk outside the
 * buffer fail with the chunk's index; a flipped payload bit fails with the checksum error, the
 * same on every thread count, and boxes clear of it still read. With a reader
 * (parz_omp_assemble_reading) chunks are read in order on the calling thread while the team
 * decodes those already read, and a failing read stops the reads and names its chunk, after a
 * corrupt chunk before it. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parz_omp.h"
#include "team.h"
#include "test_chunk_common.h"

#define POISON 0xC3u

typedef struct {
  parz_chunk_grid g;
  unsigned char* values; /* the whole array, C order */
  unsigned char* packed;
  size_t packed_bytes, n;
  parz_chunk_ref* refs;
} stored;

static size_t elem_of(const stored* s) { return parz_type_size(s->g.type); }

/* Value at linear index i of the array: distinct and type-specific. */
static void value_at(parz_type t, size_t i, unsigned char* out) {
  if (t == PARZ_FLOAT) {
    float f = (float)(0.5 * (double)i - 1000.25);
    memcpy(out, &f, 4);
  } else if (t == PARZ_DOUBLE) {
    double d = 1e-3 * (double)i * (double)i - 7.0;
    memcpy(out, &d, 8);
  } else if (t == PARZ_INT32) {
    int32_t v = (int32_t)(i * 2654435761u) >> 3;
    memcpy(out, &v, 4);
  } else {
    int64_t v = (int64_t)(i * 0x9E3779B97F4A7C15ull) >> 5;
    memcpy(out, &v, 8);
  }
}

/* Stores the array as chunks: chunk c is left out when c % skip_every == skip_at (skip_every 0:
 * none), stored raw when c % raw_every == 1 (0: none; swapped when `swapped`), else ParZ. */
static void store(stored* s, unsigned skip_every, unsigned raw_every, int swapped) {
  const size_t elem = elem_of(s);
  uint64_t grid_n[PARZ_MAX_RANK], nchunks = 1, total = 1, c, chunk_values = 1;
  unsigned k;
  parz_array a;
  parz_chunk_config cfg;
  size_t cap = 0;
  CHECK(parz_grid_chunk_array(&s->g, &a, NULL) == PARZ_OK, "chunk array");
  for (k = 0; k < s->g.rank; k++) {
    grid_n[k] = (s->g.dims[k] + s->g.chunk_dims[k] - 1) / s->g.chunk_dims[k];
    nchunks *= grid_n[k];
    total *= s->g.dims[k];
    chunk_values *= s->g.chunk_dims[k];
  }
  s->values = (unsigned char*)malloc(total * elem);
  for (c = 0; c < total; c++)
    value_at(s->g.type, (size_t)c, s->values + c * elem);
  s->refs = (parz_chunk_ref*)calloc(nchunks, sizeof *s->refs);
  s->packed = NULL;
  s->packed_bytes = 0;
  s->n = 0;
  memset(&cfg, 0, sizeof cfg);
  parz_params_reversible(&cfg.params);
  cfg.segment_blocks = 2;
  cfg.partition_segments = 3;
  for (c = 0; c < nchunks; c++) {
    uint64_t origin[PARZ_MAX_RANK], rem = c, e;
    unsigned char* chunk = (unsigned char*)malloc(chunk_values * elem);
    unsigned char* bytes;
    size_t nbytes;
    for (k = s->g.rank; k-- > 0;) {
      origin[k] = (rem % grid_n[k]) * s->g.chunk_dims[k];
      rem /= grid_n[k];
    }
    /* the chunk's values; past the array's edge something else, as HDF5 leaves there */
    for (e = 0; e < chunk_values; e++) {
      uint64_t r = e, at = 0, run = 1;
      int inside = 1;
      for (k = s->g.rank; k-- > 0;) {
        uint64_t x = origin[k] + r % s->g.chunk_dims[k];
        r /= s->g.chunk_dims[k];
        inside = inside && x < s->g.dims[k];
        at += x * run;
        run *= s->g.dims[k];
      }
      if (inside)
        memcpy(chunk + e * elem, s->values + at * elem, elem);
      else
        memset(chunk + e * elem, 0x77, elem);
    }
    if (skip_every && c % skip_every == 2) {
      free(chunk);
      continue;
    }
    if (raw_every && c % raw_every == 1) {
      nbytes = chunk_values * elem;
      bytes = chunk;
      if (swapped)
        for (e = 0; e < chunk_values; e++)
          for (k = 0; k < elem / 2; k++) {
            unsigned char t = bytes[e * elem + k];
            bytes[e * elem + k] = bytes[e * elem + elem - 1 - k];
            bytes[e * elem + elem - 1 - k] = t;
          }
      s->refs[s->n].raw = swapped ? PARZ_STORED_RAW_SWAPPED : PARZ_STORED_RAW;
    } else {
      bytes = test_encode(&a, chunk, &cfg, &nbytes);
      CHECK(bytes != NULL, "encode chunk %llu", (unsigned long long)c);
      free(chunk);
      s->refs[s->n].raw = PARZ_STORED_PARZ;
    }
    if (s->packed_bytes + nbytes + 8 > cap) {
      cap = 2 * (s->packed_bytes + nbytes + 8);
      s->packed = (unsigned char*)realloc(s->packed, cap);
    }
    s->refs[s->n].at = s->packed_bytes;
    s->refs[s->n].bytes = nbytes;
    memcpy(s->refs[s->n].origin, origin, sizeof origin);
    memcpy(s->packed + s->packed_bytes, bytes, nbytes);
    s->packed_bytes += (nbytes + 7) & ~(size_t)7;
    s->n++;
    free(bytes);
  }
}

static void release(stored* s) {
  free(s->values);
  free(s->packed);
  free(s->refs);
}

/* Whether the value at box position (linear index i in the box) comes from a chunk left out. */
static int left_out(const stored* s, const uint64_t* x) {
  size_t i;
  unsigned k;
  for (i = 0; i < s->n; i++) {
    for (k = 0; k < s->g.rank; k++)
      if (x[k] < s->refs[i].origin[k] || x[k] >= s->refs[i].origin[k] + s->g.chunk_dims[k])
        break;
    if (k == s->g.rank)
      return 0;
  }
  return 1;
}

/* Assembles the box on `threads` threads and checks every value and the byte past it. */
static void check_box(const char* what, const stored* s, const parz_box* box, int threads,
                      const unsigned char* fill) {
  const size_t elem = elem_of(s);
  uint64_t count = 1, i;
  unsigned k;
  unsigned char* out;
  size_t wrong = 0, failed = SIZE_MAX;
  parz_error e;
  int rc;
  for (k = 0; k < s->g.rank; k++)
    count *= box ? box->count[k] : s->g.dims[k];
  out = (unsigned char*)malloc(count * elem + 1);
  memset(out, POISON, count * elem + 1);
  rc = parz_omp_assemble(&s->g, box, s->packed, s->packed_bytes, s->n, s->refs, fill, out, threads,
                         &failed, &e);
  CHECK(rc == PARZ_OK, "%s, %d threads: %s", what, threads, e.message);
  for (i = 0; rc == PARZ_OK && i < count; i++) {
    uint64_t x[PARZ_MAX_RANK], rem = i, at = 0, run = 1;
    const unsigned char* want;
    for (k = s->g.rank; k-- > 0;) {
      const uint64_t n = box ? box->count[k] : s->g.dims[k];
      x[k] = (box ? box->start[k] : 0) + rem % n;
      rem /= n;
      at += x[k] * run;
      run *= s->g.dims[k];
    }
    want = fill && left_out(s, x) ? fill : s->values + at * elem;
    if (memcmp(out + i * elem, want, elem))
      wrong++;
  }
  CHECK(wrong == 0 && out[count * elem] == POISON, "%s, %d threads: %zu of %llu values wrong%s",
        what, threads, wrong, (unsigned long long)count,
        out[count * elem] == POISON ? "" : ", byte past the box written");
  free(out);
}

static void boxes(const char* what, const stored* s, const unsigned char* fill) {
  parz_box b;
  unsigned k;
  int t, w;
  char label[160];
  for (t = 1; t <= 3; t++) {
    check_box(what, s, NULL, t, fill);
    for (w = 0; w < 4; w++) {
      memset(&b, 0, sizeof b);
      for (k = 0; k < s->g.rank; k++) {
        const uint64_t n = s->g.dims[k];
        b.start[k] = w == 0 ? n / 3 : w == 1 ? n - 1 : w == 2 ? 0 : n / 2;
        b.count[k] = w == 0 ? (n - n / 3 + 1) / 2 : w == 1 ? 1 : w == 2 ? n : (k == 0 ? 0 : n / 2);
        if (b.count[k] == 0 && w != 3)
          b.count[k] = 1;
      }
      snprintf(label, sizeof label, "%s, box %d", what, w);
      check_box(label, s, &b, t, fill);
    }
  }
}

static void arrays(void) {
  static const struct {
    unsigned rank;
    uint64_t dims[5], chunk[5];
  } shape[] = {
      {1, {1000}, {64}},
      {2, {37, 53}, {8, 16}},
      {2, {300, 200}, {300, 200}}, /* one chunk: split among threads */
      {3, {9, 1, 40}, {4, 1, 9}},  /* a unit chunk extent */
      {5, {3, 4, 5, 6, 7}, {1, 2, 3, 4, 5}},
      {2, {5, 5}, {1, 1}}, /* chunks of one value */
  };
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  size_t si, ti;
  for (si = 0; si < sizeof shape / sizeof shape[0]; si++)
    for (ti = 0; ti < 4; ti++) {
      stored s;
      unsigned char fill[8];
      char what[120];
      memset(&s, 0, sizeof s);
      s.g.rank = shape[si].rank;
      s.g.type = types[ti];
      memcpy(s.g.dims, shape[si].dims, shape[si].rank * 8);
      memcpy(s.g.chunk_dims, shape[si].chunk, shape[si].rank * 8);
      value_at(types[ti], 999999, fill);
      snprintf(what, sizeof what, "%s rank %u, all chunks ParZ", parz_type_name(types[ti]),
               shape[si].rank);
      store(&s, 0, 0, 0);
      boxes(what, &s, NULL);
      release(&s);
      snprintf(what, sizeof what, "%s rank %u, chunks left out and raw", parz_type_name(types[ti]),
               shape[si].rank);
      store(&s, 5, 3, 0);
      boxes(what, &s, fill);
      release(&s);
      snprintf(what, sizeof what, "%s rank %u, raw chunks swapped", parz_type_name(types[ti]),
               shape[si].rank);
      store(&s, 0, 2, 1);
      boxes(what, &s, NULL);
      release(&s);
    }
}

/* Chunks at fault fail the call, naming their index. */
static void refused(void) {
  stored s;
  parz_error e;
  size_t failed = SIZE_MAX, bytes = 0, at;
  float* out = (float*)malloc(37 * 53 * 4);
  parz_array other = test_array(PARZ_FLOAT, 2, 16, 8, 1, 1);
  parz_chunk_config cfg;
  parz_chunk_view v;
  unsigned char* foreign;
  void* data;
  int rc;
  memset(&s, 0, sizeof s);
  s.g.rank = 2;
  s.g.type = PARZ_FLOAT;
  s.g.dims[0] = 37;
  s.g.dims[1] = 53;
  s.g.chunk_dims[0] = 8;
  s.g.chunk_dims[1] = 16;
  store(&s, 0, 0, 0);

  /* chunk 3: the same values as a 16x8 chunk */
  memset(&cfg, 0, sizeof cfg);
  parz_params_reversible(&cfg.params);
  data = test_data(&other, 1);
  foreign = test_encode(&other, data, &cfg, &bytes);
  CHECK(foreign && bytes <= s.refs[3].bytes + 4096, "encode");
  {
    unsigned char* keep = s.packed;
    parz_chunk_ref saved = s.refs[3];
    s.packed = (unsigned char*)malloc(s.packed_bytes + bytes + 8);
    memcpy(s.packed, keep, s.packed_bytes);
    memcpy(s.packed + s.packed_bytes, foreign, bytes);
    s.refs[3].at = s.packed_bytes;
    s.refs[3].bytes = bytes;
    s.packed_bytes += (bytes + 7) & ~(size_t)7;
    rc = parz_omp_assemble(&s.g, NULL, s.packed, s.packed_bytes, s.n, s.refs, NULL, out, 2, &failed,
                           &e);
    CHECK(rc == PARZ_ERR_FORMAT && failed == 3, "foreign shape: rc %d, chunk %zu", rc, failed);
    printf("  foreign shape: %s\n", e.message);
    s.refs[3] = saved;
    free(s.packed);
    s.packed = keep;
  }
  free(foreign);
  free(data);

  /* chunk 5 outside the buffer, then a raw chunk of the wrong size */
  s.refs[5].bytes += 8 * s.packed_bytes;
  failed = SIZE_MAX;
  rc = parz_omp_assemble(&s.g, NULL, s.packed, s.packed_bytes, s.n, s.refs, NULL, out, 2, &failed,
                         &e);
  CHECK(rc == PARZ_ERR_ARG && failed == 5, "outside the buffer: rc %d, chunk %zu", rc, failed);
  s.refs[5].bytes -= 8 * s.packed_bytes;
  s.refs[5].raw = PARZ_STORED_RAW;
  failed = SIZE_MAX;
  rc = parz_omp_assemble(&s.g, NULL, s.packed, s.packed_bytes, s.n, s.refs, NULL, out, 2, &failed,
                         &e);
  CHECK(rc == PARZ_ERR_FORMAT && failed == 5, "raw of the wrong size: rc %d, chunk %zu", rc,
        failed);
  s.refs[5].raw = PARZ_STORED_PARZ;

  /* one payload bit of chunk 7 flipped */
  CHECK(parz_chunk_parse(s.packed + s.refs[7].at, s.refs[7].bytes, &v, NULL) == PARZ_OK, "parse");
  at = (size_t)(v.payload - s.packed);
  s.packed[at] ^= 4u;
  failed = SIZE_MAX;
  rc = parz_omp_assemble(&s.g, NULL, s.packed, s.packed_bytes, s.n, s.refs, NULL, out, 2, &failed,
                         &e);
  CHECK(rc == PARZ_ERR_CHECKSUM && failed == 7, "corrupt payload: rc %d, chunk %zu", rc, failed);
  if (rc != PARZ_OK)
    printf("  corrupt chunk: %s\n", e.message);
  release(&s);
  free(out);
}

/* Flips one payload bit of chunk i in its last partition. */
static void flip_last_partition(stored* s, size_t i) {
  parz_chunk_view v;
  uint64_t bit;
  CHECK(parz_chunk_parse(s->packed + s->refs[i].at, s->refs[i].bytes, &v, NULL) == PARZ_OK &&
            v.nchecksums > 1,
        "chunk %zu with payload checksums", i);
  bit = parz_chunk_segment_offset(&v, (v.nchecksums - 1) * v.checksum_segments) + 1;
  s->packed[(size_t)(v.payload - s->packed) + bit / 8] ^= (unsigned char)(1u << (bit % 8));
}

/* Payload checksums on the parallel path (16 chunks of 32 x 32 floats, 64 KiB: above the serial
 * cut-off): a flipped payload bit fails the call with PARZ_ERR_CHECKSUM naming the chunk, the
 * first corrupt chunk in chunk order and the same message on every thread count; a box that
 * holds none of a corrupt partition's blocks reads, its values exact. */
static void checksums(void) {
  static const int threads[] = {1, 2, 3};
  stored s;
  parz_box box;
  parz_error e, first;
  size_t failed;
  float* out = (float*)malloc(128 * 128 * 4);
  int t, rc;
  memset(&s, 0, sizeof s);
  s.g.rank = 2;
  s.g.type = PARZ_FLOAT;
  s.g.dims[0] = s.g.dims[1] = 128;
  s.g.chunk_dims[0] = s.g.chunk_dims[1] = 32;
  store(&s, 0, 0, 0);
  flip_last_partition(&s, 9); /* the chunk at (64, 32): its last rows */
  memset(&box, 0, sizeof box);
  box.count[0] = 92; /* rows 0-91: chunk 9's last block row left out */
  box.count[1] = 128;
  for (t = 0; t < 3; t++) {
    failed = SIZE_MAX;
    rc = parz_omp_assemble(&s.g, NULL, s.packed, s.packed_bytes, s.n, s.refs, NULL, out, threads[t],
                           &failed, &e);
    CHECK(rc == PARZ_ERR_CHECKSUM && failed == 9 && strstr(e.message, "partition"),
          "chunk 9 corrupt, %d threads: rc %d, chunk %zu", threads[t], rc, failed);
    check_box("chunk 9 corrupt outside the box", &s, &box, threads[t], NULL);
  }
  flip_last_partition(&s, 4);
  for (t = 0; t < 3; t++) {
    failed = SIZE_MAX;
    rc = parz_omp_assemble(&s.g, NULL, s.packed, s.packed_bytes, s.n, s.refs, NULL, out, threads[t],
                           &failed, &e);
    CHECK(rc == PARZ_ERR_CHECKSUM && failed == 4,
          "chunks 4 and 9 corrupt, %d threads: rc %d, "
          "chunk %zu",
          threads[t], rc, failed);
    if (t == 0)
      first = e;
    else
      CHECK(!strcmp(e.message, first.message), "%d threads: %s; 1 thread: %s", threads[t],
            e.message, first.message);
  }
  printf("  two corrupt chunks: %s\n", first.message);
  release(&s);
  free(out);
}

/* What the reader of reading() sees and does: it copies chunk i from the stored buffer into the
 * one being assembled from, as a dataset reader's HDF5 call would. */
typedef struct {
  const stored* s;
  unsigned char* into;
  pthread_t caller;
  size_t calls, fail_at; /* fail_at: the chunk whose read fails (SIZE_MAX: none) */
  int in_order, on_caller;
  const float* out; /* with wait_for_decode: the box being written */
  int wait_for_decode, decoded_meanwhile;
} reads;

static int read_chunk(void* ctx, size_t i, parz_chunk_ref* chunk, parz_error* err) {
  reads* r = (reads*)ctx;
  r->in_order = r->in_order && i == r->calls;
  r->on_caller = r->on_caller && pthread_equal(pthread_self(), r->caller);
  r->calls++;
  if (i == r->fail_at)
    return parz_fail(err, PARZ_ERR_ARG, "test: chunk %zu cannot be read", i);
  if (r->wait_for_decode && i + 1 == r->s->n) {
    /* the last chunk is read only once the first one's values are in: the team decodes while
     * the reads go on (at most 60 s, so that a reader that decodes nothing before the last
     * read fails the check rather than hangs) */
    const time_t until = time(NULL) + 60;
    volatile const unsigned char* first = (volatile const unsigned char*)r->out;
    while (first[0] == POISON && time(NULL) < until)
      sched_yield();
    r->decoded_meanwhile = first[0] != POISON;
  }
  memcpy(r->into + chunk->at, r->s->packed + chunk->at, chunk->bytes);
  return PARZ_OK;
}

/* A fresh count of reads over s into `into`, the read of chunk fail_at failing. */
static void start_reads(reads* r, const stored* s, unsigned char* into, size_t fail_at) {
  memset(r, 0, sizeof *r);
  r->s = s;
  r->into = into;
  r->caller = pthread_self();
  r->fail_at = fail_at;
  r->in_order = r->on_caller = 1;
}

static void reading(void) {
  static const int threads[] = {1, 2, 3};
  stored s;
  reads r;
  parz_error e;
  size_t failed, n;
  float* out = (float*)malloc(128 * 128 * 4);
  unsigned char* into;
  int t, rc;
  memset(&s, 0, sizeof s);
  s.g.rank = 2;
  s.g.type = PARZ_FLOAT;
  s.g.dims[0] = s.g.dims[1] = 128;
  s.g.chunk_dims[0] = s.g.chunk_dims[1] = 32; /* 16 chunks, 64 KiB: above the cut-off */
  store(&s, 0, 0, 0);
  n = s.n;
  into = (unsigned char*)malloc(s.packed_bytes);
  for (t = 0; t < 3; t++) {
    start_reads(&r, &s, into, SIZE_MAX);
    r.out = out;
    r.wait_for_decode = parz_omp_team_size(threads[t]) > 1;
    memset(into, 0, s.packed_bytes);
    memset(out, POISON, 128 * 128 * 4);
    rc = parz_omp_assemble_reading(&s.g, NULL, into, s.packed_bytes, n, s.refs, read_chunk, &r,
                                   NULL, out, threads[t], NULL, NULL, &e);
    CHECK(rc == PARZ_OK && !memcmp(out, s.values, 128 * 128 * 4),
          "read as assembled, %d threads: %s", threads[t], rc ? e.message : "values differ");
    CHECK(r.calls == n && r.in_order && r.on_caller,
          "%d threads: %zu reads of %zu, in order %d, on the calling thread %d", threads[t],
          r.calls, n, r.in_order, r.on_caller);
    CHECK(!r.wait_for_decode || r.decoded_meanwhile,
          "%d threads: nothing decoded before the last chunk was read", threads[t]);

    /* the read of chunk 6 fails: nothing after it is read, the call names it */
    start_reads(&r, &s, into, 6);
    failed = SIZE_MAX;
    rc = parz_omp_assemble_reading(&s.g, NULL, into, s.packed_bytes, n, s.refs, read_chunk, &r,
                                   NULL, out, threads[t], NULL, &failed, &e);
    CHECK(rc == PARZ_ERR_ARG && failed == 6 && strstr(e.message, "chunk 6 cannot be read") &&
              r.calls == 7,
          "read of chunk 6 fails, %d threads: rc %d, chunk %zu, %zu reads", threads[t], rc, failed,
          r.calls);
  }
  /* and chunk 4 before it is corrupt: chunk 4 fails first */
  flip_last_partition(&s, 4);
  for (t = 0; t < 3; t++) {
    start_reads(&r, &s, into, 6);
    failed = SIZE_MAX;
    rc = parz_omp_assemble_reading(&s.g, NULL, into, s.packed_bytes, n, s.refs, read_chunk, &r,
                                   NULL, out, threads[t], NULL, &failed, &e);
    CHECK(rc == PARZ_ERR_CHECKSUM && failed == 4,
          "chunk 4 corrupt, read of 6 fails, %d threads: rc %d, chunk %zu", threads[t], rc, failed);
  }
  release(&s);
  free(into);
  free(out);
}

int main(void) {
  arrays();
  refused();
  checksums();
  reading();
  return test_finish("test_omp_assemble");
}
