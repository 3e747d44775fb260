#ifndef PASSPORT_CZLIB_H
#define PASSPORT_CZLIB_H
// zlib's raw inflate (the deflate method of zip archives), for the desk's zip uploads, and its
// compression, for the PNG images of QR codes. zlib is not linked: it opens libz.so.1 on first
// use, like Tesseract and FFmpeg.
#include <stddef.h>
#include <stdint.h>

/// Inflates the raw deflate stream `input` into `output`, writing at most `capacity` bytes.
/// Returns 0 when the stream ended within the bound (`*written` bytes), 1 when it holds more than
/// `capacity` bytes (the bound is never crossed), 2 when the stream is damaged or truncated, and
/// -1 when zlib cannot be opened; `error` then holds the reason.
int passport_inflate_raw(const uint8_t *_Nonnull input, size_t length, uint8_t *_Nonnull output, size_t capacity,
                         size_t *_Nonnull written, char *_Nonnull error, size_t size);

/// Compresses `input` into a zlib stream (RFC 1950: header, deflate, Adler-32) in `output`, as
/// PNG's image data is: 0 with `*written` bytes, 1 when zlib fails (`capacity` below
/// `passport_deflate_bound`), -1 when zlib cannot be opened; `error` then holds the reason.
int passport_deflate_zlib(const uint8_t *_Nonnull input, size_t length, uint8_t *_Nonnull output, size_t capacity,
                          size_t *_Nonnull written, char *_Nonnull error, size_t size);

/// The most bytes `passport_deflate_zlib` can write for `length` bytes.
size_t passport_deflate_bound(size_t length);

/// The Debian package that holds zlib ("zlib1g").
const char *_Nonnull passport_zlib_package(void);
#endif
