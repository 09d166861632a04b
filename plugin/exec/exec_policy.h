/* Execution policy: which decoder the filter uses for a chunk, from two environment variables
 * read on every call (cheap: two getenv), so that a long-running program may change them.
 *
 *   PARZ_EXEC    = auto | serial | omp | cuda   (default auto; case and surrounding blanks ignored)
 *   PARZ_THREADS = N, 1 <= N <= PARZ_THREADS_MAX (default: OpenMP's default thread count); a
 *                  count above the CPUs this process may use is lowered to them, with a warning
 *
 * An empty (or all-blank) value counts as unset. An invalid value is ignored with a one-line
 * warning naming the variable and the accepted values, and the policy falls back to auto /
 * OpenMP's default: a read never fails because of a policy setting. */
#ifndef PARZ_EXEC_POLICY_H
#define PARZ_EXEC_POLICY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { PARZ_EXEC_AUTO = 0, PARZ_EXEC_SERIAL, PARZ_EXEC_OMP, PARZ_EXEC_CUDA } parz_exec;

typedef struct {
  parz_exec exec;
  int threads; /* 0 = OpenMP default */
} parz_exec_policy;

/* Largest PARZ_THREADS accepted: beyond it a value is a typo, not a thread count. */
#define PARZ_THREADS_MAX 4096

/* Pure: parses the two values (NULL = unset). An invalid value writes a one-line warning that
 * names the variable and the accepted values into `warning` (if not NULL; both warnings joined by
 * "; " when both are invalid) and falls back to auto / default. Returns the number of invalid
 * values (0 = all good; then `warning` is the empty string). */
int parz_exec_policy_parse(const char* exec, const char* threads, parz_exec_policy* out,
                           char* warning, size_t warning_size);

/* Reads the environment on every call and prints each distinct warning once to stderr: the one
 * place that reads PARZ_EXEC and PARZ_THREADS (through parz_dispatch_gpu_first and
 * parz_dispatch_cpu_threads, dispatch.h, the plugin's one policy for every piece of work). */
void parz_exec_policy_from_env(parz_exec_policy* out);

/* Threads for work on the CPU under the policy: 1 under serial, else its thread count (0 for
 * OpenMP's default). */
int parz_exec_cpu_threads(const parz_exec_policy* pol);

/* CPUs this process may run on (its affinity mask; the online CPUs where that cannot be read),
 * at least 1 and at most PARZ_THREADS_MAX. */
int parz_usable_cpus(void);

/* Prints "parz: <message>" on stderr unless this exact message was printed before by this process
 * (thread-safe). Shared by the policy parser and the dispatcher's fallback warnings. Returns 1
 * when it printed. */
int parz_warn_once(const char* message);

/* Name of a policy value: "auto", "serial", "omp", "cuda". */
const char* parz_exec_name(parz_exec exec);

#ifdef __cplusplus
}
#endif

#endif
