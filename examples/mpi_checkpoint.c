/* MPI checkpoint through parallel HDF5 with the ParZ filter.
 *
 * N ranks each own a slab of rows of a 3D float64 field and of a 2D float32 field (smooth waves
 * plus noise; NaN, +Inf and -Inf in the last rank's slab). Chunks are whole multiples of rows
 * inside one slab, so no chunk is shared between ranks. The fields are written collectively
 * with ParZ in accuracy mode and in reversible mode, the file is closed, reopened and read back
 * collectively and then independently, and every value is checked: within the tolerance
 * (accuracy) or bit for bit (reversible); non-finite values bit for bit in both.
 *
 *   mpirun -np N mpi_checkpoint --roundtrip FILE   write, then read back on the same ranks
 *   mpirun -np N mpi_checkpoint --write FILE       write only (a checkpoint)
 *   mpirun -np M mpi_checkpoint --read FILE        restart: read on any rank count M
 *
 * With --device cuda (a build with CUDA) the fields live in GPU memory, as a GPU code keeps its
 * state: each rank's slab is copied down into pinned host memory for the checkpoint and written
 * collectively, the filter encoding every chunk on the rank's GPU (PARZ_EXEC=cuda, set unless
 * the environment says otherwise; NaN masked, as with the defaults everywhere); a restart reads
 * collectively, the filter decoding
 * on the GPU, and copies the slab up into GPU memory. Parallel HDF5 changes the file's chunk index
 * collectively, so chunks go through the filter inside the collective H5Dwrite rather than
 * through parz_h5_write_device, whose H5Dwrite_chunk each rank would call on its own. Ranks of
 * one node share GPU 0 unless CUDA_VISIBLE_DEVICES gives each its own. Without a GPU on any
 * rank it prints "no CUDA GPU" and exits with status 77.
 *
 * Options: --device host|cuda (host), --slab-rows R (3D rows per rank, 8), --ny (48), --nx (64),
 *          --chunk-rows (4),
 *          --rows2 (2D rows per rank, 32), --cols (256), --chunk-rows2 (16),
 *          --tolerance T (accuracy datasets, 1e-3), --mode M (their cd_values mode, 3),
 *          --bad-rank R (--tolerance and --mode apply on rank R only; the others keep the
 *          defaults: how a mistake on one rank looks), --h5-errors (print HDF5's error stacks),
 *          --agree-timeout S (120), and for tests: --fault-write-rank R (rank R's H5Dwrite fails
 *          locally), --fault-kill-rank R (rank R dies after its first collective write),
 *          --fault-stop-rank R (rank R stops itself there, as SIGSTOP would: the others wait in
 *          an agreement step), --fault-stop-early-rank R (rank R stops just before that write:
 *          the others wait inside it).
 * The plugin is found through HDF5_PLUGIN_PATH (or HDF5's default plugin directory).
 *
 * The previous checkpoint survives a failed write: the new one is written to FILE.partial, and
 * only once every rank has closed it cleanly does rank 0 rename it to FILE, in one step. The
 * checkpoint it replaces stays as FILE.prev (a hard link, where the file system has them).
 *
 * Failures: parameters are checked on each rank alone (the filter's own can_apply/set_local,
 * on a private in-memory file) and compared between ranks, and all ranks agree through a
 * reduction before every collective HDF5 call. So a bad value on any rank stops every rank
 * with a message and exit status 1 instead of a hang in a collective call that some ranks never
 * reach. Should a collective HDF5 call fail on only some ranks, the ranks are out of step for
 * good: the program then calls MPI_Abort, which also ends every rank. No rank waits longer than
 * --agree-timeout seconds, nor spins while it waits: in an agreement step it polls with short
 * sleeps and then calls MPI_Abort (the others may be blocked inside a collective call that a
 * failed rank left, or one rank may have stalled), and a watchdog thread calls MPI_Abort when
 * a rank spends that long between two agreement steps (stuck inside a collective HDF5 call
 * whose partner stalled). Raise it when a collective write takes longer. */
