/* The error-bounded codec's lab: compresses every real array at absolute bounds relative to its
 * value range with the codec core of codec/bounded/, under several designs (predictor, zero
 * runs, segment size, chunk size), checks the bound on every finite value, measures one-core
 * speeds, and runs SZ3's command-line tool (an oracle, run as a separate program) on the same
 * arrays in the same run. Prints Markdown.
 *
 *   bounded_lab [--data DIR] [--sz3 PATH] [--eb 1e-3,1e-5] [--reps N] [--only NAME] [--quick]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_clock.h"
#include "bounded_chunk.h"
#include "real_arrays.h"

#define MAX_ARRAYS 16
#define MAX_EB 4

typedef struct {
  int predictor; /* 0: the encoder's choice from a sample; -1: all three tried, the smallest kept */
  int runs;      /* as parz_bounded_options: 2 (shown "+runs?") lets the encoder choose */
  size_t segment;
  size_t chunk_bytes; /* 0: the whole array is one chunk */
} design;

typedef struct {
  double bytes; /* compressed, all parts */
  double book, table, payload, exceptions, mask, mask_runs, head;
  size_t nexceptions, nchunks, chose[PARZ_BOUNDED_PREDICTORS + 1];
  double max_err; /* over finite, unmasked values, relative to eb */
  int masked_exact;
  double enc_s, dec_s; /* one core, wall seconds */
} outcome;

static const char* pred_name(int p) {
  return p == PARZ_BOUNDED_LORENZO       ? "lorenzo"
         : p == PARZ_BOUNDED_LINEAR      ? "linear"
         : p == PARZ_BOUNDED_CUBIC       ? "cubic"
         : p == PARZ_BOUNDED_LINEAR_FAST ? "linear-fast-first"
         : p == PARZ_BOUNDED_CUBIC_FAST  ? "cubic-fast-first"
         : p == 0                        ? "auto"
                                         : "best";
}

/* The chunk shape: the array's, the largest extent halved (rounding up) until a chunk holds at
 * most chunk_bytes. */
static void chunk_shape(const real_array* r, size_t chunk_bytes, size_t cs[4]) {
  size_t w = parz_type_size(r->array.type);
  for (unsigned k = 0; k < r->array.dims; k++)
    cs[k] = r->array.shape[k];
  if (!chunk_bytes)
    return;
  for (;;) {
    size_t n = w;
    unsigned big = 0;
    for (unsigned k = 0; k < r->array.dims; k++) {
      n *= cs[k];
      if (cs[k] > cs[big])
        big = k;
    }
    if (n <= chunk_bytes || cs[big] == 1)
      return;
    cs[big] = (cs[big] + 1) / 2;
  }
}

/* Bits of v >= 1 in Elias gamma code. */
static double gamma_bits(size_t v) {
  double b = 1;
  while (v > 1) {
    v >>= 1;
    b += 2;
  }
  return b;
}

/* Bytes of the same mask as alternating runs of unmasked and masked values in C order, each
 * length in Elias gamma code: what a run-length mask of the codec's own would cost. */
static double mask_runs_bytes(const parz_bounded_chunk* c) {
  if (!c->nmasked)
    return 0;
  size_t n = parz_bounded_count(&c->shape), run = 0;
  int state = 0;
  double bits = 0;
  for (size_t i = 0; i < n; i++) {
    int m = c->mask[i / 8] >> (i % 8) & 1u;
    if (m != state) {
      bits += gamma_bits(run + 1);
      run = 0;
      state = m;
    }
    run++;
  }
  bits += gamma_bits(run + 1);
  return 8 + bits / 8;
}

/* Bytes of a mask in the frame's format (runs of wholly masked 4^d blocks as run records, other
 * blocks holding a masked value as bitmap records), estimated from the chunk's hole map. */
