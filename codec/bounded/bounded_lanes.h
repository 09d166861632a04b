/* A segment's tokens split among several lanes (a GPU warp's), each decoding a share of its bits
 * speculatively, compiled for the CPU and the GPU alike (PARZ_HD): the GPU's segment kernel runs
 * these steps, and a host test runs them on emulated lanes against parz_bounded_segment_codes.
 *
 * Lane l of L owns the tokens that start in bits [lim(l-1), lim(l)) of the segment
 * (lim(l) = bit0 + len * (l + 1) / L, the last lane's the segment's end). It first decodes from
 * lim(l-1) as though a token started there (parz_bounded_lane_decode). Its true start is where
 * lane l-1's tokens end, the first token boundary at or past lim(l-1) on the chain from bit0; the
 * lanes then exchange ends, and a lane whose start was wrong decodes again from the one it is
 * given (parz_bounded_lane_redecode). Canonical Huffman chains from two starts meet again within
 * a few tokens, so the second decode usually stops at a token end the first one recorded and
 * takes the rest of the first decode's result (from a common boundary both chains are the same
 * tokens). Where they never meet (a long stretch of one repeated token, which chains enter at a
 * few phases), a lane's start moves among those phases round after round, so a lane also keeps
 * the result of its decode before the last (start, end, codes): going back to that start, or
 * reaching it on its chain, costs no further walk. Lane 0 starts right; once lane l's start is
 * right, so is its end, so after round l lanes 0..l are exact and nothing changes any more after
 * at most L rounds: the worst case is the serial walk's work, never a wrong answer. The segment
 * is then right exactly when no lane met bits that start no code word, the lanes' codes add up to
 * its count and the last lane ends at its end: the refusals of parz_bounded_segment_codes,
 * segment for segment. A lane finally decodes its tokens once more, writing its codes after those
 * of the lanes before it (parz_bounded_lane_write).
 *
 * Positions are bits from the segment's first bit, 32-bit: a segment of m codes longer than
 * m * PARZ_BOUNDED_TOKEN_BITS bits is refused before any lane decodes it (the serial decode would
 * end on its codes' count before its bits). Internal to the codec and its GPU decoder. */
#ifndef PARZ_BOUNDED_LANES_H
#define PARZ_BOUNDED_LANES_H

#include "bounded_inverse.h"

/* Loops over the recorded ends unrolled on the GPU, so that they stay registers. */
#if defined(__CUDA_ARCH__)
#define PARZ_BOUNDED_UNROLL _Pragma("unroll")
#else
#define PARZ_BOUNDED_UNROLL
#endif

/* The most bits of one token: the longest code word and an escape's raw bits. */
#define PARZ_BOUNDED_TOKEN_BITS (PARZ_BOUNDED_MAX_LEN + 32u)
/* Token ends a lane records for the others to meet. */
#define PARZ_BOUNDED_LANE_MARKS 8
/* A lane's code count saturates here: far above any segment's (at most 65536), and above the
 * codes of PARZ_BOUNDED_LANE_MARKS tokens (at most 2^28), so that a count taken from a saturated
 * one stays above every segment's. */
#define PARZ_BOUNDED_LANE_MANY (1u << 30)

/* One lane's decode: from `start` (bits from the segment's first) while tokens start before its
 * limit. */
typedef struct {
  uint32_t start, end; /* where it started, where its last token ended */
  uint32_t codes;      /* the codes its tokens stand for, saturated at PARZ_BOUNDED_LANE_MANY */
  uint32_t bad;        /* 1: it stopped at bits that start no code word (at `end`) */
  uint32_t marks;      /* the token ends recorded below, at most PARZ_BOUNDED_LANE_MARKS */
  uint32_t mark[PARZ_BOUNDED_LANE_MARKS];   /* the first token ends after start */
  uint32_t before[PARZ_BOUNDED_LANE_MARKS]; /* the codes of the tokens up to each */
  /* the lane's decode before this one, but for its token ends (was_start
   * PARZ_BOUNDED_LANE_NONE: none) */
  uint32_t was_start, was_end, was_codes, was_bad;
} parz_bounded_lane;

/* No start: positions are below 2^32 - 1 (parz_bounded_lanes_fit). */
#define PARZ_BOUNDED_LANE_NONE 0xffffffffu

