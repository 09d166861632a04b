/* A plain main() for the fuzz harnesses, built with the normal compiler: runs
 * LLVMFuzzerTestOneInput once on every file named on the command line or found (one level deep)
 * in a directory named there. ctest uses it to replay the seed corpus and every regression input
 * (tests/robust.cmake); a harness invariant that fails aborts the test. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static int run_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  /* An exact-size heap copy, as libFuzzer passes it, so overreads are seen by the sanitizers. */
  uint8_t* buf = (uint8_t*)malloc(n > 0 ? (size_t)n : 1);
  if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    fclose(f);
    free(buf);
    return 1;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(buf, (size_t)n);
  free(buf);
  return 0;
}

static int cmp(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

int main(int argc, char** argv) {
  size_t files = 0;
  int bad = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
      bad = 1;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      bad |= run_file(argv[i]);
      files++;
      continue;
    }
    DIR* d = opendir(argv[i]);
    if (!d) {
      bad = 1;
      continue;
    }
    char** names = NULL;
    size_t n = 0, cap = 0;
    struct dirent* ent;
    while ((ent = readdir(d)) != NULL) {
      if (ent->d_name[0] == '.')
        continue;
      if (n == cap) {
        cap = cap ? 2 * cap : 64;
        names = (char**)realloc(names, cap * sizeof *names);
        if (!names)
          abort();
      }
      size_t len = strlen(argv[i]) + strlen(ent->d_name) + 2;
      names[n] = (char*)malloc(len);
      if (!names[n])
        abort();
      snprintf(names[n], len, "%s/%s", argv[i], ent->d_name);
      n++;
    }
    closedir(d);
    if (n)
      qsort(names, n, sizeof *names, cmp);
    for (size_t k = 0; k < n; k++) {
      struct stat fs;
      if (stat(names[k], &fs) == 0 && S_ISREG(fs.st_mode)) {
        bad |= run_file(names[k]);
        files++;
      }
      free(names[k]);
    }
    free(names);
  }
  printf("replay: %zu inputs, %s\n", files, bad ? "some unreadable" : "all ran");
  return bad || files == 0;
}
