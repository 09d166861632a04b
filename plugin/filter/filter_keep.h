/* The filter's keep (parz_keep, codec/parz_chunk.h): HDF5 calls the filter once per chunk and
 * gives it no context to hold anything between chunks, so the plugin holds one keep for every
 * chunk it encodes or decodes, shared by whatever threads call it. */
#ifndef PARZ_FILTER_KEEP_H
#define PARZ_FILTER_KEEP_H

#include "parz_chunk.h"

/* The plugin's keep, made at the first call (NULL without memory: chunks then allocate their
 * own), freed when the plugin is unloaded or the process ends. Thread-safe. */
parz_keep* parz_filter_keep(void);

#endif
