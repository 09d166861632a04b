/* The dataset behind a filter call (h5_dataset.h). */
#include "h5_dataset.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
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
             "int32 and int64 only)",
             size);
  else
    snprintf(why, why_size,
             "parz: %s datasets of %zu bytes are not supported (float32, float64, int32 and "
             "int64 only, IEEE / two's complement)",
             class_name(cls), size);
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
  for (int i = 0; i < rank; i++)
    d64[i] = dims[i];
  int d = parz_cd_squeeze((unsigned)rank, d64, shape);
  if (d < 0)
    snprintf(why, why_size,
             "parz: the chunk has more than 4 dimensions larger than 1; make the extra chunk "
             "dimensions 1");
  return d;
}

int parz_h5_check_pipeline(hid_t dcpl_id, char* why, size_t why_size) {
  const parz_h5_api* h5 = parz_h5();
  int nfilters = h5->H5Pget_nfilters(dcpl_id), seen_parz = 0;
  for (int i = 0; i < nfilters; i++) {
    unsigned flags = 0, config = 0;
    size_t n = 0;
    char name[64] = "";
    H5Z_filter_t id =
        h5->H5Pget_filter2(dcpl_id, (unsigned)i, &flags, &n, NULL, sizeof name, name, &config);
    name[sizeof name - 1] = '\0';
    if (id == H5Z_FILTER_PARZ && seen_parz) {
      snprintf(why, why_size, "parz: ParZ appears twice in the filter pipeline; set it once");
      return -1;
    }
    if (id == H5Z_FILTER_PARZ) {
      seen_parz = 1;
      continue;
    }
    if (!seen_parz) {
      snprintf(why, why_size,
               "parz: filter %d (%s) comes before ParZ in the pipeline and would change the values "
               "ParZ compresses; ParZ must be the first filter (h5py: leave out shuffle and "
               "scaleoffset; h5repack: give UD=37050 first). Checksums such as fletcher32 may "
               "follow it",
               (int)id, name[0] ? name : "unnamed");
      return -1;
    }
  }
  return 0;
}

/* ---- open datasets -------------------------------------------------------------------------
 * Examining a dataset costs a copy of its creation list (microseconds), too much to repeat for
 * every open dataset on every chunk. What matters about a dataset cannot change while it is open
 * (its pipeline, type and chunk shape are fixed at creation), and HDF5 never hands out the same
 * identifier twice while the library stays open (identifiers count up; H5close resets them, and
 * HDF5 then loads the plugin again, which calls parz_h5_forget_datasets). So each open dataset is
 * examined once, when first seen, and remembered by its identifier as long as it stays open: a
 * dataset is "suspect" when a ParZ filter in its pipeline has cd_values that disagree with it.
 * Only suspect datasets are examined again, against the cd_values of the chunk at hand. */
typedef struct {
  hid_t id;
  int suspect;
} seen_dataset;

static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static seen_dataset* seen; /* sorted by id */
static size_t nseen;

void parz_h5_forget_datasets(void) {
  pthread_mutex_lock(&seen_lock);
  free(seen);
  seen = NULL;
  nseen = 0;
  pthread_mutex_unlock(&seen_lock);
}

/* For each ParZ filter of the creation list whose cd_values are cd[0..n) (n = 0: every ParZ
 * filter whose cd_values load), checks them against the dataset. Returns 1 when one of them
 * disagrees with it (the message, naming both, in why), 0 when none does, -1 when the dataset
 * cannot be described (message in why). */
