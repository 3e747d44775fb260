#include "CPCSCLite.h"
#include <CLibraryLoader.h>
#include <stdio.h>

// Both Debian 12 (pcsc-lite 1.9) and 13 (2.x) ship the client library as libpcsclite.so.1 in
// the package libpcsclite1.
const char *passport_pcsc_soname(void) { return "libpcsclite.so.1"; }
const char *passport_pcsc_package(void) { return "libpcsclite1"; }

/// Copies the data symbol `symbol` (a SCARD_IO_REQUEST) into `copy`; 0 when the library lacks it.
static int copy_pci(void *handle, const char *symbol, SCARD_IO_REQUEST *copy, char *error, size_t size) {
    const SCARD_IO_REQUEST *pci = passport_find_symbol(&handle, 1, symbol);
    if (pci == NULL) {
        snprintf(error, size, "the library has no %s (another version than the one this program was built with?)", symbol);
        return 0;
    }
    *copy = *pci;
    return 1;
}

int passport_pcsc_load(const char *soname, PassportPCSC *table, char *error, size_t size) {
    void *handle;
    if (passport_open_libraries(&soname, 1, &handle, error, size) != 0) return 0;
#define RESOLVE(name) if (!PASSPORT_RESOLVE(*table, &handle, 1, name, error, size)) return 0;
    PASSPORT_PCSC_FUNCTIONS(RESOLVE)
#undef RESOLVE
    return copy_pci(handle, "g_rgSCardT0Pci", &table->g_rgSCardT0Pci, error, size)
        && copy_pci(handle, "g_rgSCardT1Pci", &table->g_rgSCardT1Pci, error, size)
        && copy_pci(handle, "g_rgSCardRawPci", &table->g_rgSCardRawPci, error, size);
}
