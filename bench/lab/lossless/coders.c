/* The residual coders the lab compares: per group of 32 values the leading-zero width and the
 * values packed at that width; bit-plane transposition with zero planes elided (as ndzip
 * does); canonical Huffman of each value's bit length followed by the bits below its leading
 * one (fpzip's split, with a static code in place of its adaptive range coder), alone or with
 * the previous value's length as context. */
#include <string.h>

#include "lab.h"
#include "residual_coder.h"

#define GROUP 32
#define HUFF_MAX 12
#define CTX_MAX 17

typedef struct {
  uint8_t* p;
  size_t cap, pos;
  uint64_t acc;
  int n, over;
} bitw;

static void put(bitw* b, uint64_t v, int k) { /* k <= 32 */
  b->acc |= v << b->n;
  b->n += k;
  if (b->n >= 32) {
    if (b->pos + 4 > b->cap) {
      b->over = 1;
      b->pos = 0;
    }
    uint32_t w = (uint32_t)b->acc;
    memcpy(b->p + b->pos, &w, 4);
    b->pos += 4;
    b->acc >>= 32;
    b->n -= 32;
  }
}
static void put64(bitw* b, uint64_t v, int k) {
  if (k > 32) {
    put(b, v & 0xffffffffu, 32);
    put(b, v >> 32, k - 32);
  } else if (k > 0) {
    put(b, v, k);
  }
}
static size_t finish(bitw* b) {
  while (b->n > 0) {
    if (b->pos + 1 > b->cap)
      return 0;
    b->p[b->pos++] = (uint8_t)b->acc;
    b->acc >>= 8;
    b->n -= 8;
  }
  return b->over ? 0 : b->pos;
}

typedef struct {
  const uint8_t* p;
  size_t len, pos; /* pos in bits */
} bitr;

static inline uint64_t peek(const bitr* r) { /* at least 57 bits */
  size_t at = r->pos >> 3;
  uint64_t v = 0;
  if (at + 8 <= r->len) {
    memcpy(&v, r->p + at, 8);
  } else if (at < r->len) {
    memcpy(&v, r->p + at, r->len - at);
  }
  return v >> (r->pos & 7);
}
static inline uint64_t get(bitr* r, int k) { /* k <= 32 */
  uint64_t v = peek(r) & (((uint64_t)1 << k) - 1);
  r->pos += (size_t)k;
  return v;
}
static inline uint64_t get64(bitr* r, int k) {
  if (k > 32) {
    uint64_t lo = get(r, 32);
    return lo | (get(r, k - 32) << 32);
  }
  return k > 0 ? get(r, k) : 0;
}
static int overrun(const bitr* r) { return r->pos > r->len * 8; }

static inline int bitlen(uint64_t v) { return v ? 64 - __builtin_clzll(v) : 0; }

/* ---- leading-zero width per group ---- */

static size_t width_code(const uint64_t* z, size_t n, uint8_t* out, size_t cap) {
  bitw b = {out, cap, 0, 0, 0, 0};
  for (size_t g = 0; g < n; g += GROUP) {
    size_t m = n - g < GROUP ? n - g : GROUP;
    uint64_t any = 0;
    for (size_t i = 0; i < m; i++)
      any |= z[g + i];
    int w = bitlen(any);
    put(&b, (uint64_t)w, 7);
    if (w <= 32) {
      for (size_t i = 0; i < m; i++)
        put(&b, z[g + i], w);
    } else {
      for (size_t i = 0; i < m; i++)
        put64(&b, z[g + i], w);
    }
  }
  return finish(&b);
}
static int width_uncode(const uint8_t* in, size_t len, size_t n, uint64_t* z) {
  bitr r = {in, len, 0};
  for (size_t g = 0; g < n; g += GROUP) {
    size_t m = n - g < GROUP ? n - g : GROUP;
    int w = (int)get(&r, 7);
    if (w > 64)
      return 1;
    if (w == 0) {
      memset(z + g, 0, m * sizeof *z);
    } else if (w <= 32) {
      for (size_t i = 0; i < m; i++)
        z[g + i] = get(&r, w);
    } else {
      for (size_t i = 0; i < m; i++)
        z[g + i] = get64(&r, w);
    }
  }
  return overrun(&r);
}

/* ---- bit planes, zero planes elided ---- */

static void transpose32(uint32_t a[32]) {
  uint32_t m = 0x0000ffffu;
  for (int j = 16; j != 0; j >>= 1, m ^= m << j) {
    for (int k = 0; k < 32; k = ((k | j) + 1) & ~j) {
      uint32_t t = (a[k] ^ (a[k | j] >> j)) & m;
      a[k] ^= t;
      a[k | j] ^= t << j;
    }
  }
}
static void transpose64(uint64_t a[64]) {
  uint64_t m = 0x00000000ffffffffull;
  for (int j = 32; j != 0; j >>= 1, m ^= m << j) {
    for (int k = 0; k < 64; k = ((k | j) + 1) & ~j) {
      uint64_t t = (a[k] ^ (a[k | j] >> j)) & m;
      a[k] ^= t;
      a[k | j] ^= t << j;
    }
  }
}

