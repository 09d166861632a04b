/* Look-ups of the codecs a user chooses and their modes (codec_modes.h). */
#include "codec_modes.h"

#include <stdio.h>
#include <string.h>

const parz_codec* parz_codec_chosen(unsigned id) {
  const parz_codec* c = parz_codec_find(id);
  return c && c->modes && c->modes->count ? c : NULL;
}

const parz_codec* parz_codec_named(const char* name) {
  unsigned i;
  for (i = 0; name && i < parz_codec_count; i++)
    if (!strcmp(parz_codec_table[i]->name, name))
      return parz_codec_chosen(parz_codec_table[i]->id);
  return NULL;
}

/* Appends s to out (bytes), after ", " unless it is the first; *at: the length so far. */
static void append(char* out, size_t bytes, size_t* at, const char* s) {
  int n;
  if (*at >= bytes)
    return;
  n = snprintf(out + *at, bytes - *at, "%s%s", *at ? ", " : "", s);
  if (n > 0)
    *at += (size_t)n;
}

void parz_codec_choices(char* out, size_t bytes, int with_ids) {
  size_t at = 0;
  unsigned i;
  char name[64];
  if (!bytes)
    return;
  out[0] = '\0';
  for (i = 0; i < parz_codec_count; i++) {
    const parz_codec* c = parz_codec_table[i];
    if (!parz_codec_chosen(c->id))
      continue;
    if (with_ids)
      snprintf(name, sizeof name, "%.40s (%u)", c->name, c->id);
    else
      snprintf(name, sizeof name, "%.40s", c->name);
    append(out, bytes, &at, name);
  }
}

const parz_codec_mode* parz_codec_mode_find(const parz_codec* c, unsigned number) {
  unsigned i;
  for (i = 0; c && c->modes && i < c->modes->count; i++)
    if (c->modes->mode[i].number == number)
      return &c->modes->mode[i];
  return NULL;
}

const parz_codec_mode* parz_codec_mode_named(const parz_codec* c, const char* name) {
  unsigned i;
  for (i = 0; name && c && c->modes && i < c->modes->count; i++)
    if (!strcmp(c->modes->mode[i].name, name))
      return &c->modes->mode[i];
  return NULL;
}

void parz_codec_mode_names(const parz_codec* c, char* out, size_t bytes) {
  size_t at = 0;
  unsigned i;
  if (!bytes)
    return;
  out[0] = '\0';
  for (i = 0; c && c->modes && i < c->modes->count; i++)
    append(out, bytes, &at, c->modes->mode[i].name);
}

const parz_codec_mode* parz_codec_mode_default(const parz_codec* c) {
  return c && c->modes && c->modes->count && !c->modes->mode[0].values[0] ? &c->modes->mode[0]
                                                                          : NULL;
}

unsigned parz_codec_mode_words(const parz_codec_mode* m) {
  const char* v;
  unsigned n = 0;
  for (v = m->values; *v; v++)
    n += *v == 'd' ? 2u : 1u;
  return n;
}
