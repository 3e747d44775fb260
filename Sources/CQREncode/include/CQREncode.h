#ifndef PASSPORT_CQRENCODE_H
#define PASSPORT_CQRENCODE_H
// libqrencode (Debian libqrencode4): text → QR code modules. Not linked: `passport_qrencode_load`
// opens it when a QR option is used, so that no other command needs it. The few functions and
// the one struct used are declared here from qrencode.h (libqrencode-dev, version 4), so that the
// build needs no -dev package; the test QRLibraryDeclarations checks them against that header.
#include <stddef.h>

/// qrencode.h's QRcode: `width` × `width` modules, one byte each, bit 0 set for a dark module.
#define PASSPORT_QRCODE_FIELDS int version; int width; unsigned char *_Nullable data;

#ifndef PASSPORT_QRENCODE_TYPES_FROM_HEADER
/// qrencode.h's QRecLevel (L, M, Q, H).
typedef enum { QR_ECLEVEL_L = 0, QR_ECLEVEL_M, QR_ECLEVEL_Q, QR_ECLEVEL_H } QRecLevel;
typedef struct { PASSPORT_QRCODE_FIELDS } QRcode;
#endif

#define PASSPORT_QRENCODE_FUNCTIONS(X) X(QRcode_encodeData) X(QRcode_free)

/// libqrencode's functions that the toolkit calls.
typedef struct PassportQREncode {
    /// Byte mode (8-bit) for all `size` bytes; version 0 picks the smallest that fits; NULL with
    /// errno ERANGE when the data does not fit version 40 at `level`.
    QRcode *_Nullable (*_Nonnull QRcode_encodeData)(int size, const unsigned char *_Nonnull data, int version, QRecLevel level);
    void (*_Nonnull QRcode_free)(QRcode *_Nonnull qrcode);
} PassportQREncode;

/// Opens libqrencode (`soname`) and fills `table`: 1, the library staying open for the life of
/// the process; or 0 with the reason in `error`.
int passport_qrencode_load(const char *_Nonnull soname, PassportQREncode *_Nonnull table, char *_Nonnull error, size_t size);

/// "libqrencode.so.4", the soname of libqrencode 4 (Debian 12 and 13).
const char *_Nonnull passport_qrencode_soname(void);
/// The Debian package that holds it ("libqrencode4").
const char *_Nonnull passport_qrencode_package(void);
#endif
