#ifndef PASSPORT_COPENSSL_SHIM_H
#define PASSPORT_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#endif
