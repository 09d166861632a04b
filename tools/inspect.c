/* parz inspect FILE[:/dataset]: every ParZ dataset and what its chunk headers say. */
#include <stdio.h>
#include <string.h>

#include "codec_modes.h"
#include "parz_tool.h"

typedef struct {
  int summary_only;
  int bad; /* chunks whose header does not parse or fit the dataset */
  int parz_datasets, other_datasets;
  /* per dataset */
  unsigned long long chunks, raw_chunks, bad_chunks, stored_chunks;
  unsigned long long stored, decoded, table, payload, exceptions, mask;
  unsigned long long min_c, max_c;
} inspect_state;

static void print_dims(const char* label, int rank, const hsize_t* dims) {
  printf("%s[", label);
  for (int k = 0; k < rank; k++)
    printf("%s%llu", k ? "," : "", (unsigned long long)dims[k]);
  printf("]");
}

static double percent(unsigned long long part, unsigned long long whole) {
  return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_chunk_columns(void) {
  printf("  %-16s %12s %7s  %-7s %-10s %7s %7s %7s %6s %6s %6s  %-7s %7s %10s %8s\n", "chunk",
         "stored", "ratio", "codec", "mode", "minbits", "maxbits", "maxprec", "minexp", "C", "P",
         "table", "table%", "exceptions", "mask");
}

/* The codec's name, "?" for one this reader does not know (the parser refuses those). */
static const char* codec_name(unsigned id) {
  const parz_codec* c = parz_codec_find(id);
  return c ? c->name : "?";
}

/* What the chunk's codec parameters hold beyond zfp's four columns and the mode, as its codec
 * says it, after two spaces; "" for a codec with nothing to say (zfp's rows end at the mask). */
static void chunk_parameters(const parz_chunk_view* v, char* out, size_t bytes) {
  const parz_codec* c = parz_codec_find(v->codec);
  out[0] = 0;
  if (c && c->modes && c->modes->describe && bytes > 2) {
    out[0] = out[1] = ' ';
    c->modes->describe(v, out + 2, bytes - 2);
  }
}

/* The name of the codec's mode that the chunk's parameters amount to, "-" when none does. */
static const char* chunk_mode(const parz_chunk_view* v) {
  const parz_codec* c = parz_codec_find(v->codec);
  const parz_codec_mode* m =
      c && c->modes && c->modes->mode_of ? parz_codec_mode_find(c, c->modes->mode_of(v)) : NULL;
  return m ? m->name : "-";
}

static int inspect_chunk(const tool_dataset* d, const tool_chunk* c, void* ctx) {
  inspect_state* s = ctx;
  s->chunks++;
  s->stored += c->stored_bytes;
  s->decoded += d->chunk_bytes;
  double ratio = c->stored_bytes ? (double)d->chunk_bytes / (double)c->stored_bytes : 0.0;
  if (c->damaged) {
    s->bad_chunks++;
    s->bad++;
    if (!s->summary_only)
      printf("  %-16s %12llu %7s  %s\n", c->where, (unsigned long long)c->stored_bytes, "-",
             c->damaged);
    return 0;
  }
  if (c->filter_mask & (1u << d->parz_index)) {
    s->raw_chunks++;
    if (!s->summary_only)
      printf(
          "  %-16s %12llu %7.2f  stored without ParZ (the filter was skipped when it was "
          "written)\n",
          c->where, (unsigned long long)c->stored_bytes, ratio);
    return 0;
  }
  size_t bytes;
  if (!tool_chunk_parz_bytes(d, c, &bytes)) {
    if (!s->summary_only)
      printf("  %-16s %12llu %7.2f  (behind the filters after ParZ: not shown)\n", c->where,
             (unsigned long long)c->stored_bytes, ratio);
    return 0;
  }
  parz_chunk_view v;
  parz_error e = {0, ""};
  if (parz_chunk_parse(c->bytes, bytes, &v, &e) != PARZ_OK) {
    s->bad_chunks++;
    s->bad++;
    if (!s->summary_only)
      printf("  %-16s %12llu %7s  cannot read the chunk header: %s (%s)\n", c->where,
             (unsigned long long)c->stored_bytes, "-", e.message, parz_status_name(e.code));
    return 0;
  }
  char why[300];
  int matches = tool_chunk_matches(d, &v, why, sizeof why);
  if (!matches) {
    s->bad_chunks++;
    s->bad++;
  }
  if (v.codec == PARZ_CODEC_STORED) {
    /* its values as they are (FORMAT.md, "Stored chunks"): no codec parameters, no table */
    s->stored_chunks++;
    if (!s->summary_only) {
      printf("  %-16s %12llu %7.2f  %-7s %-10s %7s %7s %7s %6s %6s %6s  %-7s %7s %10s %8s\n",
             c->where, (unsigned long long)c->stored_bytes, ratio, codec_name(v.codec), "-", "-",
             "-", "-", "-", "-", "-", "-", "-", "-", "-");
      if (!matches)
        printf("  %-16s %s\n", "", why);
    }
    return 0;
  }
  s->table += v.table_bytes;
  s->payload += v.payload_bytes;
  s->exceptions += v.nexceptions;
  s->mask += v.mask.section_bytes;
  if (s->min_c == 0 || v.segment_blocks < s->min_c)
    s->min_c = v.segment_blocks;
  if (v.segment_blocks > s->max_c)
    s->max_c = v.segment_blocks;
  if (!s->summary_only) {
    char p[16] = "-", zfp[4][16] = {"-", "-", "-", "-"}, more[80];
    if (v.table == PARZ_TABLE_HYBRID)
      snprintf(p, sizeof p, "%u", (unsigned)v.partition_segments);
    if (v.codec == PARZ_CODEC_ZFP) { /* the columns of zfp's four parameters */
      snprintf(zfp[0], sizeof zfp[0], "%u", v.params.minbits);
      snprintf(zfp[1], sizeof zfp[1], "%u", v.params.maxbits);
      snprintf(zfp[2], sizeof zfp[2], "%u", v.params.maxprec);
      snprintf(zfp[3], sizeof zfp[3], "%d", v.params.minexp);
    }
    chunk_parameters(&v, more, sizeof more);
    printf(
        "  %-16s %12llu %7.2f  %-7s %-10s %7s %7s %7s %6s %6u %6s  %-7s %6.2f%% %10llu %8llu%s\n",
        c->where, (unsigned long long)c->stored_bytes, ratio, codec_name(v.codec), chunk_mode(&v),
        zfp[0], zfp[1], zfp[2], zfp[3], (unsigned)v.segment_blocks, p, tool_table_name(v.table),
        percent(v.table_bytes, v.payload_bytes), (unsigned long long)v.nexceptions,
        (unsigned long long)v.mask.section_bytes, more);
    if (!matches)
      printf("  %-16s %s\n", "", why);
  }
  return 0;
}

static void print_heading(const tool_dataset* d) {
  printf("%s  %s ", d->path, d->type_name);
  print_dims("", d->rank, d->dims);
  if (d->chunked)
    print_dims("  chunks ", d->rank, d->chunk);
  else
    printf("  not chunked");
  if (d->nfilters)
    printf("  filters: %s", d->filter_list);
}

static int inspect_dataset(hid_t file, const char* path, void* ctx) {
  inspect_state* s = ctx;
  tool_dataset d;
  char why[512];
  if (tool_dataset_open(file, path, &d, why, sizeof why) != 0) {
    fprintf(stderr, "parz inspect: %s\n", why);
    return PARZ_EXIT_OPEN;
  }
  print_heading(&d);
  if (!tool_dataset_is_parz(&d)) {
    s->other_datasets++;
    printf("  -- not ParZ%s\n", d.parz_index >= 0 ? " (ParZ cannot store these values)" : "");
    tool_dataset_close(&d);
    return 0;
  }
  s->parz_datasets++;
  char mode[160];
  tool_dataset_mode(&d, mode, sizeof mode);
  printf("\n  ParZ %s", mode);
  if (d.cd_ok) {
    const parz_chunk_config* cfg = &d.config.config;
    printf(", table %s, C %s", tool_table_name(cfg->table), cfg->segment_blocks ? "" : "auto");
    if (cfg->segment_blocks)
      printf("%u", (unsigned)cfg->segment_blocks);
    if (cfg->table == PARZ_TABLE_HYBRID)
      printf(", P %u", (unsigned)cfg->partition_segments);
    if (cfg->mask == PARZ_MASK_OFF)
      printf(", mask off");
    if (cfg->fill)
      printf(", fill value 0x%llx masked", (unsigned long long)cfg->fill_bits);
  }
  printf("\n");
  s->chunks = s->raw_chunks = s->bad_chunks = s->stored_chunks = 0;
  s->stored = s->decoded = s->table = s->payload = s->exceptions = s->mask = 0;
  s->min_c = s->max_c = 0;
  if (!s->summary_only)
    print_chunk_columns();
  unsigned long long unwritten = 0;
  int rc = tool_visit_chunks(&d, inspect_chunk, s, &unwritten, why, sizeof why);
  if (rc == TOOL_INDEX_DAMAGED) {
    s->bad++;
    printf("  summary: no chunk shown: %s\n", why);
    tool_dataset_close(&d);
    return 0;
  }
  if (rc != 0) {
    fprintf(stderr, "parz inspect: %s: %s\n", path, why);
    tool_dataset_close(&d);
    return PARZ_EXIT_OPEN;
  }
  printf(
      "  summary: %llu chunks (%llu stored without ParZ, %llu unwritten, %llu bad), "
      "%llu -> %llu bytes, ratio %.2f",
      s->chunks, s->raw_chunks, unwritten, s->bad_chunks, s->decoded, s->stored,
      s->stored ? (double)s->decoded / (double)s->stored : 0.0);
  if (s->stored_chunks)
    printf(", %llu stored chunks (their values as they are)", s->stored_chunks);
  if (s->payload)
    printf(", C %llu-%llu, table %.2f%% of payload, %llu exceptions, %llu mask bytes", s->min_c,
           s->max_c, percent(s->table, s->payload), s->exceptions, s->mask);
  printf("\n");
  tool_dataset_close(&d);
  return 0;
}

static void inspect_usage(FILE* f) {
  fprintf(f,
          "usage: parz inspect [--summary] FILE[:/dataset]\n"
          "Lists every dataset of FILE (or the one named) and, for each ParZ dataset, every\n"
          "stored chunk: its place, stored size and ratio, its codec (\"stored\": its values as\n"
          "they are), the codec parameters and the mode they amount to from its header, C, P, "
          "table kind and size (%% of payload), exceptions (values stored\n"
          "one by one) and the bytes of its mask (missing values: NaN, fill values); then a\n"
          "summary line. --summary: the summary lines only.\n");
}

int tool_inspect(int argc, char** argv) {
  inspect_state s;
  memset(&s, 0, sizeof s);
  const tool_switch summary = {"--summary", "-s", &s.summary_only};
  char* target;
  const char* only;
  int rc = tool_target_args("inspect", argc, argv, &summary, 1, inspect_usage, &target);
  if (rc >= 0)
    return rc;
  rc = tool_run_target("inspect", target, inspect_dataset, &s, &s.parz_datasets, &only);
  if (!only && (rc == PARZ_EXIT_OK || rc == PARZ_EXIT_NONE))
    printf("%d ParZ dataset%s, %d other%s\n", s.parz_datasets, s.parz_datasets == 1 ? "" : "s",
           s.other_datasets, s.other_datasets == 1 ? "" : "s");
  if (rc != PARZ_EXIT_OK)
    return rc;
  return s.bad ? PARZ_EXIT_BAD : PARZ_EXIT_OK;
}
