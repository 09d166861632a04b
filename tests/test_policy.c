/* PARZ_EXEC / PARZ_THREADS parsing: valid values, case and blanks, empty = unset, invalid values
 * (one warning naming the variable and the accepted values, fall back to auto / default), huge
 * and negative thread counts; the environment reader and the warn-once registry. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "exec_policy.h"

typedef struct {
  const char* exec;
  const char* threads;
  parz_exec want_exec;
  int want_threads;
  int want_bad;
  const char* warning_has; /* substring of the warning, or NULL for none */
} parse_case;

static const parse_case cases[] = {
    {NULL, NULL, PARZ_EXEC_AUTO, 0, 0, NULL},
    {"auto", NULL, PARZ_EXEC_AUTO, 0, 0, NULL},
    {"serial", NULL, PARZ_EXEC_SERIAL, 0, 0, NULL},
    {"omp", "8", PARZ_EXEC_OMP, 8, 0, NULL},
    {"cuda", "1", PARZ_EXEC_CUDA, 1, 0, NULL},
    {"OMP", NULL, PARZ_EXEC_OMP, 0, 0, NULL},
    {"  Serial\t", " 16 ", PARZ_EXEC_SERIAL, 16, 0, NULL},
    {"", "", PARZ_EXEC_AUTO, 0, 0, NULL},      /* empty = unset */
    {"   ", "\t", PARZ_EXEC_AUTO, 0, 0, NULL}, /* blank = unset */
    {"4096", "4096", PARZ_EXEC_AUTO, 4096, 1, "PARZ_EXEC=\"4096\""},
    {"gpu", NULL, PARZ_EXEC_AUTO, 0, 1,
     "parz: ignoring PARZ_EXEC=\"gpu\": accepted values are auto, serial, omp, cuda"},
    {"omp4", NULL, PARZ_EXEC_AUTO, 0, 1, "PARZ_EXEC=\"omp4\""},
    {"o mp", NULL, PARZ_EXEC_AUTO, 0, 1, "PARZ_EXEC"},
    {NULL, "abc", PARZ_EXEC_AUTO, 0, 1,
     "parz: ignoring PARZ_THREADS=\"abc\": expected a positive integer"},
    {"omp", "0", PARZ_EXEC_OMP, 0, 1, "PARZ_THREADS=\"0\""},
    {"omp", "-4", PARZ_EXEC_OMP, 0, 1, "PARZ_THREADS=\"-4\""},
    {"omp", "+4", PARZ_EXEC_OMP, 0, 1, "PARZ_THREADS"},
    {"omp", "4x", PARZ_EXEC_OMP, 0, 1, "PARZ_THREADS"},
    {"omp", "4 4", PARZ_EXEC_OMP, 0, 1, "PARZ_THREADS"},
    {"omp", "2.5", PARZ_EXEC_OMP, 0, 1, "PARZ_THREADS"},
    {"omp", "4097", PARZ_EXEC_OMP, 0, 1, "(1..4096)"},
    {"omp", "99999999999999999999999999999999", PARZ_EXEC_OMP, 0, 1, "PARZ_THREADS"},
    {"omp", "0000000000000000000000000000000000000000000000000012", PARZ_EXEC_OMP, 12, 0, NULL},
    {"gpu", "-1", PARZ_EXEC_AUTO, 0, 2,
     "PARZ_EXEC=\"gpu\": accepted values are auto, serial, omp, cuda; parz: ignoring "
     "PARZ_THREADS=\"-1\""},
    {"bad\x01\x7f", NULL, PARZ_EXEC_AUTO, 0, 1, "PARZ_EXEC=\"bad??\""},
};

static void parse_cases(void) {
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const parse_case* c = &cases[i];
    parz_exec_policy p = {PARZ_EXEC_CUDA, -7};
    char w[256];
    int bad = parz_exec_policy_parse(c->exec, c->threads, &p, w, sizeof w);
    CHECK(bad == c->want_bad, "case %zu: %d invalid, want %d", i, bad, c->want_bad);
    CHECK(p.exec == c->want_exec && p.threads == c->want_threads, "case %zu: got %s/%d, want %s/%d",
          i, parz_exec_name(p.exec), p.threads, parz_exec_name(c->want_exec), c->want_threads);
    if (c->warning_has)
      CHECK(strstr(w, c->warning_has) != NULL, "case %zu: warning '%s' lacks '%s'", i, w,
            c->warning_has);
    else
      CHECK(w[0] == '\0', "case %zu: unexpected warning '%s'", i, w);
    CHECK(strchr(w, '\n') == NULL, "case %zu: warning is not one line", i);
  }
}

static void warning_bounds(void) {
  char longv[5000], w[256], tiny[8];
  parz_exec_policy p;
  memset(longv, 'x', sizeof longv - 1);
  longv[sizeof longv - 1] = '\0';
  CHECK(parz_exec_policy_parse(longv, longv, &p, w, sizeof w) == 2, "long values invalid");
  CHECK(strlen(w) < sizeof w && strstr(w, "...") != NULL, "long values cut: '%s'", w);
  /* tiny and NULL warning buffers are fine */
  CHECK(parz_exec_policy_parse("gpu", "x", &p, tiny, sizeof tiny) == 2 && strlen(tiny) < 8,
        "tiny buffer");
  CHECK(parz_exec_policy_parse("gpu", "x", &p, NULL, 0) == 2, "NULL buffer");
  CHECK(parz_exec_policy_parse("omp", "3", NULL, NULL, 0) == 0, "NULL out");
}

