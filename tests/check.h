/* The tests' one assertion set, C, C++ and CUDA host code alike.
 *
 *   CHECK(cond)                  counts a failure and prints file:line and the expression
 *   CHECK(cond, fmt, ...)        the same, followed by a printf-style message
 *   failures                     the failures counted so far in this source file
 *   checks                       the checks evaluated so far in this source file
 *   return test_finish("name");  prints the outcome; 0 when every check held, 1 otherwise
 *
 * A check that fails does not stop the test, so one run lists every broken property; only the
 * first CHECK_PRINT_MAX failures are printed (all are counted). The counters are per source
 * file: a helper file that checks (h5_read_cases.c) returns its own count to the test's main. */
#ifndef PARZ_TEST_CHECK_H
#define PARZ_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

#if defined(__GNUC__)
#define CHECK_MAYBE_UNUSED __attribute__((unused))
#define CHECK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CHECK_MAYBE_UNUSED
#define CHECK_PRINTF(f, a)
#endif

#define CHECK_PRINT_MAX 50

static int failures CHECK_MAYBE_UNUSED;
static unsigned long checks CHECK_MAYBE_UNUSED;

/* Reports one failed check; fmt starts with ": " so that it is never empty (the message after it
 * may be). */
static CHECK_MAYBE_UNUSED CHECK_PRINTF(4, 5) void check_failed(const char* file, int line,
                                                               const char* expr, const char* fmt,
                                                               ...) {
  failures++;
  if (failures > CHECK_PRINT_MAX)
    return;
  fprintf(stderr, "%s:%d: CHECK(%s) failed", file, line, expr);
  if (fmt[2]) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
  }
  fputc('\n', stderr);
}

#define CHECK(cond, ...)                                         \
  do {                                                           \
    checks++;                                                    \
    if (!(cond))                                                 \
      check_failed(__FILE__, __LINE__, #cond, ": " __VA_ARGS__); \
  } while (0)

/* The test's exit status, with one line saying how it went. */
static CHECK_MAYBE_UNUSED int test_finish(const char* name) {
  if (failures)
    fprintf(stderr, "%s: %d of %lu checks failed\n", name, failures, checks);
  else
    printf("%s: all %lu checks passed\n", name, checks);
  return failures ? 1 : 0;
}

#endif
