/* parz cd-values MODE [TABLE OPTIONS] [--fill VALUE]: the user cd_values for H5Pset_filter, h5py's
 * compression_opts and h5repack -f UD=37050,0,N,..., built by H5Zparz.h's helpers and checked by
 * the filter's own rules wherever they do not depend on the dataset; with --nccopy, the filter
 * specifications nccopy -F takes, one per variable, each with its variable's fill value. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "H5Zparz.h"
#include "netcdf_header.h"
#include "parz_tool.h"

static void cd_values_usage(FILE* f) {
  fprintf(
      f,
      "usage: parz cd-values [--ud] MODE [--segment-blocks C] [--partition-segments P]\n"
      "                      [--table auto|none|offsets|lengths|hybrid] [--fill VALUE]\n"
      "       parz cd-values --nccopy VAR[,VAR...] MODE [TABLE OPTIONS] [--fill VALUE]\n"
      "       parz cd-values --nccopy VAR[,VAR...]|'*' --from FILE MODE [TABLE OPTIONS]\n"
      "MODE is one of:\n"
      "  --accuracy TOL         absolute error bound (floating-point data)\n"
      "  --rate BITS            bits per value (fixed rate)\n"
      "  --precision N          bit planes, 1..64\n"
      "  --reversible           lossless\n"
      "  --expert MINBITS,MAXBITS,MAXPREC,MINEXP\n"
      "Prints the cd_values (H5Pset_filter, h5py compression_opts) and the h5repack filter\n"
      "option UD=37050,0,N,...; --ud prints the UD= string alone. --fill VALUE masks VALUE as\n"
      "the fill value (cd_values mask setting 3), for writers that give HDF5 none.\n"
      "--nccopy prints what nccopy -F takes, one line per variable (nccopy applies a\n"
      "specification naming several variables to none of them): give each line as its own -F.\n"
      "Names as in CDL: /group/var below the root group, backslash before , | and spaces.\n"
      "--from FILE reads the variables' types and _FillValue from FILE (a netCDF file, through\n"
      "ncdump) and puts each variable's fill value into its line; '*' names every data\n"
      "variable of a type ParZ takes in MODE, leaving out coordinate variables, variables\n"
      "named by a coordinates or bounds attribute, and scalars (stderr lists those left out).\n");
}

static int bad_value(const char* option, const char* value, const char* expected) {
  fprintf(stderr, "parz cd-values: %s needs %s, got '%s'\n", option, expected, value);
  return PARZ_EXIT_USAGE;
}

static int parse_double(const char* s, double* x) {
  char* end;
  errno = 0;
  *x = strtod(s, &end);
  return end != s && *end == 0 && errno == 0 && isfinite(*x);
}

/* An integer in [lo, hi]. */
static int parse_long(const char* s, long long lo, long long hi, long long* x) {
  char* end;
  errno = 0;
  *x = strtoll(s, &end, 10);
  return end != s && *end == 0 && errno == 0 && *x >= lo && *x <= hi;
}

/* MINBITS,MAXBITS,MAXPREC,MINEXP: three unsigned 32-bit numbers and a signed one. */
static int parse_expert(const char* s, long long v[4]) {
  const char* p = s;
  for (int k = 0; k < 4; k++) {
    char* end;
    errno = 0;
    v[k] = strtoll(p, &end, 10);
    if (end == p || errno != 0 || *end != (k < 3 ? ',' : '\0'))
      return 0;
    if (k < 3 ? v[k] < 0 || v[k] > UINT_MAX : v[k] < INT_MIN || v[k] > INT_MAX)
      return 0;
    p = end + 1;
  }
  return 1;
}

static int parse_table(const char* s, unsigned* kind) {
  for (unsigned k = PARZ_TABLE_AUTO; k <= PARZ_TABLE_HYBRID; k++)
    if (!strcmp(s, tool_table_name(k))) {
      *kind = k;
      return 1;
    }
  long long n;
  if (!parse_long(s, PARZ_TABLE_AUTO, PARZ_TABLE_HYBRID, &n))
    return 0;
  *kind = (unsigned)n;
  return 1;
}

