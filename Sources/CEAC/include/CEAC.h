#ifndef PASSPORT_CEAC_H
#define PASSPORT_CEAC_H
// OpenPACE's libeac (Debian libeac-dev): card-verifiable certificates and the terminal side of
// terminal authentication (BSI TR-03110), the library the EAC field itself uses. libeac is not
// linked: `passport_eac_load` opens it when terminal credentials are first read (scan --eac,
// --terminal-cert), so that every other command starts on a machine without it.
#include <stddef.h>
#include <openssl/evp.h>
#include <openssl/asn1.h>
#include <openssl/objects.h>
#include <eac/eac.h>
#include <eac/cv_cert.h>
#include <eac/ta.h>
#include <eac/objects.h>

#define PASSPORT_EAC_FUNCTIONS(X)                                                                  \
    X(EAC_init) X(CVC_d2i_CVC_CERT) X(CVC_CERT_free) X(CVC_get_chr) X(CVC_get_car) X(cvc_get_chat)   \
    X(EAC_CTX_new) X(EAC_CTX_clear_free) X(EAC_CTX_init_ta) X(TA_disable_checks)                    \
    X(TA_STEP2_import_certificate)

/// libeac's functions that the toolkit calls, each typed as its header declares it.
typedef struct PassportEAC {
#define PASSPORT_EAC_FIELD(name) __typeof__(name) *_Nonnull name;
    PASSPORT_EAC_FUNCTIONS(PASSPORT_EAC_FIELD)
#undef PASSPORT_EAC_FIELD
} PassportEAC;

/// Opens `soname` and fills `table` with its functions: 1, the library staying open for the life
/// of the process; or 0 with the reason in `error`.
int passport_eac_load(const char *_Nonnull soname, PassportEAC *_Nonnull table, char *_Nonnull error, size_t size);

/// The soname of the libeac this program was built against ("libeac.so.3").
const char *_Nonnull passport_eac_soname(void);

/// The Debian package that holds it ("libeac3").
const char *_Nonnull passport_eac_package(void);

// CVC_CERT's parts, reached through functions: Swift cannot see through libeac's typedef'd
// ASN.1 structs reliably across versions. (The CHAT comes from libeac's cvc_get_chat.)
static inline const ASN1_OCTET_STRING *_Nullable passport_cvc_effective_date(const CVC_CERT *_Nullable c) {
    return c && c->body ? c->body->certificate_effective_date : NULL;
}
static inline const ASN1_OCTET_STRING *_Nullable passport_cvc_expiration_date(const CVC_CERT *_Nullable c) {
    return c && c->body ? c->body->certificate_expiration_date : NULL;
}
static inline const ASN1_OBJECT *_Nullable passport_cvc_public_key_oid(const CVC_CERT *_Nullable c) {
    return c && c->body && c->body->public_key ? c->body->public_key->oid : NULL;
}
static inline const ASN1_OBJECT *_Nullable passport_chat_terminal_type(const CVC_CHAT *_Nullable chat) {
    return chat ? chat->terminal_type : NULL;
}
static inline const ASN1_OCTET_STRING *_Nullable passport_chat_relative_authorization(const CVC_CHAT *_Nullable chat) {
    return chat ? chat->relative_authorization : NULL;
}
#endif
