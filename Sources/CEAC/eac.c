#include "CEAC.h"
#include <CLibraryLoader.h>
#include <stdio.h>
#include <stdlib.h>

// OpenPACE 1.1 is libeac.so.3 in the package libeac3 on Debian 12 and 13.
const char *passport_eac_soname(void) { return "libeac.so.3"; }
const char *passport_eac_package(void) { return "libeac3"; }

const PassportEAC *passport_eac_load(const char *soname, char *error, size_t size) {
    void *handle;
    if (passport_open_libraries(&soname, 1, &handle, error, size) != 0) return NULL;
    PassportEAC *table = calloc(1, sizeof *table);
    if (table == NULL) {
        snprintf(error, size, "no memory for libeac's table");
        return NULL;
    }
#define RESOLVE(name) if (!PASSPORT_RESOLVE(*table, &handle, 1, name, error, size)) { free(table); return NULL; }
    PASSPORT_EAC_FUNCTIONS(RESOLVE)
#undef RESOLVE
    return table;
}
