/* Width parameters for the block templates (block_decode_w.h, block_encode_w.h): included with
 * PARZ_W defined as 32 (float, int32) or 64 (double, int64). Internal. */
#if PARZ_W == 32
#define PARZ_UINT uint32_t
#define PARZ_INT int32_t
#define PARZ_SCALAR float
#define PARZ_EBITS 8
#define PARZ_EBIAS 127
#define PARZ_PBITS 5
#define PARZ_NBMASK UINT32_C(0xaaaaaaaa)
#define PARZ_TCMASK UINT32_C(0x7fffffff)
#define PARZ_SIGN UINT32_C(0x80000000)
#define PARZ_FN(name) name##32
#define PARZ_TO_BITS(x) parz_f32_bits(x)
#define PARZ_FROM_BITS(u) parz_f32_from(u)
#define PARZ_POW2(e) parz_pow2f(e)
#define PARZ_MANT 23
#elif PARZ_W == 64
#define PARZ_UINT uint64_t
#define PARZ_INT int64_t
#define PARZ_SCALAR double
#define PARZ_EBITS 11
#define PARZ_EBIAS 1023
#define PARZ_PBITS 6
#define PARZ_NBMASK UINT64_C(0xaaaaaaaaaaaaaaaa)
#define PARZ_TCMASK UINT64_C(0x7fffffffffffffff)
#define PARZ_SIGN UINT64_C(0x8000000000000000)
#define PARZ_FN(name) name##64
#define PARZ_TO_BITS(x) parz_f64_bits(x)
#define PARZ_FROM_BITS(u) parz_f64_from(u)
#define PARZ_POW2(e) parz_pow2(e)
#define PARZ_MANT 52
#else
#error "PARZ_W must be 32 or 64"
#endif

/* Arithmetic right shift by one of a two's complement pattern (what zfp's signed >> 1 does).
 * x86 has no 64-bit arithmetic shift before AVX-512, so host code builds it from a logical
 * shift that keeps the sign bit: the same value, and one compilers vectorize. */
#if PARZ_W == 64 && !defined(__CUDA_ARCH__)
#define PARZ_ASR1(u) (((PARZ_UINT)(u) >> 1) | ((PARZ_UINT)(u)&PARZ_SIGN))
#else
#define PARZ_ASR1(u) ((PARZ_UINT)((PARZ_INT)(u) >> 1))
#endif
