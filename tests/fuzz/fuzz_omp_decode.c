/* Fuzz harness: OpenMP decode of a whole chunk (parz_omp_chunk_decode), checked against the
 * serial decoder: same status, and the same bytes when both succeed.
 * Input: control byte (bit 0: fix the checksum; bits 1-2: thread count 2, 3, 4 or 0 = OpenMP's
 * default; bit 7: fix the payload checksums), then the chunk bytes. Chunks under the OpenMP
 * threshold (PARZ_OMP_DECODE_MIN_BYTES decoded) take the serial path inside the driver; the seed
 * corpus holds compressible chunks above it. */
#include "fuzz_common.h"
#include "parz_omp.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1)
    return 0;
  unsigned ctl = data[0];
  static const int thread_choice[4] = {2, 3, 4, 0};
  int threads = thread_choice[(ctl >> 1) & 3];
  size_t n = size - 1;
  unsigned char* c = parz_fuzz_chunk_copy(data + 1, n, ctl);
  parz_chunk_view v;
  parz_error e = {0, ""};
  int prc = parz_chunk_parse(c, n, &v, &e);
  if (prc != PARZ_OK) {
    unsigned char small[64];
    parz_error oe = {0, ""};
    int rc = parz_omp_chunk_decode(c, n, small, sizeof small, threads, &oe);
    PARZ_FUZZ_CHECK(rc == prc);
    parz_fuzz_check_error(rc, &oe);
    free(c);
    return 0;
  }
  if (v.raw_bytes > PARZ_FUZZ_MAX_RAW_BYTES) {
    free(c);
    return 0;
  }
  unsigned char* par = (unsigned char*)malloc(v.raw_bytes);
  unsigned char* ser = (unsigned char*)malloc(v.raw_bytes);
  if (!par || !ser)
    abort();
  parz_error oe = {0, ""}, se = {0, ""};
  int orc = parz_omp_chunk_decode(c, n, par, v.raw_bytes, threads, &oe);
  int src = parz_chunk_decode(c, n, ser, v.raw_bytes, &se);
  PARZ_FUZZ_CHECK(orc == src);
  if (orc == PARZ_OK) {
    PARZ_FUZZ_CHECK(memcmp(par, ser, v.raw_bytes) == 0);
  } else {
    parz_fuzz_check_error(orc, &oe);
    /* The first error in block order wins, whatever the thread count (team.h). */
    PARZ_FUZZ_CHECK(strcmp(oe.message, se.message) == 0);
  }
  free(par);
  free(ser);
  free(c);
  return 0;
}
