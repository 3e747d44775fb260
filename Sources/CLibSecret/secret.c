#include "CLibSecret.h"
#include <CLibraryLoader.h>

// libsecret-1.so.0 in libsecret-1-0 on Debian 12 and 13; GLib's three are libsecret's own
// dependencies (libglib2.0-0, on Debian 13 libglib2.0-0t64), so naming libsecret's package is enough.
const char *passport_secret_soname(void) { return "libsecret-1.so.0"; }
const char *passport_secret_package(void) { return "libsecret-1-0"; }

enum { library_count = 4 };

int passport_secret_load(const char *soname, PassportSecret *table, char *error, size_t size) {
    // Dependencies first, each by the soname GLib 2 has always had.
    const char *sonames[library_count] = { "libglib-2.0.so.0", "libgobject-2.0.so.0", "libgio-2.0.so.0", soname };
    void *handles[library_count];
    if (passport_open_libraries(sonames, library_count, handles, error, size) != 0) return 0;
#define RESOLVE(name) if (!PASSPORT_RESOLVE(*table, handles, library_count, name, error, size)) return 0;
    PASSPORT_SECRET_FUNCTIONS(RESOLVE)
#undef RESOLVE
    return 1;
}
