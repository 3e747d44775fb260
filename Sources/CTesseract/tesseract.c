#include "CTesseract.h"
#include <stdio.h>
#include <CLibraryLoader.h>
#include <pthread.h>

#define STRINGIFY(x) #x
#define VERSION(x) STRINGIFY(x)

static const char *const sonames[] = { "libtesseract.so." VERSION(TESSERACT_MAJOR_VERSION) };
static PassportTesseract table;
static char failure[512];
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *handles[1];
    if (passport_open_libraries(sonames, 1, handles, failure, sizeof failure) != 0) return;
#define RESOLVE(name) if (!PASSPORT_RESOLVE(table, handles, 1, name, failure, sizeof failure)) return;
    PASSPORT_TESSERACT_FUNCTIONS(RESOLVE)
#undef RESOLVE
    // libgomp comes in as libtesseract's dependency; a Tesseract without OpenMP has none.
    *(void **)&table.omp_set_max_active_levels = passport_find_symbol(handles, 1, "omp_set_max_active_levels");
    loaded = 1;
}

const PassportTesseract *passport_tesseract_load(char *error, size_t size) {
    pthread_once(&once, load);
    if (loaded) return &table;
    snprintf(error, size, "%s", failure);
    return NULL;
}

const char *passport_tesseract_package(void) { return "libtesseract" VERSION(TESSERACT_MAJOR_VERSION); }
