#ifndef PASSPORT_CCURL_H
#define PASSPORT_CCURL_H
// One HTTP exchange through the system's libcurl (OpenSSL, the system's CA store, the standard
// proxy variables), opened with dlopen on first use. libcurl's setopt is variadic, which Swift
// cannot call: the whole exchange is done here and Swift sees plain structs.
#include <stddef.h>
#include <stdint.h>

typedef enum {
    PASSPORT_HTTP_OK = 0,
    PASSPORT_HTTP_UNTRUSTED_CERTIFICATE, // the server's certificate chains to no trusted anchor, or names another host
    PASSPORT_HTTP_TLS,                   // the TLS handshake failed for another reason
    PASSPORT_HTTP_TOO_LARGE,             // the body passed max_body (announced or while reading)
    PASSPORT_HTTP_DEADLINE,              // the whole exchange took longer than total_timeout_ms
    PASSPORT_HTTP_CONNECT,               // the host or the proxy could not be resolved or reached
    PASSPORT_HTTP_PROXY,                 // the proxy refused or broke the tunnel
    PASSPORT_HTTP_SCHEME,                // the URL's scheme is not allowed
    PASSPORT_HTTP_LIBRARY,               // libcurl could not be opened (not installed)
    PASSPORT_HTTP_OTHER,
} passport_http_outcome;

typedef struct {
    const char *url;
    int post;                       // 0: GET, 1: POST with body
    const char *const *headers;     // "Name: value" lines
    size_t header_count;
    const uint8_t *body;
    size_t body_length;
    const uint8_t *extra_anchors_pem; // PEM certificates trusted besides the system's store, or NULL
    size_t extra_anchors_length;
    long connect_timeout_ms;
    long total_timeout_ms;          // the deadline of the whole exchange
    size_t max_body;
    int allow_plain_http;           // only for loopback test servers the caller has allowed
} passport_http_request;

typedef struct {
    passport_http_outcome outcome;
    long status;
    char *content_type;             // malloc'd or NULL
    uint8_t *body;                  // malloc'd or NULL
    size_t body_length;
    char error[512];                // libcurl's words when outcome != OK
} passport_http_response;

/// Performs the exchange; `response` is always filled, free it with passport_http_response_free.
void passport_http_perform(const passport_http_request *request, passport_http_response *response);
void passport_http_response_free(passport_http_response *response);
/// The Debian package that holds libcurl.so.4, for messages.
const char *passport_curl_package(void);

#endif