static double mask_bytes(const parz_bounded_chunk* c) {
  if (!c->nmasked)
    return 0;
  const parz_bounded_shape* s = &c->shape;
  size_t n[4] = {1, 1, 1, 1}, st[4];
  unsigned pad = 4 - s->dims;
  for (unsigned k = 0; k < s->dims; k++)
    n[pad + k] = s->shape[k];
  st[3] = 1;
  for (int k = 2; k >= 0; k--)
    st[k] = st[k + 1] * n[k + 1];
  size_t bs = 1;
  for (unsigned k = 0; k < s->dims; k++)
    bs *= 4;
  double bytes = 24; /* section head and group index */
  int in_run = 0;
  for (size_t b0 = 0; b0 < n[0]; b0 += 4)
    for (size_t b1 = 0; b1 < n[1]; b1 += 4)
      for (size_t b2 = 0; b2 < n[2]; b2 += 4)
        for (size_t b3 = 0; b3 < n[3]; b3 += 4) {
          size_t m = 0, tot = 0;
          for (size_t i0 = b0; i0 < n[0] && i0 < b0 + 4; i0++)
            for (size_t i1 = b1; i1 < n[1] && i1 < b1 + 4; i1++)
              for (size_t i2 = b2; i2 < n[2] && i2 < b2 + 4; i2++)
                for (size_t i3 = b3; i3 < n[3] && i3 < b3 + 4; i3++) {
                  size_t i = i0 * st[0] + i1 * st[1] + i2 * st[2] + i3;
                  m += c->mask[i / 8] >> (i % 8) & 1u;
                  tot++;
                }
          if (m && m == tot) {
            if (!in_run)
              bytes += 3;
            in_run = 1;
          } else {
            in_run = 0;
            if (m)
              bytes += 2 + (double)bs / 8;
          }
        }
  return bytes;
}

/* The table: HYBRID with P = 64, length width 2 when every segment's bits fit 16 bits. */
static double table_bytes(const parz_bounded_chunk* c) {
  unsigned w = 2;
  for (size_t i = 0; i < c->nsegments; i++)
    if (c->seg_bits[i] > 65535)
      w = 4;
  size_t p = 64, parts = (c->nsegments + p - 1) / p, full = c->nsegments / p;
  double bytes = (double)full * (8 + ((w * p + 7) / 8) * 8);
  if (parts > full)
    bytes += 8 + ((w * (c->nsegments - full * p) + 7) / 8) * 8;
  return bytes;
}

static double chunk_bytes_total(const parz_bounded_chunk* c, outcome* o) {
  size_t w = c->shape.type == PARZ_FLOAT ? 4 : 8;
  double head = 96 + 16 + 8; /* header, directory entry, eb and predictor */
  double t = table_bytes(c), m = mask_bytes(c), e = (double)c->nexceptions * (8 + w);
  if (o) {
    o->book += (double)c->book_bytes;
    o->table += t;
    o->payload += (double)c->payload_bytes;
    o->exceptions += e;
    o->mask += m;
    o->mask_runs += mask_runs_bytes(c);
    o->head += head;
  }
  return head + (double)c->book_bytes + t + (double)c->payload_bytes + e + m;
}

static double value_at(const void* p, parz_type t, size_t i) {
  return t == PARZ_FLOAT ? ((const float*)p)[i] : ((const double*)p)[i];
}

