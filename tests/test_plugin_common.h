/* The plugin tests' assertion: counts failures and keeps going, so one run lists them all. */
#ifndef TEST_PLUGIN_COMMON_H
#define TEST_PLUGIN_COMMON_H

#include <stdio.h>

static int failures = 0;
#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                              \
    }                                                                          \
  } while (0)

#endif
