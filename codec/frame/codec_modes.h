/* A codec's modes: how the values a user gives (the filter's cd_values, Python's
 * Parz(codec=..., MODE=...), parz cd-values --codec NAME --MODE ...) become the codec's part of
 * a chunk configuration: zfp's four parameters, or another codec's settings. Each codec an encoder can be asked for lists its modes in its entry of
 * the codec table (parz_codec.modes, codecs.h); the plugin, the Python package and the parz
 * command read them from there, so a new codec brings its modes with it. */
#ifndef PARZ_CODEC_MODES_H
#define PARZ_CODEC_MODES_H

#include <string.h>

#include "codecs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most cd_values words a mode takes after its number, and the highest mode number (the
 * filter's internal forms keep a mode in four bits). */
#define PARZ_MODE_WORDS_MAX 4u
#define PARZ_MODE_NUMBER_MAX 15u

typedef struct parz_codec_mode {
  /* The mode's number in cd_values, 1..PARZ_MODE_NUMBER_MAX, unique within the codec. Files
   * store it: a number, once given, never changes its meaning. */
  unsigned number;
  /* Its name: the Python keyword and the parz cd-values option (--NAME). */
  const char* name;
  /* One letter per value the mode takes: 'd' a finite number > 0, carried as two cd_values
   * words (the high, then the low 32 bits of its binary64 bit pattern), 'u' an unsigned 32-bit
   * integer, 'i' a signed one (two's complement); "" for a mode without values. A mode of more
   * than two words takes the four words the filter's internal form keeps of it (zfp's: minbits,
   * maxbits, maxprec, minexp; parz_codec_modes.keep). */
  const char* values;
  /* The values' names, comma-separated ("minbits,maxbits,maxprec,minexp"); "" for a mode of one
   * value, which goes by the mode's name, or of none. */
  const char* names;
  /* What it promises, one line for usage texts: "absolute error bound (floating-point data)". */
  const char* about;
  /* Nonzero when every value comes back bit for bit. */
  int lossless;
  /* The codec's part of cfg (zfp's params, or settings) for `words` (the mode's cd_values
   * words) and arrays of this type and rank: PARZ_OK, or PARZ_ERR_PARAM with a message naming
   * the value refused. */
  int (*params)(parz_chunk_config* cfg, const uint32_t* words, parz_type type, unsigned dims,
                parz_error* err);
} parz_codec_mode;

typedef struct parz_codec_modes {
  const parz_codec_mode* mode;
  unsigned count;
  /* The four words an internal form keeps, read back into cfg: PARZ_OK or an error naming
   * them. */
  int (*stored)(parz_chunk_config* cfg, const uint32_t words[4], parz_error* err);
  /* The four words an internal form keeps of cfg (as a mode's params set it). */
  void (*keep)(const parz_chunk_config* cfg, uint32_t words[4]);
  /* The number of the mode that a chunk's codec parameters amount to, 0 when none does (NULL:
   * the codec cannot tell). */
  unsigned (*mode_of)(const parz_chunk_view* v);
  /* What a chunk's codec parameters hold beyond its mode, in words, into out (bytes long), for
   * `parz inspect` (NULL: nothing to say). */
  void (*describe)(const parz_chunk_view* v, char* out, size_t bytes);
} parz_codec_modes;

/* The codec of the id whose modes an encoder can be asked for (not stored, which only the rule
 * of stored chunks writes), or NULL. */
const parz_codec* parz_codec_chosen(unsigned id);
/* The same by name ("zfp"), or NULL. */
const parz_codec* parz_codec_named(const char* name);
/* The names of those codecs, for messages: "zfp, raw", or with their ids "zfp (1), raw (200)",
 * cut to `bytes`. */
void parz_codec_choices(char* out, size_t bytes, int with_ids);

/* The codec's mode of that number, or of that name; NULL when it has none. */
const parz_codec_mode* parz_codec_mode_find(const parz_codec* c, unsigned number);
const parz_codec_mode* parz_codec_mode_named(const parz_codec* c, const char* name);
/* The mode a request that names none gets: the codec's first, when it takes no value (the
 * lossless codec's); NULL when a mode must be named (zfp). */
const parz_codec_mode* parz_codec_mode_default(const parz_codec* c);
/* Its modes' names, for messages: "rate, precision, accuracy, expert, reversible". */
void parz_codec_mode_names(const parz_codec* c, char* out, size_t bytes);
/* The cd_values words a mode takes after its number (two per 'd'). */
unsigned parz_codec_mode_words(const parz_codec_mode* m);
/* The double a 'd' value's two words carry: the one whose binary64 bit pattern is hi:lo. Inline,
 * so that a codec's modes use it without calling back into this file. */
static inline double parz_mode_double(uint32_t hi, uint32_t lo) {
  uint64_t bits = ((uint64_t)hi << 32) | lo;
  double x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

/* zfp's four parameters as the words an internal form keeps (minexp two's complement). */
static inline void parz_mode_params_words(const parz_params* p, uint32_t words[4]) {
  words[0] = p->minbits;
  words[1] = p->maxbits;
  words[2] = p->maxprec;
  words[3] = (uint32_t)p->minexp;
}

/* zfp's modes (zfp/zfp_modes.c). */
extern const parz_codec_modes parz_zfp_modes;

#ifdef __cplusplus
}
#endif

#endif
