/* The blocks kept between chunks (bounded_keep.h): slots of the process, each guarded by a lock
 * taken only for the exchange of a pointer. */
#include "bounded_keep.h"

#include <stdint.h>
#include <stdlib.h>

/* In front of every block: its size, padded so that the block keeps malloc's alignment. */
typedef union {
  size_t bytes;
  long double ld;
  void* p;
  uint64_t u;
} block_head;

static block_head* kept[PARZ_BOUNDED_KEEP_SLOTS];
static char lock;

static void take_lock(void) {
  while (__atomic_test_and_set(&lock, __ATOMIC_ACQUIRE))
    ;
}

static void drop_lock(void) { __atomic_clear(&lock, __ATOMIC_RELEASE); }

void* parz_bounded_take(size_t bytes, int* zeroed) {
  block_head* h = NULL;
  unsigned i, best = PARZ_BOUNDED_KEEP_SLOTS;
  if (bytes <= PARZ_BOUNDED_KEEP_MAX) {
    take_lock();
    /* the smallest kept block that is large enough */
    for (i = 0; i < PARZ_BOUNDED_KEEP_SLOTS; i++)
      if (kept[i] && kept[i]->bytes >= bytes &&
          (best == PARZ_BOUNDED_KEEP_SLOTS || kept[i]->bytes < kept[best]->bytes))
        best = i;
    if (best < PARZ_BOUNDED_KEEP_SLOTS) {
      h = kept[best];
      kept[best] = NULL;
    }
    drop_lock();
  }
  if (h) {
    *zeroed = 0;
    return h + 1;
  }
  *zeroed = 1;
  if (bytes > SIZE_MAX - sizeof *h || !(h = (block_head*)calloc(1, sizeof *h + bytes)))
    return NULL;
  h->bytes = bytes;
  return h + 1;
}

void parz_bounded_give(void* block) {
  block_head *h = block ? (block_head*)block - 1 : NULL, *out = h;
  unsigned i, small = 0;
  if (!h || h->bytes > PARZ_BOUNDED_KEEP_MAX) {
    free(h);
    return;
  }
  take_lock();
  /* an empty slot, else the one of the smallest block, when smaller than this one */
  for (i = 0; i < PARZ_BOUNDED_KEEP_SLOTS; i++) {
    if (!kept[i]) {
      small = i;
      break;
    }
    if (kept[i]->bytes < kept[small]->bytes)
      small = i;
  }
  if (!kept[small] || kept[small]->bytes < h->bytes) {
    out = kept[small];
    kept[small] = h;
  }
  drop_lock();
  free(out);
}