/* What the lanes of one segment share: the codebook with its step table (or NULL: token by
 * token), the payload and the segment's first bit. */
typedef struct {
  const parz_huff_decoder* d;
  const uint32_t* table;
  const uint32_t* steps;
  uint64_t table_mask;
  const uint8_t* payload;
  size_t payload_bytes;
  uint64_t bit0;
} parz_bounded_lanes;

PARZ_HD parz_bounded_lanes parz_bounded_lanes_init(const parz_huff_decoder* d,
                                                   const uint32_t* table, const uint32_t* steps,
                                                   const uint8_t* payload, size_t payload_bytes,
                                                   uint64_t bit0) {
  parz_bounded_lanes s;
  s.d = d;
  s.table = table;
  s.steps = steps;
  s.table_mask = ((uint64_t)1 << d->table_bits) - 1;
  s.payload = payload;
  s.payload_bytes = payload_bytes;
  s.bit0 = bit0;
  return s;
}

/* Whether a segment of `count` codes may hold len bits: more than count tokens' most bits the
 * serial decode refuses (its count reached before its bits' end), so a segment the lanes decode
 * has 32-bit positions. */
PARZ_HD int parz_bounded_lanes_fit(uint64_t len, uint64_t count) {
  return len <= count * PARZ_BOUNDED_TOKEN_BITS;
}

/* The 8-byte payload words that the lanes of a segment in bits [bit0, end) may read: from word
 * *first = bit0 / 64 on, the count returned. A token that starts before the segment's end reads
 * at most PARZ_BOUNDED_MAX_LEN bits past its start before its last window, and parz_bitr_peek
 * reads the word of a window's position and the next. The lanes given a copy of these words
 * (zeros past the payload, as parz_bitr_peek reads them) and the segment at bit0 - 64 * *first
 * decode the tokens of the payload itself: the GPU's segment kernel stages them so. */
PARZ_HD uint64_t parz_bounded_lanes_words(uint64_t bit0, uint64_t end, uint64_t* first) {
  *first = bit0 >> 6;
  return ((end + PARZ_BOUNDED_MAX_LEN) >> 6) + 3 - *first;
}

/* The limit of lane `lane` of `lanes` in a segment of len bits (len < 2^32). */
PARZ_HD uint32_t parz_bounded_lane_limit(uint32_t len, unsigned lane, unsigned lanes) {
  return (uint32_t)((uint64_t)len * (lane + 1) / lanes);
}

PARZ_HD uint32_t parz_bounded_lane_add(uint32_t codes, size_t n) {
  return n >= PARZ_BOUNDED_LANE_MANY - codes ? PARZ_BOUNDED_LANE_MANY : codes + (uint32_t)n;
}

/* The step table: entry i, for the low T = table_bits bits i of the window, holds the whole tokens
 * that start there and end within those T bits, taken one after another until one does not (code
 * words of at most T bits other than the escape, a run's raw bits included): their bits, the codes
 * they stand for and whether those codes are all 0. A lane then moves over such tokens in one
 * lookup instead of one each: on etopo5 at 1e-3 most tokens are a few bits. An entry of 0 bits
 * (the first token is a longer word, the escape, a run whose raw bits pass the window, or bits that
 * start no word) leaves the token to parz_bounded_lane_token. Positions a lane reaches by steps are
 * token ends of the same chain, so the lanes' results are those of a decode token by token.
 * Those codes are fewer than 2^12 (T is at most 12 and a run of 2^s codes or more takes s raw
 * bits), so the entry's high bits hold its pair: where the first two tokens are single codes in
 * [-8, 7], their bits and those two codes, 4 bits each, so that the lanes' writes take both in
 * one lookup (0 bits: no pair). */
#define PARZ_BOUNDED_STEP_BITS(e) ((e)&31u)
#define PARZ_BOUNDED_STEP_ZEROS(e) ((e) >> 5 & 1u)
#define PARZ_BOUNDED_STEP_CODES(e) ((e) >> 6 & 0xfffu)
#define PARZ_BOUNDED_STEP_PAIR_BITS(e) ((e) >> 18 & 15u)
/* code k (0 or 1) of the pair, sign-extended from its 4 bits at bit 22 + 4k */
#define PARZ_BOUNDED_STEP_PAIR_CODE(e, k) ((int32_t)((e) << (6u - 4u * (k))) >> 28)

