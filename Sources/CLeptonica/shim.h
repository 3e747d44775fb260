#ifndef PASSPORT_CLEPTONICA_SHIM_H
#define PASSPORT_CLEPTONICA_SHIM_H
#include <leptonica/allheaders.h>
#endif
