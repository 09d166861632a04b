/* parz cd-values MODE [TABLE OPTIONS] [--fill VALUE]: the user cd_values for H5Pset_filter, h5py's
 * compression_opts and h5repack -f UD=37050,0,N,..., built by H5Zparz.h's helpers and checked by
 * the filter's own rules wherever they do not depend on the dataset; with --nccopy, the filter
 * specifications nccopy -F takes, one per variable, each with its variable's fill value. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "H5Zparz.h"
#include "netcdf_header.h"
#include "codec_modes.h"
#include "parz_tool.h"

/* "--accuracy X", "--expert MINBITS,MAXBITS,MAXPREC,MINEXP": a mode's option and its values. */
static void mode_option(const parz_codec_mode* m, char* out, size_t size) {
  int n = snprintf(out, size, "--%s", m->name);
  if (m->names[0] && n > 0 && (size_t)n < size) {
    n += snprintf(out + n, size - (size_t)n, " ");
    for (const char* c = m->names; *c && n > 0 && (size_t)n < size - 1; c++)
      out[n++] = (char)toupper((unsigned char)*c);
    out[n] = 0;
  } else if (m->values[0] && n > 0 && (size_t)n < size) {
    snprintf(out + n, size - (size_t)n, " %s", m->values[0] == 'd' ? "X" : "N");
  }
}

