/* The variables of a netCDF file (classic or netCDF-4), as `ncdump -h` describes them: what
 * `parz cd-values --nccopy --from FILE` needs to name each variable for nccopy -F with its own
 * fill value, and to leave coordinate variables alone.
 *
 * Read through ncdump (netcdf-bin), which is present wherever nccopy is, so that neither the
 * tool nor the plugin links the netCDF library. */
#ifndef PARZ_NETCDF_HEADER_H
#define PARZ_NETCDF_HEADER_H

#include <stddef.h>

typedef struct {
  char* name;         /* "temp" in the root group, "/grp/temp" below it; unescaped */
  char type[64];      /* the CDL type: "float", "short", a user-defined type's name */
  int parz_type;      /* the parz_type ParZ stores it as (float, double, int, int64), else 0 */
  int rank;           /* 0 for a scalar */
  int coordinate;     /* a coordinate variable (1-D, named as its dimension), or named by another
                       variable's `coordinates` or `bounds` attribute (CF) */
  int has_fill;       /* a _FillValue attribute */
  int fill_exact;     /* it parsed, and a double holds it exactly (cd_values carry one) */
  double fill;        /* its value, when fill_exact */
  char fill_text[64]; /* as ncdump printed it */
  int deflated;       /* stored with deflate or shuffle (ncdump -s: _DeflateLevel, _Shuffle) */
} nc_variable;

typedef struct {
  nc_variable* v;
  size_t n;
} nc_variables;

/* Parses the CDL header `ncdump -h -s` prints (numbers at full precision: ncdump -p 9,17).
 * Returns 0, or -1 with a message in why. */
int nc_header_parse(const char* cdl, nc_variables* out, char* why, size_t why_size);

/* Runs `ncdump -h -s -p 9,17 FILE` (ncdump found on PATH) and parses what it prints. Returns 0, or
 * -1 with a message in why (ncdump's own message goes to stderr). */
int nc_header_read(const char* file, nc_variables* out, char* why, size_t why_size);

void nc_variables_free(nc_variables* vars);

#endif
