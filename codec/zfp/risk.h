/* zfp's check of the accuracy bound (its check_bound in the codec table, codecs.h;
 * codec/FORMAT.md, "The accuracy bound").
 *
 * Parameters that promise |x - x'| <= 2^minexp (parz_params_bounded) keep the promise by
 * themselves in every block that is not at risk (zfp_rules.h, parz_risk_rule_of): zfp codes all
 * the bit planes such a block needs. A block at risk holds a value so large beside minexp that
 * zfp cannot code every plane down to it, and then its small values may come back with errors
 * up to the large one's last plane. The encoder finds such blocks of the cleaned array, encodes
 * and decodes each with the codec's own block coder, and compares every known value (neither
 * masked nor an exception) with what decodes, exactly. Where one misses the bound, the block's
 * known values that put it at risk are taken out: their bit patterns become holes of the chunk
 * wherever they are (masked when the mask holds them, else exceptions), so they come back bit
 * for bit and the block's other values get zfp's planes down to minexp. */
#ifndef PARZ_RISK_H
#define PARZ_RISK_H

#include "mask.h"

/* The bit patterns that blocks [0, nblocks) of `cleaned` (the contiguous copy of a, data being
 * a's values; `whole` its shape) give up: of every block at risk that misses the bound under p,
 * or with `all` of every block at risk, unchecked, the known values (pal says which are holes)
 * that put it at risk. Appended to *found (malloc'd, *nfound of them, in no particular order,
 * repeats kept). The blocks are cut into parts on jobs when it has some. PARZ_ERR_NOMEM without
 * memory for the list. */
int parz_risk_find(const parz_mask_palette* pal, const parz_array* a, const void* data,
                   const parz_array* whole, const void* cleaned, const parz_params* p, int all,
                   const parz_jobs* jobs, uint64_t** found, size_t* nfound, parz_error* err);

#endif
