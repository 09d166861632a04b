/* Execution-policy dispatch of one chunk: serial, OpenMP or CUDA, with fallbacks. */
#include "dispatch.h"

#include <stdio.h>

#include "exec_policy.h"
#include "parz_omp.h"

#ifdef PARZ_HAVE_CUDA
#include <pthread.h>

#include "cuda_module.h"
#include "parz_gpu.h"
#endif

/* auto mode: chunks that decode to at least this many bytes go to the GPU when one is usable,
 * to be decoded or encoded; smaller ones stay on the CPU, where the host-device copies and kernel
 * launches of the GPU path would dominate. 4 MiB is the smallest chunk size at which the CUDA
 * filter path reads every real array faster than OpenMP on all of a host's cores through H5Dread
 * (bench/results/h100/bench_h5read_box.md, bench/results/h200/bench_h5read_gpu.txt); smaller
 * chunks stay on the CPU because nothing shows the GPU wins there. */
#define PARZ_DISPATCH_GPU_MIN_BYTES ((size_t)4 * 1024 * 1024)

#ifdef PARZ_HAVE_CUDA
/* The GPU context is created lazily on the first chunk sent to the GPU and reused for the life
 * of the process, behind a mutex: HDF5 runs filters one at a time (its library lock), so one
 * context serves every caller without waiting, and device buffers are not duplicated per
 * thread. A context that failed is dropped and created again for the next chunk (a failure may
 * be transient, e.g. one chunk too large for device memory). */
static pthread_mutex_t gpu_lock = PTHREAD_MUTEX_INITIALIZER;
static parz_gpu_context* gpu_ctx;
static int gpu_usable = -1; /* -1 not asked yet, else parz_gpu_available()'s answer */

/* A process forked (without exec) from this one inherits the context's pointer but neither its
 * host copy threads nor a working CUDA runtime (CUDA does not survive fork): there the pointer is
 * dropped unfreed, the GPU counts as unusable and chunks are decoded on the CPU. The handlers
 * hold gpu_lock across the fork, so that the child never starts with it held by a thread it does
 * not have. */
static int gpu_forked; /* set in the child only */

static void gpu_fork_prepare(void) { pthread_mutex_lock(&gpu_lock); }
static void gpu_fork_parent(void) { pthread_mutex_unlock(&gpu_lock); }
static void gpu_fork_child(void) {
  gpu_ctx = NULL;
  gpu_usable = 0;
  gpu_forked = 1;
  pthread_mutex_unlock(&gpu_lock);
}

__attribute__((constructor)) static void gpu_watch_fork(void) {
  pthread_atfork(gpu_fork_prepare, gpu_fork_parent, gpu_fork_child);
}

static int gpu_is_usable(void) {
  int usable;
  pthread_mutex_lock(&gpu_lock);
  if (gpu_usable < 0)
    gpu_usable = parz_gpu_available() != 0;
  usable = gpu_usable;
  pthread_mutex_unlock(&gpu_lock);
  return usable;
}

/* The context's host copy threads wait inside this library between chunks; it must not be
 * unmapped under them (HDF5 unloads plugins when it shuts down, at exit or at H5close). So the
 * context goes when the library does. Its CUDA calls may then fail (the runtime may already be
 * gone), which parz_gpu_context_free ignores. */
__attribute__((destructor)) static void gpu_release(void) {
  pthread_mutex_lock(&gpu_lock);
  parz_gpu_context_free(gpu_ctx);
  gpu_ctx = NULL;
  pthread_mutex_unlock(&gpu_lock);
}

/* Why the CUDA module is not loaded, or NULL; a forked process that has not loaded it yet does
 * not try (NULL). */
static const char* gpu_module_missing(void) {
  return gpu_forked ? NULL : parz_cuda_module_missing();
}

int parz_dispatch_with_gpu(int (*fn)(parz_gpu_context* ctx, void* arg), void* arg,
                           parz_error* err) {
  int rc;
  const char* missing;
  if (!gpu_is_usable())
    return parz_fail(err, PARZ_ERR_DEVICE, "%s",
                     (missing = gpu_module_missing()) ? missing : "no usable CUDA GPU");
  pthread_mutex_lock(&gpu_lock);
  rc = gpu_ctx ? PARZ_OK : parz_gpu_context_create(&gpu_ctx, 0, err);
  if (rc == PARZ_OK)
    rc = fn(gpu_ctx, arg);
  if (rc == PARZ_ERR_DEVICE && gpu_ctx) {
    parz_gpu_context_free(gpu_ctx);
    gpu_ctx = NULL;
  }
  pthread_mutex_unlock(&gpu_lock);
  return rc;
}

