/* zfp's part of the GPU chunk encoder's per-thread steps: a block gathered (strided arrays
 * too), cleaned (exceptions, masked values and values at risk of the accuracy bound replaced by
 * the codec's stand-ins, codec/frame/standin.h), padded and encoded with the codec's block
 * encoder (codec/zfp/block_encode.h) into a buffer of its thread (parz_gpu_encode_block), for
 * the block kernel (encode_kernels.cuh); the rest of the chunk is the frame's
 * (encode_chunk.cuh). Like those steps they run on the CPU too
 * (tests/test_gpu_encode_host.cpp). */
#ifndef PARZ_GPU_ENCODE_BLOCK_CUH
#define PARZ_GPU_ENCODE_BLOCK_CUH

#include "block_encode.h"
#include "block_type.cuh"
#include "encode_chunk.cuh"

/* Words a block of type T and rank D fills before any minbits padding: the widest header (two
 * flag bits, the exponent, the precision field) and every plane of every value with a group
 * test per value (codec/zfp/params.c, parz_block_max_bits without a budget). Bits past these
 * words are padding, zeros that the bounded writer drops and
 * parz_gpu_place_block leaves to the zeroed payload, so a thread's buffer fits its own kind of
 * block (9 words for 2D floats, not the 261 of 4D doubles) whatever minbits is. */
template <parz_type T, unsigned D>
constexpr unsigned parz_gpu_block_words() {
  const bool wide = T == PARZ_DOUBLE || T == PARZ_INT64;
  const unsigned ebits = T == PARZ_FLOAT ? 8 : T == PARZ_DOUBLE ? 11 : 0;
  const unsigned bits = 2 + ebits + (wide ? 6 : 5) + ((wide ? 64 : 32) + 1) * (1u << (2 * D));
  return bits / 64 + 1;
}

#if defined(__CUDACC__)
#define PARZ_GPU_NOINLINE static __host__ __device__ __noinline__
#else
#define PARZ_GPU_NOINLINE static
#endif

/* Valid extent of a block along each zfp axis (x = 0): 1 to 4. */
struct parz_gpu_extent {
  unsigned m[4];
};

/* Whether buffer index idx of a block (zfp order, x fastest) lies inside the array. */
PARZ_HD bool parz_gpu_valid(unsigned idx, const parz_gpu_extent& e, unsigned dims) {
  bool in = true;
  for (unsigned a = 0; a < dims; a++)
    in = in && ((idx >> (2 * a)) & 3u) < e.m[a];
  return in;
}

/* What the clean step found in a block: its exceptions, how many of them need format version 2
 * (not NaN or Inf), its masked values, its fact for the mask's records (encode_mask.cuh), and its
 * known values at risk (parz_gpu_risk). */
struct parz_gpu_block_note {
  unsigned exc, v2, masked, fact, risk;
};

/* The C-order position (in the chunk's array) of entry i of block b. */
PARZ_HD unsigned long long parz_gpu_position(const parz_gpu_enc_chunk& c, unsigned long long b,
                                             unsigned i) {
  unsigned long long pos = 0, run = 1;
  for (int k = (int)c.dims - 1; k >= 0; k--) {
    const unsigned long long bc = b % c.bgrid[k];
    b /= c.bgrid[k];
    pos += (4 * bc + ((i >> (2 * (c.dims - 1 - k))) & 3u)) * run;
    run *= c.shape[k];
  }
  return pos;
}

/* The mask pass's clean step (FORMAT.md, "Mask"): masked values and exceptions are the block's
 * holes, filled with the codec's stand-ins (parz_mask_fill_holes); the note gets the exceptions
 * and the block's fact. */
template <parz_type T, typename U, unsigned D>
PARZ_HD parz_gpu_block_note parz_gpu_clean_masked(U* q, const parz_gpu_extent& e,
                                                  const parz_gpu_enc_chunk& c) {
  const unsigned size = 1u << (2 * D);
  parz_gpu_block_note note = {0, 0, 0, 0, 0};
  uint64_t val[1u << (2 * D)];
  unsigned char st[1u << (2 * D)];
  unsigned n = 0;
  int first = -2, same = 1;
  for (unsigned i = 0; i < size; i++) {
    st[i] = PARZ_MASK_ABSENT;
    if (!parz_gpu_valid(i, e, D))
      continue;
    const uint64_t bits = (uint64_t)q[i];
    const int code = parz_gpu_mask_code(c.mask, T, bits);
    n++;
    val[i] = bits;
    st[i] = PARZ_MASK_HOLE;
    if (code >= 0) {
      note.masked++;
      same = same && (first == -2 || first == code);
      first = code;
    } else if (parz_exception_test(&c.rule, bits)) {
      note.exc++;
      note.v2 += !parz_nonfinite(bits, T);
    } else {
      st[i] = PARZ_MASK_KNOWN;
    }
  }
  parz_mask_fill_holes(val, st, e.m, D);
  for (unsigned i = 0; i < size; i++)
    if (parz_gpu_valid(i, e, D))
      q[i] = (U)val[i];
  note.fact = !note.masked               ? 0u
              : note.masked == n && same ? PARZ_GPU_MASK_RUN | (unsigned)first
                                         : note.masked;
  return note;
}

