/* Shared pieces of the parallel HDF5 examples; see mpi_common.h. */
#define _POSIX_C_SOURCE 200809L /* nanosleep, clock_gettime */
#include "mpi_common.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

void mpi_split(uint64_t total, int size, int rank, uint64_t* start, uint64_t* count) {
  uint64_t base = total / (uint64_t)size, extra = total % (uint64_t)size, r = (uint64_t)rank;
  *count = base + (r < extra ? 1 : 0);
  *start = r * base + (r < extra ? r : extra);
}

int mpi_all_ok(MPI_Comm comm, int ok) {
  int local = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&local, &all, 1, MPI_INT, MPI_MIN, comm);
  return all;
}

/* ---- waiting for the other ranks --------------------------------------------------------- */

static double cpu_seconds(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_sec +
         1e-6 * (double)u.ru_stime.tv_usec;
}

void mpi_allreduce_within(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op,
                          MPI_Comm comm, double timeout, const char* what) {
  MPI_Request req;
  int done = 0, rank = 0;
  const double t0 = MPI_Wtime(), cpu0 = cpu_seconds();
  long pause_ns = 100 * 1000;
  MPI_Iallreduce(in, out, count, type, op, comm, &req);
  while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
    const double waited = MPI_Wtime() - t0;
    if (waited > timeout) {
      MPI_Comm_rank(comm, &rank);
      fprintf(stderr, "rank %d: %s (waited %.1f s, %.2f s of CPU): MPI_Abort\n", rank, what, waited,
              cpu_seconds() - cpu0);
      fflush(stderr);
      MPI_Abort(comm, 1);
    }
    const struct timespec pause = {0, pause_ns};
    nanosleep(&pause, NULL);
    if (pause_ns < 10 * 1000 * 1000)
      pause_ns *= 2;
  }
}

struct mpi_watchdog {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  MPI_Comm comm;
  double timeout;
  const char* since; /* NULL: disarmed */
  struct timespec deadline;
  int stop, can_abort;
};

static void* watch(void* arg) {
  mpi_watchdog* w = (mpi_watchdog*)arg;
  pthread_mutex_lock(&w->lock);
  while (!w->stop) {
    if (!w->since) {
      pthread_cond_wait(&w->wake, &w->lock);
      continue;
    }
    pthread_cond_timedwait(&w->wake, &w->lock, &w->deadline);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (w->stop || !w->since || now.tv_sec < w->deadline.tv_sec ||
        (now.tv_sec == w->deadline.tv_sec && now.tv_nsec < w->deadline.tv_nsec))
      continue; /* woken early: disarmed, re-armed or stopped */
    int rank = 0;
    MPI_Comm_rank(w->comm, &rank);
    fprintf(stderr,
            "rank %d: no progress for %g s since %s (a rank stalled, or blocked inside a "
            "collective HDF5 call?): %s\n",
            rank, w->timeout, w->since, w->can_abort ? "MPI_Abort" : "exiting");
    fflush(stderr);
    if (w->can_abort)
      MPI_Abort(w->comm, 1);
    _exit(1);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

mpi_watchdog* mpi_watchdog_start(MPI_Comm comm, double timeout) {
  mpi_watchdog* w = (mpi_watchdog*)calloc(1, sizeof *w);
  int level = MPI_THREAD_SINGLE;
  pthread_condattr_t ca;
  if (!w)
    return NULL;
  MPI_Query_thread(&level);
  w->comm = comm;
  w->timeout = timeout;
  w->can_abort = level == MPI_THREAD_MULTIPLE;
  pthread_mutex_init(&w->lock, NULL);
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&w->wake, &ca);
  pthread_condattr_destroy(&ca);
  if (pthread_create(&w->thread, NULL, watch, w) != 0) {
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w);
    return NULL;
  }
  return w;
}

/* Tells the thread what to watch (since: NULL = nothing; the deadline counts from now) and
 * wakes it. */
