/* The dataset behind a filter call (h5_dataset.h). */
#include "h5_dataset.h"

#include <stdio.h>
#include <string.h>

#include "H5Zparz.h"
#include "h5_api.h"

/* HDF5 allows at most 32 dimensions. */
#define PARZ_H5_MAX_RANK 32

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

/* Types are compared by their properties (h5_api.h says why not with H5T_IEEE_F32LE). */
int parz_h5_classify_type(hid_t type_id, parz_type* type, int* big_endian, char* why,
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

int parz_h5_chunk_shape(hid_t dcpl_id, size_t shape[4], char* why, size_t why_size) {
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
