/* Benchmark: collective parallel HDF5 write and read of a 3D float64 field with ParZ (accuracy
 * and reversible) against the same chunked write without a filter, and where the write time
 * goes. Run through bench/bench_mpi.sh, which loops over rank counts.
 *
 *   mpirun -np N bench_mpi [--nz 256] [--ny 256] [--nx 256] [--chunk-rows 8]
 *                          [--tolerance 1e-3] [--reps 3] [--file bench_mpi.h5] [--header]
 *                          [--note TEXT]
 *
 * Each rank owns nz/N rows; chunks of --chunk-rows rows never straddle two ranks. Times are the
 * slowest rank's, best of --reps. Per configuration it prints one table row:
 *   write_s   H5Dwrite, collective (ParZ: encode + exchange + file I/O)
 *   close_s   H5Fclose after the write (metadata, chunk index, flush)
 *   read_s    H5Dread, collective, after reopening the file
 *   encode_s  the codec alone on the rank's chunks (same policy as the filter: PARZ_EXEC,
 *             PARZ_THREADS), no HDF5
 *   io_s      MPI_File_write_at_all of the same compressed bytes (raw bytes for "none"), no HDF5
 *   other_s   write_s - encode_s - io_s: HDF5's collective exchange of chunk sizes and owners,
 *             file-space allocation, and copies
 *   decode_s  the codec alone decoding the rank's chunks
 * Throughputs are uncompressed bytes of the whole field per second. The page cache absorbs the
 * file I/O on a machine with free memory, so io_s is a lower bound for a parallel file system. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "H5Zparz.h"
#include "mpi_common.h"
#include "parz_omp.h"

typedef struct {
  uint64_t nz, ny, nx, chunk_rows;
  double tolerance;
  int reps, header;
  const char* file;
  const char* note; /* a free-text column, e.g. "oversubscribed" */
} options;

typedef struct {
  double write_s, close_s, read_s, encode_s, io_s, decode_s;
  double stored_bytes;
} timing;

static int parse(int argc, char** argv, options* o) {
  *o = (options){256, 256, 256, 8, 1e-3, 3, 0, "bench_mpi.h5", ""};
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    char* end = NULL;
    uint64_t* u = !strcmp(a, "--nz")           ? &o->nz
                  : !strcmp(a, "--ny")         ? &o->ny
                  : !strcmp(a, "--nx")         ? &o->nx
                  : !strcmp(a, "--chunk-rows") ? &o->chunk_rows
                                               : NULL;
    if (u) {
      *u = strtoull(v, &end, 10), i++;
      if (*end || *u == 0 || v[0] == '-')
        return 0;
    } else if (!strcmp(a, "--tolerance")) {
      o->tolerance = strtod(v, &end), i++;
      if (*end || !(o->tolerance > 0))
        return 0;
    } else if (!strcmp(a, "--reps")) {
      o->reps = (int)strtol(v, &end, 10), i++;
      if (*end || o->reps < 1)
        return 0;
    } else if (!strcmp(a, "--file")) {
      o->file = v, i++;
    } else if (!strcmp(a, "--note")) {
      o->note = v, i++;
    } else if (!strcmp(a, "--header")) {
      o->header = 1;
    } else {
      return 0;
    }
  }
  return 1;
}

