#ifndef PASSPORT_CTESSERACT_H
#define PASSPORT_CTESSERACT_H
// Tesseract's C API (its `struct Pix` is Leptonica's, module CLeptonica). libtesseract is not
// linked: `passport_tesseract_load` opens it when a photo is read, so that commands which read no
// image do not load it and the libraries it needs (libarchive, libcurl, OpenMP).
#include <stddef.h>
#include <tesseract/capi.h>
#include <tesseract/version.h>

#define PASSPORT_TESSERACT_FUNCTIONS(X)                                                            \
    X(TessBaseAPICreate) X(TessBaseAPIDelete) X(TessBaseAPIEnd) X(TessBaseAPIInit2)                  \
    X(TessBaseAPISetVariable) X(TessBaseAPISetPageSegMode) X(TessBaseAPISetImage2)                   \
    X(TessBaseAPISetSourceResolution) X(TessBaseAPIRecognize) X(TessBaseAPIClear)                    \
    X(TessBaseAPIGetIterator) X(TessResultIteratorGetUTF8Text) X(TessResultIteratorConfidence)       \
    X(TessResultIteratorNext) X(TessResultIteratorDelete) X(TessDeleteText) X(TessVersion)

/// Tesseract's functions that the toolkit calls, each typed as Tesseract's header declares it,
/// and OpenMP's `omp_set_max_active_levels` (NULL when Tesseract was built without OpenMP).
typedef struct PassportTesseract {
#define PASSPORT_TESSERACT_FIELD(name) __typeof__(name) *_Nonnull name;
    PASSPORT_TESSERACT_FUNCTIONS(PASSPORT_TESSERACT_FIELD)
#undef PASSPORT_TESSERACT_FIELD
    void (*_Nullable omp_set_max_active_levels)(int);
} PassportTesseract;

/// Opens libtesseract of the major version this program was built against (once; later calls
/// return the same table). NULL when it is missing, with the reason in `error`.
const PassportTesseract *_Nullable passport_tesseract_load(char *_Nonnull error, size_t size);

/// The Debian package that holds it ("libtesseract5").
const char *_Nonnull passport_tesseract_package(void);
#endif
