#ifndef PASSPORT_CPKCS11_SHIM_H
#define PASSPORT_CPKCS11_SHIM_H
// PKCS#11 (Cryptoki) types and constants from p11-kit's header. Nothing is linked: a token's
// module (.so) is opened at run time with dlopen, as every PKCS#11 application does. The header
// is named by its full path instead of through pkg-config, whose flags would link libp11-kit.
#include <p11-kit-1/p11-kit/pkcs11.h>
#endif
