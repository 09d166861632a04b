/* The tool's view of a file: its datasets, their ParZ settings and their stored chunks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "H5Zparz.h"
#include "h5_api.h"
#include "h5_index.h"
#include "parz_tool.h"

const char* tool_table_name(unsigned kind) {
  static const char* const names[] = {"auto", "none", "offsets", "lengths", "hybrid"};
  return kind <= PARZ_TABLE_HYBRID ? names[kind] : "?";
}

/* float32 and float64 by their sizes, as numpy and h5py name them (the codec says "float"). */
static const char* type_word(parz_type t) {
  return t == PARZ_FLOAT ? "float32" : t == PARZ_DOUBLE ? "float64" : parz_type_name(t);
}

/* The four value types ParZ stores, either byte order, by comparison with HDF5's own types. */
static void classify(hid_t type, tool_dataset* d) {
  const struct {
    hid_t type;
    parz_type parz;
    int big_endian;
  } known[] = {
      {H5T_IEEE_F32LE, PARZ_FLOAT, 0},  {H5T_IEEE_F32BE, PARZ_FLOAT, 1},
      {H5T_IEEE_F64LE, PARZ_DOUBLE, 0}, {H5T_IEEE_F64BE, PARZ_DOUBLE, 1},
      {H5T_STD_I32LE, PARZ_INT32, 0},   {H5T_STD_I32BE, PARZ_INT32, 1},
      {H5T_STD_I64LE, PARZ_INT64, 0},   {H5T_STD_I64BE, PARZ_INT64, 1},
  };
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (H5Tequal(type, known[i].type) > 0) {
      d->parz_type = known[i].parz;
      d->big_endian = known[i].big_endian;
      snprintf(d->type_name, sizeof d->type_name, "%s%s", type_word(known[i].parz),
               d->big_endian ? " big-endian" : "");
      return;
    }
  H5T_class_t cls = H5Tget_class(type);
  size_t bits = 8 * H5Tget_size(type);
  if (cls == H5T_INTEGER)
    snprintf(d->type_name, sizeof d->type_name, "%sint%zu",
             H5Tget_sign(type) == H5T_SGN_NONE ? "u" : "", bits);
  else if (cls == H5T_FLOAT)
    snprintf(d->type_name, sizeof d->type_name, "float%zu", bits);
  else
    snprintf(d->type_name, sizeof d->type_name, "%s",
             cls == H5T_STRING     ? "string"
             : cls == H5T_COMPOUND ? "compound"
             : cls == H5T_ENUM     ? "enum"
             : cls == H5T_VLEN     ? "variable-length"
             : cls == H5T_ARRAY    ? "array"
             : cls == H5T_OPAQUE   ? "opaque"
                                   : "other type");
}

static const char* filter_name(H5Z_filter_t id, const char* stored) {
  switch (id) {
    case H5Z_FILTER_PARZ: return "ParZ";
    case H5Z_FILTER_DEFLATE: return "deflate";
    case H5Z_FILTER_SHUFFLE: return "shuffle";
    case H5Z_FILTER_FLETCHER32: return "fletcher32";
    case H5Z_FILTER_SZIP: return "szip";
    case H5Z_FILTER_NBIT: return "nbit";
    case H5Z_FILTER_SCALEOFFSET: return "scaleoffset";
    default: return stored;
  }
}

static void read_filters(hid_t dcpl, tool_dataset* d) {
  int n = H5Pget_nfilters(dcpl);
  size_t len = 0;
  d->parz_index = -1;
  d->nfilters = n < 0 ? 0 : n > PARZ_TOOL_MAX_FILTERS ? PARZ_TOOL_MAX_FILTERS : n;
  for (int i = 0; i < d->nfilters; i++) {
    unsigned flags, config, cd[sizeof d->cd / sizeof d->cd[0]];
    size_t ncd = sizeof cd / sizeof cd[0];
    char stored[64] = "", other[80];
    H5Z_filter_t id =
        H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof stored, stored, &config);
    d->filters[i] = id;
    if (id == H5Z_FILTER_PARZ && d->parz_index < 0) {
      d->parz_index = i;
      d->ncd = ncd;
      memcpy(d->cd, cd, sizeof cd);
      if (ncd > sizeof cd / sizeof cd[0])
        parz_fail(&d->cd_error, PARZ_ERR_PARAM, "parz: %zu cd_values, far more than ParZ stores",
                  ncd);
      else
        d->cd_ok = parz_cd_load(ncd, cd, &d->config, &d->cd_error) == PARZ_OK;
    }
    snprintf(other, sizeof other, "filter %d", (int)id);
    const char* name = filter_name(id, stored[0] ? stored : other);
    if (len < sizeof d->filter_list)
      len += (size_t)snprintf(d->filter_list + len, sizeof d->filter_list - len, "%s%s",
                              i ? ", " : "", name);
  }
}

