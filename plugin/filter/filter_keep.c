/* The plugin's keep (filter_keep.h): one pointer, set once by whichever call comes first, and
 * the keep freed by the plugin's destructor, which runs at its unloading (HDF5 closing its
 * plugins) or after the process's exit handlers (HDF5's own among them, which may still encode
 * the chunks of files left open). It holds at most PARZ_KEEP_DEFAULT_BYTES: about two chunks'
 * worth of blocks for the chunk sizes HDF5 reads and writes one at a time. */
#include "filter_keep.h"

static parz_keep* plugin_keep;

parz_keep* parz_filter_keep(void) {
  parz_keep* k = __atomic_load_n(&plugin_keep, __ATOMIC_ACQUIRE);
  parz_keep* fresh;
  if (k || !(fresh = parz_keep_new(0)))
    return k;
  /* another thread's keep, made at the same time, wins over this one */
  if (__atomic_compare_exchange_n(&plugin_keep, &k, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return fresh;
  parz_keep_free(fresh);
  return k;
}

__attribute__((destructor)) static void free_plugin_keep(void) {
  parz_keep_free(__atomic_exchange_n(&plugin_keep, NULL, __ATOMIC_ACQ_REL));
}
