/* Shared pieces of the parallel HDF5 example mpi_checkpoint and the benchmark bench_mpi: the row
 * decomposition, a deterministic test field, error agreement between ranks, and the HDF5
 * property lists and dataset helpers for collective I/O through the ParZ filter.
 *
 * The field is defined by global indices only, so any rank count can regenerate the expected
 * values of any slab: that is what makes a restart read on a different rank count checkable. */
#ifndef MPI_COMMON_H
#define MPI_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>
#include <mpi.h>

/* Rows [*start, *start + *count) of `total` that `rank` of `size` owns: contiguous, sizes differ
 * by at most one, and a rank may own none when total < size. */
void mpi_split(uint64_t total, int size, int rank, uint64_t* start, uint64_t* count);

/* 1 when every rank of comm passes ok != 0. Collective: call it before each collective HDF5
 * step whose inputs some rank might have found bad, so that either all ranks go on or none. */
int mpi_all_ok(MPI_Comm comm, int ok);

/* Waiting for the other ranks. A rank that stops (SIGSTOP, a hung node) never joins the next
 * collective call, and MPI's blocking calls wait for it forever, most spinning at full CPU. */

/* MPI_Allreduce that gives up: started non-blocking and polled with short sleeps (growing to
 * 10 ms), so a waiting rank uses little CPU. When `timeout` seconds pass first, it prints
 * "rank R: <what> ... (waited W s, C s of CPU): MPI_Abort" and ends the job with MPI_Abort. */
void mpi_allreduce_within(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op,
                          MPI_Comm comm, double timeout, const char* what);

/* A thread that ends the job when a rank makes no progress between two waits: armed after each
 * agreement step, disarmed during the next one, it calls MPI_Abort (with a message naming the
 * last step) when `timeout` seconds pass in between: a rank stalled inside a collective HDF5
 * call leaves the others inside that call, out of reach of mpi_allreduce_within. Needs
 * MPI_THREAD_MULTIPLE for MPI_Abort from its thread; without it, it ends the rank with _exit(1),
 * and the MPI launcher ends the others. NULL when the thread cannot start (then no guard). */
typedef struct mpi_watchdog mpi_watchdog;
mpi_watchdog* mpi_watchdog_start(MPI_Comm comm, double timeout);
void mpi_watchdog_arm(mpi_watchdog* w, const char* since); /* `since` must outlive the arming */
void mpi_watchdog_disarm(mpi_watchdog* w);
void mpi_watchdog_stop(mpi_watchdog* w);

/* A 2D or 3D field of float or double, split by rows (dimension 0) between ranks. */
typedef struct {
  int rank; /* 2 or 3 */
  hsize_t dims[3];
  int is_double; /* 1: float64, 0: float32 */
} mpi_field;

size_t mpi_field_row_values(const mpi_field* f); /* values in one row (product of dims[1..]) */
size_t mpi_field_value_size(const mpi_field* f); /* 4 or 8 */
hid_t mpi_field_mem_type(const mpi_field* f);
hid_t mpi_field_file_type(const mpi_field* f);

/* Smooth waves plus small noise, with NaN (two payloads), +Inf and -Inf in the last row, i.e.
 * always in the last rank's slab. Writes rows [row0, row0 + rows) into buf, C order. */
void mpi_field_fill(const mpi_field* f, uint64_t row0, uint64_t rows, void* buf);

/* Comparison of a slab read back with what mpi_field_fill writes. tol > 0: finite values must be
 * within tol; tol == 0: every value must have the same bits. Non-finite values must always keep
 * their bits. */
typedef struct {
  uint64_t values;        /* values compared */
  uint64_t bad;           /* values outside the bound (or with other bits) */
  uint64_t nonfinite;     /* non-finite values expected */
  uint64_t nonfinite_bad; /* of which came back with other bits */
  double max_err;         /* largest |error| over finite values */
} mpi_check;

void mpi_field_check(const mpi_field* f, uint64_t row0, uint64_t rows, const void* buf, double tol,
                     mpi_check* c);
/* Sums (max for max_err) the checks of all ranks into every rank's c (mpi_allreduce_within). */
void mpi_check_allreduce(MPI_Comm comm, mpi_check* c, double timeout);

/* HDF5 ---------------------------------------------------------------------------------------- */

/* Innermost message of HDF5's current error stack (where the error was found, e.g. the ParZ
 * plugin's own explanation), or "unknown HDF5 error". */
void mpi_h5_message(char* msg, size_t msg_size);

/* File access through MPI-IO on comm; transfer list for collective or independent I/O. */
hid_t mpi_fapl(MPI_Comm comm);
hid_t mpi_dxpl(int collective);

/* Creation list for f: chunks of `chunk_rows` rows spanning the other dimensions, the filter
 * (filter id 0 = none) with its cd_values, and fill values never written: each chunk is written
 * once, whole, by its owner, so a fill value (should a caller set one) would be dead work. */
hid_t mpi_dcpl(const mpi_field* f, hsize_t chunk_rows, unsigned filter, const unsigned* cd,
               size_t ncd);

/* Local check, before any collective call: creates the dataset in a private in-memory file, so
 * HDF5 loads the filter and runs its can_apply and set_local on this rank alone. Returns 1 when
 * the dataset would be accepted, else 0 with the reason in msg. */
int mpi_probe_dcpl(const mpi_field* f, hid_t dcpl, char* msg, size_t msg_size);

/* Writes or reads rows [row0, row0 + rows) of dset (rows may be 0: the rank still takes part). */
herr_t mpi_write_rows(hid_t dset, const mpi_field* f, uint64_t row0, uint64_t rows, hid_t dxpl,
                      const void* buf);
herr_t mpi_read_rows(hid_t dset, const mpi_field* f, uint64_t row0, uint64_t rows, hid_t dxpl,
                     void* buf);

/* Scalar double / int attributes (collective in parallel HDF5: every rank writes the same). */
herr_t mpi_attr_write_double(hid_t obj, const char* name, double v);
herr_t mpi_attr_read_double(hid_t obj, const char* name, double* v);

#endif
