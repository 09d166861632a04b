/* What the filter and the dataset readers learn from HDF5 about a dataset: its type as ParZ
 * stores it, its chunk shape. */
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

#endif
