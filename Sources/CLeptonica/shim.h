#ifndef PASSPORT_CLEPTONICA_SHIM_H
#define PASSPORT_CLEPTONICA_SHIM_H
#include <leptonica/allheaders.h>
// Leptonica 1.83 and later (Debian 13) keep the PIX and BOX structs in pix_internal.h.
#if __has_include(<leptonica/pix_internal.h>)
#include <leptonica/pix_internal.h>
#endif
#endif
