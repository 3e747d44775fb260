#ifndef PASSPORT_CPKCS11_SHIM_H
#define PASSPORT_CPKCS11_SHIM_H
// PKCS#11 (Cryptoki) types and constants from p11-kit's header. Nothing is linked: a token's
// module (.so) is opened at run time with dlopen, as every PKCS#11 application does.
#include <p11-kit/pkcs11.h>
#endif