static void watch_set(mpi_watchdog* w, const char* since, int stop) {
  pthread_mutex_lock(&w->lock);
  clock_gettime(CLOCK_MONOTONIC, &w->deadline);
  w->deadline.tv_sec += (time_t)w->timeout;
  w->deadline.tv_nsec += (long)((w->timeout - (double)(time_t)w->timeout) * 1e9);
  if (w->deadline.tv_nsec >= 1000000000L) {
    w->deadline.tv_sec++;
    w->deadline.tv_nsec -= 1000000000L;
  }
  w->since = since;
  w->stop = stop;
  pthread_cond_signal(&w->wake);
  pthread_mutex_unlock(&w->lock);
}

void mpi_watchdog_arm(mpi_watchdog* w, const char* since) {
  if (w)
    watch_set(w, since, 0);
}

void mpi_watchdog_disarm(mpi_watchdog* w) {
  if (w)
    watch_set(w, NULL, 0);
}

void mpi_watchdog_stop(mpi_watchdog* w) {
  if (!w)
    return;
  watch_set(w, NULL, 1);
  pthread_join(w->thread, NULL);
  pthread_cond_destroy(&w->wake);
  pthread_mutex_destroy(&w->lock);
  free(w);
}

/* ---- the field --------------------------------------------------------------------------- */

size_t mpi_field_row_values(const mpi_field* f) {
  size_t n = 1;
  for (int d = 1; d < f->rank; d++)
    n *= (size_t)f->dims[d];
  return n;
}

size_t mpi_field_value_size(const mpi_field* f) { return f->is_double ? 8 : 4; }
hid_t mpi_field_mem_type(const mpi_field* f) {
  return f->is_double ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
}
hid_t mpi_field_file_type(const mpi_field* f) {
  return f->is_double ? H5T_IEEE_F64LE : H5T_IEEE_F32LE;
}

