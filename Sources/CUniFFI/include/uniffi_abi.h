#ifndef PASSPORT_UNIFFI_ABI_H
#define PASSPORT_UNIFFI_ABI_H
#include <stdint.h>

/* The UniFFI 0.31 scaffolding structs (uniffi_core/src/ffi), as mopro's generated header
 * declares them. Declared here so that Swift can pass them by value to dlsym'ed functions. */
typedef struct RustBuffer {
    uint64_t capacity;
    uint64_t len;
    uint8_t *data;
} RustBuffer;

typedef struct ForeignBytes {
    int32_t len;
    const uint8_t *data;
} ForeignBytes;

/* code: 0 success, 1 error (errorBuf holds the serialized error), 2 panic, 3 cancelled. */
typedef struct RustCallStatus {
    int8_t code;
    RustBuffer errorBuf;
} RustCallStatus;

#endif
