/* A netCDF file's variables from the CDL header ncdump prints (netcdf_header.h). */
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "netcdf_header.h"
#include "parz.h"

extern char** environ;

/* ---- tokens ------------------------------------------------------------------------------- */

/* A word (name, type, number: backslash escapes removed), a string, or one punctuation mark. */
typedef struct {
  char kind; /* 'w' word, 's' string, else the punctuation character itself */
  char* text;
} cdl_token;

typedef struct {
  cdl_token* t;
  size_t n, cap;
  char* text; /* every token's text, NUL-separated */
} cdl_tokens;

static int is_punct(char c) { return c && strchr("(){},;:=", c) != NULL; }

/* array, which holds n elements of `size` bytes in room for *cap, with room for one more: the
 * same or a larger block, or NULL when out of memory (array is then kept as it was). */
static void* grow(void* array, size_t* cap, size_t n, size_t size) {
  if (n < *cap)
    return array;
  size_t more = *cap ? 2 * *cap : 16;
  void* bigger = realloc(array, more * size);
  if (bigger)
    *cap = more;
  return bigger;
}

/* Splits CDL into tokens, skipping white space and // comments. The text of every token is
 * written into one buffer: at most each input character and a NUL after it. */
static int tokenize(const char* s, cdl_tokens* out) {
  size_t len = strlen(s);
  out->text = malloc(2 * len + 1);
  out->n = out->cap = 0;
  out->t = NULL;
  if (!out->text)
    return -1;
  char* w = out->text;
  while (*s) {
    if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
      s++;
      continue;
    }
    if (s[0] == '/' && s[1] == '/') {
      while (*s && *s != '\n')
        s++;
      continue;
    }
    cdl_token* more = grow(out->t, &out->cap, out->n, sizeof *more);
    if (!more)
      return -1;
    out->t = more;
    cdl_token* tok = &out->t[out->n++];
    tok->text = w;
    if (is_punct(*s)) {
      tok->kind = *s;
      *w++ = *s++;
    } else if (*s == '"') {
      tok->kind = 's';
      for (s++; *s && *s != '"'; s++) {
        if (*s == '\\' && s[1]) {
          s++;
          *w++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
        } else {
          *w++ = *s;
        }
      }
      if (*s == '"')
        s++;
    } else {
      tok->kind = 'w';
      while (*s && !strchr(" \t\n\r\"", *s) && !is_punct(*s)) {
        if (*s == '\\' && s[1])
          s++;
        *w++ = *s++;
      }
    }
    *w++ = 0;
  }
  return 0;
}

/* ---- the header --------------------------------------------------------------------------- */

enum { SECTION_NONE, SECTION_TYPES, SECTION_DIMENSIONS, SECTION_VARIABLES };

/* A variable named by another one's `coordinates` or `bounds` attribute, resolved at the end. */
typedef struct {
  char* group;
  const char* names; /* white-space separated, in the tokens' text */
} cdl_reference;

/* Where a variable is: its group ("" for the root) and its name there. */
typedef struct {
  char* group;
  char* name;
} cdl_place;

typedef struct {
  nc_variables* vars;
  size_t vars_cap;
  cdl_place* places; /* one per variable */
  size_t places_cap;
  cdl_reference* refs;
  size_t nrefs, refs_cap;
} cdl_parse;

static char* join_path(const char* group, const char* name) {
  size_t n = strlen(group) + strlen(name) + 2;
  char* p = malloc(n);
  if (p)
    snprintf(p, n, "%s%s%s", group, *group ? "/" : "", name);
  return p;
}

static int parz_type_of(const char* cdl_type) {
  return !strcmp(cdl_type, "float")    ? PARZ_FLOAT
         : !strcmp(cdl_type, "double") ? PARZ_DOUBLE
         : !strcmp(cdl_type, "int")    ? PARZ_INT32
         : !strcmp(cdl_type, "int64")  ? PARZ_INT64
                                       : 0;
}

static nc_variable* find(cdl_parse* p, const char* group, const char* name) {
  for (size_t i = p->vars->n; i-- > 0;)
    if (!strcmp(p->places[i].group, group) && !strcmp(p->places[i].name, name))
      return &p->vars->v[i];
  return NULL;
}

/* A declaration: TYPE NAME [( DIM, ... )]. */
static int declare(cdl_parse* p, const char* group, const cdl_token* t, size_t n) {
  nc_variables* vars = p->vars;
  nc_variable* more = grow(vars->v, &p->vars_cap, vars->n, sizeof *more);
  if (more)
    vars->v = more;
  cdl_place* places = more ? grow(p->places, &p->places_cap, vars->n, sizeof *places) : NULL;
  if (!places)
    return -1;
  p->places = places;
  nc_variable* v = &vars->v[vars->n];
  memset(v, 0, sizeof *v);
  v->name = join_path(group, t[1].text);
  places[vars->n].name = strdup(t[1].text);
  places[vars->n].group = strdup(group);
  vars->n++;
  if (!v->name || !places[vars->n - 1].name || !places[vars->n - 1].group)
    return -1;
  snprintf(v->type, sizeof v->type, "%s", t[0].text);
  v->parz_type = parz_type_of(t[0].text);
  const char* dim = NULL;
  for (size_t k = 3; k < n && t[k].kind != ')'; k++)
    if (t[k].kind == 'w') {
      v->rank++;
      dim = t[k].text;
    }
  v->coordinate = v->rank == 1 && !strcmp(dim, t[1].text);
  return 0;
}