/* Uniform noise in [-1, 1) from the global linear index (splitmix64), identical on every rank. */
static double noise(uint64_t i) {
  uint64_t z = i + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* Non-finite values, all in the last row: position within the row and bit pattern. The second
 * NaN carries a payload, which must survive too. */
enum { NONFINITE_COUNT = 4 };
static const uint64_t nonfinite_f64[NONFINITE_COUNT] = {
    0x7FF8000000000000ull, 0x7FF8000000000123ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull};
static const uint32_t nonfinite_f32[NONFINITE_COUNT] = {0x7FC00000u, 0x7FC00123u, 0x7F800000u,
                                                        0xFF800000u};

/* Index within the last row of non-finite value k, or SIZE_MAX when the row is too short. */
static size_t nonfinite_pos(size_t row_values, int k) {
  size_t pos[NONFINITE_COUNT] = {0, row_values / 3 + 1, row_values / 2 + 7, row_values - 1};
  return pos[k] < row_values ? pos[k] : (size_t)-1;
}

/* Expected value at global row `row`, index `i` within the row; *special is set to the
 * non-finite number k + 1 when the value is non-finite, else 0. */
static double field_value(const mpi_field* f, uint64_t row, size_t i, int* special) {
  size_t row_values = mpi_field_row_values(f);
  *special = 0;
  if (row + 1 == f->dims[0])
    for (int k = 0; k < NONFINITE_COUNT; k++)
      if (nonfinite_pos(row_values, k) == i)
        *special = k + 1;
  const double two_pi = 6.283185307179586;
  double w = (double)row / (double)f->dims[0];
  double u, v;
  if (f->rank == 3) {
    v = (double)(i / f->dims[2]) / (double)f->dims[1];
    u = (double)(i % f->dims[2]) / (double)f->dims[2];
  } else {
    v = w;
    u = (double)i / (double)f->dims[1];
  }
  double smooth = 50.0 * sin(two_pi * (u + 0.3 * w)) * cos(two_pi * 1.5 * v) +
                  20.0 * exp(-8.0 * ((u - 0.5) * (u - 0.5) + (v - 0.5) * (v - 0.5))) + 5.0 * w;
  return smooth + 0.05 * noise(row * row_values + i);
}

void mpi_field_fill(const mpi_field* f, uint64_t row0, uint64_t rows, void* buf) {
  size_t row_values = mpi_field_row_values(f);
  for (uint64_t r = 0; r < rows; r++)
    for (size_t i = 0; i < row_values; i++) {
      int special;
      double x = field_value(f, row0 + r, i, &special);
      size_t at = (size_t)r * row_values + i;
      if (f->is_double) {
        if (special)
          memcpy(&x, &nonfinite_f64[special - 1], 8);
        ((double*)buf)[at] = x;
      } else {
        float y = (float)x;
        if (special)
          memcpy(&y, &nonfinite_f32[special - 1], 4);
        ((float*)buf)[at] = y;
      }
    }
}

void mpi_field_check(const mpi_field* f, uint64_t row0, uint64_t rows, const void* buf, double tol,
                     mpi_check* c) {
  size_t row_values = mpi_field_row_values(f), size = mpi_field_value_size(f);
  memset(c, 0, sizeof *c);
  unsigned char want[8];
  for (uint64_t r = 0; r < rows; r++)
    for (size_t i = 0; i < row_values; i++) {
      int special;
      double x = field_value(f, row0 + r, i, &special);
      float y = (float)x;
      if (f->is_double)
        memcpy(want, special ? (const void*)&nonfinite_f64[special - 1] : (const void*)&x, 8);
      else
        memcpy(want, special ? (const void*)&nonfinite_f32[special - 1] : (const void*)&y, 4);
      const unsigned char* got = (const unsigned char*)buf + ((size_t)r * row_values + i) * size;
      int same_bits = memcmp(want, got, size) == 0;
      c->values++;
      if (special) {
        c->nonfinite++;
        if (!same_bits)
          c->nonfinite_bad++, c->bad++;
        continue;
      }
      if (tol == 0.0) {
        if (!same_bits)
          c->bad++;
        continue;
      }
      double back =
          f->is_double ? *(const double*)(const void*)got : (double)*(const float*)(const void*)got;
      double expect = f->is_double ? x : (double)y;
      double err = fabs(back - expect);
      if (!(err <= tol))
        c->bad++; /* also catches a NaN where a number was written */
      if (err > c->max_err || err != err)
        c->max_err = err != err ? INFINITY : err;
    }
}

void mpi_check_allreduce(MPI_Comm comm, mpi_check* c, double timeout) {
  uint64_t sums[4] = {c->values, c->bad, c->nonfinite, c->nonfinite_bad}, all[4];
  const char* what = "comparing the values read: no answer from the other ranks in time";
  mpi_allreduce_within(sums, all, 4, MPI_UINT64_T, MPI_SUM, comm, timeout, what);
  double max_err = 0;
  mpi_allreduce_within(&c->max_err, &max_err, 1, MPI_DOUBLE, MPI_MAX, comm, timeout, what);
  c->values = all[0], c->bad = all[1], c->nonfinite = all[2], c->nonfinite_bad = all[3];
  c->max_err = max_err;
}

/* ---- HDF5 ------------------------------------------------------------------------------- */

static herr_t innermost(unsigned n, const H5E_error2_t* e, void* data) {
  char* msg = (char*)data;
  if (n == 0 && msg[0] == '\0') {
    const char* desc = e->desc && e->desc[0] ? e->desc : "(no description)";
    snprintf(msg, 512, "%s (in %s)", desc, e->func_name ? e->func_name : "?");
  }
  return 0;
}

void mpi_h5_message(char* msg, size_t msg_size) {
  char inner[512] = "";
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, inner);
  snprintf(msg, msg_size, "%s", inner[0] ? inner : "unknown HDF5 error");
}

hid_t mpi_fapl(MPI_Comm comm) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
  return fapl;
}

