/* Helpers shared by the chunk tests: deterministic test arrays and the libzfp oracle (tests
 * only). */
#ifndef TEST_CHUNK_COMMON_H
#define TEST_CHUNK_COMMON_H

#include <stdio.h>

#include "check.h"
#include "parz_chunk.h"

/* Contiguous array of the given type and shape (unused extents ignored). */
parz_array test_array(parz_type type, unsigned dims, size_t n0, size_t n1, size_t n2, size_t n3);
size_t test_count(const parz_array* a);

/* A smooth field plus a little deterministic noise (integers: scaled to about +-2^20). */
void* test_data(const parz_array* a, unsigned seed);

/* libzfp's zfp_compress of the array under p: malloc'd stream, its size in *bytes. */
void* zfp_oracle_compress(const parz_array* a, const void* data, const parz_params* p,
                          size_t* bytes);
/* Whether a chunk payload is libzfp's stream: the same bytes, then zero padding up to whole 64-bit
 * words (Debian's libzfp is built with 8-bit stream words, so it pads less). */
int test_payload_is_zfp(const unsigned char* payload, size_t payload_bytes, const void* z,
                        size_t zbytes);
/* libzfp's zfp_decompress into a malloc'd array. */
void* zfp_oracle_decompress(const parz_array* a, const void* stream, size_t bytes,
                            const parz_params* p);

/* The parameters of mode index m in 0..4: rate, precision, accuracy, expert, reversible. */
#define TEST_MODES 5
parz_params test_params(int m, parz_type type, unsigned dims);
const char* test_mode_name(int m);

/* Encodes with parz_chunk_encode into a malloc'd buffer (size in *bytes); NULL on failure. */
unsigned char* test_encode(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                           size_t* bytes);

#endif
