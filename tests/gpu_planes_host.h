/* The GPU's plane loop run on the CPU (gpu_planes_host.cpp). */
#ifndef PARZ_TEST_GPU_PLANES_HOST_H
#define PARZ_TEST_GPU_PLANES_HOST_H

#include <stddef.h>

#include "parz.h"

/* Decodes the block at bit `at` of s (bytes long) into out (4^dims raw values) with the device
 * build of the codec's block decoder; returns the bit after the block. */
unsigned long long gpu_planes_decode(const unsigned char* s, size_t bytes, unsigned long long at,
                                     parz_type type, unsigned dims, const parz_params* p,
                                     void* out);

#endif
