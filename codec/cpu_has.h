/* Whether the CPU running the process has an x86-64 extension, for the codec's loops built for it
 * (target attributes) and chosen at run time. gcc and clang on x86-64 only: elsewhere the callers
 * build no such loops. */
#ifndef PARZ_CPU_HAS_H
#define PARZ_CPU_HAS_H

#if defined(__GNUC__) && defined(__x86_64__)
/* __builtin_cpu_init is idempotent, and needed where a check runs before the constructors did;
 * __builtin_cpu_supports takes a literal, hence a macro. */
#define PARZ_CPU_HAS(feature) (__builtin_cpu_init(), __builtin_cpu_supports(feature))
#endif

#endif
