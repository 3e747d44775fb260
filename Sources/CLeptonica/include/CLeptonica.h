#ifndef PASSPORT_CLEPTONICA_H
#define PASSPORT_CLEPTONICA_H
// Leptonica (image decoding and geometry), typed by its headers (libleptonica-dev). Leptonica is
// not linked: `passport_leptonica_load` opens it when an image is first decoded or made (photo,
// ocr, scan --mrz-image or --camera, the desk), so that every other command starts without it.
#include <stddef.h>
#include <leptonica/allheaders.h>
// Leptonica 1.83 and later (Debian 13) keep the PIX and BOX structs in pix_internal.h.
#if __has_include(<leptonica/pix_internal.h>)
#include <leptonica/pix_internal.h>
#endif

#define PASSPORT_LEPTONICA_FUNCTIONS(X)                                                            \
    X(setMsgSeverity) X(pixCreate) X(pixClone) X(pixDestroy) X(pixGetWidth) X(pixGetHeight)          \
    X(pixGetDepth) X(pixGetWpl) X(pixGetData) X(pixEqual)                                            \
    X(pixReadMem) X(pixReadMemJpeg) X(pixReadHeaderMem) X(pixWriteMemPng) X(pixWriteMemJpeg)         \
    X(pixConvertTo8) X(pixConvertRGBToLuminance) X(pixConvertRGBToGrayMinMax) X(pixThresholdToBinary) \
    X(pixOtsuAdaptiveThreshold) X(pixInvert) X(pixTophat) X(pixBlockconv) X(pixBackgroundNormMorph)  \
    X(pixScale) X(pixScaleSmooth) X(pixScaleGrayLI) X(pixScaleByIntSampling)                         \
    X(pixRotate) X(pixRotateOrth) X(pixFlipLR) X(pixFlipTB) X(pixFindSkewSweepAndSearch)             \
    X(pixClipRectangle) X(pixRasterop) X(pixBlendInRect) X(pixSetInRectArbitrary)                    \
    X(pixRenderBoxArb) X(pixRenderLineArb) X(pixCloseBrick) X(pixOpenBrick) X(pixSelectBySize)       \
    X(pixCountPixels) X(pixCountConnComp) X(pixConnCompBB)                                           \
    X(boxCreate) X(boxDestroy) X(boxaGetCount) X(boxaGetBoxGeometry) X(boxaDestroy)

/// Leptonica's functions that the toolkit (and its tests) call, each typed as its header
/// declares it.
typedef struct PassportLeptonica {
#define PASSPORT_LEPTONICA_FIELD(name) __typeof__(name) *_Nonnull name;
    PASSPORT_LEPTONICA_FUNCTIONS(PASSPORT_LEPTONICA_FIELD)
#undef PASSPORT_LEPTONICA_FIELD
} PassportLeptonica;

/// Opens `soname` and fills `table` with its functions: 1, the library staying open for the life
/// of the process; or 0 with the reason in `error`.
int passport_leptonica_load(const char *_Nonnull soname, PassportLeptonica *_Nonnull table, char *_Nonnull error, size_t size);

/// The soname of the Leptonica this program was built against ("liblept.so.5", "libleptonica.so.6").
const char *_Nonnull passport_leptonica_soname(void);

/// The Debian package that holds it ("liblept5", "libleptonica6").
const char *_Nonnull passport_leptonica_package(void);
#endif
