/* What the tests under an address-space limit (RLIMIT_AS) share: whether AddressSanitizer is
 * built in (its shadow memory does not live with such a limit), the process's mapped size to set
 * the limit from, and the run of this program again in a child process (through exec: a forked
 * child without exec would run the OpenMP drivers serially), where the limit is lowered. */
#ifndef PARZ_TEST_ADDRESS_LIMIT_H
#define PARZ_TEST_ADDRESS_LIMIT_H

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* The process's mapped size in bytes (first field of /proc/self/statm, in pages). */
static inline size_t mapped_bytes(void) {
  unsigned long pages = 0;
  FILE* f = fopen("/proc/self/statm", "r");
  if (f) {
    if (fscanf(f, "%lu", &pages) != 1)
      pages = 0;
    fclose(f);
  }
  return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* self run again with arguments a and b, waited for: its wait status, -1 when it could not run. */
static inline int run_child(const char* self, const char* a, const char* b) {
  int status = 0;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    execl(self, self, a, b, (char*)NULL);
    _exit(2);
  }
  if (pid < 0 || waitpid(pid, &status, 0) != pid)
    return -1;
  return status;
}

#endif
