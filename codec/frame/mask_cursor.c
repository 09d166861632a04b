/* The decoders' cursor over a validated mask's records (mask_cursor.h). */
#include <string.h>

#include "mask_cursor.h"
#include "table_endian.h"

static void none_left(parz_mask_cursor* c) {
  c->first = c->last = UINT64_MAX;
  c->at = c->end;
}

void parz_mask_next(parz_mask_cursor* c) {
  const parz_chunk_mask* m = c->m;
  /* past the records of the current group: the next group holding some */
  while (c->group + 1 < m->ngroups &&
         c->at >= m->records + parz_load64(m->starts + 8u * (c->group + 1))) {
    c->group++;
    c->cursor = c->group * m->group_blocks;
  }
  if (c->at >= c->end || !parz_mask_read(c->at, c->end, c->dims, m->nvalues, &c->rec)) {
    none_left(c);
    return;
  }
  c->first = c->cursor + c->rec.skip;
  c->last = c->first + c->rec.count;
  c->cursor = c->last;
  c->at = c->rec.next;
}

void parz_mask_seek(parz_mask_cursor* c, const parz_chunk_mask* m, const parz_array* a,
                    uint64_t block) {
  memset(c, 0, sizeof *c);
  c->m = m;
  c->dims = a->dims;
  c->wide = parz_type_size(a->type) == 8;
  if (!m || !m->nvalues) {
    none_left(c);
    return;
  }
  c->end = m->records + m->record_bytes;
  c->group = block / m->group_blocks;
  if (c->group >= m->ngroups) {
    none_left(c);
    return;
  }
  c->cursor = c->group * m->group_blocks;
  c->at = m->records + parz_load64(m->starts + 8u * c->group);
  do
    parz_mask_next(c);
  while (c->last <= block);
}
