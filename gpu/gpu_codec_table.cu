/* The GPU's codec table (gpu_codecs.h): one entry per codec with GPU kernels, fixed at link
 * time. */
#include "codecs.h"
#include "gpu_codecs.h"
#include "table.h" /* parz_chunk_layout */

static const parz_gpu_codec* const table[] = {&parz_gpu_codec_zfp, &parz_gpu_codec_stored,
                                              &parz_gpu_codec_bounded, &parz_gpu_codec_lossless};
static const unsigned count = sizeof table / sizeof table[0];

const parz_gpu_codec* parz_gpu_codec_find(unsigned id) {
  for (unsigned i = 0; i < count; i++)
    if (table[i]->id == id)
      return table[i];
  return NULL;
}

/* The codec library's name for id, for messages. */
static const char* codec_name(unsigned id) {
  const parz_codec* c = parz_codec_find(id);
  return c ? c->name : "unknown";
}

int parz_gpu_codec_decoder(const parz_chunk_view* v, size_t i, const parz_gpu_codec** codec,
                           parz_error* err) {
  if ((*codec = parz_gpu_codec_find(v->codec))) {
    const int rc = (*codec)->decodes ? (*codec)->decodes(v, i, err) : PARZ_OK;
    if (rc != PARZ_OK)
      *codec = NULL;
    return rc;
  }
  return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                   "chunk %zu: codec %u (%s) has no GPU decoder: decode it on the CPU", i, v->codec,
                   codec_name(v->codec));
}

int parz_gpu_codec_encoder(const parz_array* a, const parz_chunk_config* cfg, parz_chunk_view* v,
                           const parz_gpu_codec** codec, parz_error* err) {
  int rc;
  *codec = NULL;
  if ((rc = parz_chunk_layout(v, a, cfg, err)) != PARZ_OK)
    return rc;
  if ((*codec = parz_gpu_codec_find(v->codec)) &&
      ((*codec)->launch_blocks || (*codec)->encode_chunks))
    return PARZ_OK;
  *codec = NULL;
  return parz_fail(err, PARZ_ERR_UNSUPPORTED,
                   "GPU encode: codec %u (%s) in the chunk configuration has no GPU encoder: "
                   "encode it on the CPU",
                   v->codec, codec_name(v->codec));
}

size_t parz_gpu_codec_run_bytes(void) {
  size_t most = 0;
  for (unsigned i = 0; i < count; i++)
    most = table[i]->run_bytes > most ? table[i]->run_bytes : most;
  return most;
}
