#include "CLeptonica.h"
#include <CLibraryLoader.h>

// Leptonica 1.83 renamed its library: 1.82 (Debian 12) is liblept.so.5 in liblept5, 1.84
// (Debian 13) libleptonica.so.6 in libleptonica6.
#if LIBLEPT_MAJOR_VERSION > 1 || LIBLEPT_MINOR_VERSION >= 83
const char *passport_leptonica_soname(void) { return "libleptonica.so.6"; }
const char *passport_leptonica_package(void) { return "libleptonica6"; }
#else
const char *passport_leptonica_soname(void) { return "liblept.so.5"; }
const char *passport_leptonica_package(void) { return "liblept5"; }
#endif

int passport_leptonica_load(const char *soname, PassportLeptonica *table, char *error, size_t size) {
    void *handle;
    if (passport_open_libraries(&soname, 1, &handle, error, size) != 0) return 0;
#define RESOLVE(name) if (!PASSPORT_RESOLVE(*table, &handle, 1, name, error, size)) return 0;
    PASSPORT_LEPTONICA_FUNCTIONS(RESOLVE)
#undef RESOLVE
    return 1;
}
