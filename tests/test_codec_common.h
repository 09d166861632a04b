/* Shared helpers of the codec tests: libzfp as the oracle, random arrays, real data files. */
#ifndef TEST_CODEC_COMMON_H
#define TEST_CODEC_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "parz.h"

/* Deterministic generator (xorshift64*). */
uint64_t tc_rand(uint64_t* state);
double tc_uniform(uint64_t* state); /* [0, 1) */

/* Fills n values of `type` with data of a kind: 0 smooth field, 1 noisy field, 2 random bit
 * patterns (finite for floats), 3 mixed magnitudes (huge next to tiny), 4 small integers and
 * zeros, 5 subnormals and zeros. */
void tc_fill(parz_type type, void* data, size_t n, int kind, uint64_t* state);
#define TC_KINDS 6
const char* tc_kind_name(int kind);

/* libzfp with exactly these parameters; returns the compressed bytes (0 on failure). */
size_t tc_zfp_compress(const parz_array* a, const void* data, const parz_params* p, void* out,
                       size_t cap);
/* Debian's libzfp is built with 8-bit stream words, so zfp_compress pads its stream to a byte
 * where a default (64-bit word) build pads to 8 bytes. The bits are the same; this compares our
 * word-padded stream with libzfp's: equal prefix, zero padding, same length rounded up to 8. */
int tc_same_stream(const void* ours, size_t ours_bytes, const void* ref, size_t ref_bytes);
/* libzfp decompression of a stream into data; returns 0 on failure. */
int tc_zfp_decompress(const parz_array* a, void* data, const parz_params* p, const void* src,
                      size_t bytes);
/* libzfp's classification of the parameters (zfp_mode numbering). */
int tc_zfp_mode(const parz_params* p);
/* zfp's own mode setters, for comparing ours against them. */
void tc_zfp_rate(parz_params* p, double rate, parz_type type, unsigned dims, double* actual);
void tc_zfp_precision(parz_params* p, unsigned prec);
void tc_zfp_accuracy(parz_params* p, double tol, double* actual);
void tc_zfp_reversible(parz_params* p);
size_t tc_zfp_maximum_size(const parz_array* a, const parz_params* p);

/* Reads a whole file; NULL if it cannot. */
void* tc_read_file(const char* path, size_t* bytes);
/* Parses "<name>_f32le_AxBxC.bin": type and C-order shape; 0 if the name does not fit. */
int tc_parse_data_name(const char* name, parz_array* a);

void tc_params_name(const parz_params* p, char* buf, size_t n);

#endif
