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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <H5PLextern.h>
#include <hdf5.h>

#include "H5Zparz.h"
#include "filter_config.h"
#include "filter_exec.h"
#include "h5_api.h"

#define PARZ_EXPORT __attribute__((visibility("default")))

/* HDF5 allows at most 32 dimensions. */
#define PARZ_H5_MAX_RANK 32

static void push_error(const char* func, int line, hid_t minor, const char* message) {
  const parz_h5_api* h5 = parz_h5();
  h5->H5Epush2(H5E_DEFAULT, __FILE__, func, (unsigned)line, h5->err_class, h5->err_major, minor,
               "%s", message);
}
#define PUSH(minor, message) push_error(__func__, __LINE__, (minor), (message))

static void push_status(const char* func, int line, hid_t minor, const char* what,
                        const parz_error* e) {
  char msg[400];
  snprintf(msg, sizeof msg, "parz: %s: %s (%s)", what, e->message, parz_status_name(e->code));
  push_error(func, line, minor, msg);
}
#define PUSH_STATUS(minor, what, e) push_status(__func__, __LINE__, (minor), (what), (e))

/* ---- dataset type and chunk shape --------------------------------------------------------- */

static const char* class_name(H5T_class_t c) {
  switch (c) {
    case H5T_INTEGER: return "integer";
    case H5T_FLOAT: return "floating-point";
    case H5T_TIME: return "time";
    case H5T_STRING: return "string";
    case H5T_BITFIELD: return "bitfield";
    case H5T_OPAQUE: return "opaque";
    case H5T_COMPOUND: return "compound";
    case H5T_REFERENCE: return "reference";
    case H5T_ENUM: return "enum";
    case H5T_VLEN: return "variable-length";
    case H5T_ARRAY: return "array";
    default: return "unknown";
  }
}

/* Accepts exactly IEEE binary32/binary64 and 32/64-bit two's complement integers, either byte
 * order (big-endian values are swapped around the codec). Anything else gets a message.
 * Types are compared by their properties (h5_api.h says why not with H5T_IEEE_F32LE). */
static int classify_type(hid_t type_id, parz_type* type, int* big_endian, char* why,
                         size_t why_size) {
  const parz_h5_api* h5 = parz_h5();
  /* Property queries that do not apply to a class push HDF5 errors of their own, which h5py
   * would show instead of ours: ask them only of integer and floating-point types. */
  H5T_class_t cls = h5->H5Tget_class(type_id);
  size_t size = h5->H5Tget_size(type_id);
  int numeric = cls == H5T_FLOAT || cls == H5T_INTEGER;
  H5T_order_t order = numeric ? h5->H5Tget_order(type_id) : H5T_ORDER_NONE;
  int whole = numeric && (size == 4 || size == 8) && h5->H5Tget_precision(type_id) == 8 * size &&
              h5->H5Tget_offset(type_id) == 0 && (order == H5T_ORDER_LE || order == H5T_ORDER_BE);
  if (cls == H5T_FLOAT && whole) {
    size_t spos, epos, esize, mpos, msize;
    int ieee = h5->H5Tget_fields(type_id, &spos, &epos, &esize, &mpos, &msize) >= 0 &&
               h5->H5Tget_norm(type_id) == H5T_NORM_IMPLIED && mpos == 0 &&
               (size == 4 ? spos == 31 && epos == 23 && esize == 8 && msize == 23 &&
                                h5->H5Tget_ebias(type_id) == 127
                          : spos == 63 && epos == 52 && esize == 11 && msize == 52 &&
                                h5->H5Tget_ebias(type_id) == 1023);
    if (ieee) {
      *type = size == 4 ? PARZ_FLOAT : PARZ_DOUBLE;
      *big_endian = order == H5T_ORDER_BE;
      return 0;
    }
  }
  if (cls == H5T_INTEGER && whole && h5->H5Tget_sign(type_id) == H5T_SGN_2) {
    *type = size == 4 ? PARZ_INT32 : PARZ_INT64;
    *big_endian = order == H5T_ORDER_BE;
    return 0;
  }
  if (cls == H5T_INTEGER && h5->H5Tget_sign(type_id) == H5T_SGN_NONE)
    snprintf(why, why_size,
             "parz: unsigned %zu-byte integer datasets are not supported (float32, float64, "
             "int32 and int64 only)", size);
  else
    snprintf(why, why_size,
             "parz: %s datasets of %zu bytes are not supported (float32, float64, int32 and "
             "int64 only, IEEE / two's complement)", class_name(cls), size);
  return -1;
}

/* Reads the chunk shape and squeezes unit dimensions; returns the squeezed rank or -1. */
static int chunk_shape(hid_t dcpl_id, size_t shape[4], char* why, size_t why_size) {
  const parz_h5_api* h5 = parz_h5();
  if (h5->H5Pget_layout(dcpl_id) != H5D_CHUNKED) {
    snprintf(why, why_size, "parz: the dataset must use chunked layout (set chunks)");
    return -1;
  }
  hsize_t dims[PARZ_H5_MAX_RANK];
  int rank = h5->H5Pget_chunk(dcpl_id, PARZ_H5_MAX_RANK, dims);
  if (rank < 1) {
    snprintf(why, why_size, "parz: cannot read the chunk dimensions");
    return -1;
  }
  uint64_t d64[PARZ_H5_MAX_RANK];
  for (int i = 0; i < rank; i++) d64[i] = dims[i];
  int d = parz_cd_squeeze((unsigned)rank, d64, shape);
  if (d < 0)
    snprintf(why, why_size,
             "parz: the chunk has more than 4 dimensions larger than 1; make the extra chunk "
             "dimensions 1");
  return d;
}

/* ---- callbacks ---------------------------------------------------------------------------- */