#define _POSIX_C_SOURCE 200809L /* link, access */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "H5Zparz.h"
#include "mpi_common.h"
#ifdef PARZ_EXAMPLE_CUDA
#include <cuda_runtime_api.h>
#endif

typedef struct {
  const char* file;
  int write, read;
  int device; /* 1: the fields live in GPU memory (--device cuda) */
  uint64_t slab_rows, ny, nx, chunk_rows;
  uint64_t rows2, cols, chunk_rows2;
  double tolerance;
  unsigned mode;
  int bad_rank; /* -1: options apply on every rank */
  int h5_errors;
  double agree_timeout;
  int fault_write_rank;      /* -1: none */
  int fault_kill_rank;       /* -1: none */
  int fault_stop_rank;       /* -1: none */
  int fault_stop_early_rank; /* -1: none */
} options;

typedef struct {
  MPI_Comm comm;
  int rank, size;
  double agree_timeout; /* seconds a rank waits for the others */
  mpi_watchdog* dog;    /* ends the job when a rank makes no progress between steps */
} team;

static const double default_tolerance = 1e-3;
static const char* const mode_names[2] = {"accuracy", "reversible"};
static const char* const field_names[2] = {"field3d", "field2d"};

static void usage(FILE* out) {
  fprintf(out,
          "usage: mpirun -np N mpi_checkpoint (--roundtrip | --write | --read) FILE\n"
          "  [--device host|cuda] [--slab-rows R] [--ny N] [--nx N] [--chunk-rows R]\n"
          "  [--rows2 R] [--cols N] [--chunk-rows2 R]\n"
          "  [--tolerance T] [--mode M] [--bad-rank R] [--h5-errors]\n"
          "  [--agree-timeout S] [--fault-write-rank R] [--fault-kill-rank R]\n"
          "  [--fault-stop-rank R] [--fault-stop-early-rank R]\n");
}

/* Returns 0 on success, else prints why (rank 0 only) and returns 1. */
static int parse(int argc, char** argv, options* o, int rank) {
  *o = (options){
      NULL, 0, 0,     0,  8,  48, 64, 4, 32, 256, 16, default_tolerance, H5Z_PARZ_MODE_ACCURACY,
      -1,   0, 120.0, -1, -1, -1, -1};
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    uint64_t* u = !strcmp(a, "--slab-rows")     ? &o->slab_rows
                  : !strcmp(a, "--ny")          ? &o->ny
                  : !strcmp(a, "--nx")          ? &o->nx
                  : !strcmp(a, "--chunk-rows")  ? &o->chunk_rows
                  : !strcmp(a, "--rows2")       ? &o->rows2
                  : !strcmp(a, "--cols")        ? &o->cols
                  : !strcmp(a, "--chunk-rows2") ? &o->chunk_rows2
                                                : NULL;
    char* end = NULL;
    if (!strcmp(a, "--roundtrip") || !strcmp(a, "--write") || !strcmp(a, "--read")) {
      if (!v)
        goto bad;
      o->file = v, i++;
      o->write = strcmp(a, "--read") != 0;
      o->read = strcmp(a, "--write") != 0;
    } else if (u) {
      if (!v)
        goto bad;
      unsigned long long x = strtoull(v, &end, 10);
      if (*end || x == 0 || v[0] == '-') {
        if (rank == 0)
          fprintf(stderr, "mpi_checkpoint: %s needs a positive integer, not '%s'\n", a, v);
        return 1;
      }
      *u = x, i++;
    } else if (!strcmp(a, "--tolerance") && v) {
      o->tolerance = strtod(v, &end), i++;
      if (*end)
        goto bad_value;
    } else if (!strcmp(a, "--mode") && v) {
      o->mode = (unsigned)strtoul(v, &end, 10), i++;
      if (*end)
        goto bad_value;
    } else if (!strcmp(a, "--bad-rank") && v) {
      o->bad_rank = (int)strtol(v, &end, 10), i++;
      if (*end)
        goto bad_value;
    } else if (!strcmp(a, "--agree-timeout") && v) {
      o->agree_timeout = strtod(v, &end), i++;
      if (*end || !(o->agree_timeout > 0))
        goto bad_value;
    } else if ((!strcmp(a, "--fault-write-rank") || !strcmp(a, "--fault-kill-rank") ||
                !strcmp(a, "--fault-stop-rank") || !strcmp(a, "--fault-stop-early-rank")) &&
               v) {
      int* r = !strcmp(a, "--fault-write-rank")  ? &o->fault_write_rank
               : !strcmp(a, "--fault-kill-rank") ? &o->fault_kill_rank
               : !strcmp(a, "--fault-stop-rank") ? &o->fault_stop_rank
                                                 : &o->fault_stop_early_rank;
      *r = (int)strtol(v, &end, 10), i++;
      if (*end)
        goto bad_value;
    } else if (!strcmp(a, "--device") && v) {
      i++;
      if (!strcmp(v, "cuda")) {
#ifdef PARZ_EXAMPLE_CUDA
        o->device = 1;
#else
        if (rank == 0)
          fprintf(stderr, "mpi_checkpoint: --device cuda: built without CUDA\n");
        return 1;
#endif
      } else if (strcmp(v, "host")) {
        goto bad_value;
      }
    } else if (!strcmp(a, "--h5-errors")) {
      o->h5_errors = 1;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      if (rank == 0)
        usage(stdout);
      return 1;
    } else {
      goto bad;
    }
    continue;
  bad_value:
    if (rank == 0)
      fprintf(stderr, "mpi_checkpoint: bad value '%s' for %s\n", v, a);
    return 1;
  }
  if (o->file)
    return 0;
