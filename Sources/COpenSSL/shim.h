#ifndef PASSPORT_COPENSSL_SHIM_H
#define PASSPORT_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/rsa.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

/* Macros and inline helpers Swift cannot import directly. */
static inline int passport_x509_subject_key_id(X509 *cert, const unsigned char **data, int *length) {
    const ASN1_OCTET_STRING *skid = X509_get0_subject_key_id(cert);
    if (skid == NULL) return 0;
    *data = ASN1_STRING_get0_data(skid);
    *length = ASN1_STRING_length(skid);
    return 1;
}

static inline int passport_x509_authority_key_id(X509 *cert, const unsigned char **data, int *length) {
    const ASN1_OCTET_STRING *akid = X509_get0_authority_key_id(cert);
    if (akid == NULL) return 0;
    *data = ASN1_STRING_get0_data(akid);
    *length = ASN1_STRING_length(akid);
    return 1;
}

static inline int passport_evp_pkey_ctx_set_rsa_padding(EVP_PKEY_CTX *ctx, int padding) {
    return EVP_PKEY_CTX_set_rsa_padding(ctx, padding);
}
static inline int passport_evp_pkey_ctx_set_rsa_pss_saltlen(EVP_PKEY_CTX *ctx, int len) {
    return EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, len);
}
static inline int passport_evp_pkey_ctx_set_rsa_mgf1_md(EVP_PKEY_CTX *ctx, const EVP_MD *md) {
    return EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, md);
}
static inline void passport_openssl_free(void *p) { OPENSSL_free(p); }
#endif
