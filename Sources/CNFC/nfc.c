#include "CNFC.h"
#include <CLibraryLoader.h>

// libnfc 1.8 is libnfc.so.6 in the package libnfc6 on Debian 12 and 13.
const char *passport_nfc_soname(void) { return "libnfc.so.6"; }
const char *passport_nfc_package(void) { return "libnfc6"; }

int passport_nfc_load(const char *soname, PassportNFC *table, char *error, size_t size) {
    void *handle;
    if (passport_open_libraries(&soname, 1, &handle, error, size) != 0) return 0;
#define RESOLVE(name) if (!PASSPORT_RESOLVE(*table, &handle, 1, name, error, size)) return 0;
    PASSPORT_NFC_FUNCTIONS(RESOLVE)
#undef RESOLVE
    return 1;
}

int passport_nfc_select(__typeof__(nfc_initiator_select_passive_target) *select, nfc_device *device, int type_b, nfc_target *target) {
    nfc_modulation modulation;
    modulation.nmt = type_b ? NMT_ISO14443B : NMT_ISO14443A;
    modulation.nbr = NBR_106;
    return select(device, modulation, NULL, 0, target);
}

size_t passport_nfc_list(__typeof__(nfc_list_devices) *list, nfc_context *context, char *out, size_t out_len) {
    nfc_connstring found[16];
    size_t count = list(context, found, 16);
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
