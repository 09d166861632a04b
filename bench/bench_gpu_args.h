/* What the GPU benchmarks share besides their arrays (bench_raw_file.h): the check of a CUDA call
 * and their options: --reps N and comma-separated number lists. */
#ifndef PARZ_BENCH_GPU_ARGS_H
#define PARZ_BENCH_GPU_ARGS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <initializer_list>
#include <vector>

#include <cuda_runtime.h>

/* Exits with the file, line and CUDA's message when the call x fails. */
#define CHECK_CUDA(x)                                                             \
  do {                                                                            \
    cudaError_t e_ = (x);                                                         \
    if (e_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

/* "1e-3,1e-2,..." as numbers, up to the first item that is none. */
static inline std::vector<double> parse_list(const char* s) {
  std::vector<double> v;
  while (*s) {
    char* end;
    v.push_back(strtod(s, &end));
    if (end == s)
      break;
    s = *end == ',' ? end + 1 : end;
  }
  return v;
}

/* A list option of a GPU benchmark: "NAME 1,2,3" (NAME with its dashes) sets *values. */
struct bench_list {
  const char* name;
  std::vector<double>* values;
};

/* argv's "--reps N" into *reps and its list options into theirs; every other argument is a file,
 * returned in order. */
static inline std::vector<const char*> bench_args(int argc, char** argv, int* reps,
                                                  const std::vector<bench_list>& lists) {
  std::vector<const char*> files;
  for (int i = 1; i < argc; i++) {
    bool taken = false;
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      *reps = atoi(argv[++i]);
      continue;
    }
    for (const bench_list& l : lists)
      if (!taken && !strcmp(argv[i], l.name) && i + 1 < argc) {
        *l.values = parse_list(argv[++i]);
        taken = true;
      }
    if (!taken)
      files.push_back(argv[i]);
  }
  return files;
}

#endif
