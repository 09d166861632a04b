/* The caller's keep of chunk-wide blocks (parz_keep, codec/parz_chunk.h; codec/frame/chunk_keep.c):
 *
 * - the keep's own rules: a block given back is taken again (the smallest that fits, its
 *   contents left: not zeroed), a new one is zeros, nothing over the limit is held and the
 *   larger blocks are the ones held when the limit or the slots run out;
 * - chunks of the error-bounded codec (the codec that takes blocks) of different sizes, ranks
 *   and types one after the other through one keep, serially and on a team: the bytes of the
 *   chunks encoded without a keep, the values they decode to without one; a flat chunk after one
 *   of noise (its zero codes never written into a block that is not zeroed) among them;
 * - threads sharing one keep (the rule: any number of threads and chunks may share one), and
 *   threads each with their own: the same bytes and values; the decoder of many chunks at once
 *   and the assembly of a box with one keep for all their chunks.
 *
 * The sanitizer build runs it: a block read past its end, taken by two chunks at once, or left
 * behind when the keep is freed is a failure there. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "check.h"
#include "chunk_keep.h"
#include "parz_chunk.h"
#include "parz_omp.h"
#include "xorshift.h"

/* ---- the keep's rules ---------------------------------------------------------------------- */

static int all_zero(const unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i])
      return 0;
  return 1;
}

static void rules(void) {
  int zeroed = -1;
  unsigned char *a, *b, *c;
  parz_keep* k = parz_keep_new(0);
  CHECK(k != NULL, "no keep");

  /* without a keep: a new block of zeros each time, freed when given back */
  a = (unsigned char*)parz_keep_take(NULL, 1000, &zeroed);
  CHECK(a && zeroed == 1 && all_zero(a, 1000), "a block without a keep: zeroed %d", zeroed);
  parz_keep_give(NULL, a);

  /* a block given back comes back, contents and all, for a request no larger */
  a = (unsigned char*)parz_keep_take(k, 1000, &zeroed);
  CHECK(a && zeroed == 1 && all_zero(a, 1000), "a first block: zeroed %d", zeroed);
  memset(a, 7, 1000);
  parz_keep_give(k, a);
  b = (unsigned char*)parz_keep_take(k, 800, &zeroed);
  CHECK(b == a && zeroed == 0 && b[799] == 7, "the block kept not taken again: zeroed %d", zeroed);
  c = (unsigned char*)parz_keep_take(k, 2000, &zeroed);
  CHECK(c && c != b && zeroed == 1 && all_zero(c, 2000), "a larger block: zeroed %d", zeroed);
  /* of two held, the smallest that fits */
  parz_keep_give(k, c);
  parz_keep_give(k, b);
  a = (unsigned char*)parz_keep_take(k, 900, &zeroed);
  CHECK(a == b && zeroed == 0, "not the smallest block that fits");
  parz_keep_give(k, a);
  a = (unsigned char*)parz_keep_take(k, 1500, &zeroed);
  CHECK(a == c && zeroed == 0, "the block of 2000 not taken for 1500");
  parz_keep_give(k, a);
  parz_keep_give(k, NULL);
  parz_keep_free(k);
  parz_keep_free(NULL);

  /* a limit of 4096 bytes: a larger block is not held; of two that do not fit together, the
   * larger is */
  k = parz_keep_new(4096);
  a = (unsigned char*)parz_keep_take(k, 5000, &zeroed);
  parz_keep_give(k, a);
  a = (unsigned char*)parz_keep_take(k, 5000, &zeroed);
  CHECK(zeroed == 1, "a block over the keep's limit held");
  b = (unsigned char*)parz_keep_take(k, 3000, &zeroed);
  c = (unsigned char*)parz_keep_take(k, 2000, &zeroed);
  parz_keep_give(k, b);
  parz_keep_give(k, c); /* 5000 bytes together: the smaller goes */
  c = (unsigned char*)parz_keep_take(k, 1500, &zeroed);
  CHECK(c == b && zeroed == 0, "of 3000 and 2000 bytes, not the larger held");
  b = (unsigned char*)parz_keep_take(k, 1500, &zeroed);
  CHECK(zeroed == 1, "both held over the limit");
  parz_keep_give(k, b);
  parz_keep_give(k, c); /* 3000 after 1500: the 1500 makes room */
  b = (unsigned char*)parz_keep_take(k, 1000, &zeroed);
  CHECK(b == c && zeroed == 0, "a smaller block not made room for a larger one");
  parz_keep_give(k, b);
  parz_keep_give(k, a);
  parz_keep_free(k);

  /* more blocks than slots: the largest are held */
  {
    enum { N = 40 };
    unsigned char* blk[N];
    int held = 0, small_held = 0;
    k = parz_keep_new(0);
    for (int i = 0; i < N; i++)
      blk[i] = (unsigned char*)parz_keep_take(k, 64 * (size_t)(i + 1), &zeroed);
    for (int i = 0; i < N; i++)
      parz_keep_give(k, blk[i]);
    /* take from the largest down: each a block held, until none is */
    for (int i = N; i-- > 0;) {
      unsigned char* p = (unsigned char*)parz_keep_take(k, 64 * (size_t)(i + 1), &zeroed);
      held += !zeroed;
      small_held += !zeroed && i < N / 2;
      parz_keep_give(NULL, p); /* kept out: each size is taken once */
    }
    CHECK(held > 0 && held < N && small_held == 0, "%d of %d blocks held, %d of the smaller half",
          held, N, small_held);
    parz_keep_free(k);
  }
}