/* The mode's values into cd (H5Zparz.h); returns how many, 0 after printing why. */
static size_t mode_cd(const char* mode, const char* value, unsigned* cd) {
  double x;
  long long n;
  if (!strcmp(mode, "--accuracy") || !strcmp(mode, "--rate")) {
    if (!parse_double(value, &x) || !(x > 0)) {
      bad_value(mode, value, "a finite number > 0");
      return 0;
    }
    return mode[2] == 'a' ? H5Z_parz_accuracy_cdata(x, cd) : H5Z_parz_rate_cdata(x, cd);
  }
  if (!strcmp(mode, "--precision")) {
    if (!parse_long(value, 1, PARZ_MAX_PREC, &n)) {
      bad_value(mode, value, "a number of bit planes, 1..64");
      return 0;
    }
    return H5Z_parz_precision_cdata((unsigned)n, cd);
  }
  if (!strcmp(mode, "--expert")) {
    long long v[4];
    parz_params p;
    parz_error e = {0, ""};
    if (!parse_expert(value, v)) {
      bad_value(mode, value, "MINBITS,MAXBITS,MAXPREC,MINEXP");
      return 0;
    }
    if (parz_params_expert(&p, (unsigned)v[0], (unsigned)v[1], (unsigned)v[2], (int)v[3], &e) !=
        PARZ_OK) {
      fprintf(stderr, "parz cd-values: --expert %s: %s\n", value, e.message);
      return 0;
    }
    return H5Z_parz_expert_cdata((unsigned)v[0], (unsigned)v[1], (unsigned)v[2], (int)v[3], cd);
  }
  return H5Z_parz_reversible_cdata(cd);
}

static int is_mode(const char* arg) {
  return !strcmp(arg, "--accuracy") || !strcmp(arg, "--rate") || !strcmp(arg, "--precision") ||
         !strcmp(arg, "--expert") || !strcmp(arg, "--reversible");
}

/* The filter's rules for user cd_values that do not depend on the dataset; 0 after printing why. */
static int cd_valid(size_t n, const unsigned* cd, parz_filter_request* req) {
  parz_error e = {0, ""};
  if (parz_cd_parse_request(n, cd, req, &e) != PARZ_OK) {
    fprintf(stderr, "parz cd-values: %s\n", e.message);
    return 0;
  }
  int fixed_rate = req->mode == H5Z_PARZ_MODE_RATE ||
                   (req->mode == H5Z_PARZ_MODE_EXPERT && req->values[0] == req->values[1]);
  if (req->table == PARZ_TABLE_NONE && !fixed_rate) {
    fprintf(stderr,
            "parz cd-values: table none needs a fixed-rate mode (rate, or expert with "
            "MINBITS = MAXBITS)\n");
    return 0;
  }
  return 1;
}

/* A name as nccopy -F reads it (CDL's escapes): a backslash before white space and the
 * punctuation CDL escapes in names, among them the , and | that would end it. */
static void print_nccopy_spec(const char* name, size_t n, const unsigned* cd) {
  for (const char* c = name; *c; c++) {
    if (strchr(" \t!\"#$%&'()*,:;<=>?[\\]^`{|}~", *c))
      putchar('\\');
    putchar(*c);
  }
  printf(",%d", H5Z_FILTER_PARZ);
  for (size_t i = 0; i < n; i++)
    printf(",%u", cd[i]);
  printf("\n");
}

/* VAR[,VAR...] split at commas not escaped by a backslash, escapes removed, into names[] (which
 * point into the returned copy). Returns the copy, NULL when out of memory or a name is empty. */
static char* split_names(const char* list, const char*** names, size_t* count) {
  size_t len = strlen(list), n = 1;
  char* copy = malloc(len + 1);
  *names = calloc(len + 1, sizeof **names); /* at most one name per character, and one more */
  if (!copy || !*names) {
    free(copy);
    free(*names);
    return NULL;
  }
  char* w = copy;
  (*names)[0] = copy;
  for (const char* c = list; *c; c++) {
    if (*c == '\\' && c[1]) {
      *w++ = *++c;
    } else if (*c == ',') {
      *w++ = 0;
      (*names)[n++] = w;
    } else {
      *w++ = *c;
    }
  }
  *w = 0;
  *count = n;
  for (size_t i = 0; i < n; i++)
    if (!(*names)[i][0]) {
      free(copy);
      free(*names);
      return NULL;
    }
  return copy;
}

/* Why ParZ cannot take variable v in mode `mode` as nccopy writes it, or NULL when it can. A
 * coordinate variable is refused in a lossy mode only. */
static const char* cannot_take(const nc_variable* v, unsigned mode, char* why, size_t size) {
  if (v->rank == 0)
    return "a scalar (nccopy stores it unchunked: no filter applies)";
  if (!v->parz_type) {
    snprintf(why, size, "of type %s, which ParZ does not store (float, double, int, int64)",
             v->type);
    return why;
  }
  if (mode == H5Z_PARZ_MODE_ACCURACY &&
      (v->parz_type == PARZ_INT32 || v->parz_type == PARZ_INT64)) {
    snprintf(why, size, "of type %s: accuracy mode needs floating-point values", v->type);
    return why;
  }
  if (v->coordinate && mode != H5Z_PARZ_MODE_REVERSIBLE)
    return "a coordinate variable or cell bounds, which a lossy mode would move (name it with "
           "--reversible only)";
  if (v->has_fill && !v->fill_exact) {
    snprintf(why, size, "_FillValue %s is not exactly a double, as cd_values carry it",
             v->fill_text);
    return why;
  }
  return NULL;
}

