/* The codec's block decoder as the GPU compiles it (PARZ_PLANAR 0: each plane's bits deposited
 * into the coefficients as they are read, coefficients reordered afterwards), built for the
 * CPU, so that test_gpu_parse_host can hold it to the CPU's planar decoder block by block. A
 * translation unit of its own: block_decode.h's functions are static, and the CPU's are built
 * with PARZ_PLANAR 1 in the test's own unit. */
#define PARZ_PLANAR 0
#include "gpu_planes_host.h"

#include "block_decode.h"

unsigned long long gpu_planes_decode(const unsigned char* s, size_t bytes, unsigned long long at,
                                     parz_type type, unsigned dims, const parz_params* p,
                                     void* out) {
  parz_reader r;
  parz_reader_init(&r, s, bytes, at);
  parz_decode_block(&r, type, dims, p, out);
  return parz_reader_tell(&r);
}