/* Copies the box [lo, lo+cs) of r into buf (contiguous) or back. */
static void box_copy(const real_array* r, const size_t lo[4], const size_t cs[4], void* buf,
                     int back) {
  size_t w = parz_type_size(r->array.type), d = r->array.dims;
  size_t n[4] = {1, 1, 1, 1}, l[4] = {0, 0, 0, 0}, c[4] = {1, 1, 1, 1};
  for (size_t k = 0; k < d; k++) {
    n[4 - d + k] = r->array.shape[k];
    l[4 - d + k] = lo[k];
    c[4 - d + k] = cs[k];
  }
  unsigned char* a = (unsigned char*)r->data;
  unsigned char* b = (unsigned char*)buf;
  for (size_t i0 = 0; i0 < c[0]; i0++)
    for (size_t i1 = 0; i1 < c[1]; i1++)
      for (size_t i2 = 0; i2 < c[2]; i2++) {
        size_t src = (((l[0] + i0) * n[1] + l[1] + i1) * n[2] + l[2] + i2) * n[3] + l[3];
        size_t dst = ((i0 * c[1] + i1) * c[2] + i2) * c[3];
        if (back)
          memcpy(a + src * w, b + dst * w, c[3] * w);
        else
          memcpy(b + dst * w, a + src * w, c[3] * w);
      }
}

/* Runs one design over one array: every chunk encoded, decoded into out (the whole array) and
 * checked. Returns 0 on success. */
static int run_design(const real_array* r, double eb, const void* fill, const design* dz, void* out,
                      outcome* o, int timed) {
  memset(o, 0, sizeof *o);
  size_t cs[4], d = r->array.dims, w = parz_type_size(r->array.type);
  chunk_shape(r, dz->chunk_bytes, cs);
  size_t nch[4] = {1, 1, 1, 1}, total = 1;
  for (size_t k = 0; k < d; k++) {
    nch[k] = (r->array.shape[k] + cs[k] - 1) / cs[k];
    total *= nch[k];
  }
  size_t maxvals = 1;
  for (size_t k = 0; k < d; k++)
    maxvals *= cs[k];
  void* in = malloc(maxvals * w);
  void* dec = malloc(maxvals * w);
  if (!in || !dec)
    return 1;
  for (size_t ci = 0; ci < total; ci++) {
    size_t lo[4] = {0, 0, 0, 0}, ext[4] = {1, 1, 1, 1}, rem = ci;
    for (size_t k = d; k-- > 0;) {
      size_t idx = rem % nch[k];
      rem /= nch[k];
      lo[k] = idx * cs[k];
      ext[k] = r->array.shape[k] - lo[k] < cs[k] ? r->array.shape[k] - lo[k] : cs[k];
    }
    box_copy(r, lo, ext, in, 0);
    parz_bounded_shape s = {r->array.type, (unsigned)d, {ext[0], ext[1], ext[2], ext[3]}};
    parz_bounded_chunk best;
    memset(&best, 0, sizeof best);
    double best_bytes = INFINITY;
    int first = dz->predictor >= 0 ? dz->predictor : PARZ_BOUNDED_LORENZO;
    int last = dz->predictor >= 0 ? dz->predictor : PARZ_BOUNDED_PREDICTORS;
    double t0 = bench_now();
    for (int p = first; p <= last; p++) {
      parz_bounded_options opt = {p, dz->runs, dz->segment, fill, NULL, NULL};
      parz_bounded_chunk c;
      parz_error err;
      if (parz_bounded_chunk_encode(&s, in, eb, &opt, &c, &err)) {
        fprintf(stderr, "%s: encode failed: %s\n", r->name, err.message);
        return 1;
      }
      double b = chunk_bytes_total(&c, NULL);
      if (b < best_bytes) {
        parz_bounded_chunk_free(&best);
        best = c;
        best_bytes = b;
      } else {
        parz_bounded_chunk_free(&c);
      }
    }
    double t1 = bench_now();
    o->enc_s += t1 - t0;
    o->bytes += chunk_bytes_total(&best, o);
    o->nexceptions += best.nexceptions;
    o->chose[best.predictor]++;
    o->nchunks++;
    parz_error err;
    int reps = timed ? 3 : 1;
    double dbest = INFINITY;
    for (int rep = 0; rep < reps; rep++) {
      double a = bench_now();
      if (parz_bounded_chunk_decode(&best, dec, &err)) {
        fprintf(stderr, "%s: decode failed: %s\n", r->name, err.message);
        return 1;
      }
      double b = bench_now() - a;
      if (b < dbest)
        dbest = b;
    }
    o->dec_s += dbest;
    /* the decoded chunk into out at its place */
    real_array tmp = *r;
    tmp.data = out;
    box_copy(&tmp, lo, ext, dec, 1);
    parz_bounded_chunk_free(&best);
  }
  free(in);
  free(dec);
  /* the check, on every value of the array */
  size_t n = r->bytes / w;
  o->max_err = 0;
  o->masked_exact = 1;
  for (size_t i = 0; i < n; i++) {
    const unsigned char* a = (const unsigned char*)r->data + i * w;
    const unsigned char* b = (const unsigned char*)out + i * w;
    double x = value_at(r->data, r->array.type, i), y = value_at(out, r->array.type, i);
    if ((fill && memcmp(a, fill, w) == 0) || !isfinite(x)) {
      if (memcmp(a, b, w) != 0)
        o->masked_exact = 0;
      continue;
    }
    double e = fabs(x - y) / eb;
    if (!(e <= o->max_err))
      o->max_err = isnan(e) ? INFINITY : e;
  }
  return 0;
}