static size_t plane_code(const uint64_t* z, size_t n, int w, uint8_t* out, size_t cap) {
  bitw b = {out, cap, 0, 0, 0, 0};
  for (size_t g = 0; g < n; g += (size_t)w) {
    size_t m = n - g < (size_t)w ? n - g : (size_t)w;
    uint64_t mask = 0;
    if (w == 32) {
      uint32_t a[32] = {0};
      for (size_t i = 0; i < m; i++)
        a[i] = (uint32_t)z[g + i];
      transpose32(a);
      for (int j = 0; j < 32; j++)
        mask |= (uint64_t)(a[j] != 0) << j;
      put(&b, mask, 32);
      for (int j = 0; j < 32; j++)
        if (a[j])
          put(&b, a[j], 32);
    } else {
      uint64_t a[64] = {0};
      for (size_t i = 0; i < m; i++)
        a[i] = z[g + i];
      transpose64(a);
      for (int j = 0; j < 64; j++)
        mask |= (uint64_t)(a[j] != 0) << j;
      put64(&b, mask, 64);
      for (int j = 0; j < 64; j++)
        if (a[j])
          put64(&b, a[j], 64);
    }
  }
  return finish(&b);
}
static int plane_uncode(const uint8_t* in, size_t len, size_t n, int w, uint64_t* z) {
  bitr r = {in, len, 0};
  for (size_t g = 0; g < n; g += (size_t)w) {
    size_t m = n - g < (size_t)w ? n - g : (size_t)w;
    if (w == 32) {
      uint32_t a[32];
      uint64_t mask = get(&r, 32);
      for (int j = 0; j < 32; j++)
        a[j] = (mask >> j) & 1 ? (uint32_t)get(&r, 32) : 0;
      transpose32(a);
      for (size_t i = 0; i < m; i++)
        z[g + i] = a[i];
    } else {
      uint64_t a[64];
      uint64_t mask = get64(&r, 64);
      for (int j = 0; j < 64; j++)
        a[j] = (mask >> j) & 1 ? get64(&r, 64) : 0;
      transpose64(a);
      for (size_t i = 0; i < m; i++)
        z[g + i] = a[i];
    }
  }
  return overrun(&r);
}

/* ---- Huffman of bit lengths ---- */

typedef struct {
  uint8_t len[256];
  uint16_t code[256];            /* bit-reversed, for the LSB-first stream */
  uint16_t table[1 << HUFF_MAX]; /* next HUFF_MAX bits -> symbol | length << 8 */
} huff;

/* Code lengths of a Huffman code for freq (ns symbols), at most HUFF_MAX bits: the core's. */
static void huff_lengths(const uint64_t* freq, int ns, uint8_t* len) {
  parz_ll_huffman_lengths(freq, (unsigned)ns, HUFF_MAX, len);
}

/* Canonical codes from the lengths and the decoding table; 1 when the lengths are not a code. */
static int huff_build(huff* h, int ns) {
  uint16_t next = 0;
  uint64_t kraft = 0;
  for (int s = 0; s < ns; s++)
    if (h->len[s])
      kraft += (uint64_t)1 << (HUFF_MAX - h->len[s]);
  if (kraft > ((uint64_t)1 << HUFF_MAX))
    return 1;
  for (int i = 0; i < (1 << HUFF_MAX); i++)
    h->table[i] = 0xffff;
  for (int l = 1; l <= HUFF_MAX; l++) {
    for (int s = 0; s < ns; s++) {
      if (h->len[s] != l)
        continue;
      uint16_t rev = 0;
      for (int b = 0; b < l; b++)
        rev |= (uint16_t)(((next >> b) & 1) << (l - 1 - b));
      h->code[s] = rev;
      for (int i = rev; i < (1 << HUFF_MAX); i += 1 << l)
        h->table[i] = (uint16_t)(s | l << 8);
      next++;
    }
    next <<= 1;
  }
  return 0;
}

static int ctx_of(int kprev, int ctx) { return ctx ? (kprev + 3) / 4 : 0; }