/* Why '*' leaves v out: what cannot_take says, and coordinate variables in every mode. */
static const char* left_out(const nc_variable* v, unsigned mode, char* why, size_t size) {
  const char* no = cannot_take(v, mode, why, size);
  return no ? no : v->coordinate ? "a coordinate variable or cell bounds" : NULL;
}

static const nc_variable* find_variable(const nc_variables* vars, const char* name) {
  /* root variables are named without the leading '/' that nccopy also accepts */
  if (name[0] == '/' && !strchr(name + 1, '/'))
    name++;
  for (size_t i = 0; i < vars->n; i++)
    if (!strcmp(vars->v[i].name, name))
      return &vars->v[i];
  return NULL;
}

/* One line for nccopy -F per variable; fill values from the file with --from. */
static int print_nccopy(const char* list, const char* from, size_t n, unsigned* cd,
                        const parz_filter_request* req, int has_fill, double fill) {
  const char** names = NULL;
  size_t count = 0;
  char why[300];
  char* copy = split_names(list, &names, &count);
  if (!copy) {
    fprintf(stderr, "parz cd-values: --nccopy needs VAR[,VAR...] with no empty name, got '%s'\n",
            list);
    return PARZ_EXIT_USAGE;
  }
  int all = count == 1 && !strcmp(names[0], "*");
  size_t deflated = 0;
  int rc = PARZ_EXIT_OK;
  nc_variables vars = {NULL, 0};
  if (all && !from) {
    fprintf(stderr,
            "parz cd-values: --nccopy '*' needs --from FILE, to list the data variables "
            "(nccopy's own '*' would compress coordinate variables too)\n");
    rc = PARZ_EXIT_USAGE;
    goto done;
  }
  if (!from) {
    parz_filter_request fill_req;
    if (has_fill && !cd_valid(n = H5Z_parz_fill_cdata(n, fill, cd), cd, &fill_req)) {
      rc = PARZ_EXIT_USAGE;
      goto done;
    }
    for (size_t i = 0; i < count; i++)
      print_nccopy_spec(names[i], n, cd);
    goto done;
  }
  if (nc_header_read(from, &vars, why, sizeof why) < 0) {
    fprintf(stderr, "parz cd-values: %s\n", why);
    rc = PARZ_EXIT_OPEN;
    goto done;
  }
  /* every name first, so that nothing is printed for a list with a wrong name in it */
  for (size_t i = 0; !all && i < count; i++) {
    const nc_variable* v = find_variable(&vars, names[i]);
    const char* no = v ? cannot_take(v, req->mode, why, sizeof why) : NULL;
    if (!v || no) {
      fprintf(stderr, "parz cd-values: %s%s%s %s\n", v ? "" : "no variable '", names[i],
              v ? " is" : "' in", v ? no : from);
      rc = PARZ_EXIT_USAGE;
    }
  }
  /* nccopy 4.9.0 keeps an input variable's deflate and shuffle and then applies no -F to it,
   * without a word: refused, with the way around it */
  for (size_t i = 0; i < (all ? vars.n : count); i++) {
    const nc_variable* v = all ? &vars.v[i] : find_variable(&vars, names[i]);
    if (v && v->deflated && (!all || !left_out(v, req->mode, why, sizeof why))) {
      fprintf(stderr, "parz cd-values: %s is stored with deflate or shuffle in %s\n", v->name,
              from);
      deflated++;
    }
  }
  if (deflated) {
    fprintf(stderr,
            "parz cd-values: nccopy keeps those and ignores -F for them, exiting 0: first "
            "nccopy -d 0 %s plain.nc, then --from plain.nc\n",
            from);
    rc = PARZ_EXIT_USAGE;
  }
  if (rc != PARZ_EXIT_OK)
    goto done;
  size_t printed = 0;
  for (size_t i = 0; i < (all ? vars.n : count); i++) {
    const nc_variable* v = all ? &vars.v[i] : find_variable(&vars, names[i]);
    const char* no = all ? left_out(v, req->mode, why, sizeof why) : NULL;
    if (no) {
      fprintf(stderr, "parz cd-values: left out %s: %s\n", v->name, no);
      continue;
    }
    unsigned var_cd[H5Z_PARZ_USER_NELMTS_MAX];
    size_t var_n = n;
    memcpy(var_cd, cd, n * sizeof *cd);
    if (v->has_fill && !isnan(v->fill)) /* NaN is masked without being named */
      var_n = H5Z_parz_fill_cdata(n, v->fill, var_cd);
    parz_filter_request var_req;
    if (!cd_valid(var_n, var_cd, &var_req)) {
      rc = PARZ_EXIT_USAGE;
      goto done;
    }
    print_nccopy_spec(v->name, var_n, var_cd);
    printed++;
  }
  if (printed == 0) {
    fprintf(stderr, "parz cd-values: no data variable in %s that ParZ takes in this mode\n", from);
    rc = PARZ_EXIT_NONE;
  }
done:
  nc_variables_free(&vars);
  free(copy);
  free(names);
  return rc;
}

