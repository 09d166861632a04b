/* Fuzz harness: chunk header + offset table + exceptions parsing and validation.
 * Input: control byte (bit 0: fix the checksum), then the chunk bytes. A parse must either fail
 * with a filled parz_error or return a view whose every promise holds (fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1)
    return 0;
  unsigned ctl = data[0];
  unsigned char* c = parz_fuzz_chunk_copy(data + 1, size - 1, ctl);
  size_t n = size - 1;
  parz_chunk_view v;
  parz_error e = {0, ""};
  int rc = parz_chunk_parse(c, n, &v, &e);
  if (rc == PARZ_OK) {
    parz_fuzz_check_view(&v, c, n);
    /* Every shorter prefix of a valid chunk is refused (a chunk's sizes add up exactly). */
    parz_chunk_view t;
    parz_error te = {0, ""};
    size_t cut = n - 1 - (ctl >> 1) % n;
    unsigned char* p = (unsigned char*)malloc(cut ? cut : 1);
    if (!p)
      abort();
    memcpy(p, c, cut);
    int trc = parz_chunk_parse(p, cut, &t, &te);
    PARZ_FUZZ_CHECK(trc != PARZ_OK);
    parz_fuzz_check_error(trc, &te);
    free(p);
  } else {
    parz_fuzz_check_error(rc, &e);
  }
  /* NULL arguments are refused, not dereferenced. */
  PARZ_FUZZ_CHECK(parz_chunk_parse(NULL, n, &v, NULL) != PARZ_OK);
  free(c);
  return 0;
}
