/* The ParZ HDF5 filter: class, can_apply, set_local, filter function and plugin entry points.
 *
 * This module is loaded by HDF5 with dlopen and does not link libhdf5: every HDF5 function and
 * identifier comes from the HDF5 library that loaded it (h5_api.h), so one build serves serial
 * and parallel HDF5, and h5py, which keeps libhdf5 out of the global symbol scope.
 * All rules about cd_values live in filter_config.c; this file only talks to HDF5.
 *
 * Errors go onto the HDF5 error stack (h5py shows the innermost message in its exception).
 * can_apply and set_local return -1 rather than 0 on refusal: h5py marks filters optional,
 * and HDF5 silently skips an optional filter whose can_apply returns 0. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dl_iterate_phdr */
#endif
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <H5PLextern.h>
#include <hdf5.h>

#include "H5Zparz_register.h"
#include "filter_config.h"
#include "filter_exec.h"
#include "filter_keep.h"
#include "h5_api.h"
#include "h5_dataset.h"

/* The public header's mode numbers are parz_mode's (the numbers files store). */
typedef char parz_public_modes_agree[(H5Z_PARZ_MODE_RATE == PARZ_MODE_RATE &&
                                      H5Z_PARZ_MODE_PRECISION == PARZ_MODE_PRECISION &&
                                      H5Z_PARZ_MODE_ACCURACY == PARZ_MODE_ACCURACY &&
                                      H5Z_PARZ_MODE_EXPERT == PARZ_MODE_EXPERT &&
                                      H5Z_PARZ_MODE_REVERSIBLE == PARZ_MODE_REVERSIBLE)
                                         ? 1
                                         : -1];
#include "huge_pages.h"

#define PARZ_EXPORT __attribute__((visibility("default")))

/* Whether the netCDF library is loaded in this process (nccopy, ncdump, netCDF4-python, GDAL):
 * libnetcdf.so.N, or libnetcdf-HASH.so.N as wheels bundle it. */
static int netcdf_object(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  (void)data;
  const char* slash = strrchr(info->dlpi_name, '/');
  const char* base = slash ? slash + 1 : info->dlpi_name;
  return strncmp(base, "libnetcdf", 9) == 0 && (base[9] == '.' || base[9] == '-');
}

/* Whether nobody will show a message pushed onto the error stack now: netCDF turns HDF5's
 * automatic error printing off and reports every HDF5 failure as "NetCDF: HDF error", without
 * reading the stack. h5py, PyTables and the parz tool turn the printing off too but read the
 * stack (h5py puts the innermost message into its exception), so printing off alone does not
 * say it; netCDF loaded in the process does. */
static int stack_unread(const parz_h5_api* h5) {
  H5E_auto2_t func = NULL;
  void* data = NULL;
  /* netCDF first: HDF5 1.10's H5Eget_auto2 clears the stack, which only a process that reads
   * the stack could miss, and such a process asks nothing of HDF5 here. */
  if (!dl_iterate_phdr(netcdf_object, NULL))
    return 0;
  return h5->H5Eget_auto2 && h5->H5Eget_auto2(H5E_DEFAULT, &func, &data) >= 0 && !func;
}

/* chunk: called while HDF5 runs the filter function on a chunk, whose pushed errors some HDF5
 * versions drop (h5_api.h). Where the stack is dropped or unread, the message goes to stderr
 * too, or nobody would see it. */
static void push_error(const char* func, int line, hid_t minor, const char* message, int chunk) {
  const parz_h5_api* h5 = parz_h5();
  /* asked before the push: HDF5 1.10's H5Eget_auto2, like its other API calls, clears the stack */
  int echo = (chunk && h5->chunk_errors_dropped) || stack_unread(h5);
  h5->H5Epush2(H5E_DEFAULT, __FILE__, func, (unsigned)line, h5->err_class, h5->err_major, minor,
               "%s", message);
  if (echo)
    fprintf(stderr, "HDF5 filter ParZ: %s\n", message);
}
#define PUSH(minor, message) push_error(__func__, __LINE__, (minor), (message), 0)
#define CHUNK_PUSH(minor, message) push_error(__func__, __LINE__, (minor), (message), 1)