/* One chunk's work on the GPU: parz_gpu_chunk_decode, or parz_gpu_chunk_encode where `array`
 * is set. */
struct chunk_job {
  const void* src; /* decode: the chunk; encode: the array */
  size_t src_bytes;
  void* dst; /* encode: NULL for a buffer from alloc */
  size_t dst_bytes;
  const parz_array* array;         /* encode only */
  const parz_chunk_config* config; /* encode only */
  size_t* written;                 /* encode only */
  parz_chunk_alloc alloc;          /* encode only */
  void* alloc_arg;
};

/* Errors other than the device's (a corrupt chunk, a bad parameter) are left to the CPU, whose
 * message is authoritative. */
static int chunk_on_gpu(parz_gpu_context* ctx, void* arg, parz_error* err) {
  struct chunk_job* j = (struct chunk_job*)arg;
  int rc = j->array ? parz_gpu_chunk_encode(ctx, j->array, j->src, j->config, j->dst, j->dst_bytes,
                                            j->alloc, j->alloc_arg, j->written, err)
                    : parz_gpu_chunk_decode(ctx, j->src, j->src_bytes, j->dst, j->dst_bytes, err);
  return rc == PARZ_OK || rc == PARZ_ERR_DEVICE ? rc : PARZ_ERR_UNSUPPORTED;
}

/* A parz_gpu_work with its error, as parz_dispatch_with_gpu runs it. */
struct gpu_call {
  parz_gpu_work work;
  void* arg;
  parz_error* err;
};

static int gpu_call_run(parz_gpu_context* ctx, void* arg) {
  struct gpu_call* c = (struct gpu_call*)arg;
  return c->work(ctx, c->arg, c->err);
}
#endif

int parz_dispatch_gpu_wanted(const parz_exec_policy* pol, size_t bytes, const char* what) {
#ifdef PARZ_HAVE_CUDA
  char msg[600];
  const char* missing;
  if (pol->exec != PARZ_EXEC_CUDA &&
      (pol->exec != PARZ_EXEC_AUTO || bytes < PARZ_DISPATCH_GPU_MIN_BYTES))
    return 0;
  if (gpu_is_usable())
    return 1;
  /* Under auto too: a build with the CUDA codec whose module cannot be loaded is a broken
   * install, said once. */
  if ((missing = gpu_module_missing())) {
    snprintf(msg, sizeof msg, "%s: %s on the CPU", missing, what);
    parz_warn_once(msg);
  } else if (pol->exec == PARZ_EXEC_CUDA) {
    if (gpu_forked)
      snprintf(msg, sizeof msg,
               "PARZ_EXEC=cuda in a forked process (CUDA does not survive fork): %s on the CPU",
               what);
    else
      snprintf(msg, sizeof msg, "PARZ_EXEC=cuda but no usable CUDA GPU: %s with OpenMP", what);
    parz_warn_once(msg);
  }
  return 0;
#else
  char msg[128];
  (void)bytes;
  if (pol->exec == PARZ_EXEC_CUDA) {
    snprintf(msg, sizeof msg, "PARZ_EXEC=cuda but this build has no CUDA support: %s with OpenMP",
             what);
    parz_warn_once(msg);
  }
  return 0;
#endif
}

int parz_dispatch_gpu_first(const parz_gpu_step* step, size_t bytes, parz_gpu_work gpu, void* arg,
                            int* threads, parz_error* err) {
  parz_exec_policy pol;
  parz_exec_policy_from_env(&pol);
  if (threads)
    *threads = parz_exec_cpu_threads(&pol);
  if (!parz_dispatch_gpu_wanted(&pol, bytes, step->work) || !gpu)
    return PARZ_ERR_UNSUPPORTED;
#ifdef PARZ_HAVE_CUDA
  {
    parz_error e = {0, ""};
    struct gpu_call c = {gpu, arg, &e};
    char msg[sizeof e.message + 64];
    const int rc = parz_dispatch_with_gpu(gpu_call_run, &c, &e);
    if (rc == PARZ_OK || rc == PARZ_ERR_UNSUPPORTED)
      return rc;
    if (rc != PARZ_ERR_DEVICE) {
      if (err)
        *err = e;
      return rc;
    }
    snprintf(msg, sizeof msg, "GPU %s failed (%s); %s on the CPU", step->step, e.message,
             step->fallback);
    parz_warn_once(msg);
  }
#else
  (void)arg;
  (void)err;
#endif
  return PARZ_ERR_UNSUPPORTED;
}

