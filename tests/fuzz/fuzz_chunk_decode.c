/* Fuzz harness: serial decode of a whole chunk (parz_chunk_decode) from arbitrary bytes.
 * Input: control byte (bit 0: fix the checksum; bit 1: also try a destination one value too
 * small; bit 7: fix the payload checksums), then the chunk bytes. The destination is a heap
 * buffer of exactly the decoded size, so AddressSanitizer catches any write outside it;
 * decoding twice must give the same bytes; a chunk whose payload checksums fail never decodes
 * (PARZ_ERR_CHECKSUM, before any segment), one that decodes passes them. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1)
    return 0;
  unsigned ctl = data[0];
  size_t n = size - 1;
  unsigned char* c = parz_fuzz_chunk_copy(data + 1, n, ctl);
  parz_chunk_view v;
  parz_error e = {0, ""};
  int prc = parz_chunk_parse(c, n, &v, &e);
  if (prc != PARZ_OK) {
    /* The decoder must refuse what the parser refuses, with the same status. */
    unsigned char small[64];
    parz_error de = {0, ""};
    int rc = parz_chunk_decode(c, n, small, sizeof small, &de);
    PARZ_FUZZ_CHECK(rc == prc);
    parz_fuzz_check_error(rc, &de);
    free(c);
    return 0;
  }
  if (v.raw_bytes > PARZ_FUZZ_MAX_RAW_BYTES) {
    free(c);
    return 0;
  }
  unsigned char* dst = (unsigned char*)malloc(v.raw_bytes);
  if (!dst)
    abort();
  int rc = parz_chunk_decode(c, n, dst, v.raw_bytes, &e);
  int vrc = parz_chunk_verify(&v, 0, v.nchecksums, NULL);
  PARZ_FUZZ_CHECK(vrc == PARZ_OK ? rc != PARZ_ERR_CHECKSUM : rc == PARZ_ERR_CHECKSUM);
  if (rc == PARZ_OK) {
    unsigned char* again = (unsigned char*)malloc(v.raw_bytes);
    if (!again)
      abort();
    memset(again, 0xA5, v.raw_bytes);
    PARZ_FUZZ_CHECK(parz_chunk_decode(c, n, again, v.raw_bytes, NULL) == PARZ_OK);
    PARZ_FUZZ_CHECK(memcmp(dst, again, v.raw_bytes) == 0);
    free(again);
  } else {
    parz_fuzz_check_error(rc, &e);
    PARZ_FUZZ_CHECK(rc == PARZ_ERR_STREAM || rc == PARZ_ERR_FORMAT || rc == PARZ_ERR_CHECKSUM);
  }
  if (ctl & 2) {
    size_t vs = parz_type_size(v.array.type);
    parz_error be = {0, ""};
    rc = parz_chunk_decode(c, n, dst, v.raw_bytes - vs, &be);
    PARZ_FUZZ_CHECK(rc == PARZ_ERR_BUFFER);
    parz_fuzz_check_error(rc, &be);
  }
  free(dst);
  free(c);
  return 0;
}