bad:
  if (rank == 0)
    usage(stderr);
  return 1;
}

/* Collective: returns 1 when `ok` holds on every rank. When it fails on every rank the caller
 * cleans up (collectively) and stops. When it fails on some ranks only, those ranks have left a
 * collective HDF5 call that the others completed: nothing collective can follow, so abort. */
static int step(const team* t, int ok, const char* what, int after_collective) {
  int failed = ok ? 0 : 1, nfailed = 0;
  char why[400];
  if (failed)
    snprintf(why, sizeof why,
             "%s failed here and the other ranks did not answer within %g s "
             "(blocked in the collective call?)",
             what, t->agree_timeout);
  else
    snprintf(why, sizeof why,
             "after %s, the other ranks did not answer within %g s (a rank "
             "stalled?)",
             what, t->agree_timeout);
  mpi_watchdog_disarm(t->dog); /* the wait below has its own time limit */
  mpi_allreduce_within(&failed, &nfailed, 1, MPI_INT, MPI_SUM, t->comm, t->agree_timeout, why);
  mpi_watchdog_arm(t->dog, what);
  if (nfailed == 0)
    return 1;
  if (t->rank == 0)
    fprintf(stderr, "mpi_checkpoint: %s failed on %d of %d ranks; stopping every rank\n", what,
            nfailed, t->size);
  if (after_collective && nfailed < t->size) {
    if (t->rank == 0)
      fprintf(stderr, "mpi_checkpoint: ranks out of step, MPI_Abort\n");
    MPI_Abort(t->comm, 1);
  }
  return 0;
}

/* Local failure report: the rank and the innermost HDF5 message. */
static void rank_error(const team* t, const char* what) {
  char msg[512];
  mpi_h5_message(msg, sizeof msg);
  fprintf(stderr, "rank %d: %s: %s\n", t->rank, what, msg);
}