/* The first pass of a chunk whose configuration masks: counts the block's masked values and
 * puts its NaN patterns into the chunk's set, each with the first position where the block
 * holds it (entries in increasing order are increasing positions). */
template <parz_type T, typename U, unsigned D>
PARZ_HD unsigned parz_gpu_mask_scan(const U* q, const parz_gpu_extent& e,
                                    const parz_gpu_enc_chunk& c, unsigned long long b) {
  const parz_gpu_mask& m = c.mask;
  unsigned masked = 0, fill = 0;
  unsigned long long last = 0; /* not a NaN */
  for (unsigned i = 0; i < (1u << (2 * D)); i++) {
    if (!parz_gpu_valid(i, e, D))
      continue;
    const unsigned long long bits = (unsigned long long)q[i];
    if (m.fill && bits == m.fill_bits) {
      masked++;
      fill = 1;
    } else if (m.nan && parz_mask_is_nan(T, bits)) {
      masked++;
      if (bits != last)
        parz_gpu_mask_insert(m.set, bits, parz_gpu_position(c, b, i));
      last = bits;
    }
  }
  if (fill && !m.set->fill_seen)
    m.set->fill_seen = 1; /* every writer stores 1 */
  return masked;
}

/* The block's known values (neither exceptions nor masked) that put it at risk of missing the
 * accuracy bound (codec/zfp/zfp_rules.h, parz_risk_rule_of). The GPU encoder does not run the codec's
 * check of such blocks (codec/zfp/risk.h): a chunk holding one is refused, and its callers encode it
 * on the CPU. NaN are exceptions by the rule, so the fill value is the one masked value to tell
 * apart. */
template <parz_type T, typename U, unsigned D>
PARZ_HD unsigned parz_gpu_risk(const U* q, const parz_gpu_extent& e, const parz_gpu_enc_chunk& c) {
  unsigned n = 0;
  for (unsigned i = 0; i < (1u << (2 * D)); i++) {
    const uint64_t bits = (uint64_t)q[i];
    n += parz_gpu_valid(i, e, D) && parz_exception_test(&c.risk, bits) &&
         !parz_exception_test(&c.rule, bits) && !(c.mask.fill && bits == c.mask.fill_bits);
  }
  return n;
}

/* The clean step of a block holding exceptions, fill values or values at risk (their count among
 * the block's valid values came from the gather): with a configuration that masks, the first pass also
 * scans the block for masked values (a block holding some is zeroed) and the mask pass fills
 * its holes instead; otherwise each exception becomes the block's stand-in (codec/frame/standin.h).
 * Out of line, on a copy of the block: blocks rarely come here, and the block itself stays in
 * registers. */
template <parz_type T, typename U, unsigned D>
PARZ_GPU_NOINLINE parz_gpu_block_note parz_gpu_clean(U* q, const parz_gpu_extent e,
                                                     const parz_gpu_enc_chunk& c,
                                                     unsigned long long b) {
  const unsigned risk = c.risk.mask ? parz_gpu_risk<T, U, D>(q, e, c) : 0u;
  if (c.mask.pass) {
    parz_gpu_block_note note = parz_gpu_clean_masked<T, U, D>(q, e, c);
    note.risk = risk;
    return note;
  }
  const unsigned size = 1u << (2 * D);
  const parz_exception_rule r = c.rule;
  parz_gpu_block_note note = {0, 0, 0, 0, risk};
  if (c.mask.set && (note.masked = parz_gpu_mask_scan<T, U, D>(q, e, c, b)) != 0) {
    /* the chunk is encoded again in the mask pass, which drops this pass's bits: the block
     * needs no stand-ins, and zeros encode fastest */
    for (unsigned i = 0; i < size; i++)
      q[i] = 0;
    return note;
  }
  uint64_t v[1u << (2 * D)];
  unsigned n = 0, i;
  for (i = 0; i < size; i++) /* buffer order is C order */
    if (parz_gpu_valid(i, e, D)) {
      v[n++] = (uint64_t)q[i];
      note.exc += parz_exception_test(&r, (uint64_t)q[i]);
    }
  if (!note.exc)
    return note;
  const U s = (U)parz_standin(v, n, T, &r);
  for (i = 0; i < size; i++)
    if (parz_gpu_valid(i, e, D) && parz_exception_test(&r, (uint64_t)q[i])) {
      note.v2 += !parz_nonfinite((uint64_t)q[i], T);
      q[i] = s;
    }
  return note;
}

/* The extent of block b along each zfp axis, whether it is whole, and its first value's offset
 * in the array. */
template <unsigned D, typename I>
PARZ_HD long long parz_gpu_block_at(const parz_gpu_enc_chunk& c, I b, parz_gpu_extent* e,
                                    bool* full) {
  long long base = 0;
  *full = true;
  for (int k = (int)D - 1; k >= 0; k--) {
    const I bc = b % (I)c.bgrid[k];
    b /= (I)c.bgrid[k];
    const unsigned long long left = c.shape[k] - 4 * (unsigned long long)bc;
    e->m[D - 1 - k] = left < 4 ? (unsigned)left : 4u;
    *full = *full && left >= 4;
    base += 4 * (long long)bc * c.stride[k];
  }
  return base;
}

