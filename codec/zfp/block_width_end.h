/* Undoes block_width.h. Internal. */
#undef PARZ_UINT
#undef PARZ_INT
#undef PARZ_SCALAR
#undef PARZ_EBITS
#undef PARZ_EBIAS
#undef PARZ_PBITS
#undef PARZ_NBMASK
#undef PARZ_TCMASK
#undef PARZ_SIGN
#undef PARZ_FN
#undef PARZ_TO_BITS
#undef PARZ_FROM_BITS
#undef PARZ_POW2
#undef PARZ_MANT
#undef PARZ_ASR1
