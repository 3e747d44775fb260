#include "CZBar.h"
#include <CLibraryLoader.h>
#include <features.h>

const char *passport_zbar_soname(void) { return "libzbar.so.0"; }

// Debian 13 renamed libraries with time_t in their interface for the 64-bit time_t transition
// (libzbar0 → libzbar0t64); without ZBar's headers at build time, the C library's version tells
// the release apart: glibc 2.36 in Debian 12, 2.41 in Debian 13.
#if __GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 38)
const char *passport_zbar_package(void) { return "libzbar0t64"; }
#else
const char *passport_zbar_package(void) { return "libzbar0"; }
#endif

unsigned long passport_zbar_grey_format(void) {
    return (unsigned long)'Y' | ((unsigned long)'8' << 8) | ((unsigned long)'0' << 16) | ((unsigned long)'0' << 24);
}

int passport_zbar_load(const char *soname, PassportZBar *table, char *error, size_t size) {
    void *handles[1];
    if (passport_open_libraries(&soname, 1, handles, error, size) != 0) return 0;
#define RESOLVE(name) if (!PASSPORT_RESOLVE(*table, handles, 1, name, error, size)) return 0;
    PASSPORT_ZBAR_FUNCTIONS(RESOLVE)
#undef RESOLVE
    return 1;
}