int tool_dataset_open(hid_t file, const char* path, tool_dataset* d, char* why, size_t why_size) {
  memset(d, 0, sizeof *d);
  d->path = path;
  d->parz_index = -1;
  if ((d->id = H5Dopen2(file, path, H5P_DEFAULT)) < 0) {
    snprintf(why, why_size, "no dataset %s in the file", path);
    return -1;
  }
  hid_t space = H5Dget_space(d->id), type = H5Dget_type(d->id), dcpl = H5Dget_create_plist(d->id);
  int ok = space >= 0 && type >= 0 && dcpl >= 0;
  if (ok) {
    d->rank = H5Sget_simple_extent_ndims(space);
    ok = d->rank >= 0 && d->rank <= H5S_MAX_RANK &&
         H5Sget_simple_extent_dims(space, d->dims, NULL) >= 0;
  }
  if (ok) {
    classify(type, d);
    d->chunked = H5Pget_layout(dcpl) == H5D_CHUNKED;
    if (d->chunked)
      ok = H5Pget_chunk(dcpl, d->rank, d->chunk) == d->rank;
  }
  if (ok && d->chunked) {
    read_filters(dcpl, d);
    uint64_t c64[H5S_MAX_RANK];
    size_t shape[4];
    for (int k = 0; k < d->rank; k++)
      c64[k] = d->chunk[k];
    int dims = parz_cd_squeeze((unsigned)d->rank, c64, shape);
    if (d->parz_index >= 0 && d->parz_type != 0 && dims > 0) {
      d->expected.type = (parz_type)d->parz_type;
      d->expected.dims = (unsigned)dims;
      memcpy(d->expected.shape, shape, sizeof shape);
      if (parz_array_check(&d->expected, NULL) == PARZ_OK)
        d->chunk_bytes = parz_array_count(&d->expected) * parz_type_size(d->expected.type);
    }
  }
  if (dcpl >= 0)
    H5Pclose(dcpl);
  if (type >= 0)
    H5Tclose(type);
  if (space >= 0)
    H5Sclose(space);
  if (!ok) {
    snprintf(why, why_size, "HDF5 cannot describe dataset %s", path);
    tool_dataset_close(d);
    return -1;
  }
  return 0;
}

void tool_dataset_close(tool_dataset* d) {
  if (d->id >= 0)
    H5Dclose(d->id);
  d->id = -1;
}

int tool_dataset_is_parz(const tool_dataset* d) {
  return d->chunked && d->parz_index >= 0 && d->chunk_bytes > 0;
}

int tool_dataset_parz_last(const tool_dataset* d) {
  return tool_dataset_is_parz(d) && d->parz_index == d->nfilters - 1;
}

int tool_chunk_parz_bytes(const tool_dataset* d, const tool_chunk* c, size_t* bytes) {
  unsigned after = (unsigned)(d->nfilters - 1 - d->parz_index);
  if (c->filter_mask & (1u << d->parz_index))
    return 0;
  if (after == 0) {
    *bytes = (size_t)c->stored_bytes;
    return 1;
  }
  /* HDF5's fletcher32 filter appends its checksum, 4 bytes, to the chunk it is given. */
  unsigned last = (unsigned)d->nfilters - 1;
  if (after == 1 && d->filters[last] == H5Z_FILTER_FLETCHER32 && !(c->filter_mask & (1u << last)) &&
      c->stored_bytes >= 4) {
    *bytes = (size_t)c->stored_bytes - 4;
    return 1;
  }
  return 0;
}

void tool_array_text(const parz_array* a, char* out, size_t size) {
  size_t len = (size_t)snprintf(out, size, "%s ", type_word(a->type));
  for (unsigned k = 0; k < a->dims && len < size; k++)
    len += (size_t)snprintf(out + len, size - len, "%s%zu", k ? "x" : "", a->shape[k]);
}

/* The chunk header must describe the dataset's chunk: otherwise the chunk is foreign (written raw
 * into another dataset) or corrupt, and HDF5 would place its values wrongly. */