/* Entry i of the step table of a table decoder (table, its T = table_bits, at most 12). */
PARZ_HD uint32_t parz_bounded_step_entry(const uint32_t* table, unsigned T, uint32_t i) {
  unsigned used = 0, tokens = 0, small = 0; /* small: the first tokens that may form the pair */
  uint32_t codes = 0, zeros = 1, pair = 0;
  while (used < T) {
    /* the bits past the known ones read as zeros: a word of at most the known bits is the same */
    const unsigned known = T - used;
    const uint32_t e = table[i >> used];
    const unsigned l = PARZ_HUFF_ENTRY_LEN(e), sym = PARZ_HUFF_ENTRY_SYM(e);
    if (!l || l > known || sym == PARZ_BOUNDED_SYM_ESCAPE)
      break;
    if (sym <= PARZ_BOUNDED_RUNS) {
      if (l + sym > known)
        break;
      codes += (1u << sym) + (i >> (used + l) & ((1u << sym) - 1u));
      used += l + sym;
    } else {
      const int32_t code = (int32_t)sym - (int32_t)PARZ_BOUNDED_SYM_ZERO;
      if (small == tokens && small < 2 && code >= -8 && code <= 7) {
        pair |= ((uint32_t)code & 15u) << (22 + 4 * small);
        if (++small == 2)
          pair |= (used + l) << 18;
      }
      codes++;
      zeros &= sym == PARZ_BOUNDED_SYM_ZERO;
      used += l;
    }
    tokens++;
  }
  return (small == 2 ? pair : 0u) | codes << 6 | zeros << 5 | used;
}

/* The step entry for r's window (refilled when short, as parz_bounded_read_token would), 0 without
 * a step table. */
PARZ_HD uint32_t parz_bounded_lane_step(const parz_bounded_lanes* s, parz_bitr* r,
                                        parz_bounded_window* win) {
  if (win->valid < PARZ_BOUNDED_MAX_LEN) {
    win->w = parz_bitr_peek(r);
    win->valid = 57;
  }
  return s->steps ? s->steps[win->w & s->table_mask] : 0u;
}

/* r and its window moved past a step of b bits. */
PARZ_HD void parz_bounded_lane_skip(parz_bitr* r, parz_bounded_window* win, unsigned b) {
  parz_bitr_skip(r, b);
  win->w >>= b;
  win->valid -= b;
}

/* The window's first token where it is a code word of at most the table's bits other than the
 * escape, with a run's raw bits inside the window: its bits, with *n the codes it stands for and
 * *code its code (0 for a run), what parz_bounded_read_token gives for it. 0 bits for any other
 * token, which the caller leaves to parz_bounded_read_token. The lanes compute it beside the
 * step at every move and take one or the other, so that a warp whose lanes stand at both kinds
 * of bits runs one path, not both in turn. */
PARZ_HD unsigned parz_bounded_lane_token(const parz_bounded_lanes* s,
                                         const parz_bounded_window* win, uint32_t* n,
                                         int32_t* code) {
  const uint32_t e = s->table[win->w & s->table_mask];
  const unsigned l = PARZ_HUFF_ENTRY_LEN(e), sym = PARZ_HUFF_ENTRY_SYM(e);
  const unsigned raw = sym <= PARZ_BOUNDED_RUNS ? sym : 0u;
  const uint32_t bits = (uint32_t)(win->w >> l) & ((1u << raw) - 1u);
  *n = raw ? (1u << raw) + bits : 1u;
  *code = raw ? 0 : (int32_t)sym - (int32_t)PARZ_BOUNDED_SYM_ZERO;
  return l && sym != PARZ_BOUNDED_SYM_ESCAPE && l + raw <= win->valid ? l + raw : 0u;
}

/* The tokens from `start` on while they start before `lim`, into *o; with `was` (a decode of the
 * same lane from another start, or NULL) it stops at the first token end `was` recorded and
 * takes the rest from it. Both move by steps where they end by lim, and the first records the
 * ends of its first steps. A decode again meets such an end where its own steps end there too,
 * which they do once the two chains share a token end often enough; where the chains never
 * meet (bits that parse into tokens alike from two starts, as long stretches of one repeated
 * token do) it decodes on to lim, and its steps make that walk, which the lanes after it may
 * each repeat in the rounds, several tokens a lookup rather than one. */
