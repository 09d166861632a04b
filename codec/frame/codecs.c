/* The registry of codecs (codecs.h): this library's own, then those registered at run time. */
#include "codecs.h"

#include <stdio.h>
#include <string.h>

#define MAX_CODECS 8u

static const parz_codec* codecs[MAX_CODECS] = {&parz_codec_zfp, &parz_codec_stored};
static unsigned ncodecs = 2;
static const parz_codec* written = &parz_codec_zfp;

const parz_codec* parz_codec_find(unsigned id) {
  unsigned i;
  for (i = 0; i < ncodecs; i++)
    if (codecs[i]->id == id)
      return codecs[i];
  return NULL;
}

void parz_codec_names(char* out, size_t bytes) {
  size_t at = 0;
  unsigned i;
  if (!bytes)
    return;
  out[0] = '\0';
  for (i = 0; i < ncodecs && at < bytes; i++) {
    int n =
        snprintf(out + at, bytes - at, "%s%u (%s)", i ? ", " : "", codecs[i]->id, codecs[i]->name);
    if (n < 0)
      return;
    at += (size_t)n;
  }
}

int parz_codec_register(const parz_codec* c, parz_error* err) {
  if (!c || c->id == 0 || c->id > 0xFFFFu)
    return parz_fail(err, PARZ_ERR_ARG, "codec id %u outside 1..65535", c ? c->id : 0u);
  if (parz_codec_find(c->id))
    return parz_fail(err, PARZ_ERR_ARG, "codec id %u is taken by %s", c->id,
                     parz_codec_find(c->id)->name);
  if (ncodecs == MAX_CODECS)
    return parz_fail(err, PARZ_ERR_ARG, "no room for codec %u: the registry holds %u", c->id,
                     MAX_CODECS);
  codecs[ncodecs++] = c;
  return PARZ_OK;
}

const parz_codec* parz_codec_written(void) { return written; }

int parz_codec_write_with(unsigned id, parz_error* err) {
  const parz_codec* c = parz_codec_find(id);
  if (!c || !c->encode_segments)
    return parz_fail(err, PARZ_ERR_ARG, "codec %u is %s", id,
                     c ? "no stream codec, which the encoders cannot write" : "not registered");
  written = c;
  return PARZ_OK;
}
