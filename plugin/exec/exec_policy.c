/* PARZ_EXEC / PARZ_THREADS parsing and the plugin's warn-once registry. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include "exec_policy.h"

#include <ctype.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every warning line starts with it; parz_warn_once adds it to the messages it prints. */
#define WARN_PREFIX "parz: "

static const char* const exec_names[] = {"auto", "serial", "omp", "cuda"};

const char* parz_exec_name(parz_exec exec) {
  return (unsigned)exec < sizeof exec_names / sizeof exec_names[0] ? exec_names[exec] : "?";
}

/* [*b, *e) = value without surrounding blanks. */
static void trim(const char* s, const char** b, const char** e) {
  *b = s;
  *e = s + strlen(s);
  while (*b < *e && isspace((unsigned char)**b))
    (*b)++;
  while (*e > *b && isspace((unsigned char)(*e)[-1]))
    (*e)--;
}

/* The offending value as the warning shows it: quoted by the caller, non-printable bytes as '?',
 * long values cut (an environment variable may hold anything). */
static void printable(const char* s, char* out, size_t out_size) {
  size_t i, n = strlen(s), cut = out_size - 1;
  const size_t keep = 40;
  if (cut > keep + 3)
    cut = keep + 3;
  for (i = 0; i < n && i < cut; i++)
    out[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
  if (n > cut && cut >= 3)
    memcpy(out + cut - 3, "...", 3);
  out[i] = '\0';
}

/* Appends one warning to `warning`, "; "-separated. */
static void add_warning(char* warning, size_t size, const char* fmt_var, const char* value,
                        const char* accepted) {
  char shown[48];
  size_t used;
  if (!warning || size == 0)
    return;
  used = strlen(warning);
  printable(value, shown, sizeof shown);
  snprintf(warning + used, size - used, "%s" WARN_PREFIX "ignoring %s=\"%s\": %s", used ? "; " : "",
           fmt_var, shown, accepted);
}

/* 1 = valid (or unset: *out untouched), 0 = invalid. */
static int parse_exec(const char* s, parz_exec* out) {
  const char *b, *e;
  size_t k;
  if (!s)
    return 1;
  trim(s, &b, &e);
  if (b == e)
    return 1;
  for (k = 0; k < sizeof exec_names / sizeof exec_names[0]; k++) {
    size_t n = strlen(exec_names[k]), i;
    if ((size_t)(e - b) != n)
      continue;
    for (i = 0; i < n && tolower((unsigned char)b[i]) == exec_names[k][i]; i++)
      ;
    if (i == n) {
      *out = (parz_exec)k;
      return 1;
    }
  }
  return 0;
}

static int parse_threads(const char* s, int* out) {
  const char *b, *e;
  long n = 0;
  if (!s)
    return 1;
  trim(s, &b, &e);
  if (b == e)
    return 1;
  for (; b < e; b++) {
    if (*b < '0' || *b > '9')
      return 0;
    n = 10 * n + (*b - '0');
    if (n > PARZ_THREADS_MAX) /* also stops overflow on absurdly long digit strings */
      return 0;
  }
  if (n < 1)
    return 0;
  *out = (int)n;
  return 1;
}

#define STR_(x) #x
#define STR(x) STR_(x)
static const char exec_accepted[] = "accepted values are auto, serial, omp, cuda";
static const char threads_accepted[] = "expected a positive integer (1.." STR(PARZ_THREADS_MAX) ")";

int parz_exec_policy_parse(const char* exec, const char* threads, parz_exec_policy* out,
                           char* warning, size_t warning_size) {
  int bad = 0;
  parz_exec_policy p = {PARZ_EXEC_AUTO, 0};
  if (warning && warning_size)
    warning[0] = '\0';
  if (!parse_exec(exec, &p.exec)) {
    p.exec = PARZ_EXEC_AUTO;
    add_warning(warning, warning_size, "PARZ_EXEC", exec, exec_accepted);
    bad++;
  }
  if (!parse_threads(threads, &p.threads)) {
    p.threads = 0;
    add_warning(warning, warning_size, "PARZ_THREADS", threads, threads_accepted);
    bad++;
  }
  if (out)
    *out = p;
  return bad;
}

int parz_exec_cpu_threads(const parz_exec_policy* pol) {
  return pol->exec == PARZ_EXEC_SERIAL ? 1 : pol->threads;
}

int parz_usable_cpus(void) {
  long n;
#ifdef CPU_COUNT
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
#endif
  n = sysconf(_SC_NPROCESSORS_ONLN); /* more CPUs than a cpu_set_t holds, or no affinity */
  return n > 0 && n < PARZ_THREADS_MAX ? (int)n : n > 0 ? PARZ_THREADS_MAX : 1;
}

void parz_exec_policy_from_env(parz_exec_policy* out) {
  const char* exec = getenv("PARZ_EXEC");
  const char* threads = getenv("PARZ_THREADS");
  char warning[160];
  /* Parsed one variable at a time so that each bad value is remembered on its own: fixing one
   * variable does not repeat the other's warning. */
  parz_exec_policy p = {PARZ_EXEC_AUTO, 0}, q;
  if (parz_exec_policy_parse(exec, NULL, &q, warning, sizeof warning))
    parz_warn_once(warning + strlen(WARN_PREFIX));
  p.exec = q.exec;
  if (parz_exec_policy_parse(NULL, threads, &q, warning, sizeof warning))
    parz_warn_once(warning + strlen(WARN_PREFIX));
  p.threads = q.threads;
  if (p.threads > 1) {
    /* more threads than CPUs only wait for each other, and each costs a stack */
    int cpus = parz_usable_cpus();
    if (p.threads > cpus) {
      snprintf(warning, sizeof warning,
               "PARZ_THREADS=%d is more than the %d CPUs this process may use: using %d", p.threads,
               cpus, cpus);
      parz_warn_once(warning);
      p.threads = cpus;
    }
  }
  if (out)
    *out = p;
}

/* ---- warn-once registry --------------------------------------------------------------------
 * The only mutable state of the plugin's policy layer: hashes of the warnings already printed, so
 * that a bad PARZ_EXEC read on every chunk of a large read warns once, not a million times. A
 * fixed table behind a mutex (warnings are rare, contention is irrelevant); when it is full, one
 * last note says that further distinct warnings are suppressed, so stderr can never be flooded. */
#define WARN_SLOTS 32
static pthread_mutex_t warn_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t warn_seen[WARN_SLOTS];
static unsigned warn_count;

static uint64_t fnv1a(const char* s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

int parz_warn_once(const char* message) {
  uint64_t h;
  unsigned i;
  int print = 1;
  if (!message)
    return 0;
  h = fnv1a(message);
  pthread_mutex_lock(&warn_lock);
  for (i = 0; i < warn_count && i < WARN_SLOTS; i++)
    if (warn_seen[i] == h)
      print = 0;
  if (print && warn_count < WARN_SLOTS) {
    warn_seen[warn_count++] = h;
    fprintf(stderr, WARN_PREFIX "%s\n", message);
    if (warn_count == WARN_SLOTS)
      fprintf(stderr, WARN_PREFIX "further distinct warnings are not shown\n");
  } else {
    print = 0;
  }
  pthread_mutex_unlock(&warn_lock);
  return print;
}
