/* One chunk through the whole error-bounded codec, in memory: the sections a chunk of this codec
 * needs (codebook, segment bit lengths for the table, payload, exceptions, mask), held apart
 * until the frame carries them. */
#ifndef PARZ_BOUNDED_CHUNK_H
#define PARZ_BOUNDED_CHUNK_H

#include "bounded.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int predictor;    /* parz_bounded_predictor, or 0: the encoder chooses from a sample */
  int runs;         /* 1: runs of zero codes as run symbols, 0 not, 2: the smaller of the two */
  size_t segment;   /* codes per segment, 1..2^24 */
  const void* fill; /* the fill value's bytes (masked wherever equal), or NULL */
  const parz_jobs* jobs; /* the threads of the forward pass, or NULL: the calling thread's */
  parz_keep* keep;       /* where the chunk-wide arrays come from (chunk_keep.h), or NULL */
} parz_bounded_options;

typedef struct {
  parz_bounded_shape shape;
  double eb;
  double step; /* the grid's step (parz_bounded_step): what the decoder multiplies by */
  int predictor, runs;
  size_t segment, nsegments;
  uint8_t* book; /* serialized codebook */
  size_t book_bytes;
  uint8_t* payload;
  size_t payload_bytes;
  uint64_t payload_bits;
  uint64_t* seg_bits; /* [nsegments] */
  size_t nexceptions; /* values stored exactly */
  uint64_t* exc_pos;  /* increasing */
  uint64_t* exc_bits; /* bit patterns (32-bit types in the low half) */
  size_t nmasked;
  uint8_t* mask;      /* bitmap of masked positions (bit i of byte i/8), NULL when none */
  uint64_t fill_bits; /* the masked values' bit pattern */
} parz_bounded_chunk;

/* What the encoder has of a chunk once its chunk-wide passes are done, before any segment is
 * written: the codes in code order, what became of each value, the codebook. */
typedef struct {
  double step; /* the grid's step (parz_bounded_step): what the decoder multiplies by */
  int predictor, runs;
  size_t segment;
  int32_t* codes;     /* one per value, in the predictor's order (a block of `keep`) */
  uint8_t* hole;      /* per value: PARZ_BOUNDED_KNOWN, _EXCEPTION or _MASKED (likewise) */
  parz_keep* keep;    /* the options' keep, which the blocks go back to */
  size_t nexceptions; /* values the codes cannot carry within eb */
  size_t nmasked;     /* the caller's holes and the fill value */
  parz_bounded_book book;
  uint8_t* book_bytes; /* serialized, book_size bytes */
  size_t book_size;
} parz_bounded_coded;

/* Quantizes, predicts and builds the codebook of count values of src at bound eb. given (NULL:
 * none) marks with a nonzero byte per value the values the caller restores itself; they and the
 * values equal to opt->fill become MASKED, cost the payload almost nothing and need no bound. */
int parz_bounded_code(const parz_bounded_shape* s, const void* src, double eb,
                      const parz_bounded_options* opt, const uint8_t* given,
                      parz_bounded_coded* out, parz_error* err);
void parz_bounded_coded_free(parz_bounded_coded* c);

/* The codebook of a chunk from its symbol counts, tables over the range r (parz_bounded_code_range
 * and parz_bounded_count_symbols; the whole alphabet's range serves too and gives the same book):
 * plain without zero runs, runs with them; runs_opt as parz_bounded_options.runs, and the count it
 * does not read may be NULL. Sets out's runs, book, book_bytes and book_size (its arrays allocated
 * where NULL, freed by parz_bounded_coded_free). parz_bounded_code builds its codebook with it. */
int parz_bounded_coded_book(const parz_bounded_range* r, const uint64_t* plain,
                            const uint64_t* runs, int runs_opt, parz_bounded_coded* out,
                            parz_error* err);

/* The sample box parz_bounded_choose tries the predictors on: at most an eighth of the chunk s
 * where its extents allow (the last halving can leave a sixteenth), at its centre, its shape
 * into *b and its first corner into lo (lo[k] along s's axis k); returns its values' count. */
size_t parz_bounded_sample_box(const parz_bounded_shape* s, parz_bounded_shape* b, size_t lo[4]);

/* A trial's size: the estimate of its code's bytes (parz_bounded_estimate_bytes, SIZE_MAX: none)
 * with its exceptions' and masked values' costs. */
size_t parz_bounded_trial_bytes(size_t estimate, size_t nexc, size_t nmask);

/* The predictor of the least trial size (bytes[p - 1] predictor p's), the first of equals;
 * Lorenzo when no trial built a code. */
int parz_bounded_pick(const size_t bytes[PARZ_BOUNDED_PREDICTORS]);

/* The predictor whose codes a sample of the chunk (parz_bounded_sample_box's, at its centre)
 * makes smallest, the sample's holes (given, as parz_bounded_code takes it, and the fill value)
 * skipped as the chunk's codes skip them: what they hold is never read. */
int parz_bounded_choose(const parz_bounded_shape* s, const void* src, double eb,
                        const parz_bounded_options* opt, const uint8_t* given);

/* Encodes count values of src (s's type and shape, C order) at absolute bound eb. */
int parz_bounded_chunk_encode(const parz_bounded_shape* s, const void* src, double eb,
                              const parz_bounded_options* opt, parz_bounded_chunk* out,
                              parz_error* err);

/* Decodes c into dst (its shape's values). Every value comes back within eb of the encoder's
 * input, exceptions and masked values bit for bit. */
int parz_bounded_chunk_decode(const parz_bounded_chunk* c, void* dst, parz_error* err);

void parz_bounded_chunk_free(parz_bounded_chunk* c);

#ifdef __cplusplus
}
#endif

#endif