/* ---- chunks through a keep ----------------------------------------------------------------- */

typedef struct {
  parz_array a;
  void* values;
  unsigned char* bytes; /* encoded without a keep */
  size_t nbytes;
  void* decoded; /* decoded without a keep */
} kind;

static size_t raw_of(const parz_array* a) { return parz_array_count(a) * parz_type_size(a->type); }

static parz_chunk_config config(parz_keep* keep) {
  parz_chunk_config c;
  memset(&c, 0, sizeof c);
  c.codec = PARZ_CODEC_BOUNDED;
  c.settings.error_bound = 1e-3;
  c.keep = keep;
  return c;
}

/* The kinds of chunk: ranks 1 to 4, float and double, 40 to 33,600 values, smooth, noise (a
 * code not 0 at nearly every value) or flat (every code 0, in zero runs), some with NaN; kinds
 * NOISE and FLAT have one shape. */
enum { SMOOTH, NOISE_PATTERN, FLAT_PATTERN };
enum { KINDS = 8, NOISE = 6, FLAT = 5 };
static const struct {
  parz_type type;
  unsigned dims;
  size_t shape[4];
  int pattern, nan;
} kind_table[KINDS] = {
    {PARZ_FLOAT, 2, {160, 210}, SMOOTH, 0},         {PARZ_DOUBLE, 1, {40}, NOISE_PATTERN, 0},
    {PARZ_FLOAT, 3, {12, 30, 40}, FLAT_PATTERN, 0}, {PARZ_DOUBLE, 4, {3, 5, 7, 11}, SMOOTH, 1},
    {PARZ_FLOAT, 1, {33600}, NOISE_PATTERN, 0},     {PARZ_FLOAT, 2, {160, 210}, FLAT_PATTERN, 0},
    {PARZ_FLOAT, 2, {160, 210}, NOISE_PATTERN, 0},  {PARZ_DOUBLE, 4, {20, 20, 20, 4}, SMOOTH, 1},
};

static void make_kind(kind* k, int i) {
  memset(k, 0, sizeof *k);
  k->a.type = kind_table[i].type;
  k->a.dims = kind_table[i].dims;
  for (unsigned d = 0; d < k->a.dims; d++)
    k->a.shape[d] = kind_table[i].shape[d];
  const size_t n = parz_array_count(&k->a);
  k->values = malloc(raw_of(&k->a));
  for (size_t j = 0; j < n; j++) {
    const int p = kind_table[i].pattern;
    double x = p == SMOOTH          ? 50 * sin(0.003 * (double)j) + cos(0.05 * (double)j)
               : p == NOISE_PATTERN ? (double)(xorshift_next() % 2000001) * 1e-3 - 1000.0
                                    : 5.0;
    if (kind_table[i].nan && j % 97 == 5)
      x = NAN;
    if (k->a.type == PARZ_FLOAT)
      ((float*)k->values)[j] = (float)x;
    else
      ((double*)k->values)[j] = x;
  }
}

/* The kind's chunk and values without a keep: what every run through a keep must give. */
static void reference(kind* k) {
  parz_chunk_config cfg = config(NULL);
  parz_error err;
  size_t cap = parz_chunk_bound(&k->a, &cfg);
  k->bytes = (unsigned char*)malloc(cap);
  k->decoded = malloc(raw_of(&k->a));
  int rc = parz_chunk_encode(&k->a, k->values, &cfg, k->bytes, cap, &k->nbytes, &err);
  CHECK(rc == PARZ_OK, "reference encode: %s", err.message);
  rc = parz_chunk_decode(k->bytes, k->nbytes, k->decoded, raw_of(&k->a), &err);
  CHECK(rc == PARZ_OK, "reference decode: %s", err.message);
}

