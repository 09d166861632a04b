/* The caller's keep of chunk-wide blocks (parz_keep, codec/parz_chunk.h; chunk_keep.h): a few
 * slots of blocks, each block with its size in front of it, guarded by a lock of the keep taken
 * only to exchange a pointer, so that threads sharing one keep wait for each other only that
 * long. */
#include "chunk_keep.h"

#include <stdint.h>
#include <stdlib.h>

/* The most blocks a keep holds: a team decoding a chunk per thread gives back one block per
 * chunk (an encoder three). */
#define KEEP_SLOTS 16u

/* In front of every block: its size, padded so that the block keeps malloc's alignment. */
typedef union {
  size_t bytes;
  long double ld;
  void* p;
  uint64_t u;
} block_head;

struct parz_keep {
  size_t limit; /* the most bytes of the blocks held, together */
  size_t held;  /* the bytes of the blocks held now */
  block_head* slot[KEEP_SLOTS];
  char lock;
};

parz_keep* parz_keep_new(size_t limit) {
  parz_keep* k = (parz_keep*)calloc(1, sizeof *k);
  if (k)
    k->limit = limit ? limit : PARZ_KEEP_DEFAULT_BYTES;
  return k;
}

void parz_keep_free(parz_keep* k) {
  unsigned i;
  if (!k)
    return;
  for (i = 0; i < KEEP_SLOTS; i++)
    free(k->slot[i]);
  free(k);
}

static void take_lock(parz_keep* k) {
  while (__atomic_test_and_set(&k->lock, __ATOMIC_ACQUIRE))
    ;
}

static void drop_lock(parz_keep* k) { __atomic_clear(&k->lock, __ATOMIC_RELEASE); }

void* parz_keep_take(parz_keep* k, size_t bytes, int* zeroed) {
  block_head* h = NULL;
  unsigned i, best = KEEP_SLOTS;
  if (k && bytes <= k->limit) {
    take_lock(k);
    /* the smallest block held that is large enough */
    for (i = 0; i < KEEP_SLOTS; i++)
      if (k->slot[i] && k->slot[i]->bytes >= bytes &&
          (best == KEEP_SLOTS || k->slot[i]->bytes < k->slot[best]->bytes))
        best = i;
    if (best < KEEP_SLOTS) {
      h = k->slot[best];
      k->slot[best] = NULL;
      k->held -= h->bytes;
    }
    drop_lock(k);
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

/* The slot of the smallest block held, KEEP_SLOTS when none is. */
static unsigned smallest(const parz_keep* k) {
  unsigned i, s = KEEP_SLOTS;
  for (i = 0; i < KEEP_SLOTS; i++)
    if (k->slot[i] && (s == KEEP_SLOTS || k->slot[i]->bytes < k->slot[s]->bytes))
      s = i;
  return s;
}

/* An empty slot, KEEP_SLOTS when none is. */
static unsigned empty(const parz_keep* k) {
  unsigned i;
  for (i = 0; i < KEEP_SLOTS && k->slot[i]; i++)
    ;
  return i;
}

void parz_keep_give(parz_keep* k, void* block) {
  block_head* h = block ? (block_head*)block - 1 : NULL;
  block_head* out[KEEP_SLOTS + 1];
  unsigned nout = 0, s;
  if (!h)
    return;
  if (!k || h->bytes > k->limit) {
    free(h);
    return;
  }
  take_lock(k);
  /* the larger blocks are kept: they cost the most to fault in anew. Smaller ones held make
   * room for this one while there is too little. */
  while ((k->held + h->bytes > k->limit || empty(k) == KEEP_SLOTS) &&
         (s = smallest(k)) < KEEP_SLOTS && k->slot[s]->bytes < h->bytes) {
    out[nout++] = k->slot[s];
    k->held -= k->slot[s]->bytes;
    k->slot[s] = NULL;
  }
  if (k->held + h->bytes <= k->limit && (s = empty(k)) < KEEP_SLOTS) {
    k->slot[s] = h;
    k->held += h->bytes;
  } else {
    out[nout++] = h;
  }
  drop_lock(k);
  while (nout)
    free(out[--nout]);
}