/* The fill value as ncdump prints it for the variable's type: "-9.99999979e+33f", "1.e+20f",
 * "NaNf", "-99", "-9223372036854775806LL". */
static void read_fill(nc_variable* v, const char* text) {
  v->has_fill = 1;
  snprintf(v->fill_text, sizeof v->fill_text, "%s", text);
  char* end;
  errno = 0;
  if (v->parz_type == PARZ_FLOAT || v->parz_type == PARZ_DOUBLE) {
    double x = v->parz_type == PARZ_FLOAT ? (double)strtof(text, &end) : strtod(text, &end);
    if (v->parz_type == PARZ_FLOAT && (*end == 'f' || *end == 'F'))
      end++;
    v->fill_exact = end != text && *end == 0;
    v->fill = x;
  } else if (v->parz_type == PARZ_INT32 || v->parz_type == PARZ_INT64) {
    long long x = strtoll(text, &end, 10);
    if (v->parz_type == PARZ_INT64 && !strcmp(end, "LL"))
      end += 2;
    /* a double carries integers up to 2^53 exactly; the cast back is done only within range */
    int fits = x > -9007199254740992LL && x < 9007199254740992LL;
    v->fill_exact = end != text && *end == 0 && errno == 0 && fits;
    v->fill = (double)x;
  }
}

/* An attribute: [TYPE] VAR : NAME = VALUE, ... */
static int attribute(cdl_parse* p, const char* group, const cdl_token* t, size_t n, size_t colon) {
  if (colon == 0 || colon + 3 > n || t[colon + 2].kind != '=')
    return 0; /* a global attribute, or not one at all */
  const char* att = t[colon + 1].text;
  nc_variable* v = find(p, group, t[colon - 1].text);
  if (!strcmp(att, "_FillValue")) {
    if (v && t[colon + 3].kind == 'w')
      read_fill(v, t[colon + 3].text);
    return 0;
  }
  if (!strcmp(att, "_DeflateLevel") || !strcmp(att, "_Shuffle")) {
    if (v)
      v->deflated = 1;
    return 0;
  }
  if (strcmp(att, "coordinates") != 0 && strcmp(att, "bounds") != 0)
    return 0;
  for (size_t k = colon + 3; k < n; k++) {
    if (t[k].kind != 's')
      continue;
    cdl_reference* refs = grow(p->refs, &p->refs_cap, p->nrefs, sizeof *refs);
    if (!refs)
      return -1;
    p->refs = refs;
    p->refs[p->nrefs].group = strdup(group);
    p->refs[p->nrefs++].names = t[k].text;
    if (!p->refs[p->nrefs - 1].group)
      return -1;
  }
  return 0;
}

static int statement(cdl_parse* p, const char* group, const cdl_token* t, size_t n) {
  size_t colon = 0;
  while (colon < n && colon < 3 && t[colon].kind != ':')
    colon++;
  if (colon < n && colon < 3)
    return attribute(p, group, t, n, colon);
  if (n >= 2 && t[0].kind == 'w' && t[1].kind == 'w' && (n == 2 || t[2].kind == '('))
    return declare(p, group, t, n);
  return 0;
}

/* Marks the variables other variables name as coordinates or cell bounds. */
static void resolve_references(cdl_parse* p) {
  for (size_t r = 0; r < p->nrefs; r++) {
    const char* s = p->refs[r].names;
    while (*s) {
      size_t len = strcspn(s, " \t\n");
      if (len) {
        for (size_t i = 0; i < p->vars->n; i++)
          if (!strcmp(p->places[i].group, p->refs[r].group) && strlen(p->places[i].name) == len &&
              !strncmp(p->places[i].name, s, len))
            p->vars->v[i].coordinate = 1;
        s += len;
      } else {
        s++;
      }
    }
  }
}

