/* parz verify FILE[:/dataset]: decodes every stored chunk of every ParZ dataset and reports the
 * bad ones by their place in the dataset.
 *
 * Where ParZ is the last filter (the usual pipeline) each chunk is read as stored and decoded by
 * the function the filter decodes with (filter_exec.h: the execution-policy dispatcher, so
 * PARZ_EXEC applies), after the same checks: it must parse, and its header must describe the
 * dataset's chunk. Where other filters follow ParZ (fletcher32, ...), only HDF5 can undo them:
 * each chunk is then read with H5Dread through the plugin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "H5Zparz.h"
#include "filter_exec.h"
#include "parz_tool.h"

typedef struct {
  void* decoded;            /* one decoded chunk (chunk_bytes) */
  hid_t filespace, memtype; /* for reads through HDF5 */
  unsigned long long chunks, bad, raw;
} verify_dataset;

typedef struct {
  int parz_datasets;
  unsigned long long chunks, bad;
  int plugin_checked;
} verify_state;

static void report(const tool_dataset* d, const tool_chunk* c, const char* what) {
  printf("%s chunk %s: %s\n", d->path, c->where, what);
}

static int verify_stored(const tool_dataset* d, const tool_chunk* c, verify_dataset* s) {
  char why[400];
  parz_error e = {0, ""};
  parz_chunk_view v;
  if (c->filter_mask & (1u << d->parz_index)) {
    s->raw++;
    if (d->nfilters == 1 && c->stored_bytes != d->chunk_bytes) {
      snprintf(why, sizeof why, "stored without ParZ, %llu bytes where the chunk has %zu",
               (unsigned long long)c->stored_bytes, d->chunk_bytes);
      report(d, c, why);
      return 1;
    }
    return 0;
  }
  if (parz_chunk_parse(c->bytes, (size_t)c->stored_bytes, &v, &e) != PARZ_OK) {
    snprintf(why, sizeof why, "cannot read the chunk: %s (%s)", e.message,
             parz_status_name(e.code));
    report(d, c, why);
    return 1;
  }
  if (!tool_chunk_matches(d, &v, why, sizeof why)) {
    report(d, c, why);
    return 1;
  }
  if (parz_filter_exec_decode(&v, c->bytes, (size_t)c->stored_bytes, s->decoded, d->chunk_bytes,
                              &e) != PARZ_OK) {
    snprintf(why, sizeof why, "cannot decode the chunk: %s (%s)", e.message,
             parz_status_name(e.code));
    report(d, c, why);
    return 1;
  }
  return 0;
}

/* The chunk's values through HDF5's whole pipeline (the plugin decodes). */
static int verify_through_hdf5(const tool_dataset* d, const tool_chunk* c, verify_dataset* s) {
  hsize_t count[H5S_MAX_RANK];
  for (int k = 0; k < d->rank; k++) {
    hsize_t left = d->dims[k] - c->origin[k];
    count[k] = left < d->chunk[k] ? left : d->chunk[k];
  }
  hid_t mem = H5Screate_simple(d->rank, count, NULL);
  int ok = mem >= 0 &&
           H5Sselect_hyperslab(s->filespace, H5S_SELECT_SET, c->origin, NULL, count, NULL) >= 0 &&
           H5Dread(d->id, s->memtype, mem, s->filespace, H5P_DEFAULT, s->decoded) >= 0;
  char why[512], message[400];
  if (!ok)
    tool_h5_error(message, sizeof message); /* before the next call clears the stack */
  if (mem >= 0)
    H5Sclose(mem);
  if (ok)
    return 0;
  snprintf(why, sizeof why, "HDF5 cannot read the chunk: %s", message);
  report(d, c, why);
  return 1;
}

static int verify_chunk(const tool_dataset* d, const tool_chunk* c, void* ctx) {
  verify_dataset* s = ctx;
  s->chunks++;
  if (c->damaged) {
    report(d, c, c->damaged);
    s->bad++;
    return 0;
  }
  int bad = tool_dataset_parz_last(d) ? verify_stored(d, c, s) : verify_through_hdf5(d, c, s);
  s->bad += (unsigned)bad;
  return 0;
}

