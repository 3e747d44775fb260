#include "CZlib.h"
#include <CLibraryLoader.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#define PASSPORT_ZLIB_FUNCTIONS(X) X(inflateInit2_) X(inflate) X(inflateEnd) X(compress2) X(compressBound)

static struct {
#define FIELD(name) __typeof__(name) *name;
    PASSPORT_ZLIB_FUNCTIONS(FIELD)
#undef FIELD
} table;
static const char *const sonames[] = { "libz.so.1" };
static char failure[512];
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *handles[1];
    if (passport_open_libraries(sonames, 1, handles, failure, sizeof failure) != 0) return;
#define RESOLVE(name) if (!PASSPORT_RESOLVE(table, handles, 1, name, failure, sizeof failure)) return;
    PASSPORT_ZLIB_FUNCTIONS(RESOLVE)
#undef RESOLVE
    loaded = 1;
}

int passport_inflate_raw(const uint8_t *input, size_t length, uint8_t *output, size_t capacity,
                         size_t *written, char *error, size_t size) {
    pthread_once(&once, load);
    *written = 0;
    if (!loaded) { snprintf(error, size, "%s", failure); return -1; }
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    // -15: a raw deflate stream (no zlib header), as zip stores it.
    if (table.inflateInit2_(&stream, -15, ZLIB_VERSION, (int)sizeof stream) != Z_OK) {
        snprintf(error, size, "zlib could not start inflating");
        return 2;
    }
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)(length > UINT32_MAX ? UINT32_MAX : length);
    stream.next_out = output;
    stream.avail_out = (uInt)(capacity > UINT32_MAX ? UINT32_MAX : capacity);
    int rc = table.inflate(&stream, Z_FINISH);
    *written = stream.total_out;
    int result;
    if (rc == Z_STREAM_END) {
        result = 0;
    } else if ((rc == Z_OK || rc == Z_BUF_ERROR) && stream.avail_out == 0) {
        // Output full before the end: one more byte would cross the bound.
        result = 1;
    } else {
        snprintf(error, size, "%s", stream.msg ? stream.msg : (rc == Z_BUF_ERROR ? "the stream ends early" : "damaged data"));
        result = 2;
    }
    table.inflateEnd(&stream);
    return result;
}

int passport_deflate_zlib(const uint8_t *input, size_t length, uint8_t *output, size_t capacity, size_t *written,
                          char *error, size_t size) {
    pthread_once(&once, load);
    *written = 0;
    if (!loaded) { snprintf(error, size, "%s", failure); return -1; }
    uLongf out = (uLongf)capacity;
    int rc = table.compress2(output, &out, input, (uLong)length, Z_BEST_COMPRESSION);
    if (rc != Z_OK) { snprintf(error, size, "zlib could not compress (%d)", rc); return 1; }
    *written = out;
    return 0;
}

size_t passport_deflate_bound(size_t length) {
    pthread_once(&once, load);
    // compressBound's own formula when zlib is not there (a caller then gets -1 from the deflate call).
    return loaded ? (size_t)table.compressBound((uLong)length) : length + (length >> 12) + (length >> 14) + (length >> 25) + 13;
}

const char *passport_zlib_package(void) { return "zlib1g"; }