static size_t huff_code(const uint64_t* z, size_t n, int w, int ctx, uint8_t* out, size_t cap) {
  int nctx = ctx ? w / 4 + 1 : 1, ns = w + 1;
  static huff h[CTX_MAX];
  uint64_t freq[CTX_MAX][65];
  memset(freq, 0, sizeof freq);
  int kp = 0;
  for (size_t i = 0; i < n; i++) {
    int k = bitlen(z[i]);
    freq[ctx_of(kp, ctx)][k]++;
    kp = k;
  }
  bitw b = {out, cap, 0, 0, 0, 0};
  for (int c = 0; c < nctx; c++) {
    huff_lengths(freq[c], ns, h[c].len);
    huff_build(&h[c], ns);
    for (int s = 0; s < ns; s++)
      put(&b, h[c].len[s], 4);
  }
  kp = 0;
  for (size_t i = 0; i < n; i++) {
    int k = bitlen(z[i]);
    const huff* hc = &h[ctx_of(kp, ctx)];
    put(&b, hc->code[k], hc->len[k]);
    if (k > 1)
      put64(&b, z[i] & (((uint64_t)1 << (k - 1)) - 1), k - 1);
    kp = k;
  }
  return finish(&b);
}
static int huff_uncode(const uint8_t* in, size_t len, size_t n, int w, int ctx, uint64_t* z) {
  int nctx = ctx ? w / 4 + 1 : 1, ns = w + 1;
  static huff h[CTX_MAX];
  bitr r = {in, len, 0};
  for (int c = 0; c < nctx; c++) {
    for (int s = 0; s < ns; s++)
      h[c].len[s] = (uint8_t)get(&r, 4);
    if (huff_build(&h[c], ns))
      return 1;
  }
  int kp = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t bits = peek(&r);
    uint16_t e = h[ctx_of(kp, ctx)].table[bits & ((1 << HUFF_MAX) - 1)];
    if (e == 0xffff)
      return 1;
    int k = e & 0xff, l = e >> 8;
    if (k <= 1) {
      r.pos += (size_t)l;
      z[i] = (uint64_t)k;
    } else if (k - 1 + l <= 57) {
      z[i] = ((uint64_t)1 << (k - 1)) | ((bits >> l) & (((uint64_t)1 << (k - 1)) - 1));
      r.pos += (size_t)(l + k - 1);
    } else {
      r.pos += (size_t)l;
      z[i] = ((uint64_t)1 << (k - 1)) | get64(&r, k - 1);
    }
    kp = k;
  }
  return overrun(&r);
}

/* ---- Huffman of residual bytes, one code per byte position ---- */

static size_t bytes_code(const uint64_t* z, size_t n, int w, uint8_t* out, size_t cap) {
  static huff h;
  bitw b = {out, cap, 0, 0, 0, 0};
  uint64_t freq[256];
  for (int pos = 0; pos < w; pos += 8) {
    memset(freq, 0, sizeof freq);
    for (size_t i = 0; i < n; i++)
      freq[(z[i] >> pos) & 255]++;
    huff_lengths(freq, 256, h.len);
    huff_build(&h, 256);
    for (int s = 0; s < 256; s++)
      put(&b, h.len[s], 4);
    for (size_t i = 0; i < n; i++) {
      int s = (int)((z[i] >> pos) & 255);
      put(&b, h.code[s], h.len[s]);
    }
  }
  return finish(&b);
}
static int bytes_uncode(const uint8_t* in, size_t len, size_t n, int w, uint64_t* z) {
  static huff h;
  bitr r = {in, len, 0};
  memset(z, 0, n * sizeof *z);
  for (int pos = 0; pos < w; pos += 8) {
    for (int s = 0; s < 256; s++)
      h.len[s] = (uint8_t)get(&r, 4);
    if (huff_build(&h, 256))
      return 1;
    for (size_t i = 0; i < n; i++) {
      uint16_t e = h.table[peek(&r) & ((1 << HUFF_MAX) - 1)];
      if (e == 0xffff)
        return 1;
      z[i] |= (uint64_t)(e & 0xff) << pos;
      r.pos += (size_t)(e >> 8);
    }
  }
  return overrun(&r);
}

const char* lab_coder_name(lab_coder c) {
  static const char* names[] = {"width", "bitplane", "huff", "huff-ctx", "bytes-huff"};
  return c < CODER_COUNT ? names[c] : "?";
}

size_t lab_code(lab_coder c, const uint64_t* z, size_t n, int w, uint8_t* out, size_t cap) {
  switch (c) {
    case CODER_WIDTH: return width_code(z, n, out, cap);
    case CODER_BITPLANE: return plane_code(z, n, w, out, cap);
    case CODER_HUFF: return huff_code(z, n, w, 0, out, cap);
    case CODER_HUFF_CTX: return huff_code(z, n, w, 1, out, cap);
    case CODER_BYTES: return bytes_code(z, n, w, out, cap);
    default: return 0;
  }
}

int lab_uncode(lab_coder c, const uint8_t* in, size_t len, size_t n, int w, uint64_t* z) {
  switch (c) {
    case CODER_WIDTH: return width_uncode(in, len, n, z);
    case CODER_BITPLANE: return plane_uncode(in, len, n, w, z);
    case CODER_HUFF: return huff_uncode(in, len, n, w, 0, z);
    case CODER_HUFF_CTX: return huff_uncode(in, len, n, w, 1, z);
    case CODER_BYTES: return bytes_uncode(in, len, n, w, z);
    default: return 1;
  }
}
