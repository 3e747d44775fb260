#include "CCurl.h"
// The type-checking wrappers of curl.h are macros around the function names; the table below
// needs the plain declarations.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <CLibraryLoader.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// libcurl is opened when the first exchange starts, not linked: only `present` and the verifier's
// HTTP tests need it, and its dependencies (nghttp2, ssh, LDAP, Kerberos…) would load with every
// command otherwise.
#define PASSPORT_CURL_FUNCTIONS(X) X(curl_global_init) X(curl_easy_init) X(curl_easy_setopt) \
    X(curl_easy_perform) X(curl_easy_getinfo) X(curl_easy_strerror) X(curl_easy_cleanup) \
    X(curl_slist_append) X(curl_slist_free_all)

static struct {
#define FIELD(name) __typeof__(name) *name;
    PASSPORT_CURL_FUNCTIONS(FIELD)
#undef FIELD
} table;
static const char *const sonames[] = { "libcurl.so.4" };
static char failure[512];
static int loaded;
static pthread_once_t global_once = PTHREAD_ONCE_INIT;

static void global_init(void) {
    void *handles[1];
    if (passport_open_libraries(sonames, 1, handles, failure, sizeof failure) != 0) return;
#define RESOLVE(name) if (!PASSPORT_RESOLVE(table, handles, 1, name, failure, sizeof failure)) return;
    PASSPORT_CURL_FUNCTIONS(RESOLVE)
#undef RESOLVE
    table.curl_global_init(CURL_GLOBAL_DEFAULT);
    loaded = 1;
}

// From here on, every curl_* call goes through the table (curl.h's own function-like macros of
// two of them are replaced).
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_easy_init table.curl_easy_init
#define curl_easy_setopt table.curl_easy_setopt
#define curl_easy_perform table.curl_easy_perform
#define curl_easy_getinfo table.curl_easy_getinfo
#define curl_easy_strerror table.curl_easy_strerror
#define curl_easy_cleanup table.curl_easy_cleanup
#define curl_slist_append table.curl_slist_append
#define curl_slist_free_all table.curl_slist_free_all

// The package of the release built on: libcurl 8 came with the 64-bit time_t package names
// (Debian 13, Ubuntu 24.04), libcurl 7 without (Debian 12, Ubuntu 22.04).
#if LIBCURL_VERSION_MAJOR >= 8
const char *passport_curl_package(void) { return "libcurl4t64"; }
#else
const char *passport_curl_package(void) { return "libcurl4"; }
#endif

typedef struct {
    uint8_t *data;
    size_t length, capacity, limit;
    int too_large;
} sink;

// Stops the transfer (by returning less than given) as soon as the body would pass the limit:
// a hostile server cannot make us hold more than max_body bytes.
static size_t write_body(char *chunk, size_t size, size_t count, void *context) {
    sink *out = context;
    size_t n = size * count;
    if (n > out->limit - out->length) { out->too_large = 1; return 0; }
    if (out->length + n > out->capacity) {
        size_t capacity = out->capacity ? out->capacity : 16384;
        while (capacity < out->length + n) capacity *= 2;
        if (capacity > out->limit) capacity = out->limit;
        uint8_t *grown = realloc(out->data, capacity);
        if (grown == NULL) return 0;
        out->data = grown;
        out->capacity = capacity;
    }
    memcpy(out->data + out->length, chunk, n);
    out->length += n;
    return n;
}

// The system's CA bundle (libcurl's built-in default) followed by the extra anchors: libcurl
// takes one blob, and the anchors are meant to add to the system's store, not replace it.
static char *anchors_blob(CURL *curl, const passport_http_request *request, size_t *length) {
    char *system_bundle = NULL;
    size_t system_length = 0;
    char *path = NULL;
    if (curl_easy_getinfo(curl, CURLINFO_CAINFO, &path) == CURLE_OK && path != NULL) {
        FILE *file = fopen(path, "rb");
        if (file != NULL) {
            if (fseek(file, 0, SEEK_END) == 0) {
                long size = ftell(file);
                if (size > 0 && fseek(file, 0, SEEK_SET) == 0 && (system_bundle = malloc((size_t)size + 1)) != NULL)
                    system_length = fread(system_bundle, 1, (size_t)size, file);
            }
            fclose(file);
        }
    }
    char *blob = malloc(system_length + request->extra_anchors_length + 2);
    if (blob == NULL) { free(system_bundle); return NULL; }
    if (system_length) memcpy(blob, system_bundle, system_length);
    blob[system_length] = '\n';
    memcpy(blob + system_length + 1, request->extra_anchors_pem, request->extra_anchors_length);
    *length = system_length + 1 + request->extra_anchors_length;
    free(system_bundle);
    return blob;
}

