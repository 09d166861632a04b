/* Look-ups in the table of codecs (codecs.h, codec_table.c). */
#include "codecs.h"

#include <stdio.h>

const parz_codec* parz_codec_find(unsigned id) {
  unsigned i;
  for (i = 0; i < parz_codec_count; i++)
    if (parz_codec_table[i]->id == id)
      return parz_codec_table[i];
  return NULL;
}

void parz_codec_names(char* out, size_t bytes) {
  size_t at = 0;
  unsigned i;
  if (!bytes)
    return;
  out[0] = '\0';
  for (i = 0; i < parz_codec_count && at < bytes; i++) {
    int n = snprintf(out + at, bytes - at, "%s%u (%s)", i ? ", " : "", parz_codec_table[i]->id,
                     parz_codec_table[i]->name);
    if (n < 0)
      return;
    at += (size_t)n;
  }
}