static void cd_values_usage(FILE* f) {
  fprintf(
      f,
      "usage: parz cd-values [--ud] [--codec NAME] MODE [--segment-blocks C]\n"
      "                      [--partition-segments P] [--table auto|none|offsets|lengths|hybrid]\n"
      "                      [--fill VALUE]\n"
      "       parz cd-values --nccopy VAR[,VAR...] [--codec NAME] MODE [TABLE OPTIONS]\n"
      "                      [--fill VALUE]\n"
      "       parz cd-values --nccopy VAR[,VAR...]|'*' --from FILE [--codec NAME] MODE\n"
      "                      [TABLE OPTIONS]\n"
      "--codec NAME chooses the codec (default zfp); MODE is one of its modes:\n");
  for (unsigned i = 0; i < parz_codec_count; i++) {
    const parz_codec* c = parz_codec_chosen(parz_codec_table[i]->id);
    for (unsigned k = 0; c && k < c->modes->count; k++) {
      char option[64];
      mode_option(&c->modes->mode[k], option, sizeof option);
      fprintf(f, "  %-5s %-40s %s\n", k ? "" : c->name, option, c->modes->mode[k].about);
    }
  }
  fprintf(
      f,
      "X is a finite number > 0, N an integer.\n"
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

/* The mode's values, comma-separated in s, as cd_values words (codec_modes.h's letters) into
 * cd; how many, or 0 when s does not hold them. */
static size_t parse_words(const parz_codec_mode* m, const char* s, unsigned* cd) {
  size_t n = 0;
  const char* p = s;
  for (const char* v = m->values; *v; v++) {
    const char* end = strchr(p, ',');
    char item[64];
    size_t len = end ? (size_t)(end - p) : strlen(p);
    double x;
    long long k;
    if ((end != NULL) != (v[1] != 0) || len >= sizeof item)
      return 0;
    memcpy(item, p, len);
    item[len] = 0;
    if (*v == 'd') {
      if (!parse_double(item, &x) || !(x > 0))
        return 0;
      H5Z_parz_double_words(x, &cd[n], &cd[n + 1]);
      n += 2;
    } else {
      if (!parse_long(item, *v == 'i' ? INT_MIN : 0, *v == 'i' ? INT_MAX : UINT_MAX, &k))
        return 0;
      cd[n++] = (unsigned)(k & 0xffffffffLL);
    }
    p = end ? end + 1 : p + len;
  }
  return n;
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

/* cd[0] and the mode's values into cd; returns how many, 0 after printing why. */
static size_t mode_cd(const parz_codec* codec, const parz_codec_mode* m, const char* value,
                      unsigned* cd) {
  char option[64], expected[96];
  size_t n = 0;
  cd[0] = m->number + (codec->id == PARZ_CODEC_ZFP ? 0u : PARZ_CD_CODEC_UNIT * codec->id);
  if (m->values[0] && (n = parse_words(m, value, cd + 1)) == 0) {
    mode_option(m, option, sizeof option);
    snprintf(expected, sizeof expected, "%s (%s)", strchr(option, ' ') + 1,
             m->values[0] == 'd' ? "a finite number > 0" : "integers");
    bad_value(option, value, expected);
    return 0;
  }
  return 1 + n;
}

/* The filter's rules for user cd_values that do not depend on the dataset; 0 after printing why. */
static int cd_valid(size_t n, const unsigned* cd, parz_filter_request* req) {
  parz_error e = {0, ""};
  if (parz_cd_parse_request(n, cd, req, &e) != PARZ_OK ||
      parz_cd_check_request(req, &e) != PARZ_OK) {
    fprintf(stderr, "parz cd-values: %s\n", e.message);
    return 0;
  }
  return 1;
}

/* Whether the request takes values of `type` (in some rank). */
static int takes_type(const parz_filter_request* req, parz_type type) {
  const size_t shape[4] = {8, 8, 8, 8};
  parz_filter_config cfg;
  parz_error e;
  for (unsigned dims = 1; dims <= 4; dims++)
    if (parz_cd_configure(req, type, 0, dims, shape, &cfg, &e) == PARZ_OK)
      return 1;
  return 0;
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

/* Why ParZ cannot take variable v under the request as nccopy writes it, or NULL when it can. A
 * coordinate variable is refused in a lossy mode only. */
static const char* cannot_take(const nc_variable* v, const parz_filter_request* req, char* why,
                               size_t size) {
  if (v->rank == 0)
    return "a scalar (nccopy stores it unchunked: no filter applies)";
  if (!v->parz_type) {
    snprintf(why, size, "of type %s, which ParZ does not store (float, double, int, int64)",
             v->type);
    return why;
  }
  if (!takes_type(req, v->parz_type)) {
    snprintf(why, size, "of type %s: %s mode needs floating-point values", v->type,
             parz_cd_mode(req)->name);
    return why;
  }
  if (v->coordinate && !parz_cd_mode(req)->lossless)
    return "a coordinate variable or cell bounds, which a lossy mode would move (name it with "
           "a lossless mode only, such as --reversible)";
  if (v->has_fill && !v->fill_exact) {
    snprintf(why, size, "_FillValue %s is not exactly a double, as cd_values carry it",
             v->fill_text);
    return why;
  }
  return NULL;
}

/* Why '*' leaves v out: what cannot_take says, and coordinate variables in every mode. */
static const char* left_out(const nc_variable* v, const parz_filter_request* req, char* why,
                            size_t size) {
  const char* no = cannot_take(v, req, why, size);
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
    const char* no = v ? cannot_take(v, req, why, sizeof why) : NULL;
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
    if (v && v->deflated && (!all || !left_out(v, req, why, sizeof why))) {
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
    const char* no = all ? left_out(v, req, why, sizeof why) : NULL;
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
  const parz_codec* codec = parz_codec_chosen(PARZ_CODEC_ZFP);
  for (int i = 0; i + 1 < argc; i++) /* the codec first: the modes are its own */
    if (!strcmp(argv[i], "--codec") && !(codec = parz_codec_named(argv[i + 1]))) {
      char known[160];
      parz_codec_choices(known, sizeof known, 0);
      fprintf(stderr, "parz cd-values: unknown codec '%s'; this build knows %s\n", argv[i + 1],
              known);
      return PARZ_EXIT_USAGE;
    }
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
    const parz_codec_mode* mode =
        strncmp(arg, "--", 2) ? NULL : parz_codec_mode_named(codec, arg + 2);
    int other = !strcmp(arg, "--fill") || !strcmp(arg, "--nccopy") || !strcmp(arg, "--from") ||
                !strcmp(arg, "--codec");
    int takes_value = t >= 0 || other || (mode && mode->values[0]);
    if ((t < 0 && !other && !mode) || (takes_value && i + 1 == argc)) {
      char modes[160];
      parz_codec_mode_names(codec, modes, sizeof modes);
      fprintf(stderr, "parz cd-values: %s '%s' (the modes of codec %s: %s)\n",
              takes_value ? "a value is missing after" : "unknown argument", arg, codec->name,
              modes);
      cd_values_usage(stderr);
      return PARZ_EXIT_USAGE;
    }
    const char* value = takes_value ? argv[++i] : NULL;
    if (!strcmp(arg, "--codec"))
      continue;
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
    if ((n = mode_cd(codec, mode, value, cd)) == 0)
      return PARZ_EXIT_USAGE;
  }
  if (modes == 0 && parz_codec_mode_default(codec)) { /* a mode without values: lossless's */
    n = mode_cd(codec, parz_codec_mode_default(codec), NULL, cd);
    modes = 1;
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
