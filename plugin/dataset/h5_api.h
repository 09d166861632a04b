/* The HDF5 functions the filter uses, looked up at run time in the HDF5 library that loaded the
 * plugin (or that a program named to parz_h5_register), and the plugin's own HDF5 error class.
 *
 * Why not plain references resolved by the dynamic linker: h5py (like any Python extension)
 * loads libhdf5 with RTLD_LOCAL, so its symbols are not in the global scope where a dlopen'ed
 * plugin's undefined symbols are looked up, and linking the plugin against one libhdf5 would tie
 * it to serial or to parallel HDF5. HDF5 itself calls H5PLget_plugin_info, so the return
 * address of that call lies inside the very library we need: dladdr names it, dlsym reads it.
 *
 * Only functions are looked up, never HDF5's global variables (H5T_IEEE_F32LE_g, H5E_PLINE_g):
 * a program that uses one gets a copy-relocated version of it, and the library's own symbol
 * then holds a value nobody updates. Hence types are classified by their properties and errors
 * use a ParZ error class registered here. */
#ifndef PARZ_H5_API_H
#define PARZ_H5_API_H

#include <hdf5.h>

/* clang-format off */
#define PARZ_H5_FUNCTIONS(X)                                                                     \
  X(H5open) X(H5Epush2) X(H5Eregister_class) X(H5Ecreate_msg)                                    \
  X(H5Tget_class) X(H5Tget_size) X(H5Tget_order) X(H5Tget_precision) X(H5Tget_offset)          \
  X(H5Tget_sign) X(H5Tget_fields) X(H5Tget_ebias) X(H5Tget_norm)                               \
  X(H5Pget_layout) X(H5Pget_chunk) X(H5Pget_filter_by_id2) X(H5Pmodify_filter)                 \
  X(H5Pfill_value_defined) X(H5Pget_fill_value)                                                \
  X(H5Pget_nfilters) X(H5Pget_filter2) X(H5Pclose) X(H5Tclose) X(H5Eclear2)                   \
  X(H5Fget_obj_count) X(H5Fget_obj_ids) X(H5Dget_create_plist) X(H5Dget_type)                 \
  X(H5allocate_memory) X(H5free_memory) X(H5Zregister) X(H5get_libversion)
/* clang-format on */

/* What the dataset readers and writers (parz_h5_read.h, parz_h5_write.h, parz_h5_device.h) use
 * besides: looked up too, but optional, so that the filter loads into any HDF5
 * (H5Dget_chunk_info_by_coord is 1.10.5's). */
/* clang-format off */
#define PARZ_H5_READER_FUNCTIONS(X)                                                              \
  X(H5Dget_space) X(H5Pget_fill_time) X(H5Tget_native_type)                                      \
  X(H5Sget_simple_extent_ndims) X(H5Sget_simple_extent_dims) X(H5Sget_select_type)               \
  X(H5Sget_select_npoints) X(H5Sget_select_bounds) X(H5Dget_chunk_info_by_coord) X(H5Sclose)     \
  X(H5Dwrite_chunk) X(H5Pget_chunk_opts) X(H5Dget_chunk_storage_size) X(H5Dget_num_chunks)       \
  X(H5Dget_chunk_info) X(H5Eget_auto2) X(H5Eset_auto2) X(H5Ewalk2)
/* clang-format on */

/* H5Dread_chunk as HDF5 2.0 names its two versions (1.x has the first as H5Dread_chunk): the
 * second is told the buffer's size. */
typedef herr_t (*parz_h5_read_chunk1_fn)(hid_t dset, hid_t dxpl, const hsize_t* offset,
                                         uint32_t* filters, void* buf);
typedef herr_t (*parz_h5_read_chunk2_fn)(hid_t dset, hid_t dxpl, const hsize_t* offset,
                                         uint32_t* filters, void* buf, size_t* buf_size);

/* H5Dchunk_iter (HDF5 1.14 and later) and its callback, declared here for older headers. */
typedef int (*parz_h5_chunk_iter_op)(const hsize_t* offset, unsigned filter_mask, haddr_t addr,
                                     hsize_t size, void* op_data);
typedef herr_t (*parz_h5_chunk_iter_fn)(hid_t dset, hid_t dxpl, parz_h5_chunk_iter_op op,
                                        void* op_data);

typedef struct {
#define PARZ_H5_DECLARE_FUNCTION(name) __typeof__(&name) name;
  PARZ_H5_FUNCTIONS(PARZ_H5_DECLARE_FUNCTION)
  PARZ_H5_READER_FUNCTIONS(PARZ_H5_DECLARE_FUNCTION)
#undef PARZ_H5_DECLARE_FUNCTION
  parz_h5_read_chunk1_fn read_chunk1; /* either may be NULL */
  parz_h5_read_chunk2_fn read_chunk2;
  parz_h5_chunk_iter_fn chunk_iter; /* NULL before HDF5 1.14 */
  /* H5Dget_chunk_index_type, which HDF5 exports among its "internal API routines"; may be NULL */
  herr_t (*chunk_index_type)(hid_t dset, H5D_chunk_index_t* type);
  const char* reader_missing;       /* the first reader function not found, or NULL */
  /* ParZ error class, its major message and the minor messages the filter pushes. */
  hid_t err_class, err_major;
  hid_t err_param, err_apply, err_encode, err_decode, err_memory;
  /* HDF5 1.14.5 and later save the error stack before calling a filter function and restore it
   * afterwards, so what the filter pushes while encoding or decoding a chunk never reaches the
   * caller (HDF5's repair of this covers only its own filters; docs/format.md, "Chunk format"). Where this is
   * set the filter also prints its message to stderr, as HDF5 asks of external filters. */
  int chunk_errors_dropped;
} parz_h5_api;

/* Looks everything up in the library containing `caller` (an address inside HDF5), falling back
 * to the process's global scope, and registers the error class. Returns 0 on success; on
 * failure writes the reason. Called from H5PLget_plugin_info and parz_h5_register, before HDF5
 * uses any callback. The table is bound once: a later call for the same library returns 0, one
 * for another HDF5 library in the same process fails (the callbacks can serve only one). */
int parz_h5_api_load(const void* caller, char* why, size_t why_size);

/* The loaded table (valid after a successful parz_h5_api_load). */
const parz_h5_api* parz_h5(void);

/* For the dataset readers: PARZ_OK when the table is bound (by HDF5 loading the plugin, or by
 * parz_h5_register), or can be bound now to an HDF5 in the program's global scope (a C program
 * linked with libhdf5), and holds every reader function; else PARZ_ERR_UNSUPPORTED with a
 * message starting with `who`. */
int parz_h5_api_readers(const char* who, char* why, size_t why_size);

#endif
