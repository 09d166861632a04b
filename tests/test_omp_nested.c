/* The OpenMP drivers respect the caller: called from inside an application's own parallel region
 * (nesting inactive, then active) they give the serial bytes, and no OpenMP setting the
 * application can observe changes. */
#include <stdlib.h>
#include <string.h>

#include "parz_omp.h"
#include "test_chunk_common.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#define OUTER 3

typedef struct {
  int max_threads, dynamic, max_levels;
} omp_settings;

static omp_settings settings_now(void) {
  omp_settings s = {0, 0, 0};
#ifdef _OPENMP
  s.max_threads = omp_get_max_threads();
  s.dynamic = omp_get_dynamic();
  s.max_levels = omp_get_max_active_levels();
#endif
  return s;
}

static void nested_round(const char* label, const parz_array* a, void* const* data,
                         const parz_chunk_config* cfg) {
  size_t raw = test_count(a) * parz_type_size(a->type), cap = parz_chunk_bound(a, cfg);
  unsigned char *ref[OUTER], *got[OUTER], *dec_ref[OUTER], *dec[OUTER];
  size_t nref[OUTER], ngot[OUTER];
  int rc_enc[OUTER], rc_dec[OUTER], i;
  omp_settings in[OUTER], out[OUTER];
  for (i = 0; i < OUTER; i++) {
    parz_error err;
    ref[i] = (unsigned char*)malloc(cap);
    got[i] = (unsigned char*)malloc(cap);
    dec_ref[i] = (unsigned char*)malloc(raw);
    dec[i] = (unsigned char*)malloc(raw);
    CHECK(parz_chunk_encode(a, data[i], cfg, ref[i], cap, &nref[i], &err) == PARZ_OK, "%s",
          err.message);
    CHECK(parz_chunk_decode(ref[i], nref[i], dec_ref[i], raw, &err) == PARZ_OK, "%s", err.message);
  }
#ifdef _OPENMP
#pragma omp parallel num_threads(OUTER)
#endif
  {
    int me = 0;
    parz_error e1, e2;
#ifdef _OPENMP
    me = omp_get_thread_num();
#endif
    if (me < OUTER) {
      in[me] = settings_now();
      rc_enc[me] = parz_omp_chunk_encode(a, data[me], cfg, got[me], cap, &ngot[me], 4, &e1);
      rc_dec[me] = parz_omp_chunk_decode(ref[me], nref[me], dec[me], raw, 0, &e2);
      out[me] = settings_now();
    }
  }
  for (i = 0; i < OUTER; i++) {
    CHECK(rc_enc[i] == PARZ_OK && ngot[i] == nref[i] && !memcmp(got[i], ref[i], nref[i]),
          "%s: outer thread %d: nested encode differs (rc %d)", label, i, rc_enc[i]);
    CHECK(rc_dec[i] == PARZ_OK && !memcmp(dec[i], dec_ref[i], raw),
          "%s: outer thread %d: nested decode differs (rc %d)", label, i, rc_dec[i]);
    CHECK(!memcmp(&in[i], &out[i], sizeof in[i]),
          "%s: outer thread %d: OpenMP settings changed by a driver", label, i);
    free(ref[i]);
    free(got[i]);
    free(dec_ref[i]);
    free(dec[i]);
  }
}

int main(void) {
  parz_array a = test_array(PARZ_FLOAT, 3, 40, 37, 45, 0);
  parz_chunk_config cfg;
  void* data[OUTER];
  omp_settings before, after;
  int i;
  memset(&cfg, 0, sizeof cfg);
  parz_params_accuracy(&cfg.params, 1e-3, NULL, NULL);
  cfg.segment_blocks = 8;
  cfg.partition_segments = 4;
  for (i = 0; i < OUTER; i++)
    data[i] = test_data(&a, 100u + (unsigned)i);
  before = settings_now();
  nested_round("nesting inactive", &a, data, &cfg);
#ifdef _OPENMP
  /* the application's choice, not the library's: allow a second active level */
  omp_set_max_active_levels(2);
  before = settings_now();
  nested_round("nesting active", &a, data, &cfg);
#endif
  after = settings_now();
  CHECK(!memcmp(&before, &after, sizeof before), "OpenMP settings changed by the drivers");
  for (i = 0; i < OUTER; i++)
    free(data[i]);
  return test_finish("test_omp_nested");
}