static htri_t parz_can_apply(hid_t dcpl_id, hid_t type_id, hid_t space_id) {
  (void)space_id;
  char why[256];
  parz_type type;
  int big_endian;
  size_t shape[4];
  if (classify_type(type_id, &type, &big_endian, why, sizeof why) < 0) {
    PUSH(parz_h5()->err_apply, why);
    return -1;
  }
  if (chunk_shape(dcpl_id, shape, why, sizeof why) < 0) {
    PUSH(parz_h5()->err_apply, why);
    return -1;
  }
  return 1;
}

static herr_t parz_set_local(hid_t dcpl_id, hid_t type_id, hid_t space_id) {
  (void)space_id;
  char why[256];
  unsigned flags = 0;
  size_t n = PARZ_CD_INTERNAL_NELMTS + 8;
  unsigned cd[PARZ_CD_INTERNAL_NELMTS + 8];
  if (parz_h5()->H5Pget_filter_by_id2(dcpl_id, H5Z_FILTER_PARZ, &flags, &n, cd, 0, NULL, NULL) < 0) {
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
  if (classify_type(type_id, &type, &big_endian, why, sizeof why) < 0 ||
      (dims = chunk_shape(dcpl_id, shape, why, sizeof why)) < 0) {
    PUSH(parz_h5()->err_apply, why);
    return -1;
  }
  parz_filter_config cfg;
  if (parz_cd_configure(&req, type, big_endian, (unsigned)dims, shape, &cfg, &e) != PARZ_OK) {
    if (strncmp(e.message, "parz", 4) != 0) {  /* a codec setter's message */
      snprintf(why, sizeof why, "parz: invalid parameters: %s", e.message);
      PUSH(parz_h5()->err_param, why);
    } else {
      PUSH(parz_h5()->err_param, e.message);
    }
    return -1;
  }
  unsigned stored[PARZ_CD_INTERNAL_NELMTS];
  parz_cd_store(&cfg, stored);
  if (parz_h5()->H5Pmodify_filter(dcpl_id, H5Z_FILTER_PARZ, flags, PARZ_CD_INTERNAL_NELMTS, stored) < 0) {
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

static size_t filter_encode(const parz_filter_config* cfg, size_t nbytes, size_t* buf_size,
                            void** buf) {
  parz_error e = {0, ""};
  size_t raw = parz_array_count(&cfg->chunk) * parz_type_size(cfg->chunk.type);
  if (nbytes != raw) {
    char msg[200];
    snprintf(msg, sizeof msg, "parz: chunk of %zu bytes, the dataset's chunk shape needs %zu",
             nbytes, raw);
    PUSH(parz_h5()->err_encode, msg);
    return 0;
  }
  const void* in = *buf;
  unsigned char* swapped = NULL;
  if (cfg->big_endian) {
    swapped = malloc(raw);
    if (!swapped) {
      PUSH(parz_h5()->err_memory, "parz: out of memory swapping a big-endian chunk");
      return 0;
    }
    memcpy(swapped, in, raw);
    swap_bytes(swapped, raw, parz_type_size(cfg->chunk.type));
    in = swapped;
  }
  size_t bound = parz_chunk_bound_data(&cfg->chunk, in, &cfg->config);
  void* out = bound ? parz_h5()->H5allocate_memory(bound, 0) : NULL;
  size_t written = 0;
  if (!out) {
    PUSH(parz_h5()->err_memory, "parz: cannot allocate the compressed chunk");
  } else if (parz_filter_exec_encode(&cfg->chunk, in, &cfg->config, out, bound, &written, &e) !=
             PARZ_OK) {
    PUSH_STATUS(parz_h5()->err_encode, "cannot encode chunk", &e);
    parz_h5()->H5free_memory(out);
    out = NULL;
  }
  free(swapped);
  if (!out) return 0;
  parz_h5()->H5free_memory(*buf);
  *buf = out;
  *buf_size = bound;
  return written;
}

static size_t filter_decode(const parz_filter_config* cfg, size_t nbytes, size_t* buf_size,
                            void** buf) {
  parz_error e = {0, ""};
  parz_chunk_view view;
  if (parz_chunk_parse(*buf, nbytes, &view, &e) != PARZ_OK) {
    PUSH_STATUS(parz_h5()->err_decode, "cannot read chunk", &e);
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
             cfg->chunk.shape[0], cfg->chunk.shape[1], cfg->chunk.shape[2],
             cfg->chunk.shape[3]);
    PUSH(parz_h5()->err_decode, msg);
    return 0;
  }
  void* out = parz_h5()->H5allocate_memory(view.raw_bytes, 0);
  if (!out) {
    PUSH(parz_h5()->err_memory, "parz: cannot allocate the decoded chunk");
    return 0;
  }
  if (parz_filter_exec_decode(*buf, nbytes, out, view.raw_bytes, &e) != PARZ_OK) {
    PUSH_STATUS(parz_h5()->err_decode, "cannot decode chunk", &e);
    parz_h5()->H5free_memory(out);
    return 0;
  }
  if (cfg->big_endian) swap_bytes(out, view.raw_bytes, parz_type_size(cfg->chunk.type));
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
    PUSH(parz_h5()->err_param, e.message);
    return 0;
  }
  if (flags & H5Z_FLAG_REVERSE) return filter_decode(&cfg, nbytes, buf_size, buf);
  return filter_encode(&cfg, nbytes, buf_size, buf);
}

/* ---- plugin entry points ------------------------------------------------------------------ */

static const H5Z_class2_t parz_filter_class = {
    H5Z_CLASS_T_VERS, (H5Z_filter_t)H5Z_FILTER_PARZ,
    1, 1, H5Z_PARZ_NAME,
    parz_can_apply, parz_set_local, parz_filter,
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
  return &parz_filter_class;
}