static void kind_free(kind* k) { free(k->values), free(k->bytes), free(k->decoded); }

/* Kind k encoded and decoded through `keep` on `threads` threads (1: the serial coders; the
 * decoder of many chunks called with one), compared with its reference: 1 when both are the
 * reference's, else 0 with the reason in why. Checks nothing itself: threads call it. */
static int through(const kind* k, parz_keep* keep, int threads, char* why, size_t why_bytes) {
  parz_chunk_config cfg = config(keep);
  parz_chunk_view v;
  parz_chunk_dest d;
  parz_error err;
  const size_t raw = raw_of(&k->a), cap = parz_chunk_bound(&k->a, &cfg);
  size_t nbytes = 0;
  unsigned char* bytes = (unsigned char*)malloc(cap);
  void* out = malloc(raw);
  int ok = 0;
  int rc = threads == 1
               ? parz_chunk_encode(&k->a, k->values, &cfg, bytes, cap, &nbytes, &err)
               : parz_omp_chunk_encode(&k->a, k->values, &cfg, bytes, cap, &nbytes, threads, &err);
  if (rc != PARZ_OK || nbytes != k->nbytes || memcmp(bytes, k->bytes, nbytes) != 0) {
    snprintf(why, why_bytes, "not the chunk encoded without a keep (%s)",
             rc ? err.message : "other bytes");
  } else {
    memset(out, 0xA5, raw);
    rc = parz_chunk_parse(k->bytes, k->nbytes, &v, &err);
    v.keep = keep;
    if (rc == PARZ_OK) {
      parz_chunk_dest_whole(&v, out, &d);
      rc = parz_omp_decode_chunks(1, &v, &d, threads, NULL, &err);
    }
    ok = rc == PARZ_OK && memcmp(out, k->decoded, raw) == 0;
    if (!ok)
      snprintf(why, why_bytes, "not the values decoded without a keep (%s)",
               rc ? err.message : "other values");
  }
  free(bytes), free(out);
  return ok;
}

/* through(), checked. */
static void check_through(const kind* k, parz_keep* keep, int threads, const char* what) {
  char why[300] = "";
  int ok = through(k, keep, threads, why, sizeof why);
  CHECK(ok, "%s: %d threads, %u-D %s of %zu values: %s", what, threads, k->a.dims,
        parz_type_name(k->a.type), parz_array_count(&k->a), why);
}

/* The kinds one after the other through one keep, twice over, serially and on teams: blocks
 * of every earlier kind (larger, smaller, of noise) serve the later ones. */
static void one_keep_many_kinds(kind* kinds) {
  static const int threads[] = {1, 2, 3};
  parz_keep* keep = parz_keep_new(0);
  for (int t = 0; t < 3; t++)
    for (int round = 0; round < 2; round++)
      for (int i = 0; i < KINDS; i++)
        check_through(&kinds[i], keep, threads[t], "one keep, kinds in turn");
  /* noise then flat, the same shape, alternating: the flat chunk's zero runs are never written
   * into a block that is zeroed only when new */
  for (int round = 0; round < 4; round++) {
    check_through(&kinds[NOISE], keep, 1 + round % 2, "noise before flat");
    check_through(&kinds[FLAT], keep, 1 + round % 2, "flat after noise");
  }
  parz_keep_free(keep);
}

/* Threads coding chunks at once: sharing one keep, or each with its own. */
static void threads_and_keeps(kind* kinds) {
  enum { JOBS = 6 * KINDS };
  parz_keep* shared = parz_keep_new(0);
  parz_keep* own[4];
  char why[JOBS][300];
  int ok[JOBS];
  for (int t = 0; t < 4; t++)
    own[t] = parz_keep_new(0);
  for (int mode = 0; mode < 2; mode++) {
#ifdef _OPENMP
#pragma omp parallel for num_threads(4) schedule(dynamic, 1)
#endif
    for (int j = 0; j < JOBS; j++) {
      int t = 0;
#ifdef _OPENMP
      t = omp_get_thread_num() % 4;
#endif
      ok[j] = through(&kinds[j % KINDS], mode ? own[t] : shared, 1 + j % 2, why[j], sizeof why[j]);
    }
    for (int j = 0; j < JOBS; j++)
      CHECK(ok[j], "%s: job %d (kind %d): %s",
            mode ? "a keep per thread" : "one keep shared by threads", j, j % KINDS, why[j]);
  }
  parz_keep_free(shared);
  for (int t = 0; t < 4; t++)
    parz_keep_free(own[t]);
}

