/* The datasets and checks shared by the dataset readers' tests (test_h5_read: parz_h5_read into
 * host memory; test_h5_read_device: parz_h5_read_device into GPU memory). Datasets are written
 * through the plugin (HDF5_PLUGIN_PATH) and read both with the reader under test and with
 * H5Dread, which must give the same bytes (native values): every mode, float32, float64, int32
 * and int64, ranks 1 to 4, edge chunks, unit chunk extents, a big-endian dataset, chunks never
 * written (fill value), chunks HDF5 stored without the filter; boxes of each (hyperslabs of one
 * block); and the refusals: a corrupt chunk (named by its place), ParZ chunks of another shape
 * or type, other filters, a contiguous dataset, stored cd_values that disagree with the
 * dataset's type, byte order or chunk shape, a short buffer, selections that are not one box. */
#ifndef H5_READ_CASES_H
#define H5_READ_CASES_H

#include <stddef.h>

#include <hdf5.h>

#include "parz_chunk.h"

/* A reader under test: reads the selection into `host` (bytes long, host memory; the device
 * reader reads into GPU memory and copies back) and returns its status, with its message in e.
 * raw_big_endian: whether it reads chunks stored without the filter in big-endian order. */
typedef struct {
  const char* name;
  int (*read)(void* ctx, hid_t dset, hid_t file_space, void* host, size_t bytes, parz_error* e);
  void* ctx;
  int raw_big_endian;
} h5_reader;

/* Writes every dataset into a new file at path; 0 on success. */
int h5_read_cases_write(const char* path);

/* Reads every comparable dataset of the file whole and in boxes, both ways, and checks the
 * refusals. Returns the number of failed checks (their messages on stderr). */
int h5_read_cases_check(const char* path, const h5_reader* reader);

#endif
