#ifndef PASSPORT_CNFC_SHIM_H
#define PASSPORT_CNFC_SHIM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <nfc/nfc.h>

/* Exported by libnfc.so.6 but absent from its public headers (libnfc/chips/pn53x.h): sends
 * one PN53x command and returns the answer after the command code, following InDataExchange
 * chaining of long answers. The public nfc_initiator_transceive_bytes caps answers at 264
 * bytes, too short for extended-length APDUs. */
int pn53x_transceive(nfc_device *pnd, const uint8_t *pbtTx, const size_t szTx,
                     uint8_t *pbtRx, const size_t szRxLen, int timeout);

/* nfc_target is a packed struct: read it here rather than through Swift's field offsets. */
static inline int passport_nfc_select(nfc_device *device, int type_b, nfc_target *target) {
    nfc_modulation modulation;
    modulation.nmt = type_b ? NMT_ISO14443B : NMT_ISO14443A;
    modulation.nbr = NBR_106;
    return nfc_initiator_select_passive_target(device, modulation, NULL, 0, target);
}

/* The historical bytes of an ISO 14443-4 type A target's ATS (after T0 and TA/TB/TC). */
static inline size_t passport_nfc_historical_bytes(const nfc_target *target, uint8_t *out, size_t max) {
    if (target->nm.nmt != NMT_ISO14443A) return 0;
    const uint8_t *ats = target->nti.nai.abtAts;
    size_t length = target->nti.nai.szAtsLen;
    if (length < 1) return 0;
    size_t offset = 1 + ((ats[0] & 0x10) ? 1 : 0) + ((ats[0] & 0x20) ? 1 : 0) + ((ats[0] & 0x40) ? 1 : 0);
    if (offset > length) return 0;
    size_t count = length - offset;
    if (count > max) count = max;
    memcpy(out, ats + offset, count);
    return count;
}

static inline int passport_nfc_is_type_b(const nfc_target *target) { return target->nm.nmt == NMT_ISO14443B; }

/* Connstrings of the devices libnfc finds (and LIBNFC_DEVICE names), NUL-separated. */
static inline size_t passport_nfc_list(nfc_context *context, char *out, size_t out_len) {
    nfc_connstring found[16];
    size_t count = nfc_list_devices(context, found, 16);
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        size_t n = strnlen(found[i], sizeof(nfc_connstring));
        if (used + n + 1 > out_len) break;
        memcpy(out + used, found[i], n);
        out[used + n] = 0;
        used += n + 1;
    }
    return used;
}
#endif
