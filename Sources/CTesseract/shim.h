#ifndef PASSPORT_CTESSERACT_SHIM_H
#define PASSPORT_CTESSERACT_SHIM_H
// Tesseract's C API; its `struct Pix` is Leptonica's (module CLeptonica).
#include <tesseract/capi.h>
#endif
