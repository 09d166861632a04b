/* Payload checksums: flipping any single payload bit fails the read with PARZ_ERR_CHECKSUM in
 * the serial and the OpenMP decoder, never returning values. Small chunks of every type, rank,
 * mode and table kind (auto C included): every bit of the 1D ones, spread samples of 2D to 4D;
 * then 400 bits of each slab of the real arrays (Usage: test_payload_checksum [DATA_DIR]). The
 * OpenMP decoder runs without its serial cut-off, at 2 and 3 threads, and must report the same
 * partition as the serial one. */
#include <stdlib.h>
#include <string.h>

#include "parz_omp.h"
#include "team.h"
#include "real_arrays.h"
#include "test_chunk_common.h"

static unsigned long flips_checked, omp_checked;

/* Flips payload bit `bit` of chunk c (n bytes) and decodes serially, and with OpenMP when
 * `omp` is set (team wake-ups make those calls slow on a loaded machine). */
static void flip_one(unsigned char* c, size_t n, const parz_chunk_view* v, uint64_t bit, int omp,
                     void* out, const char* what) {
  static const int threads[] = {2, 3};
  unsigned char* p = c + (n - v->payload_bytes) + bit / 8;
  parz_error se, oe;
  int rc, t;
  *p ^= (unsigned char)(1u << (bit % 8));
  rc = parz_chunk_decode(c, n, out, v->raw_bytes, &se);
  CHECK(rc == PARZ_ERR_CHECKSUM && strstr(se.message, "partition"),
        "%s: payload bit %llu flipped: serial decode gave %d (%s)", what, (unsigned long long)bit,
        rc, rc ? se.message : "values");
  for (t = 0; omp && t < 2; t++) {
    rc = parz_omp_chunk_decode_above(c, n, out, v->raw_bytes, threads[bit % 2 ? t : 1 - t], 0,
                                     bit % 3 ? 0 : 64, &oe);
    CHECK(rc == PARZ_ERR_CHECKSUM && !strcmp(oe.message, se.message),
          "%s: payload bit %llu flipped: OpenMP decode gave %d (%s), serial: %s", what,
          (unsigned long long)bit, rc, rc ? oe.message : "values", se.message);
  }
  *p ^= (unsigned char)(1u << (bit % 8));
  flips_checked++;
  omp_checked += omp != 0;
}

/* Every payload bit (step 1) or a spread sample of them; every omp_step-th of those through
 * the OpenMP decoder too. */
static void flip_all(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                     uint64_t step, uint64_t omp_step, const char* what) {
  size_t n = 0;
  unsigned char* c = test_encode(a, data, cfg, &n);
  parz_chunk_view v;
  uint64_t bit;
  void* out;
  CHECK(c != NULL, "%s: encode", what);
  if (!c)
    return;
  CHECK(parz_chunk_parse(c, n, &v, NULL) == PARZ_OK && v.nchecksums > 0, "%s: checksums", what);
  out = malloc(v.raw_bytes);
  CHECK(parz_chunk_decode(c, n, out, v.raw_bytes, NULL) == PARZ_OK, "%s: clean decode", what);
  for (bit = step > 1 ? 7919 % step : 0; bit < 8 * (uint64_t)v.payload_bytes; bit += step)
    flip_one(c, n, &v, bit, (bit / step) % omp_step == 0, out, what);
  free(out);
  free(c);
}

static void small_chunks(void) {
  static const parz_type types[] = {PARZ_FLOAT, PARZ_DOUBLE, PARZ_INT32, PARZ_INT64};
  static const size_t shapes[4][4] = {{301}, {13, 22}, {5, 9, 7}, {3, 5, 4, 6}};
  static const parz_table_kind kinds[] = {PARZ_TABLE_AUTO, PARZ_TABLE_HYBRID, PARZ_TABLE_LENGTHS,
                                          PARZ_TABLE_OFFSETS};
  int t, m, k;
  unsigned d;
  for (t = 0; t < 4; t++)
    for (d = 1; d <= 4; d++) {
      parz_array a = test_array(types[t], d, shapes[d - 1][0], shapes[d - 1][1], shapes[d - 1][2],
                                shapes[d - 1][3]);
      void* data = test_data(&a, (unsigned)(t * 4 + d));
      if (types[t] == PARZ_FLOAT)
        ((float*)data)[5] = 0.0f / 0.0f;
      for (m = 0; m < TEST_MODES; m++)
        for (k = 0; k < 4; k++) {
          parz_chunk_config cfg;
          char what[160];
          memset(&cfg, 0, sizeof cfg);
          cfg.params = test_params(m, types[t], d);
          cfg.table = kinds[k];
          cfg.segment_blocks = k ? 2 : 0;
          cfg.partition_segments = kinds[k] == PARZ_TABLE_HYBRID ? 3 : 0;
          if (k > 1 && m % 2) /* LENGTHS and OFFSETS: every other mode */
            continue;
          snprintf(what, sizeof what, "%s %uD %s table %d", parz_type_name(types[t]), d,
                   test_mode_name(m), (int)kinds[k]);
          /* all bits of the 1D chunks, every 3rd of 2D, every 5th of 3D and 4D; every 37th
           * of those through the OpenMP decoder too */
          flip_all(&a, data, &cfg, d == 1 ? 1 : d == 2 ? 3 : 5, 37, what);
        }
      free(data);
    }
}

/* Slabs of the real arrays, accuracy 1e-3 and reversible, default table: 400 bits each. */
static void real(const char* dir) {
  size_t n = 0, i;
  real_array* list = real_arrays_load(dir, (size_t)1 << 20, &n);
  if (!list) {
    printf("test_payload_checksum: no arrays in %s, real-data flips skipped\n", dir);
    return;
  }
  for (i = 0; i < n; i++) {
    int m;
    for (m = 2; m < TEST_MODES; m += 2) {
      parz_chunk_config cfg;
      size_t bytes = 0;
      unsigned char* c;
      parz_chunk_view v;
      char what[160];
      memset(&cfg, 0, sizeof cfg);
      cfg.params = test_params(m, list[i].array.type, list[i].array.dims);
      if (m == 2)
        parz_params_accuracy(&cfg.params, 1e-3, NULL, NULL);
      c = test_encode(&list[i].array, list[i].data, &cfg, &bytes);
      if (!c || parz_chunk_parse(c, bytes, &v, NULL) != PARZ_OK) {
        CHECK(0, "%s: encode", list[i].name);
        free(c);
        continue;
      }
      free(c);
      snprintf(what, sizeof what, "%s %s", list[i].name, test_mode_name(m));
      flip_all(&list[i].array, list[i].data, &cfg, 8 * (uint64_t)v.payload_bytes / 400 + 1, 1,
               what);
    }
  }
  real_arrays_free(list, n);
}

int main(int argc, char** argv) {
  small_chunks();
  real(argc > 1 ? argv[1] : "../shared/data");
  printf("test_payload_checksum: %lu payload bit flips refused (%lu by the OpenMP decoder too)\n",
         flips_checked, omp_checked);
  return test_finish("test_payload_checksum");
}
