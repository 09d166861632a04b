/* Crafting files for the plugin tests: the stored ParZ cd_values rewritten in a file's bytes. */
#ifndef TEST_PLUGIN_PATCH_H
#define TEST_PLUGIN_PATCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Rewrites, in the file's bytes, the stored internal cd_values (16 words starting with 1001, or
 * 1002 where a fill value is masked) whose chunk shape words [8], [9] are rows, cols: sets word
 * `index` of version 1's layout to `value` (in version 2, index 7, the type and byte order, is
 * the low 5 bits of word 1). The pipeline message of a version 1 object header (HDF5's default
 * format) carries no checksum. Returns the number of cd_values rewritten. */
static int test_patch_cd(const char* path, unsigned rows, unsigned cols, int index, unsigned value) {
  FILE* f = fopen(path, "r+b");
  if (!f) return 0;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  unsigned char* b = (unsigned char*)malloc((size_t)size);
  fseek(f, 0, SEEK_SET);
  int patched = 0;
  if (fread(b, 1, (size_t)size, f) == (size_t)size) {
    for (long k = 0; k + 64 <= size; k += 4) {
      uint32_t w[16];
      for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)b[k + 4 * i] | (uint32_t)b[k + 4 * i + 1] << 8 |
               (uint32_t)b[k + 4 * i + 2] << 16 | (uint32_t)b[k + 4 * i + 3] << 24;
      int v2 = w[0] == 1002 && (w[1] >> 8 & 15u) >= 1 && (w[1] >> 8 & 15u) <= 5;
      if ((w[0] != 1001 || w[1] < 1 || w[1] > 5) && !v2) continue;
      if (w[8] != rows || w[9] != cols) continue;
      int at = index;
      unsigned put = value;
      if (v2 && index == 7) {
        at = 1;
        put = (w[1] & ~31u) | value;
      }
      for (int i = 0; i < 4; i++) b[k + 4 * at + i] = (unsigned char)(put >> (8 * i));
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