static double max_over_ranks(double x) {
  double m;
  MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

/* The threads the filter would use for one chunk: PARZ_EXEC=serial means 1, else PARZ_THREADS
 * (0 = OpenMP's default). Mirrors the plugin's policy closely enough for timing. */
static int codec_threads(void) {
  const char* exec = getenv("PARZ_EXEC");
  if (exec && !strcmp(exec, "serial"))
    return 1;
  const char* t = getenv("PARZ_THREADS");
  return t ? atoi(t) : 0;
}

/* Bytes that always hold this rank's chunks encoded one after the other. */
static size_t packed_bound(const mpi_field* f, const options* o, const parz_params* p,
                           uint64_t rows) {
  parz_array a = {PARZ_DOUBLE,
                  3,
                  {(size_t)o->chunk_rows, (size_t)f->dims[1], (size_t)f->dims[2]},
                  {0, 0, 0, 0}};
  const parz_chunk_config cfg = {.params = *p, .stored = PARZ_STORED_NEVER}; /* zfp, defaults */
  return parz_chunk_bound(&a, &cfg) * (size_t)(rows / o->chunk_rows);
}

/* The codec alone on this rank's chunks: encode them one after the other into `out` (kept for
 * the MPI-IO step), then decode them into `back`. Both buffers are allocated and touched by the
 * caller, so page faults stay out of the times. Returns 0 on success. */
static int time_codec(const mpi_field* f, const options* o, const parz_params* p,
                      const double* slab, uint64_t rows, timing* tm, unsigned char* out,
                      size_t out_bytes, double* back, size_t* packed_bytes) {
  size_t chunk_values = (size_t)o->chunk_rows * mpi_field_row_values(f);
  parz_array a = {PARZ_DOUBLE,
                  3,
                  {(size_t)o->chunk_rows, (size_t)f->dims[1], (size_t)f->dims[2]},
                  {0, 0, 0, 0}};
  const parz_chunk_config cfg = {.params = *p, .stored = PARZ_STORED_NEVER}; /* zfp, defaults */
  uint64_t nchunks = rows / o->chunk_rows;
  size_t sizes[4096];
  if (nchunks > 4096) {
    fprintf(stderr, "bench_mpi: more than 4096 chunks per rank; use larger chunks\n");
    return 1;
  }
  int threads = codec_threads(), status = 0;
  parz_error err = {0, ""};
  size_t total = 0;
  double t0 = MPI_Wtime();
  for (uint64_t c = 0; c < nchunks && !status; c++) {
    status = parz_omp_chunk_encode(&a, slab + c * chunk_values, &cfg, out + total,
                                   out_bytes - total, &sizes[c], threads, &err);
    total += status ? 0 : sizes[c];
  }
  tm->encode_s = MPI_Wtime() - t0;
  t0 = MPI_Wtime();
  size_t at = 0;
  for (uint64_t c = 0; c < nchunks && !status; c++) {
    status = parz_omp_chunk_decode(out + at, sizes[c], back + c * chunk_values,
                                   chunk_values * sizeof(double), threads, &err);
    at += sizes[c];
  }
  tm->decode_s = MPI_Wtime() - t0;
  if (status)
    fprintf(stderr, "bench_mpi: codec: %s\n", err.message);
  *packed_bytes = total;
  return status;
}

/* MPI-IO alone: every rank writes its bytes at its offset in one collective call. */
static double time_mpiio(const char* path, const void* bytes, size_t n) {
  unsigned long long mine = n, before = 0;
  MPI_Exscan(&mine, &before, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    before = 0; /* MPI_Exscan leaves rank 0's result undefined */
  MPI_File fh;
  if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) !=
      MPI_SUCCESS)
    return -1;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  MPI_File_write_at_all(fh, (MPI_Offset)before, bytes, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
  /* No MPI_File_sync: H5Dwrite does not sync either (close_s holds HDF5's flush). */
  double dt = MPI_Wtime() - t0;
  MPI_File_close(&fh);
  return dt;
}

/* One HDF5 write + close + reopen + read; times are this rank's. */
static int time_hdf5(const mpi_field* f, const options* o, hid_t dcpl, const double* slab,
                     double* back, uint64_t row0, uint64_t rows, timing* tm) {
  hid_t fapl = mpi_fapl(MPI_COMM_WORLD), dxpl = mpi_dxpl(1);
  hid_t file = H5Fcreate(o->file, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  hid_t space = H5Screate_simple(3, f->dims, NULL);
  hid_t dset = H5Dcreate2(file, "field", H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Sclose(space);
  int ok = dset >= 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  ok = ok && mpi_write_rows(dset, f, row0, rows, dxpl, slab) >= 0;
  tm->write_s = MPI_Wtime() - t0;
  tm->stored_bytes = (double)H5Dget_storage_size(dset);
  t0 = MPI_Wtime();
  if (dset >= 0)
    H5Dclose(dset);
  H5Fclose(file);
  tm->close_s = MPI_Wtime() - t0;
  file = H5Fopen(o->file, H5F_ACC_RDONLY, fapl);
  dset = H5Dopen2(file, "field", H5P_DEFAULT);
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  ok = ok && mpi_read_rows(dset, f, row0, rows, dxpl, back) >= 0;
  tm->read_s = MPI_Wtime() - t0;
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(dxpl);
  H5Pclose(fapl);
  return ok;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  options o;
  int ok = parse(argc, argv, &o);
  if (!ok && rank == 0)
    fprintf(stderr,
            "usage: mpirun -np N bench_mpi [--nz N] [--ny N] [--nx N] [--chunk-rows R] "
            "[--tolerance T] [--reps R] [--file F] [--header] [--note TEXT]\n");
  if (ok && o.nz % ((uint64_t)size * o.chunk_rows) != 0) {
    if (rank == 0)
      fprintf(stderr, "bench_mpi: --nz %llu is not a multiple of ranks x chunk rows (%d x %llu)\n",
              (unsigned long long)o.nz, size, (unsigned long long)o.chunk_rows);
    ok = 0;
  }
  mpi_field f = {3, {o.nz, o.ny, o.nx}, 1};
  uint64_t rows = ok ? o.nz / (uint64_t)size : 0, row0 = rows * (uint64_t)rank;
  size_t values = (size_t)rows * mpi_field_row_values(&f);
  double* slab = ok ? malloc(values * sizeof(double)) : NULL;
  double* back = ok ? malloc(values * sizeof(double)) : NULL;
  if (ok && (!slab || !back))
    fprintf(stderr, "bench_mpi: rank %d: out of memory\n", rank);
  if (!mpi_all_ok(MPI_COMM_WORLD, ok && slab && back)) {
    MPI_Finalize();
    return 1;
  }
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  mpi_field_fill(&f, row0, rows, slab);
  double raw = (double)o.nz * (double)mpi_field_row_values(&f) * 8.0;

  const char* threads = getenv("PARZ_THREADS");
  if (rank == 0 && o.header) {
    printf(
        "| ranks | threads | note | config | raw MB | ratio | write MB/s | read MB/s | write_s | "
        "close_s | read_s | encode_s | io_s | other_s | decode_s |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  }
  const char* names[3] = {"none", "accuracy", "reversible"};
  int status = 0;
  for (int c = 0; c < 3 && !status; c++) {
    unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
    size_t ncd = c == 1 ? H5Z_parz_accuracy_cdata(o.tolerance, cd) : H5Z_parz_reversible_cdata(cd);
    hid_t dcpl = mpi_dcpl(&f, o.chunk_rows, c ? H5Z_FILTER_PARZ : 0, cd, ncd);
    char msg[512] = "";
    ok = dcpl >= 0 && mpi_probe_dcpl(&f, dcpl, msg, sizeof msg);
    if (!ok)
      fprintf(stderr, "bench_mpi: rank %d: %s: %s\n", rank, names[c], msg);
    if (!mpi_all_ok(MPI_COMM_WORLD, ok)) {
      status = 1;
      break;
    }
    /* Codec and MPI-IO alone. */
    timing best = {1e30, 1e30, 1e30, 0, 1e30, 0, 0};
    unsigned char* packed = NULL;
    size_t packed_bytes = values * sizeof(double);
    if (c) {
      parz_params p;
      parz_error err;
      if (c == 1)
        parz_params_accuracy(&p, o.tolerance, NULL, &err);
      else
        parz_params_reversible(&p);
      size_t bound = packed_bound(&f, &o, &p, rows);
      packed = malloc(bound ? bound : 1);
      if (packed)
        memset(packed, 0, bound);
      memset(back, 0, values * sizeof(double));
      best.encode_s = best.decode_s = 1e30;
      status = !mpi_all_ok(MPI_COMM_WORLD, packed != NULL);
      for (int r = 0; r < o.reps && !status; r++) {
        timing t = {0, 0, 0, 0, 0, 0, 0};
        status = !mpi_all_ok(MPI_COMM_WORLD, !time_codec(&f, &o, &p, slab, rows, &t, packed, bound,
                                                         back, &packed_bytes));
        double e = max_over_ranks(t.encode_s), d = max_over_ranks(t.decode_s);
        if (e < best.encode_s)
          best.encode_s = e;
        if (d < best.decode_s)
          best.decode_s = d;
      }
    }
    char io_path[1024];
    snprintf(io_path, sizeof io_path, "%s.mpiio", o.file);
    for (int r = 0; r < o.reps && !status; r++) {
      double t = max_over_ranks(
          time_mpiio(io_path, c ? (const void*)packed : (const void*)slab, packed_bytes));
      if (t < best.io_s)
        best.io_s = t;
    }
    if (rank == 0)
      MPI_File_delete(io_path, MPI_INFO_NULL);
    free(packed);
    /* Through HDF5. */
    for (int r = 0; r < o.reps && !status; r++) {
      timing t;
      memset(back, 0, values * sizeof(double));
      ok = time_hdf5(&f, &o, dcpl, slab, back, row0, rows, &t);
      mpi_check chk;
      mpi_field_check(&f, row0, rows, back, c == 1 ? o.tolerance : 0.0, &chk);
      if (chk.bad)
        fprintf(stderr, "bench_mpi: rank %d: %s: %llu wrong values\n", rank, names[c],
                (unsigned long long)chk.bad);
      if (!mpi_all_ok(MPI_COMM_WORLD, ok && !chk.bad)) {
        status = 1;
        break;
      }
      double w = max_over_ranks(t.write_s), cl = max_over_ranks(t.close_s),
             rd = max_over_ranks(t.read_s);
      if (w < best.write_s)
        best.write_s = w;
      if (cl < best.close_s)
        best.close_s = cl;
      if (rd < best.read_s)
        best.read_s = rd;
      best.stored_bytes = t.stored_bytes;
    }
    H5Pclose(dcpl);
    if (status)
      break;
    if (rank == 0) {
      double other = best.write_s - best.encode_s - best.io_s;
      printf(
          "| %d | %s | %s | %s | %.1f | %.2f | %.0f | %.0f | %.4f | %.4f | %.4f | %.4f | %.4f | "
          "%.4f | %.4f |\n",
          size, threads ? threads : "default", o.note, names[c], raw / 1e6, raw / best.stored_bytes,
          raw / 1e6 / best.write_s, raw / 1e6 / best.read_s, best.write_s, best.close_s,
          best.read_s, best.encode_s, best.io_s, other, best.decode_s);
      fflush(stdout);
    }
  }
  if (rank == 0)
    MPI_File_delete(o.file, MPI_INFO_NULL);
  if (status && rank == 0)
    fprintf(stderr, "bench_mpi: FAILED\n");
  free(slab);
  free(back);
  H5close();
  MPI_Finalize();
  return status;
}