/* ---------------- SZ3, as a separate program ---------------- */

typedef struct {
  int ok;
  double bytes, enc_s, dec_s, max_err;
  int masked_exact;
} sz3_outcome;

static double parse_after(const char* text, const char* key) {
  const char* p = strstr(text, key);
  return p ? atof(p + strlen(key)) : NAN;
}

static sz3_outcome run_sz3(const char* sz3, const char* path, const real_array* r, double eb,
                           const void* fill) {
  sz3_outcome o;
  memset(&o, 0, sizeof o);
  char cmd[4096], dims[256] = "";
  size_t d = r->array.dims, w = parz_type_size(r->array.type);
  int at = snprintf(dims, sizeof dims, "-%zu", d);
  for (size_t k = d; k-- > 0;)
    at += snprintf(dims + at, sizeof dims - at, " %zu", r->array.shape[k]);
  char z[64], outp[64];
  snprintf(z, sizeof z, "/tmp/bounded_lab_%d.sz", (int)getpid());
  snprintf(outp, sizeof outp, "/tmp/bounded_lab_%d.out", (int)getpid());
  snprintf(cmd, sizeof cmd, "%s %s -i '%s' -z %s -o %s -M ABS %.17g %s 2>&1", sz3,
           r->array.type == PARZ_FLOAT ? "-f" : "-d", path, z, outp, eb, dims);
  FILE* p = popen(cmd, "r");
  if (!p)
    return o;
  static char text[65536];
  size_t len = fread(text, 1, sizeof text - 1, p);
  text[len] = 0;
  if (pclose(p) != 0) {
    fprintf(stderr, "sz3 failed on %s:\n%s\n", r->name, text);
    return o;
  }
  o.enc_s = parse_after(text, "compression time = ");
  o.dec_s = parse_after(text, "decompression time = ");
  FILE* f = fopen(z, "rb");
  if (f) {
    fseek(f, 0, SEEK_END);
    o.bytes = (double)ftell(f);
    fclose(f);
  }
  size_t n = r->bytes / w;
  void* dec = malloc(r->bytes);
  f = fopen(outp, "rb");
  if (dec && f && fread(dec, 1, r->bytes, f) == r->bytes) {
    o.ok = 1;
    o.masked_exact = 1;
    for (size_t i = 0; i < n; i++) {
      double x = value_at(r->data, r->array.type, i), y = value_at(dec, r->array.type, i);
      const unsigned char* a = (const unsigned char*)r->data + i * w;
      if ((fill && memcmp(a, fill, w) == 0) || !isfinite(x)) {
        if (memcmp(a, (unsigned char*)dec + i * w, w) != 0)
          o.masked_exact = 0;
        continue;
      }
      double e = fabs(x - y) / eb;
      if (!(e <= o.max_err))
        o.max_err = isnan(e) ? INFINITY : e;
    }
  }
  if (f)
    fclose(f);
  free(dec);
  remove(z);
  remove(outp);
  return o;
}