int tool_chunk_matches(const tool_dataset* d, const parz_chunk_view* v, char* why, size_t size) {
  const parz_array* a = &v->array;
  const parz_array* x = &d->expected;
  int same = a->type == x->type && a->dims == x->dims;
  for (unsigned k = 0; same && k < a->dims; k++)
    same = a->shape[k] == x->shape[k];
  if (!same) {
    char got[64], want[64];
    tool_array_text(a, got, sizeof got);
    tool_array_text(x, want, sizeof want);
    snprintf(why, size,
             "the chunk header says %s, the dataset's chunks are %s (unit dimensions "
             "left out): a chunk of another dataset, or corrupt",
             got, want);
  }
  return same;
}

void tool_dataset_mode(const tool_dataset* d, char* out, size_t size) {
  if (!d->cd_ok) {
    snprintf(out, size, "unreadable settings (%s)", d->cd_error.message);
    return;
  }
  parz_cd_describe(&d->config.request, out, size);
}

/* Reads the stored chunk c (its origin and size set) into *buf and hands it to fn; a chunk whose
 * size HDF5's index gives in two ways is handed over as damaged. */
static int visit_one(const tool_dataset* d, tool_chunk* c, unsigned char** buf, size_t* cap,
                     tool_chunk_fn fn, void* ctx, char* why, size_t why_size) {
  uint64_t origin[H5S_MAX_RANK];
  parz_error e = {0, ""};
  uint32_t mask = 0;
  for (int k = 0; k < d->rank; k++)
    origin[k] = c->origin[k];
  parz_h5_origin_text((unsigned)d->rank, origin, c->where, sizeof c->where);
  if (c->stored_bytes > *cap) {
    unsigned char* more =
        c->stored_bytes <= SIZE_MAX ? realloc(*buf, (size_t)c->stored_bytes) : NULL;
    if (!more) {
      snprintf(why, why_size, "no memory for the %llu-byte chunk at %s",
               (unsigned long long)c->stored_bytes, c->where);
      return -1;
    }
    *buf = more;
    *cap = (size_t)c->stored_bytes;
  }
  int rc = parz_h5_chunk_read(d->id, (unsigned)d->rank, origin, c->stored_bytes, *buf, &mask,
                              "the stored chunk", &e);
  if (rc == PARZ_ERR_FORMAT) {
    c->damaged = e.message;
    c->bytes = NULL;
    return fn(d, c, ctx);
  }
  if (rc != PARZ_OK) {
    snprintf(why, why_size, "%s (the chunk at %s)", e.message, c->where);
    return -1;
  }
  c->damaged = NULL;
  c->filter_mask = mask;
  c->bytes = *buf;
  return fn(d, c, ctx);
}

int tool_visit_chunks(const tool_dataset* d, tool_chunk_fn fn, void* ctx,
                      unsigned long long* unwritten, char* why, size_t why_size) {
  parz_chunk_grid g;
  parz_error e = {0, ""};
  parz_h5_stored_chunk* stored = NULL;
  size_t n = 0;
  *unwritten = 0;
  memset(&g, 0, sizeof g);
  g.rank = (unsigned)d->rank;
  for (int k = 0; k < d->rank; k++) {
    g.dims[k] = d->dims[k];
    g.chunk_dims[k] = d->chunk[k];
  }
  if (parz_h5_api_readers("parz", why, why_size) != PARZ_OK)
    return -1;
  int rc = parz_h5_stored_chunks(d->id, &g, d->path, &stored, &n, &e);
  if (rc != PARZ_OK) {
    snprintf(why, why_size, "%s", e.message);
    return rc == PARZ_ERR_FORMAT ? TOOL_INDEX_DAMAGED : -1;
  }
  *unwritten = parz_h5_grid_chunks(&g) - n;
  unsigned char* buf = NULL;
  size_t cap = 0;
  tool_chunk c;
  memset(&c, 0, sizeof c);
  rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    for (int k = 0; k < d->rank; k++)
      c.origin[k] = stored[i].origin[k];
    c.stored_bytes = stored[i].bytes;
    rc = visit_one(d, &c, &buf, &cap, fn, ctx, why, why_size);
  }
  free(buf);
  free(stored);
  return rc;
}

struct visit {
  tool_dataset_fn fn;
  void* ctx;
};