PARZ_HD void parz_bounded_lane_decode(const parz_bounded_lanes* s, uint32_t start, uint32_t lim,
                                      const parz_bounded_lane* was, parz_bounded_lane* o) {
  parz_bitr r;
  parz_bitr_init(&r, s->payload, s->payload_bytes, s->bit0 + start, 0);
  parz_bounded_window win = {0, 0};
  uint32_t at = start, codes = 0, marks = 0;
  o->start = start;
  o->bad = 0;
  while (at < lim) {
    const uint32_t e = parz_bounded_lane_step(s, &r, &win);
    const uint32_t b = PARZ_BOUNDED_STEP_BITS(e);
    uint32_t tn;
    int32_t code;
    const unsigned tb = parz_bounded_lane_token(s, &win, &tn, &code);
    const int step = b && lim - at >= b;
    const unsigned move = step ? b : tb;
    size_t n = step ? PARZ_BOUNDED_STEP_CODES(e) : tn;
    if (move) {
      parz_bounded_lane_skip(&r, &win, move);
    } else {
      n = parz_bounded_read_token(s->d, s->table, s->table_mask, &r, &win, &code);
      if (n == 0) {
        o->bad = 1;
        break;
      }
    }
    at = (uint32_t)(r.pos - s->bit0);
    codes = parz_bounded_lane_add(codes, n);
    if (was && at == was->start) { /* the old start on this chain: the old decode follows */
      codes = parz_bounded_lane_add(codes, was->codes);
      at = was->end;
      o->bad = was->bad;
      break;
    }
    if (was && at == was->was_start) { /* likewise the decode before it */
      codes = parz_bounded_lane_add(codes, was->was_codes);
      at = was->was_end;
      o->bad = was->was_bad;
      break;
    }
    if (was) {
      /* the ends are increasing, so at most one is met; unrolled, so that they stay registers */
      int met = -1;
      PARZ_BOUNDED_UNROLL
      for (int k = 0; k < PARZ_BOUNDED_LANE_MARKS; k++)
        if ((uint32_t)k < was->marks && was->mark[k] == at)
          met = k;
      if (met >= 0) {
        uint32_t rest = 0;
        PARZ_BOUNDED_UNROLL
        for (int k = 0; k < PARZ_BOUNDED_LANE_MARKS; k++)
          if (k == met)
            rest = was->codes - was->before[k];
        codes = parz_bounded_lane_add(codes, rest);
        at = was->end;
        o->bad = was->bad;
        break;
      }
    }
    if (marks < PARZ_BOUNDED_LANE_MARKS) {
      PARZ_BOUNDED_UNROLL
      for (int k = 0; k < PARZ_BOUNDED_LANE_MARKS; k++)
        if ((uint32_t)k == marks) {
          o->mark[k] = at;
          o->before[k] = codes;
        }
      marks++;
    }
  }
  o->end = at;
  o->codes = codes;
  o->marks = marks;
  o->was_start = PARZ_BOUNDED_LANE_NONE;
}

/* The first token end at or past `at` of the chain from `from` (at when bits that start no code
 * word come first): the chain from a start before `at` has met the true one there more often
 * than a chain from `at` itself. */
PARZ_HD uint32_t parz_bounded_lane_guess(const parz_bounded_lanes* s, uint32_t from, uint32_t at) {
  parz_bitr r;
  parz_bitr_init(&r, s->payload, s->payload_bytes, s->bit0 + from, 0);
  parz_bounded_window win = {0, 0};
  uint64_t pos = from;
  while (pos < at) {
    const uint32_t e = parz_bounded_lane_step(s, &r, &win), b = PARZ_BOUNDED_STEP_BITS(e);
    uint32_t tn;
    int32_t code;
    const unsigned tb = parz_bounded_lane_token(s, &win, &tn, &code);
    const unsigned move = b && at - pos >= b ? b : tb;
    if (move)
      parz_bounded_lane_skip(&r, &win, move);
    else if (!parz_bounded_read_token(s->d, s->table, s->table_mask, &r, &win, &code))
      return at;
    pos = r.pos - s->bit0;
  }
  return (uint32_t)pos;
}

