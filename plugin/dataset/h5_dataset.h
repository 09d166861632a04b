/* What the filter learns from HDF5 about the dataset it works for.
 *
 * can_apply and set_local are handed the dataset's type and creation list. The filter function
 * is not: HDF5 passes it the cd_values stored in the file and the chunk's bytes, both written by
 * whoever wrote the file. HDF5 up to 2.0 then uses the buffer the filter returns as a whole
 * chunk of the dataset (it reads, and on partial writes writes, chunk-size bytes of it without
 * looking at the size the filter returned), so a chunk that decodes to fewer bytes than the
 * dataset's chunk holds makes HDF5 read and write outside the buffer. The only way the filter
 * can learn the real chunk is to find the dataset among those open in the process:
 * parz_h5_check_open_datasets. */
#ifndef PARZ_H5_DATASET_H
#define PARZ_H5_DATASET_H

#include <stddef.h>

#include <hdf5.h>

#include "filter_config.h"

/* Accepts exactly IEEE binary32/binary64 and 32/64-bit two's complement integers, either byte
 * order. Anything else: -1 and a message in why. */
int parz_h5_classify_type(hid_t type_id, parz_type* type, int* big_endian, char* why,
                          size_t why_size);

/* Reads the chunk shape and squeezes unit dimensions; returns the squeezed rank or -1 and a
 * message in why. */
int parz_h5_chunk_shape(hid_t dcpl_id, size_t shape[4], char* why, size_t why_size);

/* ParZ compresses the dataset's values, so it must be the first filter of the pipeline (HDF5 runs
 * filters in the order they were set when writing): one before it would hand it shuffled,
 * scaled, packed or checksummed bytes, which it would compress as values (silent garbage) or
 * refuse (and an optional ParZ then drops out). Checksums such as fletcher32 may follow it.
 * Returns 0 when ParZ comes first and once; else -1 and a message naming the filter in why. */
int parz_h5_check_pipeline(hid_t dcpl_id, char* why, size_t why_size);

/* Looks through the datasets open in this process (those with an HDF5 identifier) for any whose
 * pipeline holds ParZ with exactly the cd_values cd[0..n) and whose type, byte order or chunk
 * shape disagrees with what they describe. Returns 0 when none does, -1 when one does or the
 * datasets cannot be listed (message in why). A chunk of a dataset HDF5 opened internally (the
 * source of a virtual dataset) has no identifier and passes: its check is left to the chunk's
 * agreement with the cd_values and to HDF5's own check of the size returned
 * (docs/security.md). */
int parz_h5_check_open_datasets(size_t n, const unsigned* cd, char* why, size_t why_size);

/* Forgets the open datasets examined so far (their identifiers may be handed out again after
 * H5close; HDF5 loads the plugin again then, which calls this). */
void parz_h5_forget_datasets(void);

#endif