/* The decoder of many chunks at once, each chunk a unit of one thread, and a box assembled from
 * stored chunks, every chunk's view naming one keep. */
static void many_chunks_one_keep(kind* kinds) {
  enum { N = 12 };
  parz_chunk_view views[N];
  parz_chunk_dest dests[N];
  void* out[N];
  parz_error err;
  size_t failed = SIZE_MAX;
  parz_keep* keep = parz_keep_new(0);
  int rc = PARZ_OK;
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < N; i++) {
      const kind* k = &kinds[i % KINDS];
      out[i] = malloc(raw_of(&k->a));
      if (parz_chunk_parse(k->bytes, k->nbytes, &views[i], &err) != PARZ_OK)
        rc = PARZ_ERR_FORMAT;
      views[i].keep = keep;
      parz_chunk_dest_whole(&views[i], out[i], &dests[i]);
    }
    if (rc == PARZ_OK)
      rc = parz_omp_decode_chunks(N, views, dests, 3, &failed, &err);
    CHECK(rc == PARZ_OK, "%d chunks at once through one keep: chunk %zu: %s", N, failed,
          err.message);
    for (int i = 0; i < N; i++) {
      const kind* k = &kinds[i % KINDS];
      CHECK(rc != PARZ_OK || memcmp(out[i], k->decoded, raw_of(&k->a)) == 0,
            "chunk %d of %d at once through one keep: other values", i, N);
      free(out[i]);
    }
  }
  parz_keep_free(keep);

  /* a 2-D grid of chunks of kind 0's shape (160 x 210), 3 x 2 of them, assembled while read */
  {
    const kind* k = &kinds[0];
    parz_chunk_grid g;
    parz_chunk_ref refs[6];
    const size_t rows = 3 * 160, cols = 2 * 210, at = (k->nbytes + 7) / 8 * 8;
    float* box = (float*)malloc(rows * cols * sizeof *box);
    unsigned char* packed = (unsigned char*)malloc(6 * at);
    memset(&g, 0, sizeof g);
    g.rank = 2;
    g.type = PARZ_FLOAT;
    g.dims[0] = rows;
    g.dims[1] = cols;
    g.chunk_dims[0] = 160;
    g.chunk_dims[1] = 210;
    memset(refs, 0, sizeof refs);
    for (int i = 0; i < 6; i++) {
      memcpy(packed + (size_t)i * at, k->bytes, k->nbytes);
      refs[i].origin[0] = (uint64_t)(i / 2) * 160;
      refs[i].origin[1] = (uint64_t)(i % 2) * 210;
      refs[i].at = (size_t)i * at;
      refs[i].bytes = k->nbytes;
      refs[i].raw = PARZ_STORED_PARZ;
    }
    keep = parz_keep_new(0);
    for (int round = 0; round < 2; round++) {
      memset(box, 0, rows * cols * sizeof *box);
      rc = parz_omp_assemble_reading(&g, NULL, packed, 6 * at, 6, refs, NULL, NULL, NULL, box, 2,
                                     keep, &failed, &err);
      CHECK(rc == PARZ_OK, "a box of 6 chunks through one keep: %s", err.message);
      for (int i = 0; rc == PARZ_OK && i < 6; i++) {
        size_t bad = 0;
        for (size_t r = 0; r < 160; r++)
          bad += memcmp(box + ((size_t)(i / 2) * 160 + r) * cols + (size_t)(i % 2) * 210,
                        (const float*)k->decoded + r * 210, 210 * sizeof(float)) != 0;
        CHECK(bad == 0, "a box through one keep: %zu rows of chunk %d differ", bad, i);
      }
    }
    parz_keep_free(keep);
    free(box), free(packed);
  }
}

int main(void) {
  kind kinds[KINDS];
  rules();
  for (int i = 0; i < KINDS; i++) {
    make_kind(&kinds[i], i);
    reference(&kinds[i]);
  }
  one_keep_many_kinds(kinds);
  threads_and_keeps(kinds);
  many_chunks_one_keep(kinds);
  for (int i = 0; i < KINDS; i++)
    kind_free(&kinds[i]);
  return test_finish("chunk_keep");
}
