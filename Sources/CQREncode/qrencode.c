#include "CQREncode.h"
#include <CLibraryLoader.h>

// libqrencode 4's soname and package name are the same on Debian 12 and 13 (it has no time_t in
// its interface, so the 64-bit time_t transition did not rename it).
const char *passport_qrencode_soname(void) { return "libqrencode.so.4"; }
const char *passport_qrencode_package(void) { return "libqrencode4"; }

int passport_qrencode_load(const char *soname, PassportQREncode *table, char *error, size_t size) {
    void *handles[1];
    if (passport_open_libraries(&soname, 1, handles, error, size) != 0) return 0;
#define RESOLVE(name) if (!PASSPORT_RESOLVE(*table, handles, 1, name, error, size)) return 0;
    PASSPORT_QRENCODE_FUNCTIONS(RESOLVE)
#undef RESOLVE
    return 1;
}