/* ---------------- driver ---------------- */

static double geomean(const double* v, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++)
    s += log(v[i]);
  return n ? exp(s / (double)n) : NAN;
}

int main(int argc, char** argv) {
  const char* dir = "../shared/data";
  const char* sz3 = NULL;
  const char* only = NULL;
  double ebs[MAX_EB] = {1e-3, 1e-5};
  size_t neb = 2;
  int quick = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--data") && i + 1 < argc) {
      dir = argv[++i];
    } else if (!strcmp(argv[i], "--sz3") && i + 1 < argc) {
      sz3 = argv[++i];
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      only = argv[++i];
    } else if (!strcmp(argv[i], "--quick")) {
      quick = 1;
    } else if (!strcmp(argv[i], "--eb") && i + 1 < argc) {
      char* s = argv[++i];
      neb = 0;
      while (*s && neb < MAX_EB) {
        ebs[neb++] = strtod(s, &s);
        if (*s == ',')
          s++;
      }
    } else {
      fprintf(stderr, "usage: %s [--data DIR] [--sz3 PATH] [--eb A,B] [--only NAME] [--quick]\n",
              argv[0]);
      return 2;
    }
  }
  size_t na = 0;
  real_array* arr = real_arrays_load(dir, 0, &na);
  if (!arr) {
    fprintf(stderr, "no arrays in %s\n", dir);
    return 1;
  }
  /* The designs compared: each row changes one thing from the one before it. */
  const design designs[] = {
      {PARZ_BOUNDED_LORENZO, 0, 4096, 0},
      {PARZ_BOUNDED_LORENZO, 1, 4096, 0},
      {PARZ_BOUNDED_LINEAR, 1, 4096, 0},
      {PARZ_BOUNDED_CUBIC, 1, 4096, 0},
      {PARZ_BOUNDED_CUBIC, 0, 4096, 0},
      {PARZ_BOUNDED_LINEAR_FAST, 1, 4096, 0},
      {PARZ_BOUNDED_CUBIC_FAST, 1, 4096, 0},
      {-1, 2, 4096, 0},
      {0, 2, 4096, 0},
      {0, 2, 4096, 4u << 20},
      {-1, 2, 4096, 1u << 20},
      {0, 2, 4096, 1u << 20},
      {0, 2, 1024, 1u << 20},
      {0, 2, 16384, 1u << 20},
  };
  const size_t ndz = quick ? 9 : sizeof designs / sizeof designs[0];
  const size_t main_design = quick ? 8 : 11; /* the proposal: the encoder's choice, 1 MiB chunks */
  static double ratio[MAX_EB][sizeof designs / sizeof designs[0]][MAX_ARRAYS];
  static double sz3_ratio[MAX_EB][MAX_ARRAYS];
  size_t used = 0;
  printf("# bounded lab\n\n");
  for (size_t e = 0; e < neb; e++) {
    printf("\n## eb = %g x value range\n\n", ebs[e]);
    printf(
        "| array | design | chunks | ratio | book | table | payload | exceptions (n) | mask (as "
        "runs) | "
        "max err/eb | enc MB/s | dec MB/s | predictor picks L/l/c/lf/cf |\n");
    printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    used = 0;
    for (size_t a = 0; a < na && used < MAX_ARRAYS; a++) {
      real_array* r = &arr[a];
      if (only && !strstr(r->name, only))
        continue;
      size_t w = parz_type_size(r->array.type), n = r->bytes / w;
      /* the fill value: the first value the shared reader counts as fill (|v| >= 1e9) */
      const void* fill = NULL;
      for (size_t i = 0; i < n; i++) {
        double v = value_at(r->data, r->array.type, i);
        if (isfinite(v) && fabs(v) >= 1e9) {
          fill = (const unsigned char*)r->data + i * w;
          break;
        }
      }
      double range = real_array_value_range(r), eb = ebs[e] * range;
      void* out = malloc(r->bytes);
      for (size_t z = 0; z < ndz; z++) {
        outcome o;
        if (run_design(r, eb, fill, &designs[z], out, &o, z == main_design || z == 8))
          return 1;
        ratio[e][z][used] = (double)r->bytes / o.bytes;
        char cname[32];
        if (designs[z].chunk_bytes)
          snprintf(cname, sizeof cname, "%zu MiB: %zu", designs[z].chunk_bytes >> 20, o.nchunks);
        else
          snprintf(cname, sizeof cname, "whole");
        printf(
            "| %s | %s%s S=%zu | %s | %.2f | %.0f | %.0f | %.0f | %.0f (%zu) | %.0f (%.0f) | "
            "%.4f%s | "
            "%.0f | %.0f | %zu/%zu/%zu/%zu/%zu |\n",
            r->name, pred_name(designs[z].predictor),
            designs[z].runs == 2 ? "+runs?"
            : designs[z].runs    ? "+runs"
                                 : "",
            designs[z].segment, cname, ratio[e][z][used], o.book, o.table, o.payload, o.exceptions,
            o.nexceptions, o.mask, o.mask_runs, o.max_err,
            o.max_err <= 1 && o.masked_exact ? "" : " **FAIL**", r->bytes / 1e6 / o.enc_s,
            r->bytes / 1e6 / o.dec_s, o.chose[1], o.chose[2], o.chose[3], o.chose[4], o.chose[5]);
        fflush(stdout);
        if (!(o.max_err <= 1) || !o.masked_exact) {
          fprintf(stderr, "%s: bound broken (max err/eb %g, masked exact %d)\n", r->name, o.max_err,
                  o.masked_exact);
          return 1;
        }
      }
      if (sz3) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s_%s_", dir, r->name,
                 r->array.type == PARZ_FLOAT ? "f32le" : "f64le");
        size_t at = strlen(path);
        for (size_t k = 0; k < r->array.dims; k++)
          at += snprintf(path + at, sizeof path - at, k ? "x%zu" : "%zu", r->array.shape[k]);
        snprintf(path + at, sizeof path - at, ".bin");
        sz3_outcome s = run_sz3(sz3, path, r, eb, fill);
        sz3_ratio[e][used] = s.ok ? (double)r->bytes / s.bytes : NAN;
        printf(
            "| %s | SZ3 (interp+lorenzo, its default) | whole | %.2f | | | | | | %.4f%s | %.0f "
            "| %.0f | |\n",
            r->name, sz3_ratio[e][used], s.max_err,
            s.ok && s.max_err <= 1 ? (s.masked_exact ? "" : " (fill not exact)") : " **FAIL**",
            r->bytes / 1e6 / s.enc_s, r->bytes / 1e6 / s.dec_s);
        fflush(stdout);
      }
      free(out);
      used++;
    }
    printf("\n| geomean ratio, eb = %g | %zu arrays |\n|---|---:|\n", ebs[e], used);
    for (size_t z = 0; z < ndz; z++)
      printf("| %s%s S=%zu %s%s | %.2f |\n", pred_name(designs[z].predictor),
             designs[z].runs == 2 ? "+runs?"
             : designs[z].runs    ? "+runs"
                                  : "",
             designs[z].segment, designs[z].chunk_bytes ? "chunks of MiB: " : "whole",
             designs[z].chunk_bytes ? (designs[z].chunk_bytes >> 20 == 4 ? "4" : "1") : "",
             geomean(ratio[e][z], used));
    if (sz3)
      printf("| SZ3 | %.2f |\n", geomean(sz3_ratio[e], used));
  }
  real_arrays_free(arr, na);
  return 0;
}
