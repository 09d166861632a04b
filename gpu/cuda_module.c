/* The CUDA module's one exported symbol (cuda_module.h): the table of the decoder's functions.
 * Linked with the static library parz_gpu into parz_cuda.so; everything else in the module stays
 * local to it (cuda_module.map). */
#include "cuda_module.h"

#define PARZ_CUDA_MODULE_INIT(name) name,
static const parz_cuda_module table = {sizeof(parz_cuda_module), PARZ_CUDA_MODULE_VERSION,
                                       PARZ_CUDA_MODULE_FUNCTIONS(PARZ_CUDA_MODULE_INIT)};
#undef PARZ_CUDA_MODULE_INIT

__attribute__((visibility("default"))) const parz_cuda_module* parz_cuda_module_v1(void) {
  return &table;
}
