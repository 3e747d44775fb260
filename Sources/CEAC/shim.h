// OpenPACE's libeac (Debian libeac-dev): card-verifiable certificates and the terminal side of
// terminal authentication (BSI TR-03110), the library the EAC field itself uses.
#include <openssl/evp.h>
#include <openssl/asn1.h>
#include <openssl/objects.h>
#include <eac/eac.h>
#include <eac/cv_cert.h>
#include <eac/ta.h>
#include <eac/objects.h>

// CVC_CERT's parts, reached through functions: Swift cannot see through libeac's typedef'd
// ASN.1 structs reliably across versions.
static inline const ASN1_OCTET_STRING *passport_cvc_effective_date(const CVC_CERT *c) {
    return c && c->body ? c->body->certificate_effective_date : NULL;
}
static inline const ASN1_OCTET_STRING *passport_cvc_expiration_date(const CVC_CERT *c) {
    return c && c->body ? c->body->certificate_expiration_date : NULL;
}
static inline const ASN1_OBJECT *passport_cvc_public_key_oid(const CVC_CERT *c) {
    return c && c->body && c->body->public_key ? c->body->public_key->oid : NULL;
}
static inline const ASN1_OBJECT *passport_cvc_terminal_type(const CVC_CERT *c) {
    const CVC_CHAT *chat = cvc_get_chat(c);
    return chat ? chat->terminal_type : NULL;
}
static inline const ASN1_OCTET_STRING *passport_cvc_relative_authorization(const CVC_CERT *c) {
    const CVC_CHAT *chat = cvc_get_chat(c);
    return chat ? chat->relative_authorization : NULL;
}