static passport_http_outcome classify(CURLcode code, const sink *body) {
    switch (code) {
    case CURLE_OK: return PASSPORT_HTTP_OK;
    case CURLE_PEER_FAILED_VERIFICATION:
#if LIBCURL_VERSION_NUM < 0x073e00
    case CURLE_SSL_CACERT:
#endif
        return PASSPORT_HTTP_UNTRUSTED_CERTIFICATE;
    case CURLE_SSL_CONNECT_ERROR: case CURLE_SSL_CERTPROBLEM: case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE: case CURLE_SSL_ISSUER_ERROR: case CURLE_SSL_CRL_BADFILE:
        return PASSPORT_HTTP_TLS;
    case CURLE_WRITE_ERROR: return body->too_large ? PASSPORT_HTTP_TOO_LARGE : PASSPORT_HTTP_OTHER;
    case CURLE_FILESIZE_EXCEEDED: return PASSPORT_HTTP_TOO_LARGE;
    case CURLE_OPERATION_TIMEDOUT: return PASSPORT_HTTP_DEADLINE;
    case CURLE_COULDNT_RESOLVE_PROXY: case CURLE_COULDNT_RESOLVE_HOST: case CURLE_COULDNT_CONNECT:
        return PASSPORT_HTTP_CONNECT;
#if LIBCURL_VERSION_NUM >= 0x074900
    case CURLE_PROXY:
        return PASSPORT_HTTP_PROXY;
#endif
    case CURLE_UNSUPPORTED_PROTOCOL: return PASSPORT_HTTP_SCHEME;
    default: return PASSPORT_HTTP_OTHER;
    }
}

void passport_http_perform(const passport_http_request *request, passport_http_response *response) {
    memset(response, 0, sizeof *response);
    pthread_once(&global_once, global_init);
    if (!loaded) {
        response->outcome = PASSPORT_HTTP_LIBRARY;
        snprintf(response->error, sizeof response->error, "%s", failure);
        return;
    }
    CURL *curl = curl_easy_init();
    if (curl == NULL) {
        response->outcome = PASSPORT_HTTP_OTHER;
        snprintf(response->error, sizeof response->error, "libcurl could not start a transfer");
        return;
    }
    sink body = { .limit = request->max_body };
    struct curl_slist *headers = NULL;
    char *blob = NULL;
    char error[CURL_ERROR_SIZE] = "";

    curl_easy_setopt(curl, CURLOPT_URL, request->url);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, request->allow_plain_http ? "http,https" : "https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, request->connect_timeout_ms);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, request->total_timeout_ms);
    curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)request->max_body);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "passport-toolkit");
    for (size_t i = 0; i < request->header_count; i++) headers = curl_slist_append(headers, request->headers[i]);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    if (request->post) {
        curl_easy_setopt(curl, CURLOPT_POST, 1L);
        // Never NULL: libcurl would then read the body from stdin.
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request->body != NULL ? (const char *)request->body : "");
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)request->body_length);
    }
    if (request->extra_anchors_pem != NULL && request->extra_anchors_length > 0) {
        size_t length = 0;
        blob = anchors_blob(curl, request, &length);
        if (blob != NULL) {
            struct curl_blob anchors = { .data = blob, .len = length, .flags = CURL_BLOB_NOCOPY };
            curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &anchors);
        }
    }

    CURLcode code = curl_easy_perform(curl);
    response->outcome = classify(code, &body);
    if (code == CURLE_OK) {
        char *type = NULL;
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response->status);
        if (curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &type) == CURLE_OK && type != NULL) response->content_type = strdup(type);
        response->body = body.data;
        response->body_length = body.length;
        body.data = NULL;
    } else {
        snprintf(response->error, sizeof response->error, "%s", error[0] ? error : curl_easy_strerror(code));
    }
    free(body.data);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    free(blob);
}

void passport_http_response_free(passport_http_response *response) {
    free(response->content_type);
    free(response->body);
    response->content_type = NULL;
    response->body = NULL;
}