static herr_t visit_link(hid_t group, const char* name, const H5L_info_t* info, void* data) {
  struct visit* v = data;
  if (info->type != H5L_TYPE_HARD)
    return 0;
  hid_t obj = H5Oopen(group, name, H5P_DEFAULT);
  if (obj < 0)
    return 0;
  int dataset = H5Iget_type(obj) == H5I_DATASET;
  H5Oclose(obj);
  if (!dataset)
    return 0;
  /* the whole path, however long: a path cut short names another dataset or none */
  const size_t len = strlen(name);
  char* path = malloc(len + 2);
  if (!path)
    return -1;
  path[0] = '/';
  memcpy(path + 1, name, len + 1);
  herr_t rc = v->fn(group, path, v->ctx);
  free(path);
  return rc;
}

int tool_visit_datasets(hid_t file, tool_dataset_fn fn, void* ctx) {
  struct visit v = {fn, ctx};
  herr_t rc = H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, visit_link, &v);
  return rc < 0 ? -1 : (int)rc;
}

struct error_pick {
  char* out;
  size_t size;
  int found_parz;
};

static herr_t pick_error(unsigned n, const H5E_error2_t* e, void* data) {
  struct error_pick* p = data;
  if (!e->desc || !e->desc[0])
    return 0;
  if (!p->found_parz && strstr(e->desc, "parz")) {
    snprintf(p->out, p->size, "%s", e->desc);
    p->found_parz = 1;
  } else if (n == 0 && !p->found_parz) {
    snprintf(p->out, p->size, "%s", e->desc);
  }
  return 0;
}

void tool_h5_error(char* out, size_t size) {
  struct error_pick p = {out, size, 0};
  snprintf(out, size, "HDF5 error");
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, pick_error, &p);
  H5Eclear2(H5E_DEFAULT);
}

int tool_target_args(const char* command, int argc, char** argv, const tool_switch* switches,
                     size_t nswitches, void (*usage)(FILE*), char** target) {
  *target = NULL;
  for (int i = 0; i < argc; i++) {
    const char* a = argv[i];
    size_t k = 0;
    while (k < nswitches && strcmp(a, switches[k].name) && strcmp(a, switches[k].letter))
      k++;
    if (k < nswitches) {
      *switches[k].set = 1;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return PARZ_EXIT_OK;
    } else if (a[0] == '-' || *target) {
      fprintf(stderr, "parz %s: unexpected argument '%s'\n", command, a);
      usage(stderr);
      return PARZ_EXIT_USAGE;
    } else {
      *target = argv[i];
    }
  }
  if (*target)
    return -1;
  usage(stderr);
  return PARZ_EXIT_USAGE;
}

int tool_run_target(const char* command, char* target, tool_dataset_fn fn, void* ctx,
                    const int* parz_datasets, const char** only) {
  *only = NULL;
  /* FILE:/dataset unless the whole argument names an existing file. Dataset paths may hold
   * ":/" too (a group named "a:"), so FILE ends at the first ":/" after which an existing file
   * is named; when none is, at the first ":/", for the message. */
  char* colon = NULL;
  if (access(target, F_OK) != 0) {
    colon = strstr(target, ":/");
    for (char* at = colon; at; at = strstr(at + 1, ":/")) {
      *at = 0;
      const int exists = access(target, F_OK) == 0;
      *at = ':';
      if (exists) {
        colon = at;
        break;
      }
    }
  }
  if (colon) {
    *colon = 0;
    *only = colon + 1;
  }
  if (access(target, R_OK) != 0) {
    fprintf(stderr, "parz %s: cannot read %s\n", command, target);
    return PARZ_EXIT_OPEN;
  }
  hid_t file = H5Fopen(target, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) {
    fprintf(stderr, "parz %s: %s is not an HDF5 file HDF5 can open\n", command, target);
    return PARZ_EXIT_OPEN;
  }
  int rc = *only ? fn(file, *only, ctx) : tool_visit_datasets(file, fn, ctx);
  H5Fclose(file);
  if (rc < 0) {
    fprintf(stderr, "parz %s: HDF5 cannot walk %s\n", command, target);
    return PARZ_EXIT_OPEN;
  }
  if (rc != 0)
    return rc;
  if (*parz_datasets == 0) {
    fprintf(stderr, "parz %s: no ParZ dataset in %s%s%s\n", command, target, *only ? ":" : "",
            *only ? *only : "");
    return PARZ_EXIT_NONE;
  }
  return PARZ_EXIT_OK;
}
