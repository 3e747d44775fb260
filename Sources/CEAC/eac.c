#include "CEAC.h"
#include <CLibraryLoader.h>

// OpenPACE 1.1 is libeac.so.3 in the package libeac3 on Debian 12 and 13.
const char *passport_eac_soname(void) { return "libeac.so.3"; }
const char *passport_eac_package(void) { return "libeac3"; }

int passport_eac_load(const char *soname, PassportEAC *table, char *error, size_t size) {
    void *handle;
    if (passport_open_libraries(&soname, 1, &handle, error, size) != 0) return 0;
#define RESOLVE(name) if (!PASSPORT_RESOLVE(*table, &handle, 1, name, error, size)) return 0;
    PASSPORT_EAC_FUNCTIONS(RESOLVE)
#undef RESOLVE
    return 1;
}
