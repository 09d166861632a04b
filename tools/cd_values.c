/* parz cd-values MODE [TABLE OPTIONS]: the user cd_values for H5Pset_filter, h5py's
 * compression_opts and h5repack -f UD=37050,0,N,..., built by H5Zparz.h's helpers and checked by
 * the filter's own rules wherever they do not depend on the dataset. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "H5Zparz.h"
#include "parz_tool.h"

static void cd_values_usage(FILE* f) {
  fprintf(f,
          "usage: parz cd-values [--ud] MODE [--segment-blocks C] [--partition-segments P]\n"
          "                      [--table auto|none|offsets|lengths|hybrid]\n"
          "MODE is one of:\n"
          "  --accuracy TOL         absolute error bound (floating-point data)\n"
          "  --rate BITS            bits per value (fixed rate)\n"
          "  --precision N          bit planes, 1..64\n"
          "  --reversible           lossless\n"
          "  --expert MINBITS,MAXBITS,MAXPREC,MINEXP\n"
          "Prints the cd_values (H5Pset_filter, h5py compression_opts) and the h5repack filter\n"
          "option UD=37050,0,N,...; --ud prints the UD= string alone.\n");
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

int tool_cd_values(int argc, char** argv) {
  unsigned cd[H5Z_PARZ_USER_NELMTS_MAX];
  size_t n = 0;
  int modes = 0, ud_only = 0, last_table = -1;
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
    int takes_value = t >= 0 || (is_mode(arg) && strcmp(arg, "--reversible") != 0);
    if ((t < 0 && !is_mode(arg)) || (takes_value && i + 1 == argc)) {
      fprintf(stderr, "parz cd-values: %s '%s'\n",
              takes_value ? "a value is missing after" : "unknown argument", arg);
      cd_values_usage(stderr);
      return PARZ_EXIT_USAGE;
    }
    const char* value = takes_value ? argv[++i] : NULL;
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
  /* Table settings up to the last one given, 0 (default) for those before it. */
  for (int k = 0; k <= last_table; k++)
    cd[n++] = table[k];
  parz_filter_request req;
  parz_error e = {0, ""};
  if (parz_cd_parse_request(n, cd, &req, &e) != PARZ_OK) {
    fprintf(stderr, "parz cd-values: %s\n", e.message);
    return PARZ_EXIT_USAGE;
  }
  int fixed_rate = req.mode == H5Z_PARZ_MODE_RATE ||
                   (req.mode == H5Z_PARZ_MODE_EXPERT && req.values[0] == req.values[1]);
  if (req.table == PARZ_TABLE_NONE && !fixed_rate) {
    fprintf(stderr,
            "parz cd-values: table none needs a fixed-rate mode (rate, or expert with "
            "MINBITS = MAXBITS)\n");
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
