/* The residual coder (residual_coder.h). */
#include "residual_coder.h"

#include <stdlib.h>
#include <string.h>

#include "block_common.h"

#define TABLE_SIZE (1u << PARZ_LL_CODE_MAX)
#define NO_SYMBOL 0xffffu

size_t parz_ll_residual_bound(size_t n, unsigned w) { return 1 + n * (w / 8); }

void parz_ll_huffman_lengths(const uint64_t* freq, unsigned ns, unsigned max_len, uint8_t* len) {
  uint64_t weight[512];
  int parent[512], alive[512];
  unsigned s, nodes = ns, used = 0, left;
  for (s = 0; s < ns; s++) {
    weight[s] = freq[s];
    alive[s] = freq[s] > 0;
    parent[s] = -1;
    used += freq[s] > 0;
    len[s] = 0;
  }
  if (used <= 1) {
    for (s = 0; s < ns; s++)
      if (freq[s])
        len[s] = 1;
    return;
  }
  /* Merge the two lightest live nodes until one is left (ns is small: quadratic is fine). */
  for (left = used; left > 1; left--) {
    int a = -1, b = -1;
    unsigned i;
    for (i = 0; i < nodes; i++) {
      if (!alive[i])
        continue;
      if (a < 0 || weight[i] < weight[a]) {
        b = a;
        a = (int)i;
      } else if (b < 0 || weight[i] < weight[b]) {
        b = (int)i;
      }
    }
    weight[nodes] = weight[a] + weight[b];
    alive[nodes] = 1;
    parent[nodes] = -1;
    alive[a] = alive[b] = 0;
    parent[a] = parent[b] = (int)nodes;
    nodes++;
  }
  for (s = 0; s < ns; s++) {
    unsigned depth = 0;
    int i;
    if (!freq[s])
      continue;
    for (i = (int)s; parent[i] >= 0; i = parent[i])
      depth++;
    len[s] = (uint8_t)(depth > max_len ? max_len : depth);
  }
  /* Codes cut to max_len break Kraft's inequality: lengthen the longest shorter codes. */
  for (;;) {
    uint64_t kraft = 0;
    int longest = -1;
    for (s = 0; s < ns; s++)
      if (len[s])
        kraft += (uint64_t)1 << (max_len - len[s]);
    if (kraft <= ((uint64_t)1 << max_len))
      break;
    for (s = 0; s < ns; s++)
      if (len[s] && len[s] < max_len && (longest < 0 || len[s] > len[longest]))
        longest = (int)s;
    len[longest]++;
  }
}

/* Canonical codes, bit-reversed for the LSB-first stream; 1 when the lengths break Kraft. */
static int canonical(const uint8_t* len, unsigned ns, uint16_t* code) {
  uint64_t kraft = 0;
  unsigned s, l, next = 0;
  for (s = 0; s < ns; s++) {
    if (len[s] > PARZ_LL_CODE_MAX)
      return 1;
    if (len[s])
      kraft += (uint64_t)1 << (PARZ_LL_CODE_MAX - len[s]);
  }
  if (kraft > TABLE_SIZE)
    return 1;
  for (l = 1; l <= PARZ_LL_CODE_MAX; l++) {
    for (s = 0; s < ns; s++) {
      unsigned rev = 0, b;
      if (len[s] != l)
        continue;
      for (b = 0; b < l; b++)
        rev |= ((next >> b) & 1u) << (l - 1 - b);
      code[s] = (uint16_t)rev;
      next++;
    }
    next <<= 1;
  }
  return 0;
}

typedef struct {
  uint8_t* p;
  size_t at;
  uint64_t acc;
  unsigned n;
} writer;

static void put(writer* w, uint64_t v, unsigned k) { /* k <= 32, v < 2^k */
  w->acc |= v << w->n;
  w->n += k;
  if (w->n >= 32) {
    unsigned i;
    for (i = 0; i < 4; i++)
      w->p[w->at++] = (uint8_t)(w->acc >> (8 * i));
    w->acc >>= 32;
    w->n -= 32;
  }
}
static void put_wide(writer* w, uint64_t v, unsigned k) {
  if (k > 32) {
    put(w, v & 0xffffffffu, 32);
    put(w, v >> 32, k - 32);
  } else {
    put(w, v, k);
  }
}

/* The context of a residual: the bit length of the one before it, in buckets of four. */
static unsigned context_of(unsigned previous) { return (previous + 3) >> 2; }
static unsigned contexts(unsigned w, unsigned coder) {
  return coder == PARZ_LL_CODER_CONTEXT ? w / 4 + 1 : 1;
}