static void push_status(const char* func, int line, hid_t minor, const char* what,
                        const parz_error* e) {
  char msg[400];
  snprintf(msg, sizeof msg, "parz: %s: %s (%s)", what, e->message, parz_status_name(e->code));
  push_error(func, line, minor, msg, 1);
}
/* Only the filter function reports a parz_error. */
#define CHUNK_PUSH_STATUS(minor, what, e) push_status(__func__, __LINE__, (minor), (what), (e))

/* ---- callbacks ---------------------------------------------------------------------------- */

static htri_t parz_can_apply(hid_t dcpl_id, hid_t type_id, hid_t space_id) {
  (void)space_id;
  char why[256];
  parz_type type;
  int big_endian;
  size_t shape[4];
  if (parz_h5_classify_type(type_id, &type, &big_endian, why, sizeof why) < 0) {
    PUSH(parz_h5()->err_apply, why);
    return -1;
  }
  if (parz_h5_chunk_shape(dcpl_id, shape, why, sizeof why) < 0 ||
      parz_h5_check_pipeline(dcpl_id, why, sizeof why) < 0) {
    PUSH(parz_h5()->err_apply, why);
    return -1;
  }
  return 1;
}

/* The dataset's fill value when the user set one (netCDF-4's _FillValue does): 1 and its bit
 * pattern as the codec sees values (little-endian; big-endian datasets are swapped around the
 * codec), else 0. HDF5 gives it in the dataset's type, big-endian or not. */
static int dataset_fill(hid_t dcpl_id, hid_t type_id, parz_type type, int big_endian,
                        uint64_t* bits) {
  const parz_h5_api* h5 = parz_h5();
  H5D_fill_value_t status;
  unsigned char v[8] = {0};
  size_t size = parz_type_size(type), i;
  if (h5->H5Pfill_value_defined(dcpl_id, &status) < 0 || status != H5D_FILL_VALUE_USER_DEFINED ||
      h5->H5Pget_fill_value(dcpl_id, type_id, v) < 0)
    return 0;
  *bits = 0;
  for (i = 0; i < size; i++) /* byte i of the value, little-endian (as the codec sees it) */
    *bits |= (uint64_t)v[big_endian ? size - 1 - i : i] << (8 * i);
  return 1;
}

static herr_t parz_set_local(hid_t dcpl_id, hid_t type_id, hid_t space_id) {
  (void)space_id;
  char why[256];
  unsigned flags = 0;
  size_t n = PARZ_CD_INTERNAL_NELMTS + 8;
  unsigned cd[PARZ_CD_INTERNAL_NELMTS + 8];
  if (parz_h5()->H5Pget_filter_by_id2(dcpl_id, H5Z_FILTER_PARZ, &flags, &n, cd, 0, NULL, NULL) <
      0) {
    PUSH(parz_h5()->err_apply, "parz: cannot read the filter's cd_values");
    return -1;
  }
  if (n > PARZ_CD_INTERNAL_NELMTS + 8) {
    snprintf(why, sizeof why, "parz: %zu cd_values, far more than any ParZ layout uses", n);
    PUSH(parz_h5()->err_param, why);
    return -1;
  }
  parz_error e = {0, ""};
  parz_filter_request req;
  if (parz_cd_parse_request(n, cd, &req, &e) != PARZ_OK) {
    PUSH(parz_h5()->err_param, e.message);
    return -1;
  }
  parz_type type;
  int big_endian;
  size_t shape[4];
  int dims;
  if (parz_h5_classify_type(type_id, &type, &big_endian, why, sizeof why) < 0 ||
      (dims = parz_h5_chunk_shape(dcpl_id, shape, why, sizeof why)) < 0) {
    PUSH(parz_h5()->err_apply, why);
    return -1;
  }
  uint64_t fill;
  if (dataset_fill(dcpl_id, type_id, type, big_endian, &fill))
    parz_cd_dataset_fill(&req, type, fill);
  parz_filter_config cfg;
  if (parz_cd_configure(&req, type, big_endian, (unsigned)dims, shape, &cfg, &e) != PARZ_OK) {
    if (strncmp(e.message, "parz", 4) != 0) { /* a codec setter's message */
      snprintf(why, sizeof why, "parz: invalid parameters: %s", e.message);
      PUSH(parz_h5()->err_param, why);
    } else {
      PUSH(parz_h5()->err_param, e.message);
    }
    return -1;
  }
  unsigned stored[PARZ_CD_INTERNAL_NELMTS];
  parz_cd_store(&cfg, stored);
  if (parz_h5()->H5Pmodify_filter(dcpl_id, H5Z_FILTER_PARZ, flags, PARZ_CD_INTERNAL_NELMTS,
                                  stored) < 0) {
    PUSH(parz_h5()->err_apply, "parz: cannot store the filter's cd_values");
    return -1;
  }
  return 0;
}

