/* Status names and error reporting. */
#include <stdarg.h>
#include <stdio.h>

#include "parz.h"

const char* parz_status_name(int code) {
  switch (code) {
    case PARZ_OK: return "ok";
    case PARZ_ERR_ARG: return "invalid argument";
    case PARZ_ERR_TYPE: return "unsupported scalar type";
    case PARZ_ERR_DIMS: return "invalid dimensions";
    case PARZ_ERR_PARAM: return "invalid codec parameter";
    case PARZ_ERR_BUFFER: return "buffer too small";
    case PARZ_ERR_STREAM: return "truncated or corrupt stream";
    case PARZ_ERR_FORMAT: return "malformed chunk";
    case PARZ_ERR_VERSION: return "unknown chunk version";
    case PARZ_ERR_CHECKSUM: return "checksum mismatch";
    case PARZ_ERR_NOMEM: return "out of memory";
    case PARZ_ERR_DEVICE: return "GPU error";
    case PARZ_ERR_UNSUPPORTED: return "unsupported";
    default: return "unknown status";
  }
}

int parz_fail(parz_error* err, int code, const char* fmt, ...) {
  if (err) {
    va_list ap;
    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return code;
}