static int verify_dataset_at(hid_t file, const char* path, void* ctx) {
  verify_state* st = ctx;
  tool_dataset d;
  char why[512];
  if (tool_dataset_open(file, path, &d, why, sizeof why) != 0) {
    fprintf(stderr, "parz verify: %s\n", why);
    return PARZ_EXIT_OPEN;
  }
  if (!tool_dataset_is_parz(&d)) {
    printf("%s: not ParZ, skipped\n", path);
    tool_dataset_close(&d);
    return 0;
  }
  st->parz_datasets++;
  if (!d.cd_ok) {
    /* The filter refuses every chunk of this dataset with this message. */
    printf("%s: the dataset's ParZ settings are unreadable: %s\n", path, d.cd_error.message);
    st->bad++;
    tool_dataset_close(&d);
    return 0;
  }
  if (!tool_dataset_parz_last(&d) && !st->plugin_checked) {
    if (H5Zfilter_avail(H5Z_FILTER_PARZ) <= 0) {
      fprintf(stderr,
              "parz verify: %s has filters after ParZ, so its chunks are read through HDF5, "
              "and HDF5 cannot load the ParZ plugin (libH5Zparz.so): install it or set "
              "HDF5_PLUGIN_PATH\n",
              path);
      tool_dataset_close(&d);
      return PARZ_EXIT_OPEN;
    }
    st->plugin_checked = 1;
  }
  verify_dataset s;
  memset(&s, 0, sizeof s);
  s.filespace = s.memtype = -1;
  int rc = PARZ_EXIT_OK;
  s.decoded = malloc(d.chunk_bytes);
  s.filespace = H5Dget_space(d.id);
  s.memtype = H5Dget_type(d.id);
  if (!s.decoded || s.filespace < 0 || s.memtype < 0) {
    fprintf(stderr, "parz verify: %s: no memory for a %zu-byte chunk\n", path, d.chunk_bytes);
    rc = PARZ_EXIT_OPEN;
  } else {
    unsigned long long unwritten = 0;
    const int walked = tool_visit_chunks(&d, verify_chunk, &s, &unwritten, why, sizeof why);
    if (walked == TOOL_INDEX_DAMAGED) {
      printf("%s\n", why); /* the dataset's path first */
      s.bad++;
    } else if (walked != 0) {
      fprintf(stderr, "parz verify: %s: %s\n", path, why);
      rc = PARZ_EXIT_OPEN;
    } else {
      printf("%s: ", path);
      if (s.bad)
        printf("%llu of %llu chunks bad", s.bad, s.chunks);
      else
        printf("%llu chunks ok", s.chunks);
      if (s.raw)
        printf(", %llu stored without ParZ", s.raw);
      if (unwritten)
        printf(", %llu never written", unwritten);
      printf("\n");
    }
  }
  st->chunks += s.chunks;
  st->bad += s.bad;
  free(s.decoded);
  if (s.filespace >= 0)
    H5Sclose(s.filespace);
  if (s.memtype >= 0)
    H5Tclose(s.memtype);
  tool_dataset_close(&d);
  return rc;
}

static void verify_usage(FILE* f) {
  fprintf(f,
          "usage: parz verify FILE[:/dataset]\n"
          "Decodes every stored chunk of every ParZ dataset in FILE (or of the one named), as a\n"
          "read does, and prints each bad chunk with its place in the dataset and the error.\n"
          "Exit status 1 when any chunk is bad. PARZ_EXEC and PARZ_THREADS apply.\n");
}

int tool_verify(int argc, char** argv) {
  verify_state st;
  memset(&st, 0, sizeof st);
  char* target;
  const char* only;
  int rc = tool_target_args("verify", argc, argv, NULL, 0, verify_usage, &target);
  if (rc >= 0)
    return rc;
  rc = tool_run_target("verify", target, verify_dataset_at, &st, &st.parz_datasets, &only);
  if (rc != PARZ_EXIT_OK)
    return rc;
  printf("%d ParZ dataset%s, %llu chunks, %llu bad\n", st.parz_datasets,
         st.parz_datasets == 1 ? "" : "s", st.chunks, st.bad);
  return st.bad ? PARZ_EXIT_BAD : PARZ_EXIT_OK;
}
