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
#include <openssl/param_build.h>
#include <openssl/kdf.h>

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

static inline int passport_evp_pkey_keypair_selection(void) { return EVP_PKEY_KEYPAIR; }
static inline int passport_evp_pkey_public_selection(void) { return EVP_PKEY_PUBLIC_KEY; }

/* AES-GCM tag handling goes through EVP_CIPHER_CTX_ctrl with macro constants. */
static inline int passport_gcm_set_iv_length(EVP_CIPHER_CTX *ctx, int length) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, length, NULL);
}
static inline int passport_gcm_get_tag(EVP_CIPHER_CTX *ctx, unsigned char *tag, int length) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, length, tag);
}
static inline int passport_gcm_set_tag(EVP_CIPHER_CTX *ctx, unsigned char *tag, int length) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, length, tag);
}
/* Parameter names with static storage: OSSL_PARAM_BLD keeps pointers to its key strings. */
static inline const char *passport_param_group_name(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *passport_param_pub_key(void) { return OSSL_PKEY_PARAM_PUB_KEY; }
static inline const char *passport_param_priv_key(void) { return OSSL_PKEY_PARAM_PRIV_KEY; }

static inline int passport_evp_pkey_ctx_set_dh_pad(EVP_PKEY_CTX *ctx, int pad) { return EVP_PKEY_CTX_set_dh_pad(ctx, pad); }
static inline int passport_rsa_no_padding(void) { return RSA_NO_PADDING; }
#include <openssl/dh.h>

/* RFC 5114 groups for PACE standardized DH parameters 0-2 (the DH_get_* helpers are deprecated
   in OpenSSL 3 but remain the library's own source of these constants). */
static inline int passport_rfc5114_group(int id, const BIGNUM **p, const BIGNUM **q, const BIGNUM **g, DH **holder) {
    DH *dh = NULL;
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    if (id == 0) dh = DH_get_1024_160();
    else if (id == 1) dh = DH_get_2048_224();
    else if (id == 2) dh = DH_get_2048_256();
    if (dh == NULL) return 0;
    DH_get0_pqg(dh, p, q, g);
#pragma clang diagnostic pop
    *holder = dh;
    return 1;
}
static inline void passport_dh_free(DH *dh) {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    DH_free(dh);
#pragma clang diagnostic pop
}
#endif