/* Runs f with stderr sent to a temporary file; returns what it printed (static buffer). */
static const char* captured_stderr(void (*f)(void)) {
  static char buf[4096];
  FILE* tmp = tmpfile();
  int saved = dup(2);
  size_t n;
  fflush(stderr);
  dup2(fileno(tmp), 2);
  f();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  rewind(tmp);
  n = fread(buf, 1, sizeof buf - 1, tmp);
  buf[n] = '\0';
  fclose(tmp);
  return buf;
}

static parz_exec_policy env_result;
static void read_env_three_times(void) {
  int i;
  for (i = 0; i < 3; i++)
    parz_exec_policy_from_env(&env_result);
}

static int count(const char* s, const char* what) {
  int n = 0;
  for (; (s = strstr(s, what)) != NULL; s++)
    n++;
  return n;
}

static void environment(void) {
  const char* out;
  const int cpus = parz_usable_cpus();
  char cpus_text[16];
  snprintf(cpus_text, sizeof cpus_text, "%d", cpus);
  setenv("PARZ_EXEC", "omp", 1);
  setenv("PARZ_THREADS", cpus_text, 1);
  out = captured_stderr(read_env_three_times);
  CHECK(env_result.exec == PARZ_EXEC_OMP && env_result.threads == cpus && out[0] == '\0',
        "valid env: %s/%d, stderr '%s'", parz_exec_name(env_result.exec), env_result.threads, out);
  /* more threads than CPUs: lowered to the CPUs, one warning */
  setenv("PARZ_THREADS", "4096", 1);
  out = captured_stderr(read_env_three_times);
  CHECK(cpus == 4096 || (env_result.threads == cpus && count(out, "\n") == 1 &&
                         count(out, "PARZ_THREADS=4096 is more than the") == 1),
        "4096 threads on %d CPUs: %d, stderr '%s'", cpus, env_result.threads, out);
  /* read on every call: a change is seen at once */
  setenv("PARZ_EXEC", "serial", 1);
  unsetenv("PARZ_THREADS");
  parz_exec_policy_from_env(&env_result);
  CHECK(env_result.exec == PARZ_EXEC_SERIAL && env_result.threads == 0, "changed env");
  /* invalid values: one warning each, however often they are read */
  setenv("PARZ_EXEC", "gpu", 1);
  setenv("PARZ_THREADS", "abc", 1);
  out = captured_stderr(read_env_three_times);
  CHECK(env_result.exec == PARZ_EXEC_AUTO && env_result.threads == 0, "invalid env falls back");
  CHECK(count(out, "\n") == 2 &&
            count(out,
                  "parz: ignoring PARZ_EXEC=\"gpu\": accepted values are auto, serial, "
                  "omp, cuda\n") == 1 &&
            count(out, "parz: ignoring PARZ_THREADS=\"abc\": expected a positive integer") == 1,
        "warnings printed: '%s'", out);
  /* fixing one variable does not repeat the other's warning; a new bad value warns again */
  setenv("PARZ_EXEC", "omp", 1);
  out = captured_stderr(read_env_three_times);
  CHECK(out[0] == '\0' && env_result.exec == PARZ_EXEC_OMP, "no repeat: '%s'", out);
  setenv("PARZ_THREADS", "-2", 1);
  out = captured_stderr(read_env_three_times);
  CHECK(count(out, "PARZ_THREADS=\"-2\"") == 1 && count(out, "\n") == 1, "new value: '%s'", out);
  setenv("PARZ_EXEC", "", 1);
  setenv("PARZ_THREADS", "", 1);
  out = captured_stderr(read_env_three_times);
  CHECK(out[0] == '\0' && env_result.exec == PARZ_EXEC_AUTO && env_result.threads == 0,
        "empty env: '%s'", out);
  unsetenv("PARZ_EXEC");
  unsetenv("PARZ_THREADS");
}

static int printed_first, printed_again;
static void warn_twice(void) {
  printed_first = parz_warn_once("test message A");
  printed_again = parz_warn_once("test message A");
}

static void warn_many(void) {
  char m[64];
  int i;
  for (i = 0; i < 100; i++) {
    snprintf(m, sizeof m, "flood %d", i);
    parz_warn_once(m);
  }
}

static void warn_once(void) {
  const char* out = captured_stderr(warn_twice);
  CHECK(printed_first == 1 && printed_again == 0 && !strcmp(out, "parz: test message A\n"),
        "warn once: %d %d '%s'", printed_first, printed_again, out);
  /* the registry is bounded: a flood of distinct warnings ends with one note */
  out = captured_stderr(warn_many);
  CHECK(count(out, "\n") < 40 && count(out, "further distinct warnings are not shown") == 1,
        "flood not bounded: %d lines", count(out, "\n"));
}

int main(void) {
  parse_cases();
  warning_bounds();
  environment();
  warn_once();
  return test_finish("test_policy");
}
