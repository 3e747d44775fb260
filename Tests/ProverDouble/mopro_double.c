/*
 * TEST DOUBLE of mopro's Noir prover library: implements the same UniFFI 0.31 C ABI
 * (namespace "mopro_double") so that the toolkit's marshaling, checksum checks, error
 * decoding and fallback can be tested where the real library cannot be built. It proves
 * nothing: its "proof" is the text "proof:" followed by the inputs joined with commas.
 * MOPRO_DOUBLE_MODE selects a behaviour: ok (default), error, panic, abort, hang, garbage,
 * unverified, checksum, checksum-alternative, contract, print (writes to stdout, then works),
 * flood (writes endlessly to stdout), exit (ends the process without a word).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct { uint64_t capacity; uint64_t len; uint8_t *data; } RustBuffer;
typedef struct { int32_t len; const uint8_t *data; } ForeignBytes;
typedef struct { int8_t code; RustBuffer errorBuf; } RustCallStatus;

static const char *mode(void) { const char *m = getenv("MOPRO_DOUBLE_MODE"); return m ? m : "ok"; }
static int is(const char *m) { return strcmp(mode(), m) == 0; }

static RustBuffer make(const uint8_t *bytes, size_t n) {
    RustBuffer b = { n, n, n ? malloc(n) : NULL };
    if (n) memcpy(b.data, bytes, n);
    return b;
}
static void put32(uint8_t *p, uint32_t v) { p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v; }
static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* Vec<u8>: i32 big-endian length, then the bytes. */
static RustBuffer vec_u8(const uint8_t *bytes, size_t n) {
    uint8_t *tmp = malloc(n + 4);
    put32(tmp, is("garbage") ? (uint32_t)n + 7 : (uint32_t)n);
    memcpy(tmp + 4, bytes, n);
    RustBuffer b = make(tmp, n + 4);
    free(tmp);
    return b;
}

static void fail(RustCallStatus *status, const char *message) {
    size_t n = strlen(message);
    uint8_t *tmp = malloc(n + 8);
    put32(tmp, 3); /* MoproError::NoirError */
    put32(tmp + 4, (uint32_t)n);
    memcpy(tmp + 8, message, n);
    status->code = 1;
    status->errorBuf = make(tmp, n + 8);
    free(tmp);
}

/* Common misbehaviour before any work. Returns 1 when the call must end now. */
static int misbehave(RustCallStatus *status) {
    if (is("abort")) abort();
    if (is("exit")) _exit(0);
    if (is("print")) { puts("{\"ok\": true, \"proofs\": []} -- a library's own output"); fflush(stdout); }
    if (is("flood")) { static char line[4096]; memset(line, 'x', sizeof line); for (;;) fwrite(line, 1, sizeof line, stdout); }
    if (is("hang")) for (;;) sleep(1);
    if (is("panic")) { status->code = 2; status->errorBuf = make((const uint8_t *)"double panicked", 15); return 1; }
    if (is("error")) { fail(status, "Generate Proof error: the test double was told to fail"); return 1; }
    return 0;
}

uint32_t ffi_mopro_double_uniffi_contract_version(void) { return is("contract") ? 29 : 30; }
uint16_t uniffi_mopro_double_checksum_func_generate_noir_proof(void) { return is("checksum") ? 1 : 11111; }
uint16_t uniffi_mopro_double_checksum_func_get_noir_verification_key(void) { return is("checksum-alternative") ? 4 : 22222; }
uint16_t uniffi_mopro_double_checksum_func_verify_noir_proof(void) { return 33333; }

RustBuffer ffi_mopro_double_rustbuffer_from_bytes(ForeignBytes bytes, RustCallStatus *status) {
    (void)status;
    return make(bytes.data, (size_t)bytes.len);
}
void ffi_mopro_double_rustbuffer_free(RustBuffer b, RustCallStatus *status) { (void)status; free(b.data); }

RustBuffer uniffi_mopro_double_fn_func_get_noir_verification_key(RustBuffer circuit, RustBuffer srs, int8_t on_chain,
                                                                  int8_t low_memory, RustCallStatus *status) {
    (void)on_chain; (void)low_memory;
    RustBuffer out = { 0, 0, NULL };
    if (srs.len < 1 || (srs.data[0] != 0 && srs.data[0] != 1)) { fail(status, "bad Option tag"); goto done; }
    {
        uint8_t key[256] = "vk:";
        size_t n = circuit.len < 200 ? circuit.len : 200;
        memcpy(key + 3, circuit.data, n); /* a String arrives as raw UTF-8 */
        out = vec_u8(key, n + 3);
    }
done:
    free(circuit.data); free(srs.data);
    return out;
}

RustBuffer uniffi_mopro_double_fn_func_generate_noir_proof(RustBuffer circuit, RustBuffer srs, RustBuffer inputs, int8_t on_chain,
                                                           RustBuffer vk, int8_t low_memory, RustCallStatus *status) {
    (void)on_chain; (void)low_memory;
    RustBuffer out = { 0, 0, NULL };
    if (misbehave(status)) goto done;
    if (vk.len < 4 || get32(vk.data) != vk.len - 4) { fail(status, "verification key is not a Vec<u8>"); goto done; }
    {
        /* Vec<String>: i32 count, then per element i32 length + UTF-8. */
        uint32_t count = inputs.len >= 4 ? get32(inputs.data) : 0;
        size_t capacity = 6 + inputs.len, used = 6, at = 4;
        uint8_t *proof = malloc(capacity);
        memcpy(proof, "proof:", 6);
        for (uint32_t i = 0; i < count; i++) {
            if (at + 4 > inputs.len) { free(proof); fail(status, "truncated Vec<String>"); goto done; }
            uint32_t n = get32(inputs.data + at); at += 4;
            if (at + n > inputs.len || used + n + 1 > capacity) { free(proof); fail(status, "truncated string"); goto done; }
            if (i) proof[used++] = ',';
            memcpy(proof + used, inputs.data + at, n); used += n; at += n;
        }
        if (at != inputs.len) { free(proof); fail(status, "junk data left in buffer"); goto done; }
        out = vec_u8(proof, used);
        free(proof);
    }
done:
    free(circuit.data); free(srs.data); free(inputs.data); free(vk.data);
    return out;
}

int8_t uniffi_mopro_double_fn_func_verify_noir_proof(RustBuffer circuit, RustBuffer proof, int8_t on_chain, RustBuffer vk,
                                                     int8_t low_memory, RustCallStatus *status) {
    (void)on_chain; (void)low_memory; (void)status;
    int8_t ok = !is("unverified") && proof.len >= 10 && memcmp(proof.data + 4, "proof:", 6) == 0;
    free(circuit.data); free(proof.data); free(vk.data);
    return ok;
}
