/* A chunk of the raw codec (200), written by test_codec_raw into the file argv[1], given to the
 * library as built, with its own codec table: this reader does not know codec 200, and the
 * serial and OpenMP decoders refuse the chunk, naming it and the codecs it knows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codecs.h"
#include "parz_omp.h"

int main(int argc, char** argv) {
  unsigned char chunk[1 << 16];
  float out[1 << 14];
  parz_error err;
  size_t n;
  FILE* f;
  if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
    fprintf(stderr, "usage: test_codec_raw_product CHUNK (written by test_codec_raw)\n");
    return 2;
  }
  n = fread(chunk, 1, sizeof chunk, f);
  fclose(f);
  CHECK(n > 8 && n < sizeof chunk && chunk[6] == 200 && chunk[7] == 0,
        ": a chunk of codec 200 (%zu bytes)", n);
  CHECK(parz_codec_count == 4 && parz_codec_find(200) == NULL &&
            parz_codec_find(PARZ_CODEC_ZFP) == &parz_codec_zfp &&
            parz_codec_find(PARZ_CODEC_LOSSLESS) == &parz_codec_lossless &&
            parz_codec_find(PARZ_CODEC_BOUNDED) == &parz_codec_bounded,
        ": the library's own table (%u codecs)", parz_codec_count);
  CHECK(parz_chunk_decode(chunk, n, out, sizeof out, &err) == PARZ_ERR_VERSION &&
            strstr(err.message, "codec 200") &&
            strstr(err.message, "1 (zfp), 2 (stored), 3 (lossless), 4 (bounded)") &&
            !strstr(err.message, "raw"),
        ": serial: %s", err.message);
  CHECK(parz_omp_chunk_decode(chunk, n, out, sizeof out, 2, &err) == PARZ_ERR_VERSION &&
            strstr(err.message, "codec 200") &&
            strstr(err.message, "1 (zfp), 2 (stored), 3 (lossless), 4 (bounded)"),
        ": OpenMP: %s", err.message);
  return test_finish("codec_raw_product");
}