static void filter_cd(const options* o, int rank, int reversible, unsigned* cd, size_t* ncd) {
  if (reversible) {
    *ncd = H5Z_parz_reversible_cdata(cd);
  } else {
    int mine = o->bad_rank < 0 || o->bad_rank == rank;
    *ncd = H5Z_parz_accuracy_cdata(mine ? o->tolerance : default_tolerance, cd);
    cd[0] = mine ? o->mode : H5Z_PARZ_MODE_ACCURACY;
  }
}

/* 1 when every rank passes the same cd_values (HDF5 requires identical creation arguments on
 * all ranks; a difference would give each rank a different idea of the file). */
static int same_on_all_ranks(const team* t, const unsigned* cd, size_t ncd) {
  unsigned v[1 + H5Z_PARZ_USER_NELMTS_MAX] = {0}, lo[1 + H5Z_PARZ_USER_NELMTS_MAX],
                 hi[1 + H5Z_PARZ_USER_NELMTS_MAX];
  v[0] = (unsigned)ncd;
  memcpy(v + 1, cd, ncd * sizeof *cd);
  int n = 1 + H5Z_PARZ_USER_NELMTS_MAX;
  const char* what = "comparing the filter parameters: no answer from the other ranks in time";
  mpi_allreduce_within(v, lo, n, MPI_UNSIGNED, MPI_MIN, t->comm, t->agree_timeout, what);
  mpi_allreduce_within(v, hi, n, MPI_UNSIGNED, MPI_MAX, t->comm, t->agree_timeout, what);
  return memcmp(lo, hi, sizeof lo) == 0;
}

static double max_time(const team* t, double local) {
  double m = 0;
  mpi_allreduce_within(&local, &m, 1, MPI_DOUBLE, MPI_MAX, t->comm, t->agree_timeout,
                       "collecting the timings: no answer from the other ranks in time");
  return m;
}

/* Rank 0, once every rank has closed the new checkpoint `partial` cleanly: makes it `file`.
 * The checkpoint it replaces is kept as `prev` (a hard link; where the file system has none, it
 * is replaced), then rename() puts the new one in its place in one step, so that `file` is a
 * complete checkpoint, old or new, at every moment. */
static int publish(const char* partial, const char* file, const char* prev) {
  if (access(file, F_OK) == 0) {
    if (unlink(prev) != 0 && errno != ENOENT)
      fprintf(stderr, "mpi_checkpoint: cannot remove %s: %s\n", prev, strerror(errno));
    if (link(file, prev) != 0)
      fprintf(stderr,
              "mpi_checkpoint: cannot keep the previous checkpoint as %s (%s); it is "
              "replaced\n",
              prev, strerror(errno));
  }
  if (rename(partial, file) != 0) {
    fprintf(stderr, "rank 0: cannot rename %s to %s: %s\n", partial, file, strerror(errno));
    return 0;
  }
  return 1;
}

/* A rank's slab of a field where the simulation keeps it: host memory, or GPU memory (device)
 * with a pinned host copy that checkpoints go through. */
typedef struct {
  void* host;
  void* device; /* NULL: the slab lives in host memory */
} field_slab;

static int slab_alloc(field_slab* s, size_t bytes, int device) {
  s->host = s->device = NULL;
#ifdef PARZ_EXAMPLE_CUDA
  if (device)
    return cudaMallocHost(&s->host, bytes ? bytes : 1) == cudaSuccess &&
           cudaMalloc(&s->device, bytes ? bytes : 1) == cudaSuccess;
#else
  (void)device;
#endif
  return (s->host = malloc(bytes ? bytes : 1)) != NULL;
}

static void slab_free(field_slab* s) {
#ifdef PARZ_EXAMPLE_CUDA
  if (s->device) {
    cudaFree(s->device);
    cudaFreeHost(s->host);
    return;
  }
#endif
  free(s->host);
}

/* The slab's values between GPU memory and its host copy (nothing to do in host memory). */
static int slab_copy(field_slab* s, size_t bytes, int down) {
#ifdef PARZ_EXAMPLE_CUDA
  if (s->device)
    return cudaMemcpy(down ? s->host : s->device, down ? s->device : s->host, bytes,
                      down ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice) == cudaSuccess;
#else
  (void)s;
  (void)bytes;
  (void)down;
#endif
  return 1;
}

