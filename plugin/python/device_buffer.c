/* GPU memory handed to Python (parz.read(device="cuda")): device allocations counted by
 * reference, and their export as DLPack tensors (the DLPack 1.0 ABI, unversioned and versioned).
 *
 * Python's parz.CudaArray holds one reference; every DLPack tensor made from it holds another,
 * released by the tensor's deleter, which the consumer (PyTorch, CuPy) may call from any thread
 * at any time, after the Python object is gone: so the tensors and their deleters live here, in
 * C, and the memory goes with the last reference. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parz_gpu.h"

#define PARZ_H5_EXPORT __attribute__((visibility("default")))

/* ---- the DLPack ABI (dlpack.h, version 1.0): field for field ------------------------------- */

typedef struct {
  uint32_t major, minor;
} dl_version;

typedef struct {
  int32_t device_type; /* kDLCUDA = 2 */
  int32_t device_id;
} dl_device;

typedef struct {
  uint8_t code; /* kDLInt = 0, kDLFloat = 2 */
  uint8_t bits;
  uint16_t lanes;
} dl_dtype;

typedef struct {
  void* data;
  dl_device device;
  int32_t ndim;
  dl_dtype dtype;
  int64_t* shape;
  int64_t* strides; /* in elements */
  uint64_t byte_offset;
} dl_tensor;

typedef struct dl_managed {
  dl_tensor tensor;
  void* manager_ctx;
  void (*deleter)(struct dl_managed* self);
} dl_managed;

typedef struct dl_managed_versioned {
  dl_version version;
  void* manager_ctx;
  void (*deleter)(struct dl_managed_versioned* self);
  uint64_t flags;
  dl_tensor tensor;
} dl_managed_versioned;

#define KDL_CUDA 2
#define DL_MAX_RANK 32

/* ---- buffers ------------------------------------------------------------------------------- */

typedef struct {
  void* data;
  int device;
  int refs; /* atomic */
} device_buffer;

static void retain(device_buffer* b) { __atomic_add_fetch(&b->refs, 1, __ATOMIC_RELAXED); }

PARZ_H5_EXPORT void parz_h5_device_release(void* handle) {
  device_buffer* b = (device_buffer*)handle;
  if (b && __atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL) == 0) {
    parz_gpu_free(b->device, b->data);
    free(b);
  }
}

/* A new buffer of `bytes` on GPU 0 (the device of the library's context, parz_h5_read_cuda),
 * holding one reference; NULL and a message on failure. */
PARZ_H5_EXPORT void* parz_h5_device_alloc(size_t bytes, void** data, int* device, parz_error* err) {
  device_buffer* b = (device_buffer*)calloc(1, sizeof *b);
  if (!b) {
    parz_fail(err, PARZ_ERR_NOMEM, "no memory");
    return NULL;
  }
  b->device = 0;
  b->refs = 1;
  if (!(b->data = parz_gpu_malloc(b->device, bytes, err))) {
    free(b);
    return NULL;
  }
  *data = b->data;
  *device = b->device;
  return b;
}

/* ---- DLPack export ------------------------------------------------------------------------- */

/* A tensor with its shape and strides in one allocation. */
typedef struct {
  union {
    dl_managed legacy;
    dl_managed_versioned versioned;
  } m;
  int64_t shape[DL_MAX_RANK], strides[DL_MAX_RANK];
} export_block;

static void delete_legacy(dl_managed* self) {
  parz_h5_device_release(self->manager_ctx);
  free(self);
}

static void delete_versioned(dl_managed_versioned* self) {
  parz_h5_device_release(self->manager_ctx);
  free(self);
}

/* A DLPack tensor (versioned: DLManagedTensorVersioned, else DLManagedTensor) over the whole
 * buffer, C-contiguous, holding a reference that its deleter releases; NULL on failure. */
PARZ_H5_EXPORT void* parz_h5_dlpack(void* handle, int ndim, const int64_t* shape, int code,
                                    int bits, int versioned, parz_error* err) {
  device_buffer* b = (device_buffer*)handle;
  export_block* x;
  dl_tensor* t;
  int64_t run = 1;
  int k;
  if (!b || ndim < 0 || ndim > DL_MAX_RANK || (ndim && !shape)) {
    parz_fail(err, PARZ_ERR_ARG, "parz_h5_dlpack: bad arguments");
    return NULL;
  }
  if (!(x = (export_block*)calloc(1, sizeof *x))) {
    parz_fail(err, PARZ_ERR_NOMEM, "no memory");
    return NULL;
  }
  for (k = ndim - 1; k >= 0; k--) {
    x->shape[k] = shape[k];
    x->strides[k] = run;
    run *= shape[k];
  }
  if (versioned) {
    x->m.versioned.version.major = 1;
    x->m.versioned.version.minor = 0;
    x->m.versioned.manager_ctx = b;
    x->m.versioned.deleter = delete_versioned;
    t = &x->m.versioned.tensor;
  } else {
    x->m.legacy.manager_ctx = b;
    x->m.legacy.deleter = delete_legacy;
    t = &x->m.legacy.tensor;
  }
  t->data = b->data;
  t->device.device_type = KDL_CUDA;
  t->device.device_id = b->device;
  t->ndim = ndim;
  t->dtype.code = (uint8_t)code;
  t->dtype.bits = (uint8_t)bits;
  t->dtype.lanes = 1;
  t->shape = x->shape;
  t->strides = x->strides;
  retain(b);
  return x;
}

/* Deletes a tensor nobody consumed (its capsule is going away unused). */
PARZ_H5_EXPORT void parz_h5_dlpack_free(void* tensor, int versioned) {
  if (!tensor)
    return;
  if (versioned)
    ((dl_managed_versioned*)tensor)->deleter((dl_managed_versioned*)tensor);
  else
    ((dl_managed*)tensor)->deleter((dl_managed*)tensor);
}