int parz_dispatch_cpu_threads(void) {
  parz_exec_policy pol;
  parz_exec_policy_from_env(&pol);
  return parz_exec_cpu_threads(&pol);
}

static const parz_gpu_step decoder_step = {"decoding", "decoder", "decoding"};
static const parz_gpu_step encoder_step = {"encoding", "encoder", "encoding"};

int parz_dispatch_decode_view(const parz_chunk_view* v, const void* src, size_t src_bytes,
                              void* dst, size_t dst_bytes, parz_error* err) {
  parz_chunk_dest d;
  int threads;
  if (!v || !dst || dst_bytes < v->raw_bytes)
    return parz_fail(err, PARZ_ERR_BUFFER, "chunk decodes to %zu bytes, buffer has %zu",
                     v ? v->raw_bytes : 0, dst ? dst_bytes : 0);
#ifdef PARZ_HAVE_CUDA
  {
    struct chunk_job j = {src, src_bytes, dst, dst_bytes, NULL, NULL, NULL, NULL, NULL};
    if (parz_dispatch_gpu_first(&decoder_step, v->raw_bytes, chunk_on_gpu, &j, &threads, NULL) ==
        PARZ_OK)
      return PARZ_OK;
  }
#else
  (void)src;
  (void)src_bytes;
  parz_dispatch_gpu_first(&decoder_step, v->raw_bytes, NULL, NULL, &threads, NULL);
#endif
  parz_chunk_dest_whole(v, dst, &d);
  return parz_omp_decode_chunks(1, v, &d, threads, NULL, err);
}

int parz_dispatch_decode(const void* src, size_t src_bytes, void* dst, size_t dst_bytes,
                         parz_error* err) {
  parz_chunk_view v;
  int rc = parz_chunk_parse(src, src_bytes, &v, err);
  return rc != PARZ_OK ? rc : parz_dispatch_decode_view(&v, src, src_bytes, dst, dst_bytes, err);
}

/* Into dst (dst_bytes) or, when dst is NULL, into a buffer from alloc (parz_dispatch_encode_alloc
 * says how large). */
static int encode_into(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                       void* dst, size_t dst_bytes, parz_chunk_alloc alloc, void* alloc_arg,
                       size_t* written, parz_error* err) {
  const size_t raw =
      parz_array_check(a, NULL) == PARZ_OK ? parz_array_count(a) * parz_type_size(a->type) : 0;
  int threads;
#ifdef PARZ_HAVE_CUDA
  struct chunk_job j = {data, raw, dst, dst_bytes, a, cfg, written, alloc, alloc_arg};
  if (parz_dispatch_gpu_first(&encoder_step, raw, chunk_on_gpu, &j, &threads, NULL) == PARZ_OK)
    return PARZ_OK;
#else
  parz_dispatch_gpu_first(&encoder_step, raw, NULL, NULL, &threads, NULL);
#endif
  if (!dst)
    return parz_omp_chunk_encode_alloc(a, data, cfg, alloc, alloc_arg, written, threads, err);
  if (threads == 1)
    return parz_chunk_encode(a, data, cfg, dst, dst_bytes, written, err);
  return parz_omp_chunk_encode(a, data, cfg, dst, dst_bytes, written, threads, err);
}

int parz_dispatch_encode(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                         void* dst, size_t dst_bytes, size_t* written, parz_error* err) {
  if (!dst)
    return parz_fail(err, PARZ_ERR_ARG, "parz_dispatch_encode: NULL buffer");
  return encode_into(a, data, cfg, dst, dst_bytes, NULL, NULL, written, err);
}

int parz_dispatch_encode_alloc(const parz_array* a, const void* data, const parz_chunk_config* cfg,
                               parz_chunk_alloc alloc, void* alloc_arg, size_t* written,
                               parz_error* err) {
  if (!alloc)
    return parz_fail(err, PARZ_ERR_ARG, "parz_dispatch_encode_alloc: NULL allocator");
  return encode_into(a, data, cfg, NULL, 0, alloc, alloc_arg, written, err);
}

void parz_dispatch_backends(int* openmp, int* cuda, int* gpu) {
  *openmp = parz_omp_enabled() != 0;
#ifdef PARZ_HAVE_CUDA
  *gpu = gpu_is_usable();
  *cuda = !gpu_forked && !parz_cuda_module_missing();
#else
  *cuda = 0;
  *gpu = 0;
#endif
}