/* Whether a value needs the clean step: an exception, a value at risk (the special rule takes
 * both), or the fill value of a configuration that masks it. */
template <typename U>
PARZ_HD unsigned parz_gpu_special(const parz_exception_rule& rule, bool fill, U fill_value, U v) {
  return parz_exception_test(&rule, (uint64_t)v) | (unsigned)(fill && v == fill_value);
}

/* Block b's values into q as the codec encodes them: gathered (zfp order), exceptions (and
 * masked values) replaced, partial blocks padded; the note says what the clean step found. I is
 * the type of the block index arithmetic (32 bits where it fits: 64-bit division is slow). */
template <parz_type T, unsigned D, typename I>
PARZ_HD parz_gpu_block_note parz_gpu_gather(const parz_gpu_enc_chunk& c, I b,
                                            typename raw_of<T>::type* q) {
  typedef typename raw_of<T>::type U;
  const U* data = (const U*)c.data;
  const parz_exception_rule rule = c.special;
  const bool fill = c.mask.fill != 0;
  const U fill_value = (U)c.mask.fill_bits;
  /* integers in reversible mode have no exceptions */
  const bool any = rule.mask != 0 || fill;
  parz_gpu_extent e = {{1, 1, 1, 1}};
  const unsigned* mz = e.m;
  bool full;
  const long long base = parz_gpu_block_at<D, I>(c, b, &e, &full);
  unsigned special = 0;
  const unsigned rows = 1u << (2 * (D - 1));
  for (unsigned r = 0; r < rows; r++) {
    long long off = base;
    bool in = true;
    for (int k = (int)D - 2; k >= 0; k--) {
      const unsigned ck = (r >> (2 * (D - 2 - k))) & 3u;
      in = in && ck < mz[D - 1 - k];
      off += (long long)ck * c.stride[k];
    }
    U* o = q + 4 * r;
#if defined(__CUDA_ARCH__)
    if (full && c.vec) {
      if (sizeof(U) == 4) {
        const uint4 v = __ldg((const uint4*)(data + off));
        o[0] = (U)v.x, o[1] = (U)v.y, o[2] = (U)v.z, o[3] = (U)v.w;
      } else {
        const ulonglong2 v0 = __ldg((const ulonglong2*)(data + off));
        const ulonglong2 v1 = __ldg((const ulonglong2*)(data + off) + 1);
        o[0] = (U)v0.x, o[1] = (U)v0.y, o[2] = (U)v1.x, o[3] = (U)v1.y;
      }
      if (any)
        for (unsigned x = 0; x < 4; x++)
          special += parz_gpu_special<U>(rule, fill, fill_value, o[x]);
      continue;
    }
#endif
    if (!in)
      continue;
    for (unsigned x = 0; x < 4; x++)
      if (x < mz[0]) {
        o[x] = data[off + (long long)x * c.stride[D - 1]];
        if (any)
          special += parz_gpu_special<U>(rule, fill, fill_value, o[x]);
      }
  }
  parz_gpu_block_note note = {0, 0, 0, 0, 0};
  if (special) {
    U t[1u << (2 * D)];
    for (unsigned i = 0; i < (1u << (2 * D)); i++)
      t[i] = q[i];
    note = parz_gpu_clean<T, U, D>(t, e, c, (unsigned long long)b);
    for (unsigned i = 0; i < (1u << (2 * D)); i++)
      q[i] = t[i];
  }
  if (!full) {
    if (sizeof(U) == 4)
      parz_pad_block32((uint32_t*)q, mz, D);
    else
      parz_pad_block64((uint64_t*)q, mz, D);
  }
  return note;
}

/* Encodes block b of chunk c into w; returns its bits, in *note what its clean step found. */
template <parz_type T, unsigned D>
PARZ_HD unsigned parz_gpu_encode_block(const parz_gpu_enc_chunk& c, unsigned long long b,
                                       parz_writer* w, parz_gpu_block_note* note) {
  typedef typename raw_of<T>::type U;
  U q[1u << (2 * D)], u[1u << (2 * D)];
  const parz_params p = c.params;
  *note = c.nblocks <= 0xffffffffu ? parz_gpu_gather<T, D, unsigned>(c, (unsigned)b, q)
                                   : parz_gpu_gather<T, D, unsigned long long>(c, b, q);
  if (T == PARZ_FLOAT)
    return parz_encode_fblock32(w, &p, D, (uint32_t*)q, (uint32_t*)u);
  if (T == PARZ_DOUBLE)
    return parz_encode_fblock64(w, &p, D, (uint64_t*)q, (uint64_t*)u);
  if (T == PARZ_INT32)
    return parz_encode_sblock32(w, &p, D, (uint32_t*)q, (uint32_t*)u);
  return parz_encode_sblock64(w, &p, D, (uint64_t*)q, (uint64_t*)u);
}

#endif