/* Reverses the bytes of every value in place (values of `size` bytes). */
static void swap_bytes(unsigned char* p, size_t bytes, size_t size) {
  for (size_t i = 0; i + size <= bytes; i += size)
    for (size_t a = i, b = i + size - 1; a < b; a++, b--) {
      unsigned char t = p[a];
      p[a] = p[b];
      p[b] = t;
    }
}

/* Every buffer the filter hands HDF5 holds at least the dataset's whole chunk (its decoded
 * size), and *buf_size says how much it holds. HDF5 reuses the buffer a filter returns: its
 * object copy (H5Ocopy, as h5py's Group.copy, h5copy and h5repack call it; H5D__chunk_copy_cb in
 * 1.10 to 2.x) keeps one buffer for every chunk of the dataset, grows it only where a chunk's
 * stored size exceeds *buf_size, and copies a chunk that sits in the open dataset's chunk cache
 * into it at its decoded size before running the filter on it. A returned buffer of only the
 * compressed size would take the next cached chunk past its end. So the encoded chunk goes back
 * into the buffer HDF5 gave (it holds the decoded chunk: at least that size) wherever it fits,
 * and only a chunk larger than that buffer gets a buffer of its own; the decoder returns a
 * buffer of the decoded size, checked against the dataset. */

/* The compressed chunk's buffer, from HDF5's allocator: the size asked for, the chunk's own on
 * the GPU. A second request (the GPU failed, the CPU encodes) replaces the first. */
struct chunk_buffer {
  void* ptr;
  size_t bytes;
};

static void* chunk_alloc(void* arg, size_t bytes) {
  struct chunk_buffer* b = (struct chunk_buffer*)arg;
  if (b->ptr)
    parz_h5()->H5free_memory(b->ptr);
  b->ptr = parz_h5()->H5allocate_memory(bytes ? bytes : 1, 0);
  b->bytes = b->ptr ? bytes : 0;
  return b->ptr;
}

static size_t filter_encode(const parz_filter_config* cfg, size_t nbytes, size_t* buf_size,
                            void** buf) {
  parz_error e = {0, ""};
  size_t raw = parz_array_count(&cfg->chunk) * parz_type_size(cfg->chunk.type);
  if (nbytes != raw) {
    char msg[200];
    snprintf(msg, sizeof msg, "parz: chunk of %zu bytes, the dataset's chunk shape needs %zu",
             nbytes, raw);
    CHUNK_PUSH(parz_h5()->err_encode, msg);
    return 0;
  }
  const void* in = *buf;
  unsigned char* swapped = NULL;
  if (cfg->big_endian) {
    swapped = malloc(raw);
    if (!swapped) {
      CHUNK_PUSH(parz_h5()->err_memory, "parz: out of memory swapping a big-endian chunk");
      return 0;
    }
    memcpy(swapped, in, raw);
    swap_bytes(swapped, raw, parz_type_size(cfg->chunk.type));
    in = swapped;
  }
  struct chunk_buffer out = {NULL, 0};
  size_t written = 0;
  parz_chunk_config config = cfg->config;
  config.keep = parz_filter_keep();
  int rc = parz_filter_exec_encode(&cfg->chunk, in, &config, chunk_alloc, &out, &written, &e);
  free(swapped);
  if (rc != PARZ_OK) {
    if (rc == PARZ_ERR_NOMEM)
      CHUNK_PUSH_STATUS(parz_h5()->err_memory, "cannot allocate the compressed chunk", &e);
    else
      CHUNK_PUSH_STATUS(parz_h5()->err_encode, "cannot encode chunk", &e);
    if (out.ptr)
      parz_h5()->H5free_memory(out.ptr);
    return 0;
  }
  if (written <= *buf_size) {
    memcpy(*buf, out.ptr, written);
    parz_h5()->H5free_memory(out.ptr);
    return written;
  }
  parz_h5()->H5free_memory(*buf);
  *buf = out.ptr;
  *buf_size = out.bytes;
  return written;
}

