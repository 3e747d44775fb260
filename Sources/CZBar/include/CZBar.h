#ifndef PASSPORT_CZBAR_H
#define PASSPORT_CZBAR_H
// ZBar's image scanner (Debian libzbar0): grey pixels → the QR codes in them. Not linked:
// `passport_zbar_load` opens it when a QR code is read, so that no other command needs it (nor
// the X11, V4L and D-Bus libraries it brings). The few functions and constants used are declared
// here from zbar.h (libzbar-dev, ZBar 0.23), so that the build needs no -dev package; the test
// QRLibraryDeclarations checks them against that header.
#include <stddef.h>

#ifndef PASSPORT_ZBAR_TYPES_FROM_HEADER
typedef struct zbar_image_s zbar_image_t;
typedef struct zbar_image_scanner_s zbar_image_scanner_t;
typedef struct zbar_symbol_s zbar_symbol_t;
/// zbar.h's symbol types: none, and QR Code (the only one enabled).
typedef enum zbar_symbol_type_e { ZBAR_NONE = 0, ZBAR_QRCODE = 64 } zbar_symbol_type_t;
/// zbar.h's decoder configuration: enable a symbology; keep binary data as it is (since 0.23,
/// the symbol's bytes come back unchanged rather than converted to UTF-8 from a guessed charset).
typedef enum zbar_config_e { ZBAR_CFG_ENABLE = 0, ZBAR_CFG_BINARY = 4 } zbar_config_t;
typedef void (zbar_image_cleanup_handler_t)(zbar_image_t *_Nonnull image);
#endif

#define PASSPORT_ZBAR_FUNCTIONS(X)                                                                  \
    X(zbar_image_scanner_create) X(zbar_image_scanner_destroy) X(zbar_image_scanner_set_config)      \
    X(zbar_scan_image) X(zbar_image_create) X(zbar_image_destroy) X(zbar_image_set_format)           \
    X(zbar_image_set_size) X(zbar_image_set_data) X(zbar_image_first_symbol) X(zbar_symbol_next)     \
    X(zbar_symbol_get_type) X(zbar_symbol_get_data) X(zbar_symbol_get_data_length)

/// ZBar's functions that the toolkit calls.
typedef struct PassportZBar {
    zbar_image_scanner_t *_Nullable (*_Nonnull zbar_image_scanner_create)(void);
    void (*_Nonnull zbar_image_scanner_destroy)(zbar_image_scanner_t *_Nonnull scanner);
    int (*_Nonnull zbar_image_scanner_set_config)(zbar_image_scanner_t *_Nonnull scanner, zbar_symbol_type_t symbology, zbar_config_t config, int value);
    int (*_Nonnull zbar_scan_image)(zbar_image_scanner_t *_Nonnull scanner, zbar_image_t *_Nonnull image);
    zbar_image_t *_Nullable (*_Nonnull zbar_image_create)(void);
    void (*_Nonnull zbar_image_destroy)(zbar_image_t *_Nonnull image);
    void (*_Nonnull zbar_image_set_format)(zbar_image_t *_Nonnull image, unsigned long format);
    void (*_Nonnull zbar_image_set_size)(zbar_image_t *_Nonnull image, unsigned width, unsigned height);
    void (*_Nonnull zbar_image_set_data)(zbar_image_t *_Nonnull image, const void *_Nullable data, unsigned long length,
                                         zbar_image_cleanup_handler_t *_Nullable cleanup);
    const zbar_symbol_t *_Nullable (*_Nonnull zbar_image_first_symbol)(const zbar_image_t *_Nonnull image);
    const zbar_symbol_t *_Nullable (*_Nonnull zbar_symbol_next)(const zbar_symbol_t *_Nonnull symbol);
    zbar_symbol_type_t (*_Nonnull zbar_symbol_get_type)(const zbar_symbol_t *_Nonnull symbol);
    const char *_Nullable (*_Nonnull zbar_symbol_get_data)(const zbar_symbol_t *_Nonnull symbol);
    unsigned int (*_Nonnull zbar_symbol_get_data_length)(const zbar_symbol_t *_Nonnull symbol);
} PassportZBar;

/// Opens libzbar (`soname`) and fills `table`: 1, the library staying open for the life of the
/// process; or 0 with the reason in `error`.
int passport_zbar_load(const char *_Nonnull soname, PassportZBar *_Nonnull table, char *_Nonnull error, size_t size);

/// The fourcc of 8-bit grey images, "Y800" (zbar_fourcc('Y','8','0','0')).
unsigned long passport_zbar_grey_format(void);
/// "libzbar.so.0", the soname of ZBar 0.x (Debian 12 and 13).
const char *_Nonnull passport_zbar_soname(void);
/// The Debian package that holds it: "libzbar0" on Debian 12, "libzbar0t64" on Debian 13.
const char *_Nonnull passport_zbar_package(void);
#endif
