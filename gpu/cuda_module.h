/* The CUDA module: the CUDA decoder and encoder (parz_gpu.h) with their CUDA and C++ runtimes in
 * a shared object of its own, parz_cuda.so, that the plugin, libparz_h5.so and the parz command
 * load with dlopen on first GPU use. Without it they stay small and need no CUDA to load.
 *
 * The module exports one symbol, PARZ_CUDA_MODULE_ENTRY, a function returning a constant table of
 * the parz_gpu.h functions. The programs link the loader (cuda_loader.c) in place of the decoder:
 * it defines every parz_gpu.h function as a call through that table, so that their code calls
 * parz_gpu_* whichever library holds it. (Tests and benchmarks of the kernels link the decoder,
 * static library parz_gpu, directly.)
 *
 * The file name has no "lib" prefix: HDF5 dlopens every lib*.so* in its plugin directories when
 * it looks for a filter, and the module lies beside the plugin. */
#ifndef PARZ_CUDA_MODULE_H
#define PARZ_CUDA_MODULE_H

#include <stddef.h>

#include "parz_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PARZ_CUDA_MODULE_FILE "parz_cuda.so"
/* The table's layout generation: raised when an entry is removed or moved. */
#define PARZ_CUDA_MODULE_ENTRY "parz_cuda_module_v1"
/* The module must come from the same ParZ version as the loader. */
#define PARZ_CUDA_MODULE_STR_(n) #n
#define PARZ_CUDA_MODULE_STR(n) PARZ_CUDA_MODULE_STR_(n)
#define PARZ_CUDA_MODULE_VERSION           \
  PARZ_CUDA_MODULE_STR(PARZ_VERSION_MAJOR) \
  "." PARZ_CUDA_MODULE_STR(PARZ_VERSION_MINOR) "." PARZ_CUDA_MODULE_STR(PARZ_VERSION_PATCH)

/* One line per parz_gpu.h function; the table's fields take their names and types from the
 * declarations in parz_gpu.h. A new function is added at the end, with its call in
 * cuda_loader.c. */
#define PARZ_CUDA_MODULE_FUNCTIONS(X) \
  X(parz_gpu_available)               \
  X(parz_gpu_context_create)          \
  X(parz_gpu_context_free)            \
  X(parz_gpu_decode_device)           \
  X(parz_gpu_decode_device_batch)     \
  X(parz_gpu_staging)                 \
  X(parz_gpu_assemble)                \
  X(parz_gpu_result)                  \
  X(parz_gpu_download)                \
  X(parz_gpu_malloc)                  \
  X(parz_gpu_free)                    \
  X(parz_gpu_chunk_decode)            \
  X(parz_gpu_encode_device)           \
  X(parz_gpu_encode_device_batch)     \
  X(parz_gpu_upload)                  \
  X(parz_gpu_encode_box)              \
  X(parz_gpu_check_memory)            \
  X(parz_gpu_chunk_encode)            \
  X(parz_gpu_populate_start)          \
  X(parz_gpu_populate_wait)

typedef struct parz_cuda_module {
  size_t size;         /* sizeof(parz_cuda_module) where the module was built */
  const char* version; /* PARZ_CUDA_MODULE_VERSION where the module was built */
#define PARZ_CUDA_MODULE_FIELD(name) __typeof__(name)* name;
  PARZ_CUDA_MODULE_FUNCTIONS(PARZ_CUDA_MODULE_FIELD)
#undef PARZ_CUDA_MODULE_FIELD
} parz_cuda_module;

typedef const parz_cuda_module* (*parz_cuda_module_entry)(void);

/* In programs that link the loader: NULL once the module is loaded (on the first call of this or
 * of any parz_gpu.h function), else why it is not, as one line. */
const char* parz_cuda_module_missing(void);

#ifdef __cplusplus
}
#endif

#endif