/* --device cuda: 1 when every rank has a CUDA GPU; when none has one, every rank says so and the
 * program ends with status 77 (the test's "skipped"); when only some do, 0. */
static int gpus_present(const team* t, const options* o) {
#ifdef PARZ_EXAMPLE_CUDA
  int n = 0, have, all = 0;
  if (!o->device)
    return 1;
  have = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  mpi_allreduce_within(&have, &all, 1, MPI_INT, MPI_SUM, t->comm, t->agree_timeout,
                       "looking for GPUs: no answer from the other ranks in time");
  if (all == 0) {
    if (t->rank == 0)
      printf("mpi_checkpoint: no CUDA GPU on any rank: skipped\n");
    mpi_watchdog_stop(t->dog);
    H5close();
    MPI_Finalize();
    exit(77);
  }
  if (!have)
    fprintf(stderr, "rank %d: --device cuda: no CUDA GPU here\n", t->rank);
  setenv("PARZ_EXEC", "cuda", 0); /* the filter encodes and decodes on the GPU */
  return all == t->size;
#else
  (void)t;
  (void)o;
  return 1;
#endif
}

static int write_checkpoint(const team* t, const options* o) {
  mpi_field fields[2] = {
      {3, {o->slab_rows * (uint64_t)t->size, o->ny, o->nx}, 1},
      {2, {o->rows2 * (uint64_t)t->size, o->cols, 0}, 0},
  };
  const uint64_t slab[2] = {o->slab_rows, o->rows2}, chunk[2] = {o->chunk_rows, o->chunk_rows2};

  /* 1. Local checks: chunk alignment, then the filter itself on a private in-memory file. */
  int ok = 1;
  for (int k = 0; k < 2; k++)
    if (slab[k] % chunk[k] != 0) {
      if (t->rank == 0)
        fprintf(stderr,
                "mpi_checkpoint: %s chunk rows %llu do not divide the %llu rows of a "
                "slab: chunks would be shared between ranks\n",
                field_names[k], (unsigned long long)chunk[k], (unsigned long long)slab[k]);
      ok = 0;
    }
  hid_t dcpl[2][2];
  for (int m = 0; m < 2; m++) {
    unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
    size_t ncd;
    filter_cd(o, t->rank, m, cd, &ncd);
    for (int k = 0; k < 2; k++) {
      dcpl[m][k] = mpi_dcpl(&fields[k], chunk[k], H5Z_FILTER_PARZ, cd, ncd);
      char msg[512] = "cannot build the creation list";
      if (dcpl[m][k] < 0 || (ok && !mpi_probe_dcpl(&fields[k], dcpl[m][k], msg, sizeof msg))) {
        fprintf(stderr, "rank %d: %s/%s: cannot create a ParZ dataset: %s\n", t->rank,
                mode_names[m], field_names[k], msg);
        ok = 0;
      }
    }
    /* 2. Agreement: the same parameters everywhere (collective, so every rank runs it). */
    if (!same_on_all_ranks(t, cd, ncd)) {
      if (t->rank == 0)
        fprintf(stderr, "mpi_checkpoint: %s filter parameters differ between ranks\n",
                mode_names[m]);
      ok = 0;
    }
  }
  int status = 1, created = 0;
  hid_t file = H5I_INVALID_HID, fapl = H5I_INVALID_HID, dxpl = mpi_dxpl(1);
  const size_t len = strlen(o->file) + sizeof ".partial";
  char *partial = (char*)malloc(len), *prev = (char*)malloc(len);
  if (!partial || !prev)
    ok = 0;
  if (!step(t, ok, "checking the parameters (before any collective HDF5 call)", 0))
    goto done;
  snprintf(partial, len, "%s.partial", o->file);
  snprintf(prev, len, "%s.prev", o->file);

  /* 3. Collective creation and writes, into a new file: the previous checkpoint stays whole. */
  fapl = mpi_fapl(t->comm);
  file = H5Fcreate(partial, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (file < 0)
    rank_error(t, "H5Fcreate");
  created = file >= 0;
  if (!step(t, file >= 0, "creating the file", 1))
    goto done;
  ok = mpi_attr_write_double(file, "writer_ranks", t->size) >= 0;
  if (!step(t, ok, "writing the file attribute", 1))
    goto done;
  for (int m = 0; m < 2; m++) {
    hid_t group = H5Gcreate2(file, mode_names[m], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (!step(t, group >= 0, "creating a group", 1))
      goto done;
    for (int k = 0; k < 2 && ok; k++) {
      const mpi_field* f = &fields[k];
      uint64_t row0 = slab[k] * (uint64_t)t->rank;
      const size_t bytes = slab[k] * mpi_field_row_values(f) * mpi_field_value_size(f);
      field_slab state;
      if (!step(t, slab_alloc(&state, bytes, o->device), "allocating a slab", 0)) {
        slab_free(&state);
        H5Gclose(group);
        goto done;
      }
      void* buf = state.host;
      mpi_field_fill(f, row0, slab[k], buf);
      ok = slab_copy(&state, bytes, 0); /* --device cuda: the simulation's state on the GPU */
      hid_t space = H5Screate_simple(f->rank, f->dims, NULL);
      hid_t dset = H5Dcreate2(group, field_names[k], mpi_field_file_type(f), space, H5P_DEFAULT,
                              dcpl[m][k], H5P_DEFAULT);
      if (dset < 0)
        rank_error(t, "H5Dcreate2");
      H5Sclose(space);
      ok = step(t, dset >= 0 && ok, "creating a dataset", 1);
      if (ok) {
        ok = mpi_attr_write_double(dset, "parz_tolerance", m ? 0.0 : o->tolerance) >= 0;
        ok = step(t, ok, "writing a dataset attribute", 1);
      }
      if (ok) {
        int none = 0, all = 0; /* line up, so that the time below is the write's */
        mpi_allreduce_within(&none, &all, 1, MPI_INT, MPI_SUM, t->comm, t->agree_timeout,
                             "before the collective write, the other ranks did not answer in time");
        double t0 = MPI_Wtime();
        mpi_field wrong = *f; /* --fault-write-rank: a selection beyond the extent */
        wrong.dims[1] += 1;
        if (t->rank == o->fault_stop_early_rank)
          raise(SIGSTOP);                       /* tests: the others wait inside */
        herr_t st = slab_copy(&state, bytes, 1) /* GPU memory down into the pinned copy */
                        ? mpi_write_rows(dset, t->rank == o->fault_write_rank ? &wrong : f, row0,
                                         slab[k], dxpl, buf)
                        : -1;
        double dt = MPI_Wtime() - t0;
        if (st < 0)
          rank_error(t, "collective H5Dwrite");
        if (t->rank == o->fault_kill_rank)
          raise(SIGKILL); /* tests: dies with the file half written */
        if (t->rank == o->fault_stop_rank)
          raise(SIGSTOP);                                 /* tests: stalls there */
        ok = step(t, st >= 0, "the collective write", 1); /* first: before any other collective */
        dt = ok ? max_time(t, dt) : dt;
        if (ok && t->rank == 0) {
          double raw = (double)f->dims[0] * (double)mpi_field_row_values(f) *
                       (double)mpi_field_value_size(f);
          double stored = (double)H5Dget_storage_size(dset);
          printf("write %s/%s: %d ranks, %.2f MB raw, ratio %.2f, %.4f s (collective%s)\n",
                 mode_names[m], field_names[k], t->size, raw / 1e6, raw / stored, dt,
                 o->device ? ", from GPU memory" : "");
        }
      }
      if (dset >= 0)
        H5Dclose(dset);
      slab_free(&state);
    }
    H5Gclose(group);
    if (!ok)
      goto done;
  }

  /* 4. Close on every rank, then put the new checkpoint in place of the old one. */
  ok = H5Fclose(file) >= 0;
  file = H5I_INVALID_HID;
  if (!ok)
    rank_error(t, "H5Fclose");
  if (!step(t, ok, "closing the file", 1))
    goto done;
  ok = t->rank != 0 || publish(partial, o->file, prev);
  if (step(t, ok, "renaming the new checkpoint into place", 0)) {
    status = 0;
    created = 0;
  }
done:
  for (int m = 0; m < 2; m++)
    for (int k = 0; k < 2; k++)
      if (dcpl[m][k] >= 0)
        H5Pclose(dcpl[m][k]);
  if (file >= 0 && H5Fclose(file) < 0)
    status = 1;
  if (created && t->rank == 0)
    remove(partial); /* a write every rank gave up: no trace */
  if (fapl >= 0)
    H5Pclose(fapl);
  H5Pclose(dxpl);
  free(partial);
  free(prev);
  return status;
}

/* Reads one dataset on this rank's share of rows, collectively and then independently. */
static int read_dataset(const team* t, const options* o, hid_t file, int m, int k,
                        const hid_t dxpl[2]) {
  char path[64];
  snprintf(path, sizeof path, "%s/%s", mode_names[m], field_names[k]);
  hid_t dset = H5Dopen2(file, path, H5P_DEFAULT);
  if (dset < 0)
    rank_error(t, "H5Dopen2");
  if (!step(t, dset >= 0, "opening a dataset", 1))
    return 1;
  mpi_field f = {0, {0, 0, 0}, 0};
  hid_t space = H5Dget_space(dset), type = H5Dget_type(dset);
  f.rank = H5Sget_simple_extent_ndims(space);
  if (f.rank == 2 || f.rank == 3)
    H5Sget_simple_extent_dims(space, f.dims, NULL);
  f.is_double = H5Tget_size(type) == 8;
  H5Tclose(type);
  hid_t dcpl = H5Dget_create_plist(dset);
  unsigned flags;
  int parz = H5Pget_filter_by_id2(dcpl, H5Z_FILTER_PARZ, &flags, NULL, NULL, 0, NULL, NULL) >= 0;
  H5Pclose(dcpl);
  H5Sclose(space);
  double tol = -1;
  mpi_attr_read_double(dset, "parz_tolerance", &tol);
  uint64_t row0, rows;
  mpi_split(f.dims[0], t->size, t->rank, &row0, &rows);
  size_t bytes = (size_t)rows * mpi_field_row_values(&f) * mpi_field_value_size(&f);
  field_slab state;
  int ok = slab_alloc(&state, bytes, o->device);
  void* buf = state.host;
  ok = ok && (f.rank == 2 || f.rank == 3) && tol >= 0 && parz;
  if (!ok)
    fprintf(stderr, "rank %d: %s: not a ParZ dataset this program wrote\n", t->rank, path);
  int status = 1;
  if (!step(t, ok, "inspecting a dataset", 0))
    goto done;
  for (int c = 0; c < 2; c++) {
    memset(buf, 0x5A, bytes); /* so that values never read cannot pass */
    double t0 = MPI_Wtime();
    herr_t st = mpi_read_rows(dset, &f, row0, rows, dxpl[c], buf);
    if (st >= 0 && !slab_copy(&state, bytes, 0))
      st = -1; /* --device cuda: up to the GPU */
    double dt = MPI_Wtime() - t0;
    if (st < 0)
      rank_error(t, c ? "independent H5Dread" : "collective H5Dread");
    if (!step(t, st >= 0, c ? "an independent read" : "a collective read", c == 0))
      goto done;
    dt = max_time(t, dt);
    mpi_check chk;
    mpi_field_check(&f, row0, rows, buf, tol, &chk);
    mpi_check_allreduce(t->comm, &chk, t->agree_timeout);
    if (t->rank == 0) {
      printf("read %s: %d ranks, %-11s %.4f s: %llu values, ", path, t->size,
             c ? "independent" : "collective", dt, (unsigned long long)chk.values);
      if (tol > 0)
        printf("max |err| %.3g (tolerance %g), ", chk.max_err, tol);
      else
        printf("bit-exact check, ");
      printf("non-finite %llu/%llu exact: %s\n",
             (unsigned long long)(chk.nonfinite - chk.nonfinite_bad),
             (unsigned long long)chk.nonfinite, chk.bad ? "FAILED" : "ok");
      if (chk.bad)
        fprintf(stderr, "mpi_checkpoint: %s: %llu values wrong (%s read)\n", path,
                (unsigned long long)chk.bad, c ? "independent" : "collective");
    }
    if (chk.bad || chk.nonfinite == 0)
      goto done; /* the last slab must hold non-finite values */
  }
  status = 0;
done:
  slab_free(&state);
  H5Dclose(dset);
  return status;
}

static int read_checkpoint(const team* t, const options* o) {
  /* A rank without the plugin would fail inside the collective reads while the others go on:
   * check on every rank first (this loads the plugin) and agree. */
  int have = H5Zfilter_avail(H5Z_FILTER_PARZ) > 0;
  if (!have)
    rank_error(t, "the ParZ filter (id 37050) is not available, check HDF5_PLUGIN_PATH");
  if (!step(t, have, "loading the ParZ filter (before any collective HDF5 call)", 0))
    return 1;
  hid_t fapl = mpi_fapl(t->comm);
  hid_t file = H5Fopen(o->file, H5F_ACC_RDONLY, fapl);
  if (file < 0)
    rank_error(t, "H5Fopen"); /* before any other call clears the error stack */
  H5Pclose(fapl);
  if (!step(t, file >= 0, "opening the file", 1))
    return 1;
  double writers = 0;
  mpi_attr_read_double(file, "writer_ranks", &writers);
  if (t->rank == 0)
    printf("read: file written by %.0f ranks, read by %d ranks\n", writers, t->size);
  hid_t dxpl[2] = {mpi_dxpl(1), mpi_dxpl(0)};
  int status = 0;
  for (int m = 0; m < 2 && !status; m++)
    for (int k = 0; k < 2 && !status; k++)
      status = read_dataset(t, o, file, m, k, dxpl);
  H5Pclose(dxpl[0]);
  H5Pclose(dxpl[1]);
  if (H5Fclose(file) < 0)
    status = 1;
  return status;
}

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  /* MPI_THREAD_MULTIPLE: the watchdog thread may call MPI_Abort */
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  team t = {MPI_COMM_WORLD, 0, 1, 120.0, NULL};
  MPI_Comm_rank(t.comm, &t.rank);
  MPI_Comm_size(t.comm, &t.size);
  options o;
  int status = parse(argc, argv, &o, t.rank);
  if (!status) {
    t.agree_timeout = o.agree_timeout;
    t.dog = mpi_watchdog_start(t.comm, t.agree_timeout);
    mpi_watchdog_arm(t.dog, "the start");
    if (!o.h5_errors)
      H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* our messages instead */
    if (!step(&t, gpus_present(&t, &o), "finding a GPU on every rank", 0))
      status = 1;
    if (!status && o.write)
      status = write_checkpoint(&t, &o);
    if (!status && o.read)
      status = read_checkpoint(&t, &o);
    if (t.rank == 0)
      printf("mpi_checkpoint: %s\n", status ? "FAILED" : "ok");
    mpi_watchdog_stop(t.dog);
  }
  H5close(); /* before MPI_Finalize: HDF5's MPI-IO files must be gone by then */
  MPI_Finalize();
  return status;
}
