#define _GNU_SOURCE // secure_getenv
#include "CLibraryLoader.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int passport_open_libraries(const char *const *sonames, size_t count, void **handles, char *error, size_t size) {
    for (size_t i = 0; i < count; i++) {
        // GLOBAL: a library opened later (and OpenMP's runtime under Tesseract) finds the earlier ones.
        handles[i] = dlopen(sonames[i], RTLD_NOW | RTLD_GLOBAL);
        if (handles[i] == NULL) {
            const char *reason = dlerror();
            snprintf(error, size, "%s could not be loaded (%s)", sonames[i], reason ? reason : "not found");
            return -1;
        }
    }
    return 0;
}

void *passport_find_symbol(void *const *handles, size_t count, const char *symbol) {
    for (size_t i = 0; i < count; i++) {
        void *address = dlsym(handles[i], symbol);
        if (address != NULL) return address;
    }
    return NULL;
}

void passport_missing_symbol(const char *symbol, char *error, size_t size) {
    snprintf(error, size, "the library has no function %s (another version than the one this program was built with?)", symbol);
}

const char *passport_library_soname(const char *variable, const char *built_with) {
    // secure_getenv: a set-user-ID program never lets its caller choose the code it loads.
    const char *chosen = secure_getenv(variable);
    return chosen != NULL && chosen[0] != '\0' ? chosen : built_with;
}