/* The first decode of lane `lane` of `lanes`: from the first token end at or past the previous
 * lane's limit on a chain started `lead` bits before it. */
PARZ_HD void parz_bounded_lane_first(const parz_bounded_lanes* s, uint32_t len, unsigned lane,
                                     unsigned lanes, uint32_t lead, parz_bounded_lane* o) {
  uint32_t start = 0;
  if (lane) {
    const uint32_t at = parz_bounded_lane_limit(len, lane - 1, lanes);
    start = parz_bounded_lane_guess(s, at > lead ? at - lead : 0, at);
  }
  parz_bounded_lane_decode(s, start, parz_bounded_lane_limit(len, lane, lanes), NULL, o);
}

/* A lane's decode again from `start` (the previous lane's end), *o its decode so far, which it
 * keeps as the decode before: from the start of that one's own decode before, the two swap (its
 * token ends are not kept, so it records none). */
PARZ_HD void parz_bounded_lane_redecode(const parz_bounded_lanes* s, uint32_t start, uint32_t lim,
                                        parz_bounded_lane* o) {
  const parz_bounded_lane was = *o;
  if (start == was.was_start) {
    o->start = start;
    o->end = was.was_end;
    o->codes = was.was_codes;
    o->bad = was.was_bad;
    o->marks = 0;
  } else {
    parz_bounded_lane_decode(s, start, lim, &was, o);
  }
  o->was_start = was.start;
  o->was_end = was.end;
  o->was_codes = was.codes;
  o->was_bad = was.bad;
}

/* Whether a segment of `count` codes whose lanes' codes add up to `total`, none of them bad, the
 * last ending at `last_end`, is the one parz_bounded_segment_codes accepts from len bits. */
PARZ_HD int parz_bounded_lanes_ok(uint64_t total, uint64_t count, int bad, uint32_t last_end,
                                  uint32_t len) {
  return !bad && total == count && last_end == len;
}

/* Lane o's codes (the segment accepted) into codes[first...]; with `zeroed` the codes are zero
 * already and only the others are stored. Steps of zeros and pairs of codes are taken whole. */
PARZ_HD void parz_bounded_lane_write(const parz_bounded_lanes* s, const parz_bounded_lane* o,
                                     int32_t* codes, size_t first, int zeroed) {
  parz_bitr r;
  parz_bitr_init(&r, s->payload, s->payload_bytes, s->bit0 + o->start, 0);
  parz_bounded_window win = {0, 0};
  const uint64_t end = s->bit0 + o->end;
  size_t i = first;
  while (r.pos < end) {
    const uint32_t e = parz_bounded_lane_step(s, &r, &win), b = PARZ_BOUNDED_STEP_BITS(e);
    uint32_t tn;
    int32_t code;
    const unsigned tb = parz_bounded_lane_token(s, &win, &tn, &code);
    const int step = b && PARZ_BOUNDED_STEP_ZEROS(e) && end - r.pos >= b;
    const unsigned pb = PARZ_BOUNDED_STEP_PAIR_BITS(e);
    const int pair = !step && pb && end - r.pos >= pb;
    const unsigned move = step ? b : pair ? pb : tb;
    size_t n = step ? PARZ_BOUNDED_STEP_CODES(e) : tn;
    if (step)
      code = 0;
    if (move)
      parz_bounded_lane_skip(&r, &win, move);
    else
      n = parz_bounded_read_token(s->d, s->table, s->table_mask, &r, &win, &code);
    if (pair) {
      const int32_t c0 = PARZ_BOUNDED_STEP_PAIR_CODE(e, 0), c1 = PARZ_BOUNDED_STEP_PAIR_CODE(e, 1);
      if (c0 || !zeroed)
        codes[i] = c0;
      if (c1 || !zeroed)
        codes[i + 1] = c1;
      n = 2;
    } else if (n == 1) {
      if (code || !zeroed)
        codes[i] = code;
    } else if (!zeroed) {
      for (size_t k = 0; k < n; k++)
        codes[i + k] = 0;
    }
    i += n;
  }
}

#endif