/* The codes of a coder for the residuals' bit-length counts per context (freq): lengths and
 * codes per context; returns the stream's bits with its lengths. */
static uint64_t plan(uint64_t freq[][65], unsigned w, unsigned coder, uint8_t len[][65],
                     uint16_t code[][65]) {
  unsigned c, k, ns = w + 1, nc = contexts(w, coder);
  uint64_t bits = 4u * ns * nc;
  for (c = 0; c < nc; c++) {
    parz_ll_huffman_lengths(freq[c], ns, PARZ_LL_CODE_MAX, len[c]);
    canonical(len[c], ns, code[c]);
    for (k = 0; k < ns; k++)
      bits += freq[c][k] * (len[c][k] + (k >= 2 ? k - 1 : 0));
  }
  return bits;
}

size_t parz_ll_code_residuals(const uint64_t* z, size_t n, unsigned w, uint8_t* dst) {
  static const unsigned coders[2] = {PARZ_LL_CODER_LENGTHS, PARZ_LL_CODER_CONTEXT};
  uint8_t len[2][PARZ_LL_CONTEXTS][65];
  uint16_t code[2][PARZ_LL_CONTEXTS][65];
  uint64_t bits[2], freq[PARZ_LL_CONTEXTS][65], all[1][65];
  unsigned k, c, pick, ns = w + 1, previous = 0;
  size_t i, raw = parz_ll_residual_bound(n, w);
  /* one pass counts per context; the single code's counts are their sums */
  memset(freq, 0, sizeof freq);
  memset(all, 0, sizeof all);
  for (i = 0; i < n; i++) {
    k = parz_bitlen64(z[i]);
    freq[context_of(previous)][k]++;
    previous = k;
  }
  for (c = 0; c < contexts(w, PARZ_LL_CODER_CONTEXT); c++)
    for (k = 0; k < ns; k++)
      all[0][k] += freq[c][k];
  bits[0] = plan(all, w, coders[0], len[0], code[0]);
  bits[1] = plan(freq, w, coders[1], len[1], code[1]);
  previous = 0;
  pick = bits[1] < bits[0];
  if (1 + (bits[pick] + 7) / 8 >= raw) {
    dst[0] = PARZ_LL_CODER_RAW;
    for (i = 0; i < n; i++) {
      unsigned b;
      for (b = 0; b < w / 8; b++)
        dst[1 + i * (w / 8) + b] = (uint8_t)(z[i] >> (8 * b));
    }
    return raw;
  }
  {
    writer wr = {dst, 1, 0, 0};
    unsigned coder = coders[pick], nc = contexts(w, coder);
    dst[0] = (uint8_t)coder;
    for (c = 0; c < nc; c++)
      for (k = 0; k < ns; k++)
        put(&wr, len[pick][c][k], 4);
    for (i = 0; i < n; i++) {
      c = coder == PARZ_LL_CODER_CONTEXT ? context_of(previous) : 0;
      k = parz_bitlen64(z[i]);
      put(&wr, code[pick][c][k], len[pick][c][k]);
      if (k >= 2)
        put_wide(&wr, z[i] & (((uint64_t)1 << (k - 1)) - 1), k - 1);
      previous = k;
    }
    while (wr.n > 0) {
      dst[wr.at++] = (uint8_t)wr.acc;
      wr.acc >>= 8;
      wr.n = wr.n > 8 ? wr.n - 8 : 0;
    }
    return wr.at;
  }
}

typedef struct {
  const uint8_t* p;
  size_t bytes, pos; /* pos in bits from p */
} reader;

/* The next 57 bits or more (zeros past the end). */
static uint64_t peek(const reader* r) {
  size_t at = r->pos >> 3;
  uint64_t v = 0;
  if (at + 8 <= r->bytes) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&v, r->p + at, 8);
#else
    unsigned i;
    for (i = 0; i < 8; i++)
      v |= (uint64_t)r->p[at + i] << (8 * i);
#endif
  } else {
    unsigned i;
    for (i = 0; at + i < r->bytes; i++)
      v |= (uint64_t)r->p[at + i] << (8 * i);
  }
  return v >> (r->pos & 7);
}

