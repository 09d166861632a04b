/* Crafting files for the plugin tests: the stored ParZ cd_values rewritten in a file's bytes. */
#ifndef TEST_PLUGIN_PATCH_H
#define TEST_PLUGIN_PATCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "filter_config.h"

/* Rewrites, in the file's bytes, the stored internal cd_values (PARZ_CD_INTERNAL_NELMTS words
 * starting with PARZ_CD_INTERNAL_V1, or _V2 where a fill value is masked) whose chunk shape
 * starts rows, cols: sets word `index` (a PARZ_CD_ position of version 1's layout) to `value` (in
 * version 2, PARZ_CD_V1_TYPE, the type and byte order, is the low 5 bits of PARZ_CD_V2_PACKED).
 * The pipeline message of a version 1 object header (HDF5's default format) carries no checksum.
 * Returns the number of cd_values rewritten. */
static int test_patch_cd(const char* path, unsigned rows, unsigned cols, int index,
                         unsigned value) {
  FILE* f = fopen(path, "r+b");
  if (!f)
    return 0;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  unsigned char* b = (unsigned char*)malloc((size_t)size);
  fseek(f, 0, SEEK_SET);
  int patched = 0;
  if (fread(b, 1, (size_t)size, f) == (size_t)size) {
    for (long k = 0; k + 4 * PARZ_CD_INTERNAL_NELMTS <= size; k += 4) {
      uint32_t w[PARZ_CD_INTERNAL_NELMTS];
      for (unsigned i = 0; i < PARZ_CD_INTERNAL_NELMTS; i++)
        w[i] = (uint32_t)b[k + 4 * i] | (uint32_t)b[k + 4 * i + 1] << 8 |
               (uint32_t)b[k + 4 * i + 2] << 16 | (uint32_t)b[k + 4 * i + 3] << 24;
      const unsigned v2_mode = w[PARZ_CD_V2_PACKED] >> 8 & 15u;
      int v2 = w[PARZ_CD_FORM] == PARZ_CD_INTERNAL_V2 && v2_mode >= PARZ_MODE_RATE &&
               v2_mode <= PARZ_MODE_REVERSIBLE;
      if ((w[PARZ_CD_FORM] != PARZ_CD_INTERNAL_V1 || w[PARZ_CD_V1_MODE] < PARZ_MODE_RATE ||
           w[PARZ_CD_V1_MODE] > PARZ_MODE_REVERSIBLE) &&
          !v2)
        continue;
      if (w[PARZ_CD_SHAPE] != rows || w[PARZ_CD_SHAPE + 1] != cols)
        continue;
      int at = index;
      unsigned put = value;
      if (v2 && index == PARZ_CD_V1_TYPE) {
        at = PARZ_CD_V2_PACKED;
        put = (w[PARZ_CD_V2_PACKED] & ~31u) | value;
      }
      for (int i = 0; i < 4; i++)
        b[k + 4 * at + i] = (unsigned char)(put >> (8 * i));
      patched++;
    }
    fseek(f, 0, SEEK_SET);
    fwrite(b, 1, (size_t)size, f);
  }
  free(b);
  fclose(f);
  return patched;
}

#endif