static int disagrees(hid_t dset, hid_t dcpl, size_t n, const unsigned* cd, char* why,
                     size_t why_size) {
  const parz_h5_api* h5 = parz_h5();
  int nfilters = h5->H5Pget_nfilters(dcpl), rc = 0, dims = 0, big_endian = 0;
  hid_t type = -1;
  parz_type t = PARZ_FLOAT;
  size_t shape[4];
  for (int i = 0; i < nfilters && rc == 0; i++) {
    unsigned flags = 0, config = 0, have[PARZ_CD_INTERNAL_NELMTS];
    size_t k = PARZ_CD_INTERNAL_NELMTS;
    parz_filter_config cfg;
    parz_error e = {0, ""};
    if (h5->H5Pget_filter2(dcpl, (unsigned)i, &flags, &k, have, 0, NULL, &config) !=
            H5Z_FILTER_PARZ ||
        k > PARZ_CD_INTERNAL_NELMTS || (n && (k != n || memcmp(have, cd, n * sizeof *cd))) ||
        parz_cd_load(k, have, &cfg, NULL) != PARZ_OK)
      continue; /* cd_values that do not load are refused by the filter itself */
    if (type < 0) {
      if ((type = h5->H5Dget_type(dset)) < 0 ||
          parz_h5_classify_type(type, &t, &big_endian, why, why_size) < 0 ||
          (dims = parz_h5_chunk_shape(dcpl, shape, why, why_size)) < 0) {
        rc = -1;
        break;
      }
    }
    if (parz_cd_check_dataset(&cfg, t, big_endian, (unsigned)dims, shape, &e) != PARZ_OK) {
      snprintf(why, why_size, "%s", e.message);
      rc = 1;
    }
  }
  if (type >= 0)
    h5->H5Tclose(type);
  return rc;
}

/* disagrees() for an open dataset: 1 when it disagrees or carries ParZ on a type or chunk shape
 * ParZ cannot have written. A dataset whose creation list HDF5 cannot give has no pipeline the
 * filter could be running for. */
static int dataset_disagrees(hid_t dset, size_t n, const unsigned* cd, char* why, size_t why_size) {
  const parz_h5_api* h5 = parz_h5();
  hid_t dcpl = h5->H5Dget_create_plist(dset);
  if (dcpl < 0)
    return 0;
  int rc = disagrees(dset, dcpl, n, cd, why, why_size);
  h5->H5Pclose(dcpl);
  return rc != 0;
}

static int by_id(const void* a, const void* b) {
  hid_t x = *(const hid_t*)a, y = *(const hid_t*)b;
  return (x > y) - (x < y);
}

/* Brings the table of seen datasets to the open identifiers ids[0..count) (sorted): drops the
 * closed ones, examines the new ones. Returns 0, or -1 when out of memory. */
static int update_seen(const hid_t* ids, size_t count) {
  seen_dataset* next = (seen_dataset*)malloc((count ? count : 1) * sizeof *next);
  if (!next)
    return -1;
  size_t j = 0;
  char why[300];
  for (size_t i = 0; i < count; i++) {
    while (j < nseen && seen[j].id < ids[i])
      j++;
    next[i].id = ids[i];
    next[i].suspect = j < nseen && seen[j].id == ids[i]
                          ? seen[j].suspect
                          : dataset_disagrees(ids[i], 0, NULL, why, sizeof why);
  }
  free(seen);
  seen = next;
  nseen = count;
  return 0;
}

int parz_h5_check_open_datasets(size_t n, const unsigned* cd, char* why, size_t why_size) {
  const parz_h5_api* h5 = parz_h5();
  ssize_t count = h5->H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_DATASET);
  hid_t* ids = (hid_t*)malloc((count > 0 ? (size_t)count : 1) * sizeof *ids);
  int rc = 0;
  if (!ids) {
    snprintf(why, why_size, "parz: out of memory listing the open datasets");
    return -1;
  }
  if (count > 0)
    count = h5->H5Fget_obj_ids((hid_t)H5F_OBJ_ALL, H5F_OBJ_DATASET, (size_t)count, ids);
  if (count < 0)
    count = 0;
  qsort(ids, (size_t)count, sizeof *ids, by_id);
  pthread_mutex_lock(&seen_lock);
  if (update_seen(ids, (size_t)count) < 0) {
    snprintf(why, why_size, "parz: out of memory examining the open datasets");
    rc = -1;
  }
  for (size_t i = 0; rc == 0 && i < nseen; i++)
    if (seen[i].suspect && dataset_disagrees(seen[i].id, n, cd, why, why_size))
      rc = -1;
  pthread_mutex_unlock(&seen_lock);
  free(ids);
  /* The queries above start with an empty error stack and may leave their own errors on it;
   * the caller's message must be the one h5py shows. */
  h5->H5Eclear2(H5E_DEFAULT);
  return rc;
}