static size_t filter_decode(const parz_filter_config* cfg, size_t cd_nelmts,
                            const unsigned cd_values[], size_t nbytes, size_t* buf_size,
                            void** buf) {
  parz_error e = {0, ""};
  parz_chunk_view view;
  if (parz_chunk_parse(*buf, nbytes, &view, &e) != PARZ_OK) {
    CHUNK_PUSH_STATUS(parz_h5()->err_decode, "cannot read chunk", &e);
    return 0;
  }
  /* The chunk describes itself; a chunk that disagrees with the dataset is foreign (copied from
   * another dataset by raw chunk writes) or corrupt, and decoding it would scramble values. */
  int same = view.array.type == cfg->chunk.type && view.array.dims == cfg->chunk.dims;
  for (unsigned i = 0; same && i < cfg->chunk.dims; i++)
    same = view.array.shape[i] == cfg->chunk.shape[i];
  if (!same) {
    char msg[300];
    snprintf(msg, sizeof msg,
             "parz: chunk header (type %d, rank %u, shape %zux%zux%zux%zu) does not match the "
             "dataset (type %d, rank %u, shape %zux%zux%zux%zu)",
             (int)view.array.type, view.array.dims, view.array.shape[0], view.array.shape[1],
             view.array.shape[2], view.array.shape[3], (int)cfg->chunk.type, cfg->chunk.dims,
             cfg->chunk.shape[0], cfg->chunk.shape[1], cfg->chunk.shape[2], cfg->chunk.shape[3]);
    CHUNK_PUSH(parz_h5()->err_decode, msg);
    return 0;
  }
  /* The chunk agrees with the cd_values; now the cd_values must agree with the dataset, whose
   * chunk size HDF5 copies out of the buffer returned here (h5_dataset.h). */
  char why[300];
  if (parz_h5_check_open_datasets(cd_nelmts, cd_values, why, sizeof why) < 0) {
    CHUNK_PUSH(parz_h5()->err_decode, why);
    return 0;
  }
  void* out = parz_h5()->H5allocate_memory(view.raw_bytes, 0);
  if (!out) {
    CHUNK_PUSH(parz_h5()->err_memory, "parz: cannot allocate the decoded chunk");
    return 0;
  }
  /* a new large block is mapped afresh on every chunk: huge pages fault it in 512 times less
   * often (huge_pages.h) */
  parz_advise_huge_pages(out, view.raw_bytes);
  view.keep = parz_filter_keep();
  if (parz_filter_exec_decode(&view, *buf, nbytes, out, view.raw_bytes, &e) != PARZ_OK) {
    CHUNK_PUSH_STATUS(parz_h5()->err_decode, "cannot decode chunk", &e);
    parz_h5()->H5free_memory(out);
    return 0;
  }
  if (cfg->big_endian)
    swap_bytes(out, view.raw_bytes, parz_type_size(cfg->chunk.type));
  parz_h5()->H5free_memory(*buf);
  *buf = out;
  *buf_size = view.raw_bytes;
  return view.raw_bytes;
}

static size_t parz_filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[],
                          size_t nbytes, size_t* buf_size, void** buf) {
  parz_error e = {0, ""};
  parz_filter_config cfg;
  if (parz_cd_load(cd_nelmts, cd_values, &cfg, &e) != PARZ_OK) {
    CHUNK_PUSH(parz_h5()->err_param, e.message);
    return 0;
  }
  if (flags & H5Z_FLAG_REVERSE)
    return filter_decode(&cfg, cd_nelmts, cd_values, nbytes, buf_size, buf);
  return filter_encode(&cfg, nbytes, buf_size, buf);
}