hid_t mpi_dxpl(int collective) {
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(dxpl, collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
  return dxpl;
}

hid_t mpi_dcpl(const mpi_field* f, hsize_t chunk_rows, unsigned filter, const unsigned* cd,
               size_t ncd) {
  hsize_t chunk[3];
  for (int d = 0; d < f->rank; d++)
    chunk[d] = d == 0 ? chunk_rows : f->dims[d];
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (H5Pset_chunk(dcpl, f->rank, chunk) < 0 || H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0 ||
      (filter != 0 && H5Pset_filter(dcpl, filter, H5Z_FLAG_MANDATORY, ncd, cd) < 0)) {
    H5Pclose(dcpl);
    return H5I_INVALID_HID;
  }
  return dcpl;
}

int mpi_probe_dcpl(const mpi_field* f, hid_t dcpl, char* msg, size_t msg_size) {
  hsize_t chunk[3];
  if (H5Pget_chunk(dcpl, 3, chunk) != f->rank) {
    snprintf(msg, msg_size, "the creation list has no chunk layout");
    return 0;
  }
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_core(fapl, 1 << 16, 0); /* in memory, never written anywhere */
  hid_t file = H5Fcreate("parz_probe.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  hid_t space = H5Screate_simple(f->rank, chunk, NULL);
  hid_t dset = file < 0 ? H5I_INVALID_HID
                        : H5Dcreate2(file, "probe", mpi_field_file_type(f), space, H5P_DEFAULT,
                                     dcpl, H5P_DEFAULT);
  int ok = dset >= 0;
  if (!ok)
    mpi_h5_message(msg, msg_size);
  if (dset >= 0)
    H5Dclose(dset);
  H5Sclose(space);
  if (file >= 0)
    H5Fclose(file);
  H5Pclose(fapl);
  return ok;
}

/* File and memory spaces for rows [row0, row0 + rows). */
static void slab_spaces(hid_t dset, const mpi_field* f, uint64_t row0, uint64_t rows,
                        hid_t* file_space, hid_t* mem_space) {
  hsize_t start[3] = {0, 0, 0}, count[3], one = 1;
  for (int d = 0; d < f->rank; d++)
    count[d] = d == 0 ? rows : f->dims[d];
  start[0] = row0;
  *file_space = H5Dget_space(dset);
  if (rows == 0) {
    H5Sselect_none(*file_space);
    *mem_space = H5Screate_simple(1, &one, NULL);
    H5Sselect_none(*mem_space);
  } else {
    H5Sselect_hyperslab(*file_space, H5S_SELECT_SET, start, NULL, count, NULL);
    *mem_space = H5Screate_simple(f->rank, count, NULL);
  }
}

/* Writes `in` (out == NULL) or reads into `out`: rows [row0, row0 + rows) of dset. */
static herr_t rows_io(hid_t dset, const mpi_field* f, uint64_t row0, uint64_t rows, hid_t dxpl,
                      const void* in, void* out) {
  hid_t fs, ms;
  slab_spaces(dset, f, row0, rows, &fs, &ms);
  hid_t type = mpi_field_mem_type(f);
  herr_t st = out ? H5Dread(dset, type, ms, fs, dxpl, out) : H5Dwrite(dset, type, ms, fs, dxpl, in);
  hid_t errors = st < 0 ? H5Eget_current_stack() : H5I_INVALID_HID; /* H5Sclose clears it */
  H5Sclose(ms);
  H5Sclose(fs);
  if (errors >= 0)
    H5Eset_current_stack(errors);
  return st;
}

herr_t mpi_write_rows(hid_t dset, const mpi_field* f, uint64_t row0, uint64_t rows, hid_t dxpl,
                      const void* buf) {
  return rows_io(dset, f, row0, rows, dxpl, buf, NULL);
}

herr_t mpi_read_rows(hid_t dset, const mpi_field* f, uint64_t row0, uint64_t rows, hid_t dxpl,
                     void* buf) {
  return rows_io(dset, f, row0, rows, dxpl, NULL, buf);
}

herr_t mpi_attr_write_double(hid_t obj, const char* name, double v) {
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(obj, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t st = a < 0 ? -1 : H5Awrite(a, H5T_NATIVE_DOUBLE, &v);
  if (a >= 0)
    H5Aclose(a);
  H5Sclose(space);
  return st;
}

herr_t mpi_attr_read_double(hid_t obj, const char* name, double* v) {
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  herr_t st = a < 0 ? -1 : H5Aread(a, H5T_NATIVE_DOUBLE, v);
  if (a >= 0)
    H5Aclose(a);
  return st;
}