int tool_cd_values(int argc, char** argv) {
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n = 0;
  int modes = 0, ud_only = 0, last_table = -1, has_fill = 0;
  double fill = 0;
  const char *nccopy = NULL, *from = NULL;
  unsigned table[3] = {0, 0, 0}; /* segment_blocks, partition_segments, table kind */
  static const char* const table_options[3] = {"--segment-blocks", "--partition-segments",
                                               "--table"};
  for (int i = 0; i < argc; i++) {
    const char* arg = argv[i];
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      cd_values_usage(stdout);
      return PARZ_EXIT_OK;
    }
    if (!strcmp(arg, "--ud")) {
      ud_only = 1;
      continue;
    }
    int t = -1;
    for (int k = 0; k < 3; k++)
      if (!strcmp(arg, table_options[k]))
        t = k;
    int other = !strcmp(arg, "--fill") || !strcmp(arg, "--nccopy") || !strcmp(arg, "--from");
    int takes_value = t >= 0 || other || (is_mode(arg) && strcmp(arg, "--reversible") != 0);
    if ((t < 0 && !other && !is_mode(arg)) || (takes_value && i + 1 == argc)) {
      fprintf(stderr, "parz cd-values: %s '%s'\n",
              takes_value ? "a value is missing after" : "unknown argument", arg);
      cd_values_usage(stderr);
      return PARZ_EXIT_USAGE;
    }
    const char* value = takes_value ? argv[++i] : NULL;
    if (!strcmp(arg, "--fill")) {
      if (!parse_double(value, &fill))
        return bad_value(arg, value, "a finite number");
      has_fill = 1;
      continue;
    }
    if (!strcmp(arg, "--nccopy") || !strcmp(arg, "--from")) {
      if (arg[2] == 'n')
        nccopy = value;
      else
        from = value;
      continue;
    }
    if (t >= 0) {
      long long v = 0;
      int ok = t == 2 ? parse_table(value, &table[2]) : parse_long(value, 0, UINT_MAX, &v);
      if (!ok)
        return bad_value(arg, value,
                         t == 2 ? "auto, none, offsets, lengths, hybrid or 0..4" : "a number");
      if (t < 2)
        table[t] = (unsigned)v;
      if (t > last_table)
        last_table = t;
      continue;
    }
    if (++modes > 1) {
      fprintf(stderr, "parz cd-values: give one mode only (%s after another)\n", arg);
      return PARZ_EXIT_USAGE;
    }
    if ((n = mode_cd(arg, value, cd)) == 0)
      return PARZ_EXIT_USAGE;
  }
  if (modes == 0) {
    fprintf(stderr, "parz cd-values: give a mode\n");
    cd_values_usage(stderr);
    return PARZ_EXIT_USAGE;
  }
  const char* conflict = from && !nccopy     ? "--from goes with --nccopy VAR[,VAR...]"
                         : nccopy && ud_only ? "--ud and --nccopy print different forms"
                         : from && has_fill  ? "--from takes each variable's fill value from "
                                               "the file's _FillValue: leave out --fill"
                                             : NULL;
  if (conflict) {
    fprintf(stderr, "parz cd-values: %s\n", conflict);
    return PARZ_EXIT_USAGE;
  }
  /* Table settings up to the last one given, 0 (default) for those before it. */
  for (int k = 0; k <= last_table; k++)
    cd[n++] = table[k];
  parz_filter_request req;
  if (!cd_valid(n, cd, &req))
    return PARZ_EXIT_USAGE;
  if (nccopy)
    return print_nccopy(nccopy, from, n, cd, &req, has_fill, fill);
  if (has_fill) {
    n = H5Z_parz_fill_cdata(n, fill, cd);
    if (!cd_valid(n, cd, &req))
      return PARZ_EXIT_USAGE;
  }
  if (!ud_only) {
    printf("cd_values:");
    for (size_t i = 0; i < n; i++)
      printf(" %u", cd[i]);
    printf("\nh5repack:  -f ");
  }
  printf("UD=%d,0,%zu", H5Z_FILTER_PARZ, n);
  for (size_t i = 0; i < n; i++)
    printf(",%u", cd[i]);
  printf("\n");
  return PARZ_EXIT_OK;
}