/* ---- plugin entry points ------------------------------------------------------------------ */

#define PARZ_STRINGIFY_(x) #x
#define PARZ_STRINGIFY(x) PARZ_STRINGIFY_(x)
/* What HDF5 stores with the filter in each file and its tools show: version, stream, format. */
#define PARZ_FILTER_NAME \
  H5Z_PARZ_NAME " (zfp-1.0 stream, format " PARZ_STRINGIFY(PARZ_CHUNK_FORMAT_VERSION) ")"

static const H5Z_class2_t parz_filter_class = {
    H5Z_CLASS_T_VERS,
    (H5Z_filter_t)H5Z_FILTER_PARZ,
    1,
    1,
    PARZ_FILTER_NAME,
    parz_can_apply,
    parz_set_local,
    parz_filter,
};

PARZ_EXPORT H5PL_type_t H5PLget_plugin_type(void) { return H5PL_TYPE_FILTER; }
/* HDF5 calls this right after loading the module: the caller is HDF5 itself, the library in
 * which h5_api.c looks up everything else. Returning NULL makes HDF5 refuse the plugin. */
PARZ_EXPORT const void* H5PLget_plugin_info(void) {
  char why[200];
  if (parz_h5_api_load(__builtin_return_address(0), why, sizeof why) != 0) {
    fprintf(stderr, "%s\n", why);
    return NULL;
  }
  parz_h5_forget_datasets();
  return &parz_filter_class;
}

/* ---- entry points for programs that load the module themselves (H5Zparz.h) ---------------- */

/* The filter registered in-process, without HDF5's plugin search: Python's `import parz` passes
 * an address inside h5py's HDF5, H5Z_parz_register that of the program's H5Zregister. The
 * function table is bound to that library first, so every later call into this module (the
 * callbacks, dataset readers given that library's identifiers) uses it. */
PARZ_EXPORT int parz_h5_register(const void* hdf5_function, char* why, size_t why_size) {
  char local[300];
  if (!why || why_size == 0) {
    why = local;
    why_size = sizeof local;
  }
  why[0] = 0;
  if (!hdf5_function) {
    snprintf(why, why_size, "parz: parz_h5_register needs the address of an HDF5 function");
    return -1;
  }
  if (parz_h5_api_load(hdf5_function, why, why_size) != 0)
    return -1;
  if (parz_h5()->H5Zregister(&parz_filter_class) < 0) {
    snprintf(why, why_size, "parz: H5Zregister refused the ParZ filter");
    return -1;
  }
  return 0;
}

/* The codecs and modes of this build (parz_cd_codec_table), for the Python package. */
PARZ_EXPORT size_t parz_h5_codecs(char* out, size_t size) { return parz_cd_codec_table(out, size); }

/* 0 when user cd_values name a codec and mode of this build with values it takes (whatever the
 * dataset's table settings); else -1 with the reason in why. */
PARZ_EXPORT int parz_h5_cd_check(size_t n, const unsigned* cd, char* why, size_t why_size) {
  parz_filter_request req;
  parz_error e = {0, ""};
  if (parz_cd_parse_request(n, cd, &req, &e) == PARZ_OK && parz_cd_check_mode(&req, &e) == PARZ_OK)
    return 0;
  snprintf(why, why_size, "%s%s", strncmp(e.message, "parz", 4) ? "parz: " : "", e.message);
  return -1;
}

PARZ_EXPORT void parz_h5_config(H5Z_parz_config* config) {
  memset(config, 0, sizeof *config);
  config->version_major = PARZ_VERSION_MAJOR;
  config->version_minor = PARZ_VERSION_MINOR;
  config->version_patch = PARZ_VERSION_PATCH;
#ifdef PARZ_HAVE_DISPATCH
  parz_dispatch_backends(&config->openmp, &config->cuda, &config->gpu);
#endif
}
