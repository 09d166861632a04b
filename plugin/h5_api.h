/* The HDF5 functions and identifiers the filter uses, looked up at run time in the HDF5 library
 * that loaded the plugin.
 *
 * Why not plain references resolved by the dynamic linker: h5py (like any Python extension)
 * loads libhdf5 with RTLD_LOCAL, so its symbols are not in the global scope where a dlopen'ed
 * plugin's undefined symbols are looked up, and linking the plugin against one libhdf5 would tie
 * it to serial or to parallel HDF5. HDF5 itself calls H5PLget_plugin_info, so the return
 * address of that call lies inside the very library we need: dladdr names it, dlsym reads it. */
#ifndef PARZ_H5_API_H
#define PARZ_H5_API_H

#include <hdf5.h>

#define PARZ_H5_FUNCTIONS(X)                                                                     \
  X(H5open) X(H5Epush2) X(H5Tequal) X(H5Tget_class) X(H5Tget_size) X(H5Tget_sign)             \
  X(H5Pget_layout) X(H5Pget_chunk) X(H5Pget_filter_by_id2) X(H5Pmodify_filter)                 \
  X(H5allocate_memory) X(H5free_memory)

#define PARZ_H5_IDS(X)                                                                           \
  X(H5E_ERR_CLS_g) X(H5E_PLINE_g) X(H5E_CANAPPLY_g) X(H5E_BADVALUE_g) X(H5E_CANTGET_g)         \
  X(H5E_CANTSET_g) X(H5E_CANTFILTER_g) X(H5E_READERROR_g) X(H5E_NOSPACE_g)                     \
  X(H5T_IEEE_F32LE_g) X(H5T_IEEE_F32BE_g) X(H5T_IEEE_F64LE_g) X(H5T_IEEE_F64BE_g)             \
  X(H5T_STD_I32LE_g) X(H5T_STD_I32BE_g) X(H5T_STD_I64LE_g) X(H5T_STD_I64BE_g)

typedef struct {
#define PARZ_H5_DECLARE_FUNCTION(name) __typeof__(&name) name;
  PARZ_H5_FUNCTIONS(PARZ_H5_DECLARE_FUNCTION)
#undef PARZ_H5_DECLARE_FUNCTION
#define PARZ_H5_DECLARE_ID(name) const hid_t* name; /* read at use: H5close/H5open renew them */
  PARZ_H5_IDS(PARZ_H5_DECLARE_ID)
#undef PARZ_H5_DECLARE_ID
} parz_h5_api;

/* Looks everything up in the library containing `caller` (an address inside HDF5), falling back
 * to the process's global scope. Returns 0 on success; on failure writes the reason. Called
 * once, from H5PLget_plugin_info, before HDF5 uses any callback. */
int parz_h5_api_load(const void* caller, char* why, size_t why_size);

/* The loaded table (valid after a successful parz_h5_api_load). */
const parz_h5_api* parz_h5(void);

#endif
