/* Large buffers that are written once right after they are allocated (the filter's decoded
 * chunk, a reader's chunks): fresh memory is faulted in page by page as it is first written,
 * one fault per 4 KiB (a 35 MiB chunk takes 9000, and glibc maps blocks over 32 MiB afresh on
 * every allocation). Asking for transparent huge pages makes that one fault per 2 MiB where the
 * system allows them (Linux, transparent_hugepage "madvise" or "always"); elsewhere a no-op. */
#ifndef PARZ_HUGE_PAGES_H
#define PARZ_HUGE_PAGES_H

#include <stddef.h>

/* Advises huge pages for the whole 2 MiB pages inside [p, p + bytes) when bytes is at least
 * PARZ_HUGE_PAGES_MIN_BYTES; memory contents are unchanged. */
#define PARZ_HUGE_PAGES_MIN_BYTES ((size_t)4 << 20)
void parz_advise_huge_pages(void* p, size_t bytes);

#endif