int nc_header_parse(const char* cdl, nc_variables* out, char* why, size_t why_size) {
  out->v = NULL;
  out->n = 0;
  if (why_size)
    why[0] = 0;
  cdl_tokens toks;
  cdl_parse p = {out, 0, NULL, 0, NULL, 0, 0};
  char group[4096] = "";
  int section = SECTION_NONE, type_depth = 0, rc = -1, depth = 0;
  size_t start = 0; /* first token of the statement being read */
  if (tokenize(cdl, &toks) < 0)
    goto done;
  for (size_t i = 0; i < toks.n; i++) {
    const cdl_token* t = &toks.t[i];
    int first = i == start;
    if (type_depth > 0) { /* inside a compound or enum type's definition */
      type_depth += t->kind == '{' ? 1 : t->kind == '}' ? -1 : 0;
      start = i + 1;
      continue;
    }
    if (first && t->kind == 'w' && i + 1 < toks.n && toks.t[i + 1].kind == ':') {
      int s = !strcmp(t->text, "types")        ? SECTION_TYPES
              : !strcmp(t->text, "dimensions") ? SECTION_DIMENSIONS
              : !strcmp(t->text, "variables")  ? SECTION_VARIABLES
                                               : SECTION_NONE;
      if (s != SECTION_NONE) {
        section = s;
        start = ++i + 1;
        continue;
      }
      if (!strcmp(t->text, "group") && i + 3 < toks.n && toks.t[i + 3].kind == '{') {
        size_t len = strlen(group);
        if (len + strlen(toks.t[i + 2].text) + 2 > sizeof group) {
          snprintf(why, why_size, "groups nested too deep");
          goto done;
        }
        snprintf(group + len, sizeof group - len, "/%s", toks.t[i + 2].text);
        depth++;
        section = SECTION_NONE;
        i += 3;
        start = i + 1;
        continue;
      }
    }
    if (first && t->kind == 'w' && !strcmp(t->text, "netcdf")) {
      while (i < toks.n && toks.t[i].kind != '{')
        i++;
      start = i + 1;
      continue;
    }
    if (t->kind == '{' && section == SECTION_TYPES) {
      type_depth = 1;
      start = i + 1;
      continue;
    }
    if (t->kind == '}' && first) { /* the end of a group */
      if (depth > 0) {
        *strrchr(group, '/') = 0;
        depth--;
      }
      section = SECTION_NONE;
      start = i + 1;
      continue;
    }
    if (t->kind == ';') {
      if (section == SECTION_VARIABLES && statement(&p, group, toks.t + start, i - start) < 0)
        goto out_of_memory;
      start = i + 1;
    }
  }
  resolve_references(&p);
  rc = 0;
  goto done;
out_of_memory:
  snprintf(why, why_size, "out of memory reading the header");
done:
  if (rc < 0 && why_size && !why[0])
    snprintf(why, why_size, "out of memory reading the header");
  for (size_t i = 0; i < out->n; i++) {
    free(p.places[i].name);
    free(p.places[i].group);
  }
  for (size_t r = 0; r < p.nrefs; r++)
    free(p.refs[r].group);
  free(p.places);
  free(p.refs);
  free(toks.t);
  free(toks.text);
  if (rc < 0)
    nc_variables_free(out);
  return rc;
}

void nc_variables_free(nc_variables* vars) {
  for (size_t i = 0; i < vars->n; i++)
    free(vars->v[i].name);
  free(vars->v);
  vars->v = NULL;
  vars->n = 0;
}

/* ---- ncdump ------------------------------------------------------------------------------- */

int nc_header_read(const char* file, nc_variables* out, char* why, size_t why_size) {
  out->v = NULL;
  out->n = 0;
  int fd[2];
  if (pipe(fd) < 0) {
    snprintf(why, why_size, "cannot run ncdump: %s", strerror(errno));
    return -1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd[1], 1);
  posix_spawn_file_actions_addclose(&actions, fd[0]);
  posix_spawn_file_actions_addclose(&actions, fd[1]);
  /* -s: the storage settings too; -p 9,17: float and double attributes with the digits that
   * give back their exact value; a file name beginning with '-' would read as an option */
  size_t name_len = strlen(file) + 3;
  char* name = malloc(name_len);
  if (!name) {
    close(fd[0]);
    close(fd[1]);
    snprintf(why, why_size, "out of memory");
    return -1;
  }
  snprintf(name, name_len, "%s%s", file[0] == '-' ? "./" : "", file);
  char* argv[] = {"ncdump", "-h", "-s", "-p", "9,17", name, NULL};
  pid_t pid;
  int err = posix_spawnp(&pid, "ncdump", &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  free(name);
  close(fd[1]);
  if (err != 0) {
    close(fd[0]);
    snprintf(why, why_size,
             err == ENOENT ? "--from needs ncdump (Debian: netcdf-bin) on PATH"
                           : "cannot run ncdump: %s",
             strerror(err));
    return -1;
  }
  size_t len = 0, cap = 1 << 16;
  char* text = malloc(cap);
  ssize_t got;
  while (text && (got = read(fd[0], text + len, cap - len - 1)) != 0) {
    if (got < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    len += (size_t)got;
    if (cap - len - 1 == 0) {
      char* bigger = realloc(text, 2 * cap);
      if (!bigger) {
        free(text);
        text = NULL;
        break;
      }
      text = bigger;
      cap *= 2;
    }
  }
  close(fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!text) {
    snprintf(why, why_size, "out of memory reading ncdump's output");
    return -1;
  }
  text[len] = 0;
  int rc = -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    snprintf(why, why_size, "ncdump -h -s %s failed (exit status %d): not a netCDF file?", file,
             WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  else
    rc = nc_header_parse(text, out, why, why_size);
  free(text);
  return rc;
}
