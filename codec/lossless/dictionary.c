/* The value dictionary (dictionary.h). */
#include "dictionary.h"

#include <stdlib.h>
#include <string.h>

#include "block_common.h"
#include "residual_coder.h"
#include "table_endian.h"
#include "transform.h"

/* u[0..n) (w-bit words) in ascending order, least significant byte first: a counting pass per
 * byte, skipped where every word has the same byte there; tmp holds n words. */
static void radix_sort(uint64_t* u, uint64_t* tmp, size_t n, unsigned w) {
  uint64_t *from = u, *to = tmp, *t;
  size_t count[256], i, at;
  unsigned shift, b;
  for (shift = 0; shift < w && n > 1; shift += 8) {
    memset(count, 0, sizeof count);
    for (i = 0; i < n; i++)
      count[from[i] >> shift & 255]++;
    if (count[from[0] >> shift & 255] == n)
      continue;
    for (b = 0, at = 0; b < 256; b++) {
      const size_t c = count[b];
      count[b] = at;
      at += c;
    }
    for (i = 0; i < n; i++)
      to[count[from[i] >> shift & 255]++] = from[i];
    t = from;
    from = to;
    to = t;
  }
  if (from != u)
    memcpy(u, from, n * sizeof *u);
}

static unsigned width(parz_type type) { return (unsigned)(8 * parz_type_size(type)); }

int parz_ll_dict_build(parz_type type, const void* values, size_t n, uint64_t** sorted,
                       size_t* count, parz_error* err) {
  uint64_t* u = (uint64_t*)malloc((n ? n : 1) * sizeof *u);
  uint64_t* tmp = (uint64_t*)malloc((n ? n : 1) * sizeof *tmp);
  size_t i, d = 0;
  *sorted = NULL;
  *count = 0;
  if (!u || !tmp) {
    free(u);
    free(tmp);
    return parz_fail(err, PARZ_ERR_NOMEM, "lossless: no room for a dictionary of %zu values", n);
  }
  parz_ll_load_row(type, values, 0, n, 0, u);
  radix_sort(u, tmp, n, width(type));
  free(tmp);
  for (i = 0; i < n; i++)
    if (d == 0 || u[i] != u[d - 1])
      u[d++] = u[i];
  *sorted = u;
  *count = d;
  return PARZ_OK;
}

size_t parz_ll_dict_write(const uint64_t* sorted, size_t count, unsigned w, uint8_t* out) {
  uint64_t* gaps;
  size_t i, b;
  if (!out)
    return 16 + (parz_ll_residual_bound(count, w) + 7) / 8 * 8;
  gaps = (uint64_t*)malloc(count * sizeof *gaps);
  if (!gaps)
    return 0;
  for (i = 0; i < count; i++)
    gaps[i] = i ? sorted[i] - sorted[i - 1] : sorted[0];
  b = parz_ll_code_residuals(gaps, count, w, out + 16);
  free(gaps);
  parz_store64(out, count);
  parz_store64(out + 8, b);
  memset(out + 16 + b, 0, (8 - b % 8) % 8);
  return 16 + (b + 7) / 8 * 8;
}

int parz_ll_dict_read(const uint8_t* data, size_t bytes, unsigned w, size_t max_count,
                      uint64_t** sorted, size_t* count, parz_error* err) {
  const uint64_t top = w == 64 ? ~(uint64_t)0 : 0xffffffffu;
  uint64_t d, b, *u, sum = 0;
  size_t i;
  parz_error e;
  if (sorted)
    *sorted = NULL;
  if (!data || bytes < 16 || bytes % 8)
    return parz_fail(err, PARZ_ERR_FORMAT, "lossless dictionary of %zu bytes", bytes);
  d = parz_load64(data);
  b = parz_load64(data + 8);
  if (d < 1 || d > max_count)
    return parz_fail(err, PARZ_ERR_FORMAT, "lossless dictionary of %llu values for %zu",
                     (unsigned long long)d, max_count);
  if (b < 1 || b > bytes - 16 || (b + 7) / 8 * 8 != bytes - 16)
    return parz_fail(err, PARZ_ERR_FORMAT, "lossless dictionary list of %llu bytes in %zu",
                     (unsigned long long)b, bytes);
  /* every word takes a bit or more after the coder byte: no allocation beyond what the bytes
   * can hold */
  if (d > 8 * (b - 1))
    return parz_fail(err, PARZ_ERR_FORMAT, "lossless dictionary of %llu values in %llu bytes",
                     (unsigned long long)d, (unsigned long long)b);
  for (i = 16 + (size_t)b; i < bytes; i++)
    if (data[i])
      return parz_fail(err, PARZ_ERR_FORMAT, "lossless dictionary padding byte %zu is %u", i,
                       data[i]);
  u = (uint64_t*)malloc((size_t)d * sizeof *u);
  if (!u)
    return parz_fail(err, PARZ_ERR_NOMEM, "lossless: no room for a dictionary of %llu values",
                     (unsigned long long)d);
  if (parz_ll_uncode_residuals(data + 16, (size_t)b, (size_t)d, w, u, NULL, 0, &e) != PARZ_OK) {
    free(u);
    return parz_fail(err, PARZ_ERR_FORMAT, "lossless dictionary list: %s", e.message);
  }
  for (i = 0; i < d; i++) {
    const uint64_t step = u[i];
    if (step > top || (i && (step == 0 || step > top - sum))) {
      free(u);
      return parz_fail(err, PARZ_ERR_FORMAT,
                       "lossless dictionary value %zu: step %llu after %llu does not ascend", i,
                       (unsigned long long)step, (unsigned long long)sum);
    }
    sum = u[i] = i ? sum + step : step;
  }
  *count = (size_t)d;
  if (sorted)
    *sorted = u;
  else
    free(u);
  return PARZ_OK;
}

void parz_ll_dict_ranks(parz_type type, const void* values, size_t at, size_t n,
                        const uint64_t* sorted, size_t count, void* ranks) {
  uint64_t u[256];
  size_t i, j, k;
  for (i = 0; i < n; i += k) {
    k = n - i < 256 ? n - i : 256;
    parz_ll_load_row(type, values, at + i, k, 0, u);
    for (j = 0; j < k; j++) {
      /* the first word not below u[j], by halves whose choice is a select, not a branch */
      const uint64_t* base = sorted;
      size_t len = count, lo;
      while (len > 1) {
        const size_t half = len / 2;
        base = base[half] < u[j] ? base + half : base;
        len -= half;
      }
      lo = (size_t)(base - sorted) + (count && *base < u[j]);
      if (width(type) == 64)
        ((uint64_t*)ranks)[i + j] = lo;
      else
        ((uint32_t*)ranks)[i + j] = (uint32_t)lo;
    }
  }
}
