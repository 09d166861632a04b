/* The `parz` command line tool: what its subcommands share.
 *
 * The tool links HDF5 and the codec. It reads stored chunks as they are in the file
 * (H5Dread_chunk) and parses and decodes them with the same library functions the filter uses, so
 * it needs no plugin for datasets whose last filter is ParZ (the usual pipeline). */
#ifndef PARZ_TOOL_H
#define PARZ_TOOL_H

#include <stddef.h>
#include <stdio.h>

#include <hdf5.h>

#include "filter_config.h"

/* Exit statuses, the same for every subcommand (parz --help, docs/tools.md). */
enum {
  PARZ_EXIT_OK = 0,
  PARZ_EXIT_BAD = 1,   /* a chunk failed to decode (verify) or to parse (inspect) */
  PARZ_EXIT_USAGE = 2, /* unknown command or option, invalid value */
  PARZ_EXIT_OPEN = 3,  /* the file or dataset cannot be opened, or HDF5 failed */
  PARZ_EXIT_NONE = 4   /* no ParZ dataset where one was asked for */
};

#define PARZ_TOOL_MAX_FILTERS 32

/* One dataset: its shape, type, filter pipeline and, when ParZ is in it, ParZ's settings. */
typedef struct {
  hid_t id;
  const char* path; /* as given to tool_dataset_open, which keeps no copy */
  int rank;
  hsize_t dims[H5S_MAX_RANK];
  int chunked;
  hsize_t chunk[H5S_MAX_RANK];
  char type_name[32]; /* "float32", "int16", "string", ... */
  int parz_type;      /* a parz_type when the values are one ParZ stores, else 0 */
  int big_endian;
  int nfilters;
  H5Z_filter_t filters[PARZ_TOOL_MAX_FILTERS];
  char filter_list[256]; /* "shuffle, ParZ, fletcher32" */
  int parz_index;        /* ParZ's place in the pipeline, -1 when absent */
  size_t ncd;            /* ParZ's cd_values as stored in the file */
  unsigned cd[PARZ_CD_INTERNAL_NELMTS + 8];
  int cd_ok; /* cd_values load (parz_cd_load); else cd_error says why */
  parz_error cd_error;
  parz_filter_config config; /* valid when cd_ok */
  parz_array expected;       /* the chunks' type and squeezed shape, from the dataset itself */
  size_t chunk_bytes;        /* bytes of one decoded chunk; 0 when not a ParZ dataset */
} tool_dataset;

/* Opens and describes the dataset at path. Returns 0, or -1 with a message in why. */
int tool_dataset_open(hid_t file, const char* path, tool_dataset* d, char* why, size_t why_size);
void tool_dataset_close(tool_dataset* d);

/* A dataset with ParZ in its pipeline, holding values ParZ stores. */
int tool_dataset_is_parz(const tool_dataset* d);
/* ParZ is the last filter: a stored chunk is a ParZ chunk as it is, to be parsed and decoded
 * without HDF5's pipeline. */
int tool_dataset_parz_last(const tool_dataset* d);

/* "accuracy 0.001", "rate 8", "expert 1,16658,64,-10", ... from the dataset's cd_values. */
void tool_dataset_mode(const tool_dataset* d, char* out, size_t size);

/* One stored chunk, as tool_visit_chunks hands it over. */
typedef struct {
  hsize_t origin[H5S_MAX_RANK]; /* element offset of the chunk in the dataset */
  char where[128];              /* the origin as text, "[0,1440]" */
  unsigned filter_mask;         /* bit k set: filter k was skipped for this chunk */
  hsize_t stored_bytes;
  const unsigned char* bytes; /* the stored bytes (H5Dread_chunk) */
  /* Non-NULL when the chunk's bytes cannot be read safely (HDF5's index gives its size in two
   * ways): why, and `bytes` is NULL. */
  const char* damaged;
} tool_chunk;

/* Where a stored chunk's ParZ chunk lies: all of it when ParZ is the last filter, all but the
 * 4-byte checksum when only fletcher32 follows. Returns 0 when the chunk holds no ParZ chunk to
 * be read without HDF5 (ParZ skipped for it, or other filters after ParZ). */
int tool_chunk_parz_bytes(const tool_dataset* d, const tool_chunk* c, size_t* bytes);

/* Whether a parsed chunk's header describes the dataset's chunk (type and squeezed shape);
 * otherwise the chunk is foreign (written raw from another dataset) or corrupt, and HDF5 would
 * place its values wrongly: says so in why. */
int tool_chunk_matches(const tool_dataset* d, const parz_chunk_view* v, char* why, size_t size);

/* Calls fn for every allocated chunk in C order of the chunk grid, with its stored bytes (or as
 * damaged). fn returns 0 to go on, else the walk stops and returns that value. Returns -1 with a
 * message in why when HDF5 cannot walk the chunk index or read a chunk, TOOL_INDEX_DAMAGED when
 * the index is damaged (records doubled or outside the dataset: why says which), before fn is
 * called; *unwritten counts chunks never written. One pass over HDF5's index (h5_index.h). */
#define TOOL_INDEX_DAMAGED (-2)
typedef int (*tool_chunk_fn)(const tool_dataset* d, const tool_chunk* c, void* ctx);
int tool_visit_chunks(const tool_dataset* d, tool_chunk_fn fn, void* ctx,
                      unsigned long long* unwritten, char* why, size_t why_size);

/* Calls fn(file, dataset path, ctx) for every dataset reachable from the root group by hard
 * links, in name order. Returns 0, fn's first nonzero value, or -1 when the walk fails. */
typedef int (*tool_dataset_fn)(hid_t file, const char* path, void* ctx);
int tool_visit_datasets(hid_t file, tool_dataset_fn fn, void* ctx);

/* The innermost message on HDF5's error stack, preferring ParZ's own. */
void tool_h5_error(char* out, size_t size);

/* "float32 256x1440": an array's type and shape. */
void tool_array_text(const parz_array* a, char* out, size_t size);

/* "none", "offsets", "lengths", "hybrid" (and "auto" for 0); "?" otherwise. */
const char* tool_table_name(unsigned kind);

/* Subcommands: argc/argv start at the subcommand's first argument; they return an exit status. */
int tool_inspect(int argc, char** argv);
int tool_verify(int argc, char** argv);
int tool_cd_values(int argc, char** argv);

/* The arguments of a command that takes FILE[:/dataset] and switches (each flags[k] set to 1
 * when --name or -letter is given). Returns -1 to go on with *target set, or the exit status
 * to end with (after --help, or after printing usage for a wrong argument). */
typedef struct {
  const char* name;   /* "--summary" */
  const char* letter; /* "-s" */
  int* set;
} tool_switch;
int tool_target_args(const char* command, int argc, char** argv, const tool_switch* switches,
                     size_t nswitches, void (*usage)(FILE*), char** target);

/* Opens FILE[:/dataset] read-only (target is modified) and calls fn for the dataset named or for
 * every dataset. Returns fn's first nonzero status; PARZ_EXIT_OPEN when the file cannot be opened
 * or walked; PARZ_EXIT_NONE, after saying so, when *parz_datasets (counted by fn) stays 0; else
 * PARZ_EXIT_OK. *only: the dataset named, or NULL. */
int tool_run_target(const char* command, char* target, tool_dataset_fn fn, void* ctx,
                    const int* parz_datasets, const char** only);

#endif