int parz_ll_uncode_residuals(const uint8_t* src, size_t src_bytes, size_t n, unsigned w,
                             uint64_t* z, size_t segment, parz_error* err) {
  static const char* what = "lossless segment";
  if (!src || src_bytes < 1)
    return parz_fail(err, PARZ_ERR_STREAM, "%s %zu: empty", what, segment);
  if (src[0] == PARZ_LL_CODER_RAW) {
    size_t i, need = parz_ll_residual_bound(n, w);
    if (src_bytes != need)
      return parz_fail(err, PARZ_ERR_STREAM, "%s %zu: raw, %zu bytes where %zu are needed", what,
                       segment, src_bytes, need);
    for (i = 0; i < n; i++) {
      uint64_t v = 0;
      unsigned b;
      for (b = 0; b < w / 8; b++)
        v |= (uint64_t)src[1 + i * (w / 8) + b] << (8 * b);
      z[i] = v;
    }
    return PARZ_OK;
  }
  if (src[0] == PARZ_LL_CODER_LENGTHS || src[0] == PARZ_LL_CODER_CONTEXT) {
    uint8_t len[65] = {0};
    uint16_t code[65] = {0};
    uint16_t* table;
    uint8_t used[PARZ_LL_CONTEXTS] = {0};
    unsigned k, c, ns = w + 1, coder = src[0], nc = contexts(w, coder), previous = 0;
    size_t i, end;
    int rc = PARZ_OK;
    reader r = {src + 1, src_bytes - 1, 0};
    if ((src_bytes - 1) * 8 < 4u * ns * nc)
      return parz_fail(err, PARZ_ERR_STREAM, "%s %zu: %zu bytes end inside its code", what, segment,
                       src_bytes);
    table = (uint16_t*)malloc((size_t)nc * TABLE_SIZE * sizeof *table);
    if (!table)
      return parz_fail(err, PARZ_ERR_NOMEM, "%s %zu: no room for its code", what, segment);
    for (c = 0; c < nc && rc == PARZ_OK; c++) {
      uint16_t* t = table + (size_t)c * TABLE_SIZE;
      for (k = 0; k < ns; k++) {
        len[k] = (uint8_t)(peek(&r) & 15u);
        r.pos += 4;
      }
      if (canonical(len, ns, code)) {
        rc = parz_fail(err, PARZ_ERR_STREAM,
                       "%s %zu: code lengths of context %u are not a prefix "
                       "code",
                       what, segment, c);
        break;
      }
      for (k = 0; k < ns && !len[k]; k++)
        ;
      /* A context no residual takes has no code: one entry marks it, the rest is never read. */
      if (k == ns) {
        t[0] = NO_SYMBOL;
        used[c] = 0;
        continue;
      }
      used[c] = 1;
      for (i = 0; i < TABLE_SIZE; i++)
        t[i] = NO_SYMBOL;
      for (k = 0; k < ns; k++) {
        size_t j;
        if (!len[k])
          continue;
        for (j = code[k]; j < TABLE_SIZE; j += (size_t)1 << len[k])
          t[j] = (uint16_t)(k | (unsigned)len[k] << 8);
      }
    }
    end = r.bytes * 8;
    for (i = 0; i < n && rc == PARZ_OK; i++) {
      uint64_t bits = peek(&r);
      unsigned ctx = coder == PARZ_LL_CODER_CONTEXT ? context_of(previous) : 0;
      unsigned e = used[ctx] ? table[(size_t)ctx * TABLE_SIZE + (bits & (TABLE_SIZE - 1))]
                             : NO_SYMBOL,
               l;
      if (e == NO_SYMBOL) {
        rc = parz_fail(err, PARZ_ERR_STREAM, "%s %zu: no code at bit %zu", what, segment, r.pos);
        break;
      }
      k = e & 0xffu;
      l = e >> 8;
      if (k < 2) {
        z[i] = k;
        r.pos += l;
      } else if (l + k - 1 <= 57) {
        z[i] = ((uint64_t)1 << (k - 1)) | ((bits >> l) & (((uint64_t)1 << (k - 1)) - 1));
        r.pos += l + k - 1;
      } else {
        uint64_t low;
        r.pos += l;
        low = peek(&r) & 0xffffffffu;
        r.pos += 32;
        low |= (peek(&r) & (((uint64_t)1 << (k - 33)) - 1)) << 32;
        r.pos += k - 33;
        z[i] = ((uint64_t)1 << (k - 1)) | low;
      }
      previous = k;
      if (r.pos > end)
        rc = parz_fail(err, PARZ_ERR_STREAM, "%s %zu: ends inside value %zu of %zu", what, segment,
                       i, n);
    }
    free(table);
    if (rc == PARZ_OK && (r.pos + 7) / 8 != r.bytes)
      rc = parz_fail(err, PARZ_ERR_STREAM, "%s %zu: %zu bytes after its last value", what, segment,
                     r.bytes - (r.pos + 7) / 8);
    return rc;
  }
  return parz_fail(err, PARZ_ERR_STREAM, "%s %zu: unknown coder %u", what, segment,
                   (unsigned)src[0]);
}
