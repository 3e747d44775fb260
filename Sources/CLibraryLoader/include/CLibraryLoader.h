#ifndef PASSPORT_LIBRARY_LOADER_H
#define PASSPORT_LIBRARY_LOADER_H
// Opening a large optional C library at run time (dlopen) instead of linking it, so that only the
// command that uses it pays for loading it (docs/ARCHITECTURE.md, "What a command loads").
#include <stddef.h>

/// Opens each of `sonames` in order (RTLD_NOW | RTLD_GLOBAL, dependencies first) into `handles`.
/// Returns 0, or -1 with a message naming the missing library in `error`.
int passport_open_libraries(const char *const *sonames, size_t count, void **handles, char *error, size_t size);

/// The address of `symbol` in the first of `handles` that has it, or NULL.
void *passport_find_symbol(void *const *handles, size_t count, const char *symbol);

/// Fills a table field with the symbol of the same name, or records it as missing and returns 0.
#define PASSPORT_RESOLVE(table, handles, count, name, error, size)                                 \
    ((*(void **)&(table).name = passport_find_symbol((handles), (count), #name)) != NULL             \
         ? 1 : (passport_missing_symbol(#name, (error), (size)), 0))

void passport_missing_symbol(const char *symbol, char *error, size_t size);

/// The soname to open: the value of the environment variable `variable` when it is set and not
/// empty (tests and the package checks name a library that is not there), else `built_with`,
/// the soname of the version this program was built against.
const char *passport_library_soname(const char *variable, const char *built_with);
#endif
