/* The error-bounded codec as an entry of the table of codecs (bounded_codec.c) and its modes
 * (bounded_modes.c): what the codec's folder shares between those two files. */
#ifndef PARZ_BOUNDED_CODEC_H
#define PARZ_BOUNDED_CODEC_H

#include "bounded.h"
#include "codec_modes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Codes per segment when the configuration leaves C to the codec: 1024 codes take at most
 * 1024 x 52 bits, so the table's lengths are 2 bytes wide, 0.2% of a payload at 1 bit per code,
 * and four times the segments of 4096 codes give the GPU's warps, one per segment, that many
 * more shorter walks (the CPU decoders run segments in groups and do not care). */
#define PARZ_BOUNDED_SEGMENT_CODES 1024u

/* The bound a chunk's codec parameters promise. */
double parz_bounded_params_eb(const unsigned char* params);

/* The predictor a chunk's codec parameters ask for (0: chosen per chunk). */
int parz_bounded_params_predictor(const unsigned char* params);

/* The codec data section of a chunk (codec/FORMAT.md), its bytes returned and, with out, written:
 * the grid step, the predictor, the run choice and the serialized codebook. */
size_t parz_bounded_codec_data(double step, int predictor, int runs, const uint8_t* book,
                               size_t book_size, unsigned char* out);

extern const parz_codec_modes parz_bounded_modes;

/* What a decoder needs of a chunk's codec data (a chunk parz_chunk_parse took): the grid step,
 * the predictor, the run choice and the codebook's decoder (the caller frees it). The codebook is
 * read with every check the serial decoder makes (PARZ_ERR_STREAM for a lying one). */
typedef struct {
  double step;
  int predictor, runs;
  parz_bounded_decoder* dec;
} parz_bounded_chunk_info;
int parz_bounded_chunk_decoder(const parz_chunk_view* v, parz_bounded_chunk_info* out,
                               parz_error* err);

/* The most words (parz_bounded_decoder_words) the decoder of the chunk's codebook can take, from
 * the size of its codec data alone: what the GPU reserves before the codebook is read. */
size_t parz_bounded_decoder_words_bound(const parz_chunk_view* v);

#ifdef __cplusplus
}
#endif

#endif
