#ifndef PASSPORT_CNFC_H
#define PASSPORT_CNFC_H
// libnfc (PN53x boards, ACR122U used directly), typed by its headers (libnfc-dev). libnfc is not
// linked: `passport_nfc_load` opens it when a command first asks for a libnfc device (scan
// --nfc, readers, doctor), so that every other command starts on a machine without it.
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <nfc/nfc.h>

/* Exported by libnfc.so.6 but absent from its public headers (libnfc/chips/pn53x.h): sends
 * one PN53x command and returns the answer after the command code, following InDataExchange
 * chaining of long answers. The public nfc_initiator_transceive_bytes caps answers at 264
 * bytes, too short for extended-length APDUs. Declared for its type only. */
int pn53x_transceive(nfc_device *_Nonnull pnd, const uint8_t *_Nonnull pbtTx, const size_t szTx,
                     uint8_t *_Nonnull pbtRx, const size_t szRxLen, int timeout);

#define PASSPORT_NFC_FUNCTIONS(X)                                                                  \
    X(nfc_init) X(nfc_exit) X(nfc_version) X(nfc_list_devices) X(nfc_open) X(nfc_close)            \
    X(nfc_device_get_name) X(nfc_device_get_connstring) X(nfc_strerror) X(nfc_initiator_init)      \
    X(nfc_device_set_property_bool) X(nfc_initiator_select_passive_target)                         \
    X(nfc_initiator_deselect_target) X(nfc_initiator_target_is_present) X(pn53x_transceive)

/// libnfc's functions that the toolkit calls, each typed as its header declares it.
typedef struct PassportNFC {
#define PASSPORT_NFC_FIELD(name) __typeof__(name) *_Nonnull name;
    PASSPORT_NFC_FUNCTIONS(PASSPORT_NFC_FIELD)
#undef PASSPORT_NFC_FIELD
} PassportNFC;

/// Opens `soname` and fills `table` with its functions: 1, the library staying open for the life
/// of the process; or 0 with the reason in `error`.
int passport_nfc_load(const char *_Nonnull soname, PassportNFC *_Nonnull table, char *_Nonnull error, size_t size);

/// The soname of the libnfc this program was built against ("libnfc.so.6").
const char *_Nonnull passport_nfc_soname(void);

/// The Debian package that holds it ("libnfc6").
const char *_Nonnull passport_nfc_package(void);

/* Selects an ISO 14443 type A or B target at 106 kbit/s with `select` (the table's
 * nfc_initiator_select_passive_target; nfc_modulation is a packed struct: built here rather than
 * through Swift's field offsets). */
int passport_nfc_select(__typeof__(nfc_initiator_select_passive_target) *_Nonnull select, nfc_device *_Nonnull device,
                        int type_b, nfc_target *_Nonnull target);

/* Connstrings of the devices `list` (the table's nfc_list_devices) finds, and LIBNFC_DEVICE
 * names, NUL-separated. */
size_t passport_nfc_list(__typeof__(nfc_list_devices) *_Nonnull list, nfc_context *_Nonnull context, char *_Nonnull out, size_t out_len);

/* The historical bytes of an ISO 14443-4 type A target's ATS (after T0 and TA/TB/TC). */
static inline size_t passport_nfc_historical_bytes(const nfc_target *_Nonnull target, uint8_t *_Nonnull out, size_t max) {
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

/* nfc_target is a packed struct: read it here rather than through Swift's field offsets. */
static inline int passport_nfc_is_type_b(const nfc_target *_Nonnull target) { return target->nm.nmt == NMT_ISO14443B; }
#endif
